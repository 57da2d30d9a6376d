#include "floe/exec/aggregate/aggregate_exec.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/common/logging.h"
#include "floe/exec/aggregate/distinct_estimate.h"
#include "floe/exec/aggregate/key_interner.h"
#include "floe/exec/key_table.h"
#include "floe/exec/packed_key_map.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/k_way_merge.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/spill.h"

namespace floe::exec {

namespace {

Result<ArrayPtr> EmptyArray(const TypePtr& type) { return MakeBuilder(type)->Finish(); }

struct SpillRuns {
  std::vector<std::string> paths;
  std::vector<int> levels;  // per path: 0 for a spilled table, L + 1 for a merge of level L
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
    std::vector<Field> key_fields;
    for (int k = 0; k < num_keys_; ++k) {
      key_fields.push_back(node_->schema()->field(k));
      key_types_.push_back(key_fields.back().type());
    }
    packed_ = PackedKeyMap::Make(key_fields);
    interner_ = KeyInterner::Make(key_types_, ctx_->pool());
    table_ = std::make_unique<KeyTable>(interner_ ? interner_->mapped_types() : key_types_);
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
          reservation_.Free();
          finished_ = true;
        }
        continue;
      }
      if (finished_) return RecordBatchPtr();
      if (!input_) {
        FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->input(), partition_, ctx_));
        FLOE_RETURN_NOT_OK(ResetAccumulators());
        if (mode() != AggregateMode::kPartial && num_keys_ > 0) {
          known_rows_ = node_->input()->KnownRows(partition_, ctx_);
        }
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

  // Taking an accumulator's State() or Evaluate() empties it, so the accumulators are
  // made once and reused.
  Status ResetAccumulators() {
    if (accumulators_.empty()) {
      for (const auto& a : node_->aggregates()) {
        FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(a.function, ctx_->pool()));
        accumulators_.push_back(std::move(acc));
      }
    }
    table_->Clear();
    if (packed_) packed_->Clear();
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

  int64_t NumGroups() const {
    if (num_keys_ == 0) return 1;
    return packed_ ? packed_->num_groups() : table_->num_keys();
  }

  int64_t MemoryUsed() const {
    int64_t total = table_->memory_size() + (packed_ ? packed_->memory_size() : 0) +
                    (interner_ ? interner_->memory_size() : 0);
    for (const auto& a : accumulators_) total += a->memory_size();
    // Group key values are held twice: normalized in the table and in the builders.
    total += NumGroups() * 16 * std::max(1, num_keys_);
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
    if (passthrough_) return PassThrough(b, std::move(keys));
    ids_.resize(static_cast<size_t>(n));
    if (num_keys_ == 0) {
      std::fill(ids_.begin(), ids_.end(), 0u);
    } else {
      new_rows_.clear();
      if (packed_ && !packed_->Pack(keys, n)) FLOE_RETURN_NOT_OK(LeavePackedKeys());
      if (packed_) {
        // A table that doubles takes its new slots before the budget sees them: reserve
        // them first, and spill (which empties the table) when they do not fit. A partial
        // aggregation's table stays small (kPartialFlushGroups).
        const int64_t growth = packed_->GrowthBytes(n);
        if (growth > 0 && mode() != AggregateMode::kPartial && NumGroups() > 0 &&
            !reservation_.TryResize(MemoryUsed() + growth)) {
          FLOE_RETURN_NOT_OK(SpillState());
        }
        packed_->Insert(n, ids_.data(), &new_rows_);
      } else {
        FLOE_RETURN_NOT_OK(InsertKeys(keys, ids_.data(), &new_rows_));
      }
      if (!new_rows_.empty()) {
        for (int k = 0; k < num_keys_; ++k) {
          FLOE_RETURN_NOT_OK(key_builders_[k]->AppendIndices(
              *keys[k], new_rows_.data(), static_cast<int64_t>(new_rows_.size())));
        }
      }
    }
    const int64_t total = NumGroups();
    const auto& aggs = node_->aggregates();
    for (size_t j = 0; j < aggs.size(); ++j) {
      if (mode() == AggregateMode::kFinal) {
        std::vector<ArrayPtr> states;
        for (size_t f = 0; f < aggs[j].function.state_fields.size(); ++f) {
          states.push_back(b.column(state_start_[j] + static_cast<int>(f)));
        }
        FLOE_RETURN_NOT_OK(accumulators_[j]->Merge(states, ids_.data(), total));
      } else {
        FLOE_RETURN_NOT_OK(UpdateAggregate(j, b, total));
      }
    }
    if (mode() == AggregateMode::kPartial && num_keys_ > 0) {
      // A partial aggregation keeps a table of at most kPartialFlushGroups groups (small
      // enough to stay in cache; the final aggregation merges what it emits). One that
      // barely reduces its input (groups ~ rows after the first kPassthroughMinRows rows)
      // stops hashing: it turns each later row into a group of its own (PassThrough).
      rows_in_ += n;
      if (rows_in_ >= kPassthroughMinRows && (groups_out_ + NumGroups()) * 2 > rows_in_) {
        passthrough_ = true;
      }
      if (passthrough_ || NumGroups() >= kPartialFlushGroups) {
        groups_out_ += NumGroups();
        return EmitState();
      }
    }
    if (known_rows_) {
      rows_consumed_ += n;
      FLOE_RETURN_NOT_OK(MaybePresize());
    }
    if (num_keys_ > 0 && !reservation_.TryResize(MemoryUsed())) {
      if (mode() == AggregateMode::kPartial) return EmitState();
      return SpillState();
    }
    return Status::OK();
  }

  // A final or single aggregation whose input rows are known before it reads them (a
  // complete exchange) sizes its table and key builders once for the groups the whole
  // input will make, estimated from its first rows (EstimateDistinctKeys), rather than
  // doubling them all the way there: every doubling touches fresh memory (which a fresh
  // process's kernel zeroes) and moves every key again. Decided once, after an eighth of
  // the input (at most kPresizeSampleRows rows); only for at least twice the groups so far,
  // and when the budget holds the larger state.
  Status MaybePresize() {
    if (presize_decided_ || rows_consumed_ < std::min(*known_rows_ / 8, kPresizeSampleRows)) {
      return Status::OK();
    }
    presize_decided_ = true;
    const int64_t groups = NumGroups();
    const int64_t expected = EstimateDistinctKeys(rows_consumed_, groups, *known_rows_);
    if (groups == 0 || expected < 2 * groups || expected >= static_cast<int64_t>(UINT32_MAX)) {
      return Status::OK();
    }
    const double scale = static_cast<double>(expected) / static_cast<double>(groups);
    // The budget must hold the state and the string keys' bytes grown alike (MemoryUsed
    // counts a key's value, not a string's bytes).
    std::vector<BinaryBuilder*> strings;
    int64_t string_bytes = 0;
    for (auto& kb : key_builders_) {
      if (!kb->type()->is_binary_like()) continue;
      strings.push_back(static_cast<BinaryBuilder*>(kb.get()));
      string_bytes += strings.back()->data_length();
    }
    if (!reservation_.TryResize(
            static_cast<int64_t>(static_cast<double>(MemoryUsed() + string_bytes) * scale))) {
      return Status::OK();
    }
    if (packed_) {
      packed_->Reserve(expected);
    } else {
      table_->Reserve(expected);
    }
    for (auto& kb : key_builders_) FLOE_RETURN_NOT_OK(kb->Reserve(expected - kb->length()));
    for (BinaryBuilder* binary : strings) {
      if (binary->length() == 0) continue;
      const auto bytes =
          static_cast<int64_t>(static_cast<double>(binary->data_length()) * (scale - 1.0));
      if (binary->data_length() + bytes <= BinaryBuilder::kMaxDataBytes) {
        FLOE_RETURN_NOT_OK(binary->ReserveData(bytes));
      }
    }
    return Status::OK();
  }

  // Folds the rows of `b` into aggregate j's groups (ids_); kPartial and kSingle.
  Status UpdateAggregate(size_t j, const RecordBatch& b, int64_t total) {
    const AggregateExprSpec& agg = node_->aggregates()[j];
    FLOE_ASSIGN_OR_RAISE(auto args, EvaluateExprs(agg.args, b));
    ArrayPtr filter;
    if (agg.filter) {
      expr::EvalContext ectx;
      FLOE_ASSIGN_OR_RAISE(filter, expr::EvaluateToArray(*agg.filter, b, ectx));
    }
    if (args.empty()) {
      if (b.num_columns() > 0) {
        args.push_back(b.column(0));
      } else {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, Array::MakeNull(Int32(), b.num_rows()));
        args.push_back(std::move(nulls));
      }
    }
    return accumulators_[j]->Update(args, ids_.data(), filter.get(), total);
  }

  // A partial aggregation that stopped hashing: every row of `b` becomes a group of its
  // own (its keys, and each aggregate's state of that one row), emitted at once. The
  // final aggregation merges the rows of one group as it would merge flushed tables.
  Status PassThrough(const RecordBatch& b, std::vector<ArrayPtr> keys) {
    const int64_t n = b.num_rows();
    ids_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ids_[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
    std::vector<ArrayPtr> columns = std::move(keys);
    for (size_t j = 0; j < accumulators_.size(); ++j) {
      FLOE_RETURN_NOT_OK(UpdateAggregate(j, b, n));
      FLOE_ASSIGN_OR_RAISE(auto states, accumulators_[j]->State());
      for (auto& s : states) columns.push_back(std::move(s));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                         RecordBatch::Make(state_schema_, n, std::move(columns)));
    SliceInto(out);
    return Status::OK();
  }

  // Inserts the rows of the key columns into the table: by their strings' ids while the
  // interner lasts, by the columns themselves once it has given up.
  Status InsertKeys(const std::vector<ArrayPtr>& keys, uint32_t* ids,
                    std::vector<int64_t>* new_rows) {
    if (interner_) {
      std::vector<ArrayPtr> mapped;
      FLOE_ASSIGN_OR_RAISE(bool fits, interner_->Map(keys, &mapped));
      if (fits) return table_->Insert(mapped, ids, new_rows);
      FLOE_RETURN_NOT_OK(LeaveInternedKeys());
    }
    return table_->Insert(keys, ids, new_rows);
  }

  // The groups' keys, `groups` of them (the builders are refilled with the same values).
  Result<std::vector<ArrayPtr>> GroupKeys(int64_t groups) {
    std::vector<ArrayPtr> keys;
    for (auto& kb : key_builders_) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr a, kb->Finish());
      keys.push_back(std::move(a));
    }
    for (int k = 0; k < num_keys_; ++k) {
      FLOE_RETURN_NOT_OK(key_builders_[k]->AppendArraySlice(*keys[k], 0, groups));
    }
    return keys;
  }

  // Moves the groups of the packed map into the KeyTable (their ids stay the same), for a
  // batch whose keys do not pack.
  Status LeavePackedKeys() {
    const int64_t groups = packed_->num_groups();
    packed_.reset();
    if (groups == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> keys, GroupKeys(groups));
    std::vector<uint32_t> ids(static_cast<size_t>(groups));
    FLOE_RETURN_NOT_OK(InsertKeys(keys, ids.data(), nullptr));
    if (table_->num_keys() != groups) {
      return Status::Internal("HashAggregateExec: {} packed groups became {} keys", groups,
                              table_->num_keys());
    }
    return Status::OK();
  }

  // Replaces the table keyed by string ids with one keyed by the columns, holding the same
  // groups under the same ids, once the interner has given up.
  Status LeaveInternedKeys() {
    const int64_t groups = table_->num_keys();
    interner_.reset();
    table_ = std::make_unique<KeyTable>(key_types_);
    if (groups == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> keys, GroupKeys(groups));
    std::vector<uint32_t> ids(static_cast<size_t>(groups));
    FLOE_RETURN_NOT_OK(table_->Insert(keys, ids.data(), nullptr));
    if (table_->num_keys() != groups) {
      return Status::Internal("HashAggregateExec: {} interned groups became {} keys", groups,
                              table_->num_keys());
    }
    return Status::OK();
  }

  // The keys and states of every group; resets the table and accumulators.
  Result<RecordBatchPtr> TakeState() {
    std::vector<ArrayPtr> columns;
    int64_t groups = NumGroups();
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
    PoolVector<int64_t> order = SortIndices(rk);
    return TakeBatch(*state, order.data(), static_cast<int64_t>(order.size()));
  }

  Status SpillState() {
    if (NumGroups() == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr sorted, SortedState());
    if (!runs_) runs_ = std::make_shared<SpillRuns>();
    std::string path = NewSpillPath(ctx_->spill_directory(), "aggregate");
    runs_->paths.push_back(path);
    runs_->levels.push_back(0);
    FLOE_ASSIGN_OR_RAISE(auto writer, SpillWriter::Make(path, state_schema_));
    const int64_t n = sorted->num_rows();
    for (int64_t pos = 0; pos < n; pos += batch_size()) {
      RecordBatchPtr chunk = sorted->Slice(pos, std::min(batch_size(), n - pos));
      FLOE_ASSIGN_OR_RAISE(const int64_t encoded, writer->Write(*chunk));
      if (pos == 0) NoteRunChunk(*chunk, encoded);
    }
    FLOE_ASSIGN_OR_RAISE(int64_t bytes, writer->Finish());
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += bytes;
    reservation_.Free();
    return CompactRuns();
  }

  // Raises what a merge holds per run it reads (cursor_bytes_, MergeCursorBytes) to what a
  // run's first (largest) chunk takes, which took `encoded_bytes` in the file; the merge
  // keys are the chunk's group columns, bounded by its own memory.
  void NoteRunChunk(const RecordBatch& chunk, int64_t encoded_bytes) {
    cursor_bytes_ = std::max(cursor_bytes_, MergeCursorBytes(encoded_bytes, chunk.memory_size()));
  }

  // How many runs one merge may read at once: as many as what this aggregation holds and
  // what is left of the budget take, at least two (so that merging makes progress) and at
  // most kMergeFanIn.
  int64_t MergeFanIn() const {
    const int64_t available = ctx_->memory()->available();
    if (available >= kMergeFanIn * cursor_bytes_) return kMergeFanIn;
    const int64_t room = reservation_.size() + available;
    return std::clamp<int64_t>(room / std::max<int64_t>(1, cursor_bytes_), 2, kMergeFanIn);
  }

  // The final merge reads a chunk of every run at once, and an aggregation squeezed by
  // other operators' reservations may spill hundreds of small runs. So whenever as many
  // runs of one level exist as one merge may read (MergeFanIn), they are merged into one run
  // of the next level (their rows in key order; equal keys stay separate rows, the final
  // merge combines them): fewer than that many runs per level remain, and each spilled row
  // is rewritten once per level.
  Status CompactRuns() {
    while (true) {
      const auto fan_in = static_cast<size_t>(MergeFanIn());
      std::vector<size_t> merge;
      for (int level = 0; merge.empty(); ++level) {
        std::vector<size_t> at;
        bool higher = false;
        for (size_t r = 0; r < runs_->levels.size(); ++r) {
          if (runs_->levels[r] == level) at.push_back(r);
          higher |= runs_->levels[r] > level;
        }
        if (at.size() >= fan_in) {
          at.resize(fan_in);
          merge = std::move(at);
        } else if (!higher) {
          return Status::OK();
        }
      }
      FLOE_RETURN_NOT_OK(MergeRunsOnDisk(merge));
    }
  }

  // Until the budget takes a cursor for every run, merges the runs of the lowest levels on
  // disk, as many at a time as it takes (at least two); then reserves the final merge's
  // cursors (two are held even past the budget).
  Status ReserveFinalMerge() {
    while (true) {
      const auto runs = static_cast<int64_t>(runs_->paths.size());
      if (reservation_.TryResize(runs * cursor_bytes_)) return Status::OK();
      if (runs <= 2) {
        (void)reservation_.TryResize(2 * cursor_bytes_);
        return Status::OK();
      }
      std::vector<size_t> order(runs_->paths.size());
      for (size_t r = 0; r < order.size(); ++r) order[r] = r;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return runs_->levels[a] < runs_->levels[b]; });
      order.resize(static_cast<size_t>(std::min(MergeFanIn(), runs - 1)));
      FLOE_RETURN_NOT_OK(MergeRunsOnDisk(order));
    }
  }

  // Replaces the runs at indices `merge` by one run of their rows in key order, of the level
  // after the highest of theirs. The merge's cursors are reserved while it runs (held even
  // past the budget: at least two runs must merge).
  Status MergeRunsOnDisk(const std::vector<size_t>& merge) {
    int level = 0;
    for (size_t r : merge) level = std::max(level, runs_->levels[r] + 1);
    (void)reservation_.TryResize(static_cast<int64_t>(merge.size()) * cursor_bytes_);
    std::vector<std::unique_ptr<MergeCursor>> cursors;
    for (size_t r : merge) {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, OpenSpillFile(runs_->paths[r], state_schema_));
      cursors.push_back(std::make_unique<MergeCursor>(std::move(s), key_columns_, key_options_));
      FLOE_RETURN_NOT_OK(cursors.back()->Init());
    }
    KWayMerger merger(std::move(cursors));
    std::string path = NewSpillPath(ctx_->spill_directory(), "aggregate");
    auto merged = std::make_shared<SpillRuns>();
    merged->paths.push_back(path);  // removed if the merge fails
    FLOE_ASSIGN_OR_RAISE(auto writer, SpillWriter::Make(path, state_schema_));
    RowInterleaver rows(state_schema_, ctx_->pool());
    bool first = true;
    while (!merger.done()) {
      rows.Add(merger.top()->batch(), merger.top()->row());
      FLOE_RETURN_NOT_OK(merger.Pop());
      if (rows.num_rows() == batch_size() || merger.done()) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, rows.Finish());
        FLOE_ASSIGN_OR_RAISE(const int64_t encoded, writer->Write(*batch));
        if (first) NoteRunChunk(*batch, encoded);
        first = false;
      }
    }
    FLOE_RETURN_NOT_OK(writer->Finish().status());
    merged->paths.clear();
    reservation_.Free();
    // The merged runs' files go; the new run takes their place.
    std::error_code ec;
    std::vector<std::string> paths;
    std::vector<int> levels;
    for (size_t r = 0; r < runs_->paths.size(); ++r) {
      if (std::find(merge.begin(), merge.end(), r) != merge.end()) {
        std::filesystem::remove(runs_->paths[r], ec);
      } else {
        paths.push_back(std::move(runs_->paths[r]));
        levels.push_back(runs_->levels[r]);
      }
    }
    paths.push_back(std::move(path));
    levels.push_back(level);
    runs_->paths = std::move(paths);
    runs_->levels = std::move(levels);
    return Status::OK();
  }

  Status FinishInput() {
    input_.reset();
    if (mode() == AggregateMode::kPartial) {
      if (NumGroups() > 0) FLOE_RETURN_NOT_OK(EmitState());
      finished_ = true;
      return Status::OK();
    }
    if (!runs_) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr result, Evaluate());
      SliceInto(result);
      finished_ = true;
      return Status::OK();
    }
    // The groups still in memory are spilled as one more run, so that the final merge holds
    // only its cursors, which the budget must take (ReserveFinalMerge); then the runs are
    // merged in group-key order.
    FLOE_RETURN_NOT_OK(SpillState());
    FLOE_RETURN_NOT_OK(ReserveFinalMerge());
    std::vector<std::unique_ptr<MergeCursor>> cursors;
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
    int64_t groups = NumGroups();
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

  // The rows a partial aggregation hashes before it may stop: a task's share of a small
  // input decides too (TPC-H Q16's COUNT(DISTINCT) dedups 60k rows a task, nearly all
  // distinct: 0.90-0.94 of its time against 128k rows, which it never reached).
  static constexpr int64_t kPassthroughMinRows = 1 << 15;
  // The most rows a final aggregation reads before it decides to size its table for its
  // whole input (MaybePresize).
  static constexpr int64_t kPresizeSampleRows = 1 << 18;
  static constexpr int64_t kPartialFlushGroups = 1 << 15;
  // The most spilled runs one merge reads (CompactRuns).
  static constexpr int64_t kMergeFanIn = 16;
  int64_t cursor_bytes_ = 0;  // what a merge holds per run it reads (NoteRunChunk)
  int64_t rows_in_ = 0;
  int64_t groups_out_ = 0;  // groups a partial aggregation emitted
  // A final or single aggregation's input rows when known up front, the rows consumed
  // so far, and whether MaybePresize has decided.
  std::optional<int64_t> known_rows_;
  int64_t rows_consumed_ = 0;
  bool presize_decided_ = false;
  bool passthrough_ = false;

  BatchStreamPtr input_;
  std::vector<TypePtr> key_types_;
  std::unique_ptr<KeyTable> table_;  // the group keys when packed_ is null
  // Ids for the table of the key columns' strings (their types in table_), while they
  // are few; null when not interning.
  std::unique_ptr<KeyInterner> interner_;
  std::unique_ptr<PackedKeyMap> packed_;  // null when the keys do not pack (or stopped fitting)
  std::vector<std::unique_ptr<ArrayBuilder>> key_builders_;
  std::vector<std::unique_ptr<expr::GroupsAccumulator>> accumulators_;
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
    // columns when the input is hashed on group expressions (all of them, or some).
    std::vector<expr::PhysicalExprPtr> cols;
    for (const expr::PhysicalExprPtr& h : ip.exprs()) {
      size_t k = 0;
      while (k < group_exprs.size() && group_exprs[k]->ToString() != h->ToString()) ++k;
      if (k == group_exprs.size()) {
        cols.clear();
        break;
      }
      const Field& f = props.schema->field(static_cast<int>(k));
      FLOE_ASSIGN_OR_RAISE(
          auto c, expr::Compile(expr::Column(static_cast<int>(k), f.name(), f.type(), f.nullable()),
                                props.schema));
      cols.push_back(std::move(c));
    }
    if (!cols.empty()) {
      props.partitioning = Partitioning::Hash(std::move(cols), ip.partition_count());
    } else {
      props.partitioning = Partitioning::Unknown(ip.partition_count());
    }
  } else {
    props.partitioning = Partitioning::Unknown(ip.partition_count());
  }
  return PlanPtr(new HashAggregateExec(mode, std::move(group_exprs), std::move(group_names),
                                       std::move(aggregates), std::move(input), std::move(props)));
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

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

