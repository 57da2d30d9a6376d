# The Parquet file reader (and, through writer.cmake, the writer) in library floe_parquet.
floe_add_module(parquet
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/reader.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/schema_internal.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/column_reader_internal.cc
  DEPS floe_parquet_metadata floe_parquet_encoding floe_compression floe_io floe_batch)

floe_add_test(floe_parquet_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/reader_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/reader_values_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/reader_hostile_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/reader_read_ahead_test.cc
  DEPS floe_parquet)
