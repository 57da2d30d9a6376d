#include "floe/exec/aggregate_exec.h"

#include <algorithm>
#include <filesystem>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/exec/sort_key.h"
#include "floe/exec/spill.h"

namespace floe::exec {

namespace {

Result<ArrayPtr> EmptyArray(const TypePtr& type) { return MakeBuilder(type)->Finish(); }

struct SpillRuns {
  std::vector<std::string> paths;
  ~SpillRuns() {
    std::error_code ec;
    for (const auto& p : paths) std::filesystem::remove(p, ec);
  }
};

class AggregateStream final : public BatchStream {
 public:
  AggregateStream(const HashAggregateExec* node, int partition, TaskContextPtr ctx)
      : node_(node),
        partition_(partition),
        ctx_(std::move(ctx)),
        reservation_(ctx_->memory(), "HashAggregateExec[" + std::to_string(partition) + "]"),
        num_keys_(static_cast<int>(node->group_exprs().size())) {
    const auto& aggs = node_->aggregates();
    int col = num_keys_;
    for (const auto& a : aggs) {
      state_start_.push_back(col);
      col += static_cast<int>(a.function.state_fields.size());
    }
    // The state layout: group columns, then each aggregate's state fields.
    std::vector<Field> fields;
    for (int k = 0; k < num_keys_; ++k) fields.push_back(node_->schema()->field(k));
    for (const auto& a : aggs) {
      for (const auto& f : a.function.state_fields) {
        fields.push_back(Field(a.name + "[" + f.name() + "]", f.type(), true));
      }
    }
    state_schema_ = std::make_shared<Schema>(std::move(fields));
    key_options_.assign(static_cast<size_t>(num_keys_), SortOptions{});
    for (int k = 0; k < num_keys_; ++k) key_columns_.push_back(k);
  }

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (output_pos_ < output_.size()) return output_[output_pos_++];
      output_.clear();
      output_pos_ = 0;
      if (merge_) {
        FLOE_ASSIGN_OR_RAISE(bool more, MergeChunk());
        if (!more) {
          merge_.reset();
          runs_.reset();
          finished_ = true;
        }
        continue;
      }
      if (finished_) return RecordBatchPtr();
      if (!input_) {
        FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->input(), partition_, ctx_));
        FLOE_RETURN_NOT_OK(ResetAccumulators());
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input_->Next());
      if (b == nullptr) {
        FLOE_RETURN_NOT_OK(FinishInput());
        continue;
      }
      if (b->num_rows() == 0) continue;
      FLOE_RETURN_NOT_OK(Consume(*b));
    }
  }

 private:
  AggregateMode mode() const { return node_->mode(); }
  int64_t batch_size() const { return std::max<int64_t>(1, ctx_->config().batch_size()); }

  Status ResetAccumulators() {
    accumulators_.clear();
    for (const auto& a : node_->aggregates()) {
      FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(a.function, ctx_->pool()));
      accumulators_.push_back(std::move(acc));
    }
    table_.Clear();
    key_builders_.clear();
    for (int k = 0; k < num_keys_; ++k) {
      key_builders_.push_back(MakeBuilder(node_->schema()->field(k).type(), ctx_->pool()));
    }
    if (num_keys_ == 0) FLOE_RETURN_NOT_OK(TouchSingleGroup());
    return Status::OK();
  }

  // Without GROUP BY there is always exactly one group, even before any row.
  Status TouchSingleGroup() {
    const auto& aggs = node_->aggregates();
    for (size_t j = 0; j < aggs.size(); ++j) {
      if (mode() == AggregateMode::kFinal) {
        std::vector<ArrayPtr> states;
        for (const auto& f : aggs[j].function.state_fields) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr e, EmptyArray(f.type()));
          states.push_back(std::move(e));
        }
        FLOE_RETURN_NOT_OK(accumulators_[j]->Merge(states, nullptr, 1));
      } else {
        std::vector<ArrayPtr> args;
        for (const auto& t : aggs[j].function.arg_types) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr e, EmptyArray(t));
          args.push_back(std::move(e));
        }
        if (args.empty()) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr e, EmptyArray(Int32()));
          args.push_back(std::move(e));
        }
        FLOE_RETURN_NOT_OK(accumulators_[j]->Update(args, nullptr, nullptr, 1));
      }
    }
    return Status::OK();
  }

  int64_t MemoryUsed() const {
    int64_t total = table_.memory_size();
    for (const auto& a : accumulators_) total += a->memory_size();
    // Group key values are held twice: normalized in the table and in the builders.
    total += table_.num_keys() * 16 * std::max(1, num_keys_);
    return total;
  }

  Status Consume(const RecordBatch& b) {
    const int64_t n = b.num_rows();
    // Group ids.
    std::vector<ArrayPtr> keys;
    if (mode() == AggregateMode::kFinal) {
      for (int k = 0; k < num_keys_; ++k) keys.push_back(b.column(k));
    } else {
      FLOE_ASSIGN_OR_RAISE(keys, EvaluateExprs(node_->group_exprs(), b));
    }
    ids_.resize(static_cast<size_t>(n));
    if (num_keys_ == 0) {
      std::fill(ids_.begin(), ids_.end(), 0u);
    } else {
      FLOE_RETURN_NOT_OK(EncodeRowKeys(keys, key_options_, &row_keys_));
      new_rows_.clear();
      table_.Insert(row_keys_, ids_.data(), &new_rows_);
      if (!new_rows_.empty()) {
        for (int k = 0; k < num_keys_; ++k) {
          FLOE_RETURN_NOT_OK(key_builders_[k]->AppendIndices(
              *keys[k], new_rows_.data(), static_cast<int64_t>(new_rows_.size())));
        }
      }
    }
    const int64_t total = num_keys_ == 0 ? 1 : table_.num_keys();
    const auto& aggs = node_->aggregates();
    for (size_t j = 0; j < aggs.size(); ++j) {
      if (mode() == AggregateMode::kFinal) {
        std::vector<ArrayPtr> states;
        for (size_t f = 0; f < aggs[j].function.state_fields.size(); ++f) {
          states.push_back(b.column(state_start_[j] + static_cast<int>(f)));
        }
        FLOE_RETURN_NOT_OK(accumulators_[j]->Merge(states, ids_.data(), total));
      } else {
        FLOE_ASSIGN_OR_RAISE(auto args, EvaluateExprs(aggs[j].args, b));
        ArrayPtr filter;
        if (aggs[j].filter) {
          expr::EvalContext ectx;
          FLOE_ASSIGN_OR_RAISE(filter, expr::EvaluateToArray(*aggs[j].filter, b, ectx));
        }
        if (args.empty()) {
          if (b.num_columns() > 0) {
            args.push_back(b.column(0));
          } else {
            FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, Array::MakeNull(Int32(), n));
            args.push_back(std::move(nulls));
          }
        }
        FLOE_RETURN_NOT_OK(accumulators_[j]->Update(args, ids_.data(), filter.get(), total));
      }
    }
    if (mode() == AggregateMode::kPartial && num_keys_ > 0) {
      // A partial aggregation that barely reduces its input (most groups seen once) only
      // costs a large table: past the first rows it emits each batch's groups at once,
      // keeping the table small and cache-resident.
      rows_in_ += n;
      if (!passthrough_ && rows_in_ >= kPassthroughMinRows && table_.num_keys() * 2 > rows_in_) {
        passthrough_ = true;
      }
      if (passthrough_) return EmitState();
    }
    if (num_keys_ > 0 && !reservation_.TryResize(MemoryUsed())) {
      if (mode() == AggregateMode::kPartial) return EmitState();
      return SpillState();
    }
    return Status::OK();
  }

  // The keys and states of every group; resets the table and accumulators.
  Result<RecordBatchPtr> TakeState() {
    std::vector<ArrayPtr> columns;
    int64_t groups = num_keys_ == 0 ? 1 : table_.num_keys();
    for (auto& kb : key_builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, kb->Finish());
      columns.push_back(std::move(a));
    }
    for (auto& acc : accumulators_) {
      FLOE_ASSIGN_OR_RAISE(auto states, acc->State());
      for (auto& s : states) columns.push_back(std::move(s));
    }
    FLOE_RETURN_NOT_OK(ResetAccumulators());
    return RecordBatch::Make(state_schema_, groups, std::move(columns));
  }

  Status EmitState() {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr state, TakeState());
    SliceInto(state);
    return Status::OK();
  }

  void SliceInto(const RecordBatchPtr& batch) {
    const int64_t n = batch->num_rows();
    if (n <= batch_size()) {
      if (n > 0) output_.push_back(batch);
      return;
    }
    for (int64_t pos = 0; pos < n; pos += batch_size()) {
      output_.push_back(batch->Slice(pos, std::min(batch_size(), n - pos)));
    }
  }

  // The state sorted by group key.
  Result<RecordBatchPtr> SortedState() {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr state, TakeState());
    std::vector<ArrayPtr> keys(state->columns().begin(), state->columns().begin() + num_keys_);
    RowKeys rk;
    FLOE_RETURN_NOT_OK(EncodeRowKeys(keys, key_options_, &rk));
    std::vector<int64_t> order = SortIndices(rk);
    return TakeBatch(*state, order.data(), static_cast<int64_t>(order.size()));
  }

  Status SpillState() {
    if (table_.num_keys() == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr sorted, SortedState());
    if (!runs_) runs_ = std::make_shared<SpillRuns>();
    std::string path = NewSpillPath(ctx_->spill_directory(), "aggregate");
    runs_->paths.push_back(path);
    FLOE_ASSIGN_OR_RAISE(auto writer, SpillWriter::Make(path, state_schema_));
    const int64_t n = sorted->num_rows();
    for (int64_t pos = 0; pos < n; pos += batch_size()) {
      FLOE_RETURN_NOT_OK(writer->Write(*sorted->Slice(pos, std::min(batch_size(), n - pos))));
    }
    FLOE_ASSIGN_OR_RAISE(int64_t bytes, writer->Finish());
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += bytes;
    reservation_.Free();
    return Status::OK();
  }

  Status FinishInput() {
    input_.reset();
    if (mode() == AggregateMode::kPartial) {
      if (num_keys_ == 0 || table_.num_keys() > 0) FLOE_RETURN_NOT_OK(EmitState());
      finished_ = true;
      return Status::OK();
    }
    if (!runs_) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr result, Evaluate());
      SliceInto(result);
      finished_ = true;
      return Status::OK();
    }
    // Merge the spilled runs and the groups still in memory, in group-key order.
    std::vector<std::unique_ptr<MergeCursor>> cursors;
    if (table_.num_keys() > 0) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr sorted, SortedState());
      std::vector<RecordBatchPtr> chunks;
      for (int64_t pos = 0; pos < sorted->num_rows(); pos += batch_size()) {
        chunks.push_back(sorted->Slice(pos, std::min(batch_size(), sorted->num_rows() - pos)));
      }
      cursors.push_back(std::make_unique<MergeCursor>(
          MakeVectorStream(state_schema_, std::move(chunks)), key_columns_, key_options_));
    }
    reservation_.Free();
    for (const auto& path : runs_->paths) {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, OpenSpillFile(path, state_schema_));
      cursors.push_back(std::make_unique<MergeCursor>(std::move(s), key_columns_, key_options_));
    }
    for (auto& c : cursors) FLOE_RETURN_NOT_OK(c->Init());
    merge_ = std::make_unique<KWayMerger>(std::move(cursors));
    return Status::OK();
  }

  // The final rows of the groups in the table; resets it.
  Result<RecordBatchPtr> Evaluate() {
    std::vector<ArrayPtr> columns;
    int64_t groups = num_keys_ == 0 ? 1 : table_.num_keys();
    for (auto& kb : key_builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, kb->Finish());
      columns.push_back(std::move(a));
    }
    for (auto& acc : accumulators_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr v, acc->Evaluate());
      columns.push_back(std::move(v));
    }
    FLOE_RETURN_NOT_OK(ResetAccumulators());
    return RecordBatch::Make(node_->schema(), groups, std::move(columns));
  }

  // Merges up to batch_size groups from the sorted runs and emits their final rows; false
  // when the runs are exhausted.
  Result<bool> MergeChunk() {
    if (merge_->done()) return false;
    RowInterleaver rows(state_schema_);
    std::vector<uint32_t> ids;
    std::vector<int64_t> firsts;
    std::string last_key;
    int64_t groups = 0;
    while (!merge_->done()) {
      MergeCursor* top = merge_->top();
      std::string_view key = top->key();
      if (groups == 0 || key != last_key) {
        if (groups == batch_size()) break;
        last_key.assign(key.data(), key.size());
        firsts.push_back(rows.num_rows());
        ++groups;
      }
      ids.push_back(static_cast<uint32_t>(groups - 1));
      rows.Add(top->batch(), top->row());
      FLOE_RETURN_NOT_OK(merge_->Pop());
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr chunk, rows.Finish());
    const auto& aggs = node_->aggregates();
    std::vector<ArrayPtr> columns;
    for (int k = 0; k < num_keys_; ++k) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, TakeArray(*chunk->column(k), firsts.data(),
                                                 static_cast<int64_t>(firsts.size())));
      columns.push_back(std::move(a));
    }
    for (size_t j = 0; j < aggs.size(); ++j) {
      std::vector<ArrayPtr> states;
      for (size_t f = 0; f < aggs[j].function.state_fields.size(); ++f) {
        states.push_back(chunk->column(state_start_[j] + static_cast<int>(f)));
      }
      FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(aggs[j].function, ctx_->pool()));
      FLOE_RETURN_NOT_OK(acc->Merge(states, ids.data(), groups));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr v, acc->Evaluate());
      columns.push_back(std::move(v));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                         RecordBatch::Make(node_->schema(), groups, std::move(columns)));
    output_.push_back(std::move(out));
    return true;
  }

  const HashAggregateExec* node_;
  int partition_;
  TaskContextPtr ctx_;
  MemoryReservation reservation_;
  int num_keys_;
  std::vector<int> state_start_;
  SchemaPtr state_schema_;
  std::vector<SortOptions> key_options_;
  std::vector<int> key_columns_;

  static constexpr int64_t kPassthroughMinRows = 1 << 17;
  int64_t rows_in_ = 0;
  bool passthrough_ = false;

  BatchStreamPtr input_;
  KeyTable table_;
  std::vector<std::unique_ptr<ArrayBuilder>> key_builders_;
  std::vector<std::unique_ptr<expr::GroupsAccumulator>> accumulators_;
  RowKeys row_keys_;
  std::vector<uint32_t> ids_;
  std::vector<int64_t> new_rows_;

  std::shared_ptr<SpillRuns> runs_;
  std::unique_ptr<KWayMerger> merge_;
  std::vector<RecordBatchPtr> output_;
  size_t output_pos_ = 0;
  bool finished_ = false;
};

}  // namespace

