// CAST between types with PostgreSQL's rules.

#include "floe/expr/function_registry_internal.h"

namespace floe::expr::internal {

Result<ColumnarValue> CastValue(const ColumnarValue& value, const TypePtr& to, int64_t num_rows,
                                EvalContext& ctx) {
  (void)num_rows;
  (void)ctx;
  return Status::NotSupported("cast from " + value.type()->ToString() + " to " + to->ToString());
}

}  // namespace floe::expr::internal
