# Parquet value and level encodings (Encodings.md).
floe_add_module(parquet_encoding
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/encoding.cc
  DEPS floe_common)

floe_add_test(floe_parquet_encoding_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/encoding_test.cc
  DEPS floe_parquet_encoding)

# The decoders are the reader's hot loops; GCC vectorises them only at -O3.
target_compile_options(floe_parquet_encoding PRIVATE -O3)
