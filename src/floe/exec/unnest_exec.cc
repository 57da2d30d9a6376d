#include "floe/exec/unnest_exec.h"

#include <algorithm>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/task_context.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

// `e` (over the input) compiled over the output, whose first columns are the input's.
expr::PhysicalExprPtr OverOutput(const expr::PhysicalExprPtr& e, const SchemaPtr& output) {
  if (!e->source()) return nullptr;
  Result<expr::PhysicalExprPtr> compiled = expr::Compile(e->source(), output);
  return compiled.ok() ? *compiled : nullptr;
}

class UnnestStream final : public BatchStream {
 public:
  UnnestStream(BatchStreamPtr input, SchemaPtr schema, const UnnestExec* node, int64_t batch_size,
               MemoryPool* pool)
      : input_(std::move(input)),
        schema_(std::move(schema)),
        node_(node),
        batch_size_(std::max<int64_t>(1, batch_size)),
        pool_(pool) {
    eval_.pool = pool;
  }

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (!batch_) {
        FLOE_ASSIGN_OR_RAISE(batch_, input_->Next());
        if (!batch_) return batch_;
        lists_.clear();
        for (const expr::PhysicalExprPtr& e : node_->lists()) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr list, expr::EvaluateToArray(*e, *batch_, eval_));
          lists_.push_back(std::move(list));
        }
        row_ = 0;
        element_ = 0;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, Emit());
      if (row_ >= batch_->num_rows()) batch_.reset();
      if (out) return out;
    }
  }

 private:
  int64_t Length(size_t k, int64_t row) const {
    const Array& list = *lists_[k];
    return list.IsNull(row) ? 0 : list.ListEnd(row) - list.ListBegin(row);
  }

  // Up to batch_size_ output rows from the current input batch, from (row_, element_) on;
  // nullptr when its remaining rows yield none.
  Result<RecordBatchPtr> Emit() {
    rows_.clear();
    ordinals_.clear();
    elements_.assign(lists_.size(), {});
    const int64_t n = batch_->num_rows();
    while (row_ < n && static_cast<int64_t>(rows_.size()) < batch_size_) {
      int64_t longest = 0;
      for (size_t k = 0; k < lists_.size(); ++k) longest = std::max(longest, Length(k, row_));
      const int64_t take =
          std::min(longest - element_, batch_size_ - static_cast<int64_t>(rows_.size()));
      for (int64_t j = element_; j < element_ + take; ++j) {
        rows_.push_back(row_);
        ordinals_.push_back(j + 1);
        for (size_t k = 0; k < lists_.size(); ++k) {
          elements_[k].push_back(j < Length(k, row_) ? lists_[k]->ListBegin(row_) + j : -1);
        }
      }
      element_ += std::max<int64_t>(take, 0);
      if (element_ >= longest) {
        ++row_;
        element_ = 0;
      }
    }
    const int64_t count = static_cast<int64_t>(rows_.size());
    if (count == 0) return RecordBatchPtr();
    std::vector<ArrayPtr> columns;
    columns.reserve(static_cast<size_t>(schema_->num_fields()));
    for (const ArrayPtr& column : batch_->columns()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(*column, rows_.data(), count, pool_));
      columns.push_back(std::move(taken));
    }
    for (size_t k = 0; k < lists_.size(); ++k) {
      const Array& values = *lists_[k]->child(0);
      if (!node_->expand()[k] || values.type_id() != TypeId::kStruct) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr taken,
                             TakeArray(values, elements_[k].data(), count, pool_));
        columns.push_back(std::move(taken));
        continue;
      }
      // A struct element's fields, NULL where the element itself is NULL or missing.
      std::vector<int64_t>& at = elements_[k];
      for (int64_t& i : at) {
        if (i >= 0 && values.IsNull(i)) i = -1;
      }
      for (int f = 0; f < values.num_children(); ++f) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(*values.field(f), at.data(), count, pool_));
        columns.push_back(std::move(taken));
      }
    }
    if (node_->ordinality()) {
      Int64Builder ordinality(Int64(), pool_);
      FLOE_RETURN_NOT_OK(ordinality.AppendValues(ordinals_.data(), count));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr column, ordinality.Finish());
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(schema_, count, std::move(columns));
  }

  BatchStreamPtr input_;
  SchemaPtr schema_;
  const UnnestExec* node_;
  const int64_t batch_size_;
  MemoryPool* pool_;
  expr::EvalContext eval_;
  RecordBatchPtr batch_;
  std::vector<ArrayPtr> lists_;
  int64_t row_ = 0;
  int64_t element_ = 0;
  std::vector<int64_t> rows_;
  std::vector<int64_t> ordinals_;
  std::vector<std::vector<int64_t>> elements_;
};

}  // namespace

