#include "floe/expr/function_registry_internal.h"

namespace floe::expr::internal {

void RegisterComparisonFunctions(ScalarFunctionRegistry& registry) { (void)registry; }

}  // namespace floe::expr::internal
