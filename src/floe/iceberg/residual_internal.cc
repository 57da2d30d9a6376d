#include "floe/iceberg/residual_internal.h"

#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/expression.h"

namespace floe::iceberg::internal {

namespace {

std::optional<parquet::ColumnPredicate::Op> ToParquetOp(Operation op) {
  using Op = parquet::ColumnPredicate::Op;
  switch (op) {
    case Operation::kEq:
      return Op::kEq;
    case Operation::kLt:
      return Op::kLt;
    case Operation::kLtEq:
      return Op::kLe;
    case Operation::kGt:
      return Op::kGt;
    case Operation::kGtEq:
      return Op::kGe;
    case Operation::kIsNull:
      return Op::kIsNull;
    case Operation::kNotNull:
      return Op::kIsNotNull;
    case Operation::kIn:
      return Op::kIn;
    default:
      return std::nullopt;
  }
}

void CollectPredicates(const Expression& expr, const std::vector<Field>& file_fields,
                       std::vector<parquet::ColumnPredicate>& out) {
  if (expr.op() == Operation::kAnd) {
    CollectPredicates(*expr.left(), file_fields, out);
    CollectPredicates(*expr.right(), file_fields, out);
    return;
  }
  if (!expr.is_predicate() || !expr.term().bound()) return;
  const Term& term = expr.term();
  if (term.transform && term.transform->kind() != TransformKind::kIdentity) return;
  std::optional<parquet::ColumnPredicate::Op> op = ToParquetOp(expr.op());
  if (!op) return;
  for (size_t c = 0; c < file_fields.size(); ++c) {
    const Field& field = file_fields[c];
    if (!field.has_field_id() || field.field_id() != term.field_id) continue;
    // Statistics are in the file's type; a promoted column's literals would need
    // converting back, so only columns of the same type prune.
    if (field.type()->is_nested() || !field.type()->Equals(*term.type())) return;
    for (const Scalar& literal : expr.literals()) {
      if (literal.is_null() || !literal.type()->Equals(*field.type())) return;
    }
    parquet::ColumnPredicate predicate;
    predicate.column = static_cast<int>(c);
    predicate.op = *op;
    predicate.values = expr.literals();
    out.push_back(std::move(predicate));
    return;
  }
}

}  // namespace

bool IsTrivialResidual(const ExpressionPtr& residual) {
  return residual == nullptr || IsAlwaysTrue(*residual);
}

std::vector<parquet::ColumnPredicate> ResidualToParquetPredicates(
    const Expression& residual, const std::vector<Field>& file_fields) {
  std::vector<parquet::ColumnPredicate> predicates;
  CollectPredicates(residual, file_fields, predicates);
  return predicates;
}

Status ApplyResidual(const Expression& residual, const RecordBatch& batch,
                     std::vector<uint8_t>& keep) {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr matches, EvaluateRows(residual, batch));
  if (matches->type_id() != TypeId::kBoolean || matches->length() != batch.num_rows()) {
    return Status::Internal("residual '{}' did not evaluate to one boolean per row",
                            residual.ToString());
  }
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    if (matches->IsNull(i) || !matches->BoolValue(i)) keep[static_cast<size_t>(i)] = 0;
  }
  return Status::OK();
}

}  // namespace floe::iceberg::internal