Result<PlanPtr> UnnestExec::Make(std::vector<expr::PhysicalExprPtr> lists,
                                 std::vector<bool> expand, bool ordinality,
                                 std::vector<std::string> names, PlanPtr input) {
  if (!input) return Status::Internal("UnnestExec: no input");
  if (lists.empty()) return Status::Internal("UnnestExec: nothing to unnest");
  if (expand.size() != lists.size()) {
    return Status::Internal("UnnestExec: {} lists but {} expand flags", lists.size(),
                            expand.size());
  }
  std::vector<Field> fields = input->schema()->fields();
  size_t name = 0;
  auto add = [&](const TypePtr& type, bool nullable) -> Status {
    if (name >= names.size()) return Status::Internal("UnnestExec: too few names");
    fields.emplace_back(names[name++], type, nullable);
    return Status::OK();
  };
  for (size_t k = 0; k < lists.size(); ++k) {
    if (!lists[k] || lists[k]->type()->id() != TypeId::kList) {
      return Status::Internal("UnnestExec: expression {} is not a list", k);
    }
    const TypePtr& element = lists[k]->type()->field(0).type();
    if (expand[k] && element->id() == TypeId::kStruct) {
      for (const Field& f : element->fields()) FLOE_RETURN_NOT_OK(add(f.type(), true));
    } else {
      FLOE_RETURN_NOT_OK(add(element, true));
    }
  }
  if (ordinality) FLOE_RETURN_NOT_OK(add(Int64(), false));
  if (name != names.size()) {
    return Status::Internal("UnnestExec: {} names for {} output columns", names.size(), name);
  }
  PlanProperties properties;
  properties.schema = std::make_shared<const Schema>(std::move(fields));
  // The input's rows repeat in order, with their columns at the same positions.
  const PlanProperties& in = input->properties();
  properties.partitioning = Partitioning::Unknown(in.partitioning.partition_count());
  if (in.partitioning.kind() == Partitioning::Kind::kHash) {
    std::vector<expr::PhysicalExprPtr> hash;
    for (const expr::PhysicalExprPtr& e : in.partitioning.exprs()) {
      if (expr::PhysicalExprPtr out = OverOutput(e, properties.schema)) hash.push_back(out);
    }
    if (hash.size() == in.partitioning.exprs().size()) {
      properties.partitioning =
          Partitioning::Hash(std::move(hash), in.partitioning.partition_count());
    }
  } else {
    properties.partitioning = in.partitioning;
  }
  for (const PhysicalSortExpr& key : in.ordering) {
    expr::PhysicalExprPtr out = OverOutput(key.expr, properties.schema);
    if (!out) break;
    properties.ordering.push_back(PhysicalSortExpr{std::move(out), key.descending, key.nulls_first});
  }
  return PlanPtr(new UnnestExec(std::move(lists), std::move(expand), ordinality, std::move(names),
                                std::move(input), std::move(properties)));
}

Result<PlanPtr> UnnestExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("UnnestExec takes one child, got {}", children.size());
  }
  return Make(lists_, expand_, ordinality_, names_, std::move(children[0]));
}

Result<BatchStreamPtr> UnnestExec::Execute(int partition, const TaskContextPtr& ctx) const {
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(std::make_unique<UnnestStream>(
      std::move(input), schema(), this, ctx->config().batch_size(), ctx->pool()));
}

std::string UnnestExec::ToString() const {
  std::string out = "UnnestExec: ";
  for (size_t k = 0; k < lists_.size(); ++k) {
    if (k > 0) out += ", ";
    out += lists_[k]->ToString();
    if (expand_[k]) out += " (expanded)";
  }
  const int inputs = input_->schema()->num_fields();
  out += " AS ";
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i > 0) out += ", ";
    out += schema()->field(inputs + static_cast<int>(i)).name();
  }
  if (ordinality_) out += " WITH ORDINALITY";
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status UnnestExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::UnnestNode m;
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(lists_, m.mutable_lists()));
  for (bool e : expand_) m.add_expand(e);
  m.set_ordinality(ordinality_);
  for (const std::string& name : names_) m.add_names(name);
  return out.SetPayload(m);
}

Result<PlanPtr> UnnestExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::UnnestNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  if (m.expand_size() != m.lists_size()) {
    return in.Corrupt(fmt::format("{} expand flags for {} lists", m.expand_size(), m.lists_size()));
  }
  FLOE_ASSIGN_OR_RAISE(auto lists, in.Exprs(m.lists(), children[0]->schema()));
  for (const expr::PhysicalExprPtr& e : lists) {
    if (e->type()->id() != TypeId::kList) {
      return in.Corrupt(fmt::format("unnest of {} of type {}", e->ToString(), e->type()->ToString()));
    }
  }
  std::vector<bool> expand(m.expand().begin(), m.expand().end());
  std::vector<std::string> names(m.names().begin(), m.names().end());
  Result<PlanPtr> plan = Make(std::move(lists), std::move(expand), m.ordinality(),
                              std::move(names), std::move(children[0]));
  if (!plan.ok()) return in.Corrupt(plan.status().message());
  return plan;
}

}  // namespace floe::exec
