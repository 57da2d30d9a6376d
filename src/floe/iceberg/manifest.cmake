# Manifest lists and manifests: reading with inheritance, writing, and data_file records.
floe_add_module(iceberg_manifest
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/manifest_io.cc
  DEPS floe_avro floe_iceberg_model floe_iceberg_expr floe_io nlohmann_json::nlohmann_json)
# The entry decode loop is the planning hot path.
target_compile_options(floe_iceberg_manifest PRIVATE -O3)

floe_add_test(floe_iceberg_manifest_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/manifest_io_test.cc
  DEPS floe_iceberg_manifest)

# Writes a manifest and a manifest list for the avsc interop suite
# (test/interop/manifest_avsc.mjs).
if(FLOE_BUILD_TESTS)
  add_executable(floe_manifest_tool ${CMAKE_CURRENT_SOURCE_DIR}/tests/manifest_tool.cc)
  target_link_libraries(floe_manifest_tool PRIVATE floe_iceberg_manifest)
  floe_target_defaults(floe_manifest_tool)
endif()
