# The Iceberg spec model: schemas, types and their JSON, partition specs and sort orders,
# name mappings, table metadata and locating a table's metadata file.
floe_add_module(iceberg_model
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/schema.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/type_json.cc
  DEPS floe_batch floe_io floe_compression nlohmann_json::nlohmann_json)
