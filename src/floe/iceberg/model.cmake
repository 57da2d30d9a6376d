# The Iceberg spec model: schemas, types and their JSON, partition specs and sort orders,
# name mappings, table metadata and locating a table's metadata file.
#
# partition_spec.cc and the metadata parser use Transform, which floe_iceberg_expr
# implements (and floe_iceberg_expr depends on this library). The library itself does not
# build against floe_iceberg_expr; its link interface names it (when it exists) so that every
# executable linking floe_iceberg_model also gets the Transform implementation.
floe_add_module(iceberg_model
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/schema.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/type_json.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/partition_spec.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/name_mapping.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/table_metadata.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/table_metadata_json.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/table_location.cc
  DEPS floe_batch floe_io floe_compression nlohmann_json::nlohmann_json)
target_link_libraries(floe_iceberg_model INTERFACE $<TARGET_NAME_IF_EXISTS:floe_iceberg_expr>)

floe_add_test(floe_iceberg_model_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/schema_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/type_json_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/partition_spec_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/name_mapping_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/table_metadata_test.cc
  DEPS floe_iceberg_model)