std::string_view AggregateModeName(AggregateMode mode) {
  switch (mode) {
    case AggregateMode::kPartial:
      return "Partial";
    case AggregateMode::kFinal:
      return "Final";
    case AggregateMode::kSingle:
      return "Single";
  }
  return "?";
}

Result<PlanPtr> HashAggregateExec::Make(AggregateMode mode,
                                        std::vector<expr::PhysicalExprPtr> group_exprs,
                                        std::vector<std::string> group_names,
                                        std::vector<AggregateExprSpec> aggregates, PlanPtr input) {
  if (input == nullptr) return Status::Internal("HashAggregateExec: no input");
  if (group_names.size() != group_exprs.size()) {
    return Status::Internal("HashAggregateExec: {} group names for {} group expressions",
                            group_names.size(), group_exprs.size());
  }
  const Schema& in = *input->schema();
  std::vector<Field> fields;
  for (size_t k = 0; k < group_exprs.size(); ++k) {
    fields.emplace_back(group_names[k], group_exprs[k]->type(), group_exprs[k]->nullable());
  }
  int state_col = static_cast<int>(group_exprs.size());
  for (const auto& a : aggregates) {
    if (mode == AggregateMode::kPartial) {
      for (const auto& f : a.function.state_fields) {
        fields.emplace_back(a.name + "[" + f.name() + "]", f.type(), true);
      }
    } else {
      if (mode == AggregateMode::kFinal) {
        for (const auto& f : a.function.state_fields) {
          if (state_col >= in.num_fields() || !in.field(state_col).type()->Equals(*f.type())) {
            return Status::Internal(
                "HashAggregateExec: input column {} is not the state field {} of {}", state_col,
                f.ToString(), a.name);
          }
          ++state_col;
        }
      }
      fields.emplace_back(a.name, a.function.return_type, true);
    }
  }
  PlanProperties props;
  props.schema = std::make_shared<Schema>(std::move(fields));
  const Partitioning& ip = input->properties().partitioning;
  if (ip.kind() == Partitioning::Kind::kSingle) {
    props.partitioning = Partitioning::Single();
  } else if (mode != AggregateMode::kPartial && ip.kind() == Partitioning::Kind::kHash &&
             !group_exprs.empty()) {
    // Rows of one group stay in one partition: re-express the hash over the output's group
    // columns when the input is hashed on exactly the group expressions.
    bool same = ip.exprs().size() == group_exprs.size();
    for (size_t k = 0; same && k < group_exprs.size(); ++k) {
      same = ip.exprs()[k]->ToString() == group_exprs[k]->ToString();
    }
    if (same) {
      std::vector<expr::PhysicalExprPtr> cols;
      for (size_t k = 0; k < group_exprs.size(); ++k) {
        const Field& f = props.schema->field(static_cast<int>(k));
        FLOE_ASSIGN_OR_RAISE(auto c, expr::Compile(expr::Column(static_cast<int>(k), f.name(),
                                                                f.type(), f.nullable()),
                                                   props.schema));
        cols.push_back(std::move(c));
      }
      props.partitioning = Partitioning::Hash(std::move(cols), ip.partition_count());
    } else {
      props.partitioning = Partitioning::Unknown(ip.partition_count());
    }
  } else {
    props.partitioning = Partitioning::Unknown(ip.partition_count());
  }
  return std::make_shared<HashAggregateExec>(mode, std::move(group_exprs), std::move(group_names),
                                             std::move(aggregates), std::move(input),
                                             std::move(props));
}

