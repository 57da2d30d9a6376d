# Reading scan tasks: projection by field id, schema evolution, deletes and residuals.
floe_add_module(iceberg_reader
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/task_reader.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/task_reader_internal.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/delete_filter.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/residual_internal.cc
  DEPS floe_parquet floe_puffin floe_iceberg_model floe_iceberg_expr floe_io)

floe_add_test(floe_iceberg_reader_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/task_reader_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/delete_filter_test.cc
  DEPS floe_iceberg_reader)
