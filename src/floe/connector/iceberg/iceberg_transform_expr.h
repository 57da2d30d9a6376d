#pragma once

// An Iceberg transform of one column as a physical expression: the partition tuple of a
// write's hash distribution and sort.

#include <string>
#include <string_view>
#include <vector>

#include "floe/expr/physical_expr.h"
#include "floe/iceberg/transform.h"

namespace floe::connector {

/// An Iceberg partition (or sort) transform of one column as an expression, so that a
/// partition tuple can be a hash distribution's or an ordering's key. Its source() is the
/// call `iceberg_transform('<transform>', column)`; ToString() is "bucket[16](id)".
class IcebergTransformExpr final : public expr::PhysicalExpr {
 public:
  static constexpr std::string_view kName = "IcebergTransform";

  /// `column` is a column of `input_schema`. kInvalidArgument when the transform cannot
  /// apply to the column's type.
  static Result<expr::PhysicalExprPtr> Make(iceberg::Transform transform, int column,
                                            const SchemaPtr& input_schema);
  /// Rebuilds the expression from its source() against `input_schema` (its codec, which
  /// RegisterIcebergPlanCodecs registers). kCorrupt when the source is not such a call, names
  /// an unknown transform or a column that is not there with its type.
  static Result<expr::PhysicalExprPtr> Decode(const expr::ExprPtr& source,
                                              const SchemaPtr& input_schema);

  std::string_view name() const override { return kName; }
  const TypePtr& type() const override { return type_; }
  bool nullable() const override { return nullable_; }
  Result<expr::ColumnarValue> Evaluate(const RecordBatch& batch,
                                       expr::EvalContext& ctx) const override;
  std::vector<expr::PhysicalExprPtr> children() const override { return {child_}; }
  std::string ToString() const override;
  const expr::ExprPtr& source() const override { return source_; }

  const iceberg::Transform& transform() const { return transform_; }

 private:
  IcebergTransformExpr() = default;

  iceberg::Transform transform_ = iceberg::Transform::Identity();
  expr::PhysicalExprPtr child_;
  expr::ExprPtr source_;
  TypePtr type_;
  bool nullable_ = true;
};

}  // namespace floe::connector
