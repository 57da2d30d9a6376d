#include "floe/expr/function_registry_internal.h"

namespace floe::expr::internal {

void RegisterArithmeticFunctions(ScalarFunctionRegistry& registry) { (void)registry; }

}  // namespace floe::expr::internal
