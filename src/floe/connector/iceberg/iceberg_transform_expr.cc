#include "floe/connector/iceberg/iceberg_transform_expr.h"

#include <utility>

#include "floe/expr/function_registry.h"

namespace floe::connector {

Result<expr::PhysicalExprPtr> IcebergTransformExpr::Make(iceberg::Transform transform, int column,
                                                         const SchemaPtr& input_schema) {
  if (column < 0 || column >= input_schema->num_fields()) {
    return Status::Internal("IcebergTransformExpr: no column {}", column);
  }
  const Field& field = input_schema->field(column);
  if (!transform.CanTransform(*field.type())) {
    return Status::Invalid("transform {} cannot apply to column \"{}\" of type {}",
                           transform.ToString(), field.name(), field.type()->ToString());
  }
  FLOE_ASSIGN_OR_RAISE(TypePtr type, transform.ResultType(field.type()));
  expr::ExprPtr column_expr = expr::Column(column, field.name(), field.type(), field.nullable());
  FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr child, expr::Compile(column_expr, input_schema));
  auto out = std::shared_ptr<IcebergTransformExpr>(new IcebergTransformExpr());
  out->transform_ = transform;
  out->child_ = std::move(child);
  out->type_ = type;
  // bucket, truncate and the time transforms map non-NULL values to non-NULL values; void
  // maps everything to NULL.
  out->nullable_ = field.nullable() || transform.kind() == iceberg::TransformKind::kVoid;
  out->source_ = expr::Call("iceberg_transform",
                            {expr::Literal(Scalar::Str(transform.ToString())), column_expr}, type,
                            out->nullable_);
  return expr::PhysicalExprPtr(std::move(out));
}

Result<expr::ColumnarValue> IcebergTransformExpr::Evaluate(const RecordBatch& batch,
                                                           expr::EvalContext& ctx) const {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr values, expr::EvaluateToArray(*child_, batch, ctx));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr transformed, transform_.Apply(*values));
  return expr::ColumnarValue(std::move(transformed));
}

std::string IcebergTransformExpr::ToString() const {
  return transform_.ToExpressionString(child_->ToString());
}

// Codec: the source, iceberg_transform('<transform>', column).

Result<expr::PhysicalExprPtr> IcebergTransformExpr::Decode(const expr::ExprPtr& source,
                                                           const SchemaPtr& input_schema) {
  if (source->kind != expr::ExprKind::kCall || source->name != "iceberg_transform" ||
      source->args.size() != 2) {
    return Status::Corrupt(
        "an IcebergTransform must be iceberg_transform('<transform>', column), "
        "not {}",
        source->ToString());
  }
  const expr::Expr& text = *source->args[0];
  const expr::Expr& column = *source->args[1];
  if (text.kind != expr::ExprKind::kLiteral || text.literal.is_null() ||
      text.literal.type() == nullptr || text.literal.type()->id() != TypeId::kString) {
    return Status::Corrupt("iceberg_transform's first argument must be a transform name, not {}",
                           text.ToString());
  }
  const std::string name = text.literal.get<std::string>();
  Result<iceberg::Transform> transform = iceberg::Transform::Parse(name);
  if (!transform.ok() || transform->kind() == iceberg::TransformKind::kUnknown) {
    return Status::Corrupt("unknown Iceberg transform \"{}\"", name);
  }
  if (column.kind != expr::ExprKind::kColumn || column.column < 0 ||
      column.column >= input_schema->num_fields()) {
    return Status::Corrupt("iceberg_transform's second argument must be an input column, not {}",
                           column.ToString());
  }
  const Field& field = input_schema->field(column.column);
  if (column.type == nullptr || !column.type->Equals(*field.type())) {
    return Status::Corrupt("iceberg_transform's column #{} is {} here, {} in the plan",
                           column.column, field.type()->ToString(),
                           column.type ? column.type->ToString() : "untyped");
  }
  Result<expr::PhysicalExprPtr> out = Make(*transform, column.column, input_schema);
  if (!out.ok()) return Status::Corrupt("{}", out.status().message());
  return out;
}

}  // namespace floe::connector
