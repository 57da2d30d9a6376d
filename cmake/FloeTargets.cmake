# Helpers that give every floe target the same warnings, include root and sanitizers.

set(FLOE_WARNINGS -Wall -Wextra -Werror -Wno-unused-parameter)

set(FLOE_SANITIZE_FLAGS "")
if(FLOE_SANITIZE)
  set(FLOE_SANITIZE_FLAGS "-fsanitize=${FLOE_SANITIZE}" -fno-omit-frame-pointer
      -fno-sanitize-recover=all)
  # GCC 12's -Wmaybe-uninitialized misfires on std::variant copies once sanitizers
  # instrument them (a known false positive); the warning stays on in normal builds.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND FLOE_WARNINGS -Wno-maybe-uninitialized)
  endif()
endif()

function(floe_target_defaults target)
  target_compile_options(${target} PRIVATE ${FLOE_WARNINGS} ${FLOE_SANITIZE_FLAGS})
  target_link_options(${target} PRIVATE ${FLOE_SANITIZE_FLAGS})
endfunction()

# floe_add_module(NAME SOURCES ... DEPS ...): a static library floe_<NAME>.
function(floe_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(floe_${name} STATIC ${ARG_SOURCES})
  target_include_directories(floe_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src
                                                 ${PROJECT_BINARY_DIR}/src)
  target_link_libraries(floe_${name} PUBLIC ${ARG_DEPS})
  floe_target_defaults(floe_${name})
endfunction()

# floe_add_test(NAME SOURCES ... DEPS ... [LABELS ...] [ONE_PROCESS TEST FILTER LABEL]): one
# gtest executable per module. Its cases run with the source root as working directory, each
# as a ctest test of its own. The suites named *FixtureTest* read the shared fixture tables
# (../shared/fixtures/iceberg): they are registered, with the label `fixtures`, only when
# FLOE_HAVE_FIXTURES; every other case always. With ONE_PROCESS, the cases matching FILTER
# (a gtest filter) run together in one process as the ctest test TEST (labels unit and
# LABEL), so that what they share is started once per executable (a PostgreSQL server, a
# REST catalog server); ONE_PROCESS takes several TEST FILTER LABEL triples. A FILTER may
# leave cases out with a negative part ("*/rest:-*Slow*/rest"): those are not run at all.
function(floe_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS;ONE_PROCESS" ${ARGN})
  if(NOT FLOE_BUILD_TESTS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} floe_testing GTest::gmock GTest::gtest_main)
  floe_target_defaults(${name})
  set(exclude "*FixtureTest*")
  list(LENGTH ARG_ONE_PROCESS one_count)
  set(one_at 0)
  while(one_at LESS one_count)
    list(GET ARG_ONE_PROCESS ${one_at} one_test)
    math(EXPR one_at "${one_at} + 1")
    list(GET ARG_ONE_PROCESS ${one_at} one_filter)
    math(EXPR one_at "${one_at} + 1")
    list(GET ARG_ONE_PROCESS ${one_at} one_label)
    math(EXPR one_at "${one_at} + 1")
    # The positive part of the filter; its negative part only narrows this test.
    string(REGEX REPLACE ":?-.*$" "" one_positive "${one_filter}")
    string(APPEND exclude ":${one_positive}")
    if(one_filter MATCHES "-")
      set(one_gtest_filter "${one_filter}:*FixtureTest*")
    else()
      set(one_gtest_filter "${one_filter}:-*FixtureTest*")
    endif()
    add_test(NAME ${one_test}
             COMMAND ${name} "--gtest_filter=${one_gtest_filter}"
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(${one_test} PROPERTIES LABELS "unit;${one_label}")
  endwhile()
  gtest_discover_tests(${name}
    TEST_FILTER "-${exclude}"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "unit;${ARG_LABELS}"
    DISCOVERY_TIMEOUT 60)
  if(FLOE_HAVE_FIXTURES)
    gtest_discover_tests(${name}
      TEST_FILTER "*FixtureTest*"
      TEST_LIST ${name}_fixture_tests
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      DISCOVERY_TIMEOUT 60)
    # PROPERTIES goes through several unquoted expansions on its way to the discovered tests,
    # which split a list of labels; a script ctest reads after them sets the labels instead.
    set(labels unit fixtures ${ARG_LABELS})
    set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_fixture_labels.cmake")
    file(WRITE "${labels_script}"
         "if(${name}_fixture_tests)\n"
         "  set_tests_properties(\${${name}_fixture_tests} PROPERTIES LABELS \"${labels}\")\n"
         "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
  endif()
endfunction()
