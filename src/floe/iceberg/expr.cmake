# Iceberg transforms, single-value serialization, expressions, projections and evaluators.
set(_floe_iceberg_expr_deps floe_batch)
if(TARGET floe_iceberg_model)
  list(APPEND _floe_iceberg_expr_deps floe_iceberg_model)
endif()

floe_add_module(iceberg_expr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/transform.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/single_value.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/expression.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/projection.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/evaluator.cc
  DEPS ${_floe_iceberg_expr_deps})

set(_floe_iceberg_expr_test_deps floe_iceberg_expr floe_parquet)
if(TARGET floe_iceberg_model)
  list(APPEND _floe_iceberg_expr_test_deps floe_iceberg_model)
endif()

floe_add_test(floe_iceberg_expr_test
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/transform_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/single_value_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/expression_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/projection_test.cc
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/evaluator_test.cc
  DEPS ${_floe_iceberg_expr_test_deps})
