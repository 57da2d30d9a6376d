# The Parquet writer (writer.h): schema conversion, level generation, statistics, pages,
# page index and footer. Sources join the floe_parquet library declared in reader.cmake.
if(TARGET floe_parquet)
  execute_process(COMMAND git rev-parse --short HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE FLOE_PARQUET_BUILD_ID
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _floe_git_rc)
  if(NOT _floe_git_rc EQUAL 0 OR FLOE_PARQUET_BUILD_ID STREQUAL "")
    set(FLOE_PARQUET_BUILD_ID "dev")
  endif()
  target_sources(floe_parquet PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/writer.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/writer_schema.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/writer_statistics.cc)
  set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/writer.cc PROPERTIES
    COMPILE_DEFINITIONS "FLOE_VERSION=\"${PROJECT_VERSION}\";FLOE_BUILD_ID=\"${FLOE_PARQUET_BUILD_ID}\"")
  if(TARGET floe_parquet_test)
    target_sources(floe_parquet_test PRIVATE
      ${CMAKE_CURRENT_SOURCE_DIR}/tests/writer_test.cc
      ${CMAKE_CURRENT_SOURCE_DIR}/tests/writer_internal_test.cc)
  endif()
endif()