Result<PlanPtr> HashAggregateExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("HashAggregateExec takes one child");
  return Make(mode_, group_exprs_, group_names_, aggregates_, std::move(children[0]));
}

std::vector<Distribution> HashAggregateExec::RequiredInputDistribution() const {
  if (mode_ == AggregateMode::kPartial) return {Distribution::Unspecified()};
  if (group_exprs_.empty()) return {Distribution::Single()};
  return {Distribution::Hash(group_exprs_)};
}

Result<BatchStreamPtr> HashAggregateExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("HashAggregateExec: partition {} out of range", partition);
  }
  return std::make_unique<AggregateStream>(this, partition, ctx);
}

std::string HashAggregateExec::ToString() const {
  std::string out = "HashAggregateExec: mode=" + std::string(AggregateModeName(mode_)) + ", gby=[";
  for (size_t k = 0; k < group_exprs_.size(); ++k) {
    if (k > 0) out += ", ";
    out += group_exprs_[k]->ToString();
    if (group_names_[k] != group_exprs_[k]->ToString()) out += " AS " + group_names_[k];
  }
  out += "], aggr=[";
  for (size_t j = 0; j < aggregates_.size(); ++j) {
    if (j > 0) out += ", ";
    out += aggregates_[j].name;
  }
  return out + "]";
}

}  // namespace floe::exec
