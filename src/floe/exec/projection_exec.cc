#include "floe/exec/projection_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/exec/plan_codec.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

// `e` (over the input) re-expressed over the projection's output, or null when a column
// it needs does not survive.
expr::PhysicalExprPtr Reexpress(const expr::PhysicalExprPtr& e,
                                const std::vector<expr::PhysicalExprPtr>& exprs,
                                const std::vector<int>& column_to_output,
                                const SchemaPtr& output_schema) {
  const expr::ExprPtr& source = e->source();
  if (!source) return nullptr;
  for (size_t j = 0; j < exprs.size(); ++j) {
    const expr::ExprPtr& out = exprs[j]->source();
    if (out && out->Equals(*source)) {
      const Field& field = output_schema->field(static_cast<int>(j));
      Result<expr::PhysicalExprPtr> column = expr::Compile(
          expr::Column(static_cast<int>(j), field.name(), field.type(), field.nullable()),
          output_schema);
      return column.ok() ? *column : nullptr;
    }
  }
  for (int column : expr::ReferencedColumns(*source)) {
    if (column < 0 || column >= static_cast<int>(column_to_output.size()) ||
        column_to_output[static_cast<size_t>(column)] < 0) {
      return nullptr;
    }
  }
  Result<expr::PhysicalExprPtr> compiled =
      expr::Compile(expr::RemapColumns(source, column_to_output), output_schema);
  return compiled.ok() ? *compiled : nullptr;
}

class ProjectionStream final : public BatchStream {
 public:
  ProjectionStream(BatchStreamPtr input, SchemaPtr schema,
                   const std::vector<expr::PhysicalExprPtr>* exprs, MemoryPool* pool)
      : input_(std::move(input)), schema_(std::move(schema)), exprs_(exprs) {
    eval_.pool = pool;
  }

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (!batch) return batch;
    std::vector<ArrayPtr> columns;
    columns.reserve(exprs_->size());
    for (const expr::PhysicalExprPtr& e : *exprs_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr column, expr::EvaluateToArray(*e, *batch, eval_));
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
  }

 private:
  BatchStreamPtr input_;
  SchemaPtr schema_;
  const std::vector<expr::PhysicalExprPtr>* exprs_;
  expr::EvalContext eval_;
};

}  // namespace

Result<PlanPtr> ProjectionExec::Make(std::vector<expr::PhysicalExprPtr> exprs,
                                     std::vector<std::string> names, PlanPtr input) {
  if (!input) return Status::Internal("ProjectionExec: no input");
  if (exprs.size() != names.size()) {
    return Status::Internal("ProjectionExec: {} expressions but {} names", exprs.size(),
                            names.size());
  }
  std::vector<Field> fields;
  fields.reserve(exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (!exprs[i]) return Status::Internal("ProjectionExec: expression {} is null", i);
    fields.emplace_back(names[i], exprs[i]->type(), exprs[i]->nullable());
  }
  PlanProperties properties;
  properties.schema = std::make_shared<const Schema>(std::move(fields));

  // Input columns passed through unchanged, by input index.
  const PlanProperties& in = input->properties();
  std::vector<int> column_to_output(static_cast<size_t>(in.schema->num_fields()), -1);
  for (size_t j = 0; j < exprs.size(); ++j) {
    const expr::ExprPtr& source = exprs[j]->source();
    if (source && source->kind == expr::ExprKind::kColumn && source->column >= 0 &&
        source->column < in.schema->num_fields() &&
        column_to_output[static_cast<size_t>(source->column)] < 0) {
      column_to_output[static_cast<size_t>(source->column)] = static_cast<int>(j);
    }
  }

  const Partitioning& partitioning = in.partitioning;
  properties.partitioning = Partitioning::Unknown(partitioning.partition_count());
  switch (partitioning.kind()) {
    case Partitioning::Kind::kSingle:
    case Partitioning::Kind::kRoundRobin:
    case Partitioning::Kind::kUnknown:
      properties.partitioning = partitioning;
      break;
    case Partitioning::Kind::kHash: {
      std::vector<expr::PhysicalExprPtr> hash_exprs;
      for (const expr::PhysicalExprPtr& e : partitioning.exprs()) {
        expr::PhysicalExprPtr out = Reexpress(e, exprs, column_to_output, properties.schema);
        if (!out) break;
        hash_exprs.push_back(std::move(out));
      }
      if (hash_exprs.size() == partitioning.exprs().size()) {
        properties.partitioning =
            Partitioning::Hash(std::move(hash_exprs), partitioning.partition_count());
      }
      break;
    }
  }
  for (const PhysicalSortExpr& key : in.ordering) {
    expr::PhysicalExprPtr out = Reexpress(key.expr, exprs, column_to_output, properties.schema);
    if (!out) break;
    properties.ordering.push_back(
        PhysicalSortExpr{std::move(out), key.descending, key.nulls_first});
  }
  return PlanPtr(new ProjectionExec(std::move(exprs), std::move(names), std::move(input),
                                    std::move(properties)));
}

Result<PlanPtr> ProjectionExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("ProjectionExec takes one child, got {}", children.size());
  }
  return Make(exprs_, names_, std::move(children[0]));
}

Result<BatchStreamPtr> ProjectionExec::Execute(int partition, const TaskContextPtr& ctx) const {
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(
      std::make_unique<ProjectionStream>(std::move(input), schema(), &exprs_, ctx->pool()));
}

std::string ProjectionExec::ToString() const {
  std::string out = "ProjectionExec: ";
  for (size_t i = 0; i < exprs_.size(); ++i) {
    if (i > 0) out += ", ";
    std::string text = exprs_[i]->ToString();
    out += text;
    if (text != names_[i]) out += fmt::format(" AS {}", names_[i]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status ProjectionExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::ProjectionNode m;
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(exprs_, m.mutable_exprs()));
  for (const std::string& name : names_) m.add_names(name);
  return out.SetPayload(m);
}

Result<PlanPtr> ProjectionExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::ProjectionNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  if (m.names_size() != m.exprs_size()) {
    return in.Corrupt(fmt::format("{} names for {} expressions", m.names_size(), m.exprs_size()));
  }
  FLOE_ASSIGN_OR_RAISE(auto exprs, in.Exprs(m.exprs(), children[0]->schema()));
  std::vector<std::string> names(m.names().begin(), m.names().end());
  return Make(std::move(exprs), std::move(names), std::move(children[0]));
}

}  // namespace floe::exec
