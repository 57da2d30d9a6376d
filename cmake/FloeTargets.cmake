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

# floe_add_test(NAME SOURCES ... DEPS ... [LABELS ...]): one gtest executable per module.
function(floe_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT FLOE_BUILD_TESTS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} floe_testing GTest::gmock GTest::gtest_main)
  floe_target_defaults(${name})
  gtest_discover_tests(${name}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "unit;${ARG_LABELS}"
    DISCOVERY_TIMEOUT 60)
endfunction()
