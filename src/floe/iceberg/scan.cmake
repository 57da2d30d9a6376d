# Scan planning and opening tables.
floe_add_module(iceberg_scan
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/table_scan.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/table.cc
  DEPS floe_iceberg_reader floe_iceberg_manifest floe_iceberg_expr floe_iceberg_model floe_io)

floe_add_test(floe_iceberg_scan_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/table_scan_test.cc
  DEPS floe_iceberg_scan)
