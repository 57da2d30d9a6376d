# Thrift compact protocol and the Parquet footer / page-header model.
floe_add_module(parquet_metadata
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/thrift_compact.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/metadata.cc
  DEPS floe_common)

floe_add_test(floe_parquet_metadata_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/thrift_compact_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/metadata_test.cc
  DEPS floe_parquet_metadata)