namespace pb = codec::proto;

Status HashAggregateExec::Encode(codec::PlanEncoder& out) const {
  pb::HashAggregateNode m;
  switch (mode_) {
    case AggregateMode::kPartial:
      m.set_mode(pb::HashAggregateNode::PARTIAL);
      break;
    case AggregateMode::kFinal:
      m.set_mode(pb::HashAggregateNode::FINAL);
      break;
    case AggregateMode::kSingle:
      m.set_mode(pb::HashAggregateNode::SINGLE);
      break;
  }
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(group_exprs_, m.mutable_group_exprs()));
  for (const std::string& name : group_names_) m.add_group_names(name);
  for (const AggregateExprSpec& a : aggregates_) {
    pb::AggregateExpr* am = m.add_aggregates();
    FLOE_RETURN_NOT_OK(internal::EncodeAggregateFunction(a.function, am->mutable_function()));
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(a.args, am->mutable_args()));
    if (a.filter) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*a.filter, am->mutable_filter()));
    am->set_name(a.name);
  }
  return out.SetPayload(m);
}

Result<PlanPtr> HashAggregateExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  pb::HashAggregateNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  AggregateMode mode;
  switch (m.mode()) {
    case pb::HashAggregateNode::PARTIAL:
      mode = AggregateMode::kPartial;
      break;
    case pb::HashAggregateNode::FINAL:
      mode = AggregateMode::kFinal;
      break;
    case pb::HashAggregateNode::SINGLE:
      mode = AggregateMode::kSingle;
      break;
    default:
      return in.Corrupt(fmt::format("unknown aggregate mode {}", static_cast<int>(m.mode())));
  }
  const SchemaPtr& input = children[0]->schema();
  FLOE_ASSIGN_OR_RAISE(auto group_exprs, in.Exprs(m.group_exprs(), input));
  std::vector<std::string> group_names(m.group_names().begin(), m.group_names().end());
  std::vector<AggregateExprSpec> aggregates;
  for (const pb::AggregateExpr& am : m.aggregates()) {
    AggregateExprSpec spec;
    FLOE_ASSIGN_OR_RAISE(spec.function, internal::DecodeAggregateFunction(in, am.function()));
    FLOE_ASSIGN_OR_RAISE(spec.args, in.Exprs(am.args(), input));
    if (am.has_filter()) {
      FLOE_ASSIGN_OR_RAISE(spec.filter, in.Expr(am.filter(), input));
    }
    spec.name = am.name();
    aggregates.push_back(std::move(spec));
  }
  return Make(mode, std::move(group_exprs), std::move(group_names), std::move(aggregates),
              std::move(children[0]));
}

}  // namespace floe::exec
