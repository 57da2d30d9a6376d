#include "floe/exec/join/hash_join_exec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/batch/chunked_batch.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/exec/join/join_filter.h"
#include "floe/exec/join/nested_loop_join_exec.h"
#include "floe/exec/key_table.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/spill.h"
#include "floe/expr/hash.h"

namespace floe::exec {

using plan::JoinType;

namespace {

constexpr uint32_t kNone = KeyTable::kNotFound;

// How the build rows of a key id are found.
enum class RowMap {
  kIdentity,  // every build row has its own key and id == row
  kUnique,    // every key has one row: rows[id]
  kGroups,    // rows[offsets[id] .. offsets[id + 1]), in row order
};

// The build side: all right rows, in the batches they were read in (row r of the build
// side is row r of their concatenation), the ids of their keys, and the rows of each key
// id.
struct JoinTable {
  ChunkedBatch rows_read;  // no batches when the build side is empty
  // The keys, in one table, or in several by hash (a large build side built by several
  // threads): a key of hash h is in shards[ShardOf(h)] and its id is that shard's base plus
  // its id there.
  std::vector<KeyTable> shards;
  int shard_shift = 64;
  std::vector<uint32_t> shard_base;
  int64_t num_keys = 0;
  RowMap row_map = RowMap::kIdentity;
  PoolBuffer<uint32_t> offsets;
  PoolBuffer<uint32_t> rows;
  // Set when the table is large enough that probing it costs cache misses.
  std::unique_ptr<JoinFilter> filter;
  bool has_null_key = false;  // a build row has a NULL in a key that does not match NULL
  int64_t num_rows = 0;
  std::unique_ptr<MemoryReservation> reservation;

  bool sharded() const { return shards.size() > 1; }
  size_t ShardOf(uint64_t hash) const {
    return sharded() ? static_cast<size_t>(hash >> shard_shift) : 0;
  }
};

// Build sides with at least this many keys get a JoinFilter: from about here on the
// hash table outgrows the core's own caches.
constexpr int64_t kFilterMinKeys = 16384;

// Broadcast build sides of at least this many rows are built in shards, each by whichever
// of the join's tasks takes it first, instead of by one task while the others wait.
constexpr int64_t kShardMinRows = int64_t{1} << 18;

// Sets skip[r] for the rows whose key has a NULL in a column where NULL matches
// nothing; false (and `skip` untouched) when there are none.
template <typename Bytes>
bool MarkNullKeys(const std::vector<ArrayPtr>& keys, const std::vector<bool>& null_equals_null,
                  Bytes* skip) {
  const int64_t n = keys.empty() ? 0 : keys[0]->length();
  bool any = false;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (null_equals_null[k] || keys[k]->null_count() == 0) continue;
    if (!any) {
      skip->Assign(n, 0);
      any = true;
    }
    const Array& a = *keys[k];
    for (int64_t r = 0; r < n; ++r) {
      if (a.IsNull(r)) (*skip)[r] = 1;
    }
  }
  return any;
}

Status OutOfMemory(const HashJoinExec* node, const MemoryReservation& reservation, int64_t bytes) {
  return reservation.OutOfMemory(bytes, "the hash join build side of " + node->ToString());
}

std::vector<TypePtr> KeyTypes(const std::vector<expr::PhysicalExprPtr>& exprs) {
  std::vector<TypePtr> types;
  for (const auto& e : exprs) types.push_back(e->type());
  return types;
}

// The key columns of every build row: each batch's keys, concatenated (keys are narrow
// next to the rows they come from).
Result<std::vector<ArrayPtr>> BuildKeys(const std::vector<expr::PhysicalExprPtr>& exprs,
                                        const ChunkedBatch& rows) {
  const std::vector<RecordBatchPtr>& batches = rows.batches();
  if (batches.size() == 1) return EvaluateExprs(exprs, *batches[0]);
  std::vector<std::vector<ArrayPtr>> parts(exprs.size());
  for (const RecordBatchPtr& batch : batches) {
    FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> keys, EvaluateExprs(exprs, *batch));
    for (size_t k = 0; k < keys.size(); ++k) parts[k].push_back(std::move(keys[k]));
  }
  std::vector<ArrayPtr> keys;
  for (std::vector<ArrayPtr>& part : parts) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr key, ConcatenateArrays(part));
    keys.push_back(std::move(key));
  }
  return keys;
}

// A build side read into a table, or, when it outgrew the memory budget and the join may
// spill, what was read of it and the rest of its input.
struct BuildOutcome {
  std::shared_ptr<const JoinTable> table;
  std::vector<RecordBatchPtr> read;  // when `table` is null
  BatchStreamPtr rest;               // when `table` is null: the unread rest, or null
};

// A table being built: what its first phase (ReadBuildSide) read and derived, which its
// shards (BuildShard, each on any thread) and its last phase (FinishBuild) use.
struct BuildState {
  std::shared_ptr<JoinTable> table;
  std::vector<ArrayPtr> keys;
  PoolBuffer<uint8_t> skip;
  const uint8_t* skip_rows = nullptr;  // skip.data() when a row's key matches nothing
  PoolBuffer<uint64_t> hashes;         // per row, when sharded or large enough for a filter
  bool hashed = false;
  PoolBuffer<uint32_t> ids;  // per row: its key's id (within its shard until FinishBuild)
  std::vector<std::vector<int64_t>> shard_rows;  // sharded: each shard's rows, ascending
  int64_t bytes = 0;
  int64_t valid = 0;  // rows without skip
  MemoryPool* pool = nullptr;
};

// Phase 1: reads `input` and prepares the keys (in `shards` shards when the build side is
// large). Returns an outcome when the build ends here: an empty build side, or past the
// budget kOutOfMemory, or with `may_spill` the rows read so far and the unread rest.
Result<std::optional<BuildOutcome>> ReadBuildSide(const HashJoinExec* node, BatchStreamPtr input,
                                                  std::string consumer, const TaskContextPtr& ctx,
                                                  bool may_spill, int shards, BuildState* state) {
  state->table = std::make_shared<JoinTable>();
  state->pool = ctx->pool();
  JoinTable* table = state->table.get();
  table->reservation = std::make_unique<MemoryReservation>(ctx->memory(), std::move(consumer));
  std::vector<RecordBatchPtr> batches;
  int64_t& bytes = state->bytes;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input->Next());
    if (b == nullptr) break;
    if (b->num_rows() == 0) continue;
    bytes += b->memory_size() + b->num_rows() * 24;
    batches.push_back(std::move(b));
    if (!table->reservation->TryResize(bytes)) {
      if (!may_spill) return OutOfMemory(node, *table->reservation, bytes);
      return BuildOutcome{nullptr, std::move(batches), std::move(input)};
    }
  }
  if (batches.empty()) {
    // No rows, but the schema: taking rows of NULLs (index -1) from it works.
    FLOE_ASSIGN_OR_RAISE(table->rows_read, ChunkedBatch::Make(node->right()->schema(), {}));
    table->shards.emplace_back(KeyTypes(node->right_keys()));
    return BuildOutcome{std::move(state->table), {}, nullptr};
  }
  // The batches stay as they were read: concatenating them would copy the whole side once
  // more (and, in a fresh process, first-touch as much new memory).
  FLOE_ASSIGN_OR_RAISE(table->rows_read, ChunkedBatch::Make(node->right()->schema(),
                                                            std::move(batches), ctx->pool()));
  const int64_t n = table->rows_read.num_rows();
  if (n >= static_cast<int64_t>(kNone)) {
    return Status::NotSupported("hash join build side of {} rows exceeds 2^32 - 1", n);
  }
  table->num_rows = n;
  FLOE_ASSIGN_OR_RAISE(state->keys, BuildKeys(node->right_keys(), table->rows_read));
  table->has_null_key = MarkNullKeys(state->keys, node->null_equals_null(), &state->skip);
  state->skip_rows = table->has_null_key ? state->skip.data() : nullptr;
  state->valid = n;
  if (state->skip_rows != nullptr) {
    for (int64_t r = 0; r < n; ++r) state->valid -= state->skip_rows[r];
  }
  state->ids.Resize(n);
  if (n < kShardMinRows) shards = 1;
  for (int s = 0; s < shards; ++s) table->shards.emplace_back(KeyTypes(node->right_keys()));
  if (shards > 1 || n >= kFilterMinKeys) {
    // From the pool, uninitialised: a build side of millions of rows would otherwise
    // zero (and first touch) a fresh vector of their hashes.
    state->hashes.Resize(n);
    FLOE_RETURN_NOT_OK(expr::HashRows(state->keys, state->hashes.data()));
    state->hashed = true;
  }
  if (shards > 1) {
    table->shard_shift = 64 - std::countr_zero(static_cast<uint64_t>(shards));
    state->shard_rows.resize(static_cast<size_t>(shards));
    for (auto& rows : state->shard_rows) rows.reserve(static_cast<size_t>(n / shards + n / 16));
    for (int64_t r = 0; r < n; ++r) {
      if (state->skip_rows != nullptr && state->skip_rows[r]) {
        state->ids[r] = kNone;
        continue;
      }
      state->shard_rows[table->ShardOf(state->hashes[r])].push_back(r);
    }
  }
  return std::nullopt;
}

// The rows `rows[0..m)` of each key column.
Result<std::vector<ArrayPtr>> TakeKeys(const std::vector<ArrayPtr>& keys, const int64_t* rows,
                                       int64_t m, MemoryPool* pool) {
  std::vector<ArrayPtr> picked;
  picked.reserve(keys.size());
  for (const ArrayPtr& k : keys) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr p, TakeArray(*k, rows, m, pool));
    picked.push_back(std::move(p));
  }
  return picked;
}

// Phase 2: inserts the keys of shard `s` (any thread; shards are independent).
Status BuildShard(BuildState* state, size_t s) {
  JoinTable* table = state->table.get();
  KeyTable& keys = table->shards[s];
  if (!table->sharded()) {
    keys.Reserve(table->num_rows);
    return keys.Insert(state->keys, state->ids.data(), nullptr, state->skip_rows);
  }
  const std::vector<int64_t>& rows = state->shard_rows[s];
  const auto m = static_cast<int64_t>(rows.size());
  if (m == 0) return Status::OK();
  FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> picked,
                       TakeKeys(state->keys, rows.data(), m, state->pool));
  PoolBuffer<uint32_t> local;
  local.Resize(m);
  keys.Reserve(m);
  FLOE_RETURN_NOT_OK(keys.Insert(picked, local.data(), nullptr, nullptr));
  for (int64_t i = 0; i < m; ++i) state->ids[rows[static_cast<size_t>(i)]] = local[i];
  return Status::OK();
}

// Phase 3: the rows of each key id, the filter and the memory; past the budget kOutOfMemory
// or, with `may_spill`, the whole build side to spill.
Result<BuildOutcome> FinishBuild(const HashJoinExec* node, bool may_spill, BuildState* state) {
  JoinTable* table = state->table.get();
  const int64_t n = table->num_rows;
  uint32_t* ids = state->ids.data();
  for (const KeyTable& keys : table->shards) {
    table->shard_base.push_back(static_cast<uint32_t>(table->num_keys));
    table->num_keys += keys.num_keys();
  }
  if (table->sharded()) {
    for (int64_t r = 0; r < n; ++r) {
      if (ids[r] != kNone) ids[r] += table->shard_base[table->ShardOf(state->hashes[r])];
    }
  }
  const int64_t num_keys = table->num_keys;
  const int64_t valid = state->valid;
  if (num_keys == n && !table->sharded()) {
    // Ids are handed out in order of first insertion, so unique keys in rows without
    // skips have id == row.
    table->row_map = RowMap::kIdentity;
  } else if (num_keys == valid) {
    table->row_map = RowMap::kUnique;
    table->rows.Resize(num_keys);
    for (int64_t r = 0; r < n; ++r) {
      if (ids[r] != kNone) table->rows[ids[r]] = static_cast<uint32_t>(r);
    }
  } else {
    // A counting sort of the rows by key id (stable: rows of a key stay in row order).
    table->row_map = RowMap::kGroups;
    table->offsets.Zero(num_keys + 1);
    uint32_t* offsets = table->offsets.data();
    for (int64_t r = 0; r < n; ++r) {
      if (ids[r] != kNone) ++offsets[ids[r] + 1];
    }
    for (int64_t k = 0; k < num_keys; ++k) offsets[k + 1] += offsets[k];
    PoolBuffer<uint32_t> cursor;
    cursor.Resize(num_keys);
    std::memcpy(cursor.data(), offsets, static_cast<size_t>(num_keys) * sizeof(uint32_t));
    table->rows.Resize(valid);
    for (int64_t r = 0; r < n; ++r) {
      if (ids[r] != kNone) table->rows[cursor[ids[r]]++] = static_cast<uint32_t>(r);
    }
  }
  int64_t& bytes = state->bytes;
  if (num_keys >= kFilterMinKeys) {
    if (!state->hashed) {
      state->hashes.Resize(n);
      FLOE_RETURN_NOT_OK(expr::HashRows(state->keys, state->hashes.data()));
    }
    table->filter = std::make_unique<JoinFilter>(num_keys);
    table->filter->Insert(state->hashes.data(), n, state->skip_rows);
    bytes += table->filter->memory_size();
  }
  for (const KeyTable& keys : table->shards) bytes += keys.memory_size();
  bytes += table->offsets.memory_size() + table->rows.memory_size();
  if (!table->reservation->TryResize(bytes)) {
    if (!may_spill) return OutOfMemory(node, *table->reservation, bytes);
    return BuildOutcome{nullptr, table->rows_read.batches(), nullptr};
  }
  return BuildOutcome{std::move(state->table), {}, nullptr};
}

// Reads `input` into a table on this thread. Past the budget: kOutOfMemory, or, with
// `may_spill`, the rows read so far and the unread rest (the table's memory released).
Result<BuildOutcome> BuildTable(const HashJoinExec* node, BatchStreamPtr input,
                                std::string consumer, const TaskContextPtr& ctx, bool may_spill) {
  BuildState state;
  FLOE_ASSIGN_OR_RAISE(std::optional<BuildOutcome> ended,
                       ReadBuildSide(node, std::move(input), std::move(consumer), ctx, may_spill,
                                     /*shards=*/1, &state));
  if (ended) return std::move(*ended);
  FLOE_RETURN_NOT_OK(BuildShard(&state, 0));
  return FinishBuild(node, may_spill, &state);
}

// A join whose build side outgrows the memory budget spills both sides into this many
// buckets by key hash (a grace hash join), then joins bucket by bucket: a partitioned join's
// task its own build rows, a broadcast join's tasks the build side spilled once
// (SharedBuildBuckets).
constexpr int kSpillBucketBits = 5;
constexpr int kSpillBuckets = 1 << kSpillBucketBits;

// The bucket of a row's key hash: bits of a remix of the hash, so that neither the hash
// partitioning that brought the rows here (hash % partitions) nor the table's own use of
// the hash sees the rows of a bucket as alike.
int SpillBucket(uint64_t hash) {
  return static_cast<int>((hash * 0x9E3779B97F4A7C15ULL) >> (64 - kSpillBucketBits));
}

// The bucket files of one spilled partition; removed when it goes.
struct SpilledBuckets {
  std::vector<std::string> build, probe;  // per bucket; "" once consumed
  ~SpilledBuckets() {
    std::error_code ec;
    for (const auto* paths : {&build, &probe}) {
      for (const std::string& path : *paths) {
        if (!path.empty()) std::filesystem::remove(path, ec);
      }
    }
  }
};

// Writes the rows of batches to one spill file per bucket of their keys' hashes.
class BucketWriter {
 public:
  BucketWriter(std::vector<std::string>* paths, SchemaPtr schema,
               const std::vector<expr::PhysicalExprPtr>* keys, const TaskContextPtr& ctx)
      : paths_(paths), schema_(std::move(schema)), keys_(keys), ctx_(ctx) {}

  Status Open() {
    for (int b = 0; b < kSpillBuckets; ++b) {
      // Recorded before the file is made, so that a failure still has it removed.
      paths_->push_back(NewSpillPath(ctx_->spill_directory(), "hash-join"));
      FLOE_ASSIGN_OR_RAISE(auto writer, SpillWriter::Make(paths_->back(), schema_));
      writers_.push_back(std::move(writer));
    }
    return Status::OK();
  }

  Status Write(const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    if (n == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(auto keys, EvaluateExprs(*keys_, batch));
    hashes_.resize(static_cast<size_t>(n));
    FLOE_RETURN_NOT_OK(expr::HashRows(keys, hashes_.data()));
    for (auto& rows : rows_) rows.clear();
    for (int64_t r = 0; r < n; ++r) rows_[SpillBucket(hashes_[r])].push_back(r);
    for (int b = 0; b < kSpillBuckets; ++b) {
      const std::vector<int64_t>& rows = rows_[b];
      if (rows.empty()) continue;
      if (static_cast<int64_t>(rows.size()) == n) {
        FLOE_RETURN_NOT_OK(writers_[b]->Write(batch).status());
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr part,
                           TakeBatch(batch, rows.data(), static_cast<int64_t>(rows.size())));
      FLOE_RETURN_NOT_OK(writers_[b]->Write(*part).status());
    }
    return Status::OK();
  }

  Status WriteAll(BatchStream* input) {
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input->Next());
      if (b == nullptr) return Status::OK();
      FLOE_RETURN_NOT_OK(Write(*b));
    }
  }

  // Closes the files; the bytes written.
  Result<int64_t> Finish() {
    int64_t bytes = 0;
    for (auto& writer : writers_) {
      FLOE_ASSIGN_OR_RAISE(int64_t written, writer->Finish());
      bytes += written;
    }
    writers_.clear();
    return bytes;
  }

 private:
  std::vector<std::string>* paths_;
  SchemaPtr schema_;
  const std::vector<expr::PhysicalExprPtr>* keys_;
  const TaskContextPtr& ctx_;
  std::vector<std::unique_ptr<SpillWriter>> writers_;
  std::vector<uint64_t> hashes_;
  std::array<std::vector<int64_t>, kSpillBuckets> rows_;
};

// Writes a build side that outgrew the budget to bucket files (their paths into `paths`):
// the rows read so far, then its unread rest. `read_written` runs in between, when the
// rows read are gone (the budget they held can go back). The bytes written.
Result<int64_t> SpillBuildSide(const HashJoinExec* node, const TaskContextPtr& ctx,
                               BuildOutcome built, std::vector<std::string>* paths,
                               const std::function<void()>& read_written) {
  BucketWriter writer(paths, node->right()->schema(), &node->right_keys(), ctx);
  FLOE_RETURN_NOT_OK(writer.Open());
  for (RecordBatchPtr& b : built.read) {
    FLOE_RETURN_NOT_OK(writer.Write(*b));
    b.reset();
  }
  read_written();
  if (built.rest != nullptr) FLOE_RETURN_NOT_OK(writer.WriteAll(built.rest.get()));
  built.rest.reset();
  return writer.Finish();
}

Status PublishDynamicFilters(const HashJoinExec* node, const JoinTable& table,
                             const TaskContextPtr& ctx);

// A broadcast build side that outgrew the memory budget, in bucket files by key hash
// (SpillBucket): written once, by the task that read it, and read by every task of the
// join, each joining its own probe rows bucket by bucket. Removed when the last holder goes.
struct SharedBuildBuckets {
  std::vector<std::string> paths;  // per bucket
  ~SharedBuildBuckets() {
    std::error_code ec;
    for (const std::string& path : paths) std::filesystem::remove(path, ec);
  }
};

// What a broadcast join's tasks share: its table, or its build side in bucket files.
struct BroadcastBuild {
  std::shared_ptr<const JoinTable> table;
  std::shared_ptr<const SharedBuildBuckets> buckets;
};

// The table of a broadcast join, built once by the join's tasks together: the first to
// come reads the build side; then each task takes shards to build until none is left; the
// task that completes the last shard finishes the table and publishes its dynamic filters.
// A build side past the budget (of a join whose tasks can each join bucket by bucket,
// HashJoinExec::BroadcastMaySpill) goes to bucket files instead, and publishes no filter.
// Every task waits for the table, the buckets or the build's error.
class SharedBuild {
 public:
  Result<BroadcastBuild> Join(const HashJoinExec* node, int partition,
                              const TaskContextPtr& ctx) const {
    std::unique_lock<std::mutex> lock(mutex_);
    if (phase_ == Phase::kIdle) {
      phase_ = Phase::kReading;
      lock.unlock();
      Status status = Read(node, partition, ctx);
      lock.lock();
      status_ = std::move(status);
      phase_ =
          status_.ok() && table_ == nullptr && buckets_ == nullptr ? Phase::kShards : Phase::kDone;
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return phase_ != Phase::kReading; });
    while (phase_ == Phase::kShards && next_shard_ < state_.table->shards.size()) {
      const size_t s = next_shard_++;
      // After a shard failed, the others are only counted.
      const bool build = status_.ok();
      lock.unlock();
      Status status = build ? BuildShard(&state_, s) : Status::OK();
      lock.lock();
      if (status_.ok()) status_ = std::move(status);
      if (++shards_done_ == state_.table->shards.size()) {
        phase_ = Phase::kFinishing;
        const bool finish = status_.ok();
        lock.unlock();
        Status finished = finish ? Finish(node, ctx) : Status::OK();
        lock.lock();
        if (status_.ok()) status_ = std::move(finished);
        phase_ = Phase::kDone;
        changed_.notify_all();
      }
    }
    changed_.wait(lock, [&] { return phase_ == Phase::kDone; });
    if (!status_.ok()) return status_;
    return BroadcastBuild{table_, buckets_};
  }

 private:
  enum class Phase { kIdle, kReading, kShards, kFinishing, kDone };

  // Reads the build side; sets table_ when that is all (an empty build side), or buckets_
  // when it outgrew the budget.
  Status Read(const HashJoinExec* node, int partition, const TaskContextPtr& ctx) const {
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(node->right(), 0, ctx));
    const int shards =
        HashJoinExec::BroadcastBuildShards(ctx->config(), node->left()->partition_count());
    FLOE_ASSIGN_OR_RAISE(
        std::optional<BuildOutcome> ended,
        ReadBuildSide(node, std::move(input), "HashJoinExec[0] build side", ctx,
                      HashJoinExec::BroadcastMaySpill(node->join_type()), shards, &state_));
    if (!ended) return Status::OK();
    if (ended->table == nullptr) return SpillBuild(node, partition, ctx, std::move(*ended));
    table_ = std::move(ended->table);
    return PublishDynamicFilters(node, *table_, ctx);
  }

  // Writes what was read of the build side and its unread rest to bucket files.
  Status SpillBuild(const HashJoinExec* node, int partition, const TaskContextPtr& ctx,
                    BuildOutcome built) const {
    auto buckets = std::make_shared<SharedBuildBuckets>();
    // The budget that the rows read held goes back before the rest is read.
    FLOE_ASSIGN_OR_RAISE(const int64_t bytes,
                         SpillBuildSide(node, ctx, std::move(built), &buckets->paths,
                                        [this] { state_ = BuildState(); }));
    if (QueryMetrics* m = ctx->metrics()) m->For(node, partition).spilled_bytes += bytes;
    buckets_ = std::move(buckets);
    return Status::OK();
  }

  Status Finish(const HashJoinExec* node, const TaskContextPtr& ctx) const {
    FLOE_ASSIGN_OR_RAISE(BuildOutcome built, FinishBuild(node, /*may_spill=*/false, &state_));
    std::shared_ptr<const JoinTable> table = std::move(built.table);
    FLOE_RETURN_NOT_OK(PublishDynamicFilters(node, *table, ctx));
    state_ = BuildState();
    std::lock_guard<std::mutex> lock(mutex_);
    table_ = std::move(table);
    return Status::OK();
  }

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  mutable Phase phase_ = Phase::kIdle;
  mutable Status status_;
  mutable BuildState state_;
  mutable size_t next_shard_ = 0;
  mutable size_t shards_done_ = 0;
  mutable std::shared_ptr<const JoinTable> table_;
  mutable std::shared_ptr<const SharedBuildBuckets> buckets_;
};

// Publishes the join's dynamic filters over the keys of its built table.
Status PublishDynamicFilters(const HashJoinExec* node, const JoinTable& table,
                             const TaskContextPtr& ctx) {
  for (const DynamicFilterTarget& target : node->dynamic_filters()) {
    DynamicFilter filter;
    const expr::PhysicalExprPtr& key = node->right_keys()[static_cast<size_t>(target.key)];
    filter.type = key->type();
    if (table.num_rows > 0) {
      FLOE_ASSIGN_OR_RAISE(auto keys, BuildKeys({key}, table.rows_read));
      // One key column: the table's key count is its distinct count.
      std::optional<int64_t> max_distinct;
      if (node->right_keys().size() == 1) max_distinct = table.num_keys;
      FLOE_ASSIGN_OR_RAISE(filter, DynamicFilter::Of(*keys[0], max_distinct));
    }
    ctx->PublishDynamicFilter(target.id, std::make_shared<const DynamicFilter>(std::move(filter)));
  }
  return Status::OK();
}

Result<ArrayPtr> NullColumn(const TypePtr& type, int64_t n) { return Array::MakeNull(type, n); }

class HashJoinStream final : public BatchStream {
 public:
  HashJoinStream(const HashJoinExec* node, int partition, TaskContextPtr ctx)
      : node_(node), partition_(partition), ctx_(std::move(ctx)), type_(node->join_type()) {}

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    if (!table_) {
      if (node_->mode() == JoinMode::kBroadcast) {
        FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const SharedBuild> build,
                             ctx_->GetOrCreateShared<SharedBuild>(
                                 node_, []() -> Result<std::shared_ptr<const SharedBuild>> {
                                   return std::make_shared<const SharedBuild>();
                                 }));
        FLOE_ASSIGN_OR_RAISE(BroadcastBuild shared, build->Join(node_, partition_, ctx_));
        if (shared.table != nullptr) {
          table_ = std::move(shared.table);
        } else {
          shared_build_ = std::move(shared.buckets);
          spilled_ = std::make_unique<SpilledBuckets>();
          FLOE_RETURN_NOT_OK(SpillProbe());
          FLOE_RETURN_NOT_OK(LoadBucket(0));
        }
      } else {
        FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(node_->right(), partition_, ctx_));
        FLOE_ASSIGN_OR_RAISE(BuildOutcome built,
                             BuildTable(node_, std::move(input), BuildConsumer(), ctx_,
                                        /*may_spill=*/true));
        if (built.table != nullptr) {
          table_ = std::move(built.table);
        } else {
          FLOE_RETURN_NOT_OK(Spill(std::move(built)));
          FLOE_RETURN_NOT_OK(LoadBucket(0));
        }
      }
      StartTable();
    }
    while (true) {
      if (out_pos_ < out_.size()) return out_[out_pos_++];
      out_.clear();
      out_pos_ = 0;
      if (done_probe_) {
        if (!emitted_unmatched_build_ && !build_matched_.empty()) {
          emitted_unmatched_build_ = true;
          FLOE_RETURN_NOT_OK(EmitUnmatchedBuild());
          continue;
        }
        if (spilled_ != nullptr && bucket_ + 1 < kSpillBuckets) {
          FLOE_RETURN_NOT_OK(LoadBucket(bucket_ + 1));
          StartTable();
          continue;
        }
        return RecordBatchPtr();
      }
      if (probe_ == nullptr) {
        if (!input_) {
          FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->left(), partition_, ctx_));
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input_->Next());
        if (b == nullptr) {
          done_probe_ = true;
          input_.reset();
          continue;
        }
        if (b->num_rows() == 0) continue;
        FLOE_RETURN_NOT_OK(StartProbe(std::move(b)));
      }
      FLOE_RETURN_NOT_OK(ProbeChunk());
    }
  }

 private:
  int64_t batch_size() const { return std::max<int64_t>(1, ctx_->config().batch_size()); }

  std::string BuildConsumer() const {
    return "HashJoinExec[" + std::to_string(partition_) + "] build side";
  }

  // The per-table state once table_ is set: matches of build rows, and no probing where
  // the table being empty decides the output.
  void StartTable() {
    build_matched_.clear();
    if (type_ == JoinType::kRight || type_ == JoinType::kFull || BuildPreserved()) {
      build_matched_.assign(static_cast<size_t>(table_->num_rows), 0);
    }
    // Inner and semi joins with an empty build side produce nothing, nor do the joins
    // that emit build rows only; a null-aware anti join produces nothing once the build
    // side holds a NULL key (x NOT IN a set with NULL is never true).
    if (table_->num_rows == 0 && (type_ == JoinType::kInner || type_ == JoinType::kSemi ||
                                  type_ == JoinType::kRight || BuildPreserved())) {
      done_probe_ = true;
    }
    if (type_ == JoinType::kNullAwareAnti && table_->num_rows > 0 && table_->has_null_key) {
      done_probe_ = true;
    }
  }

  // The build side outgrew the budget: what was read of it, its unread rest and then the
  // whole probe side go to bucket files by key hash.
  Status Spill(BuildOutcome built) {
    spilled_ = std::make_unique<SpilledBuckets>();
    FLOE_ASSIGN_OR_RAISE(const int64_t build_bytes,
                         SpillBuildSide(node_, ctx_, std::move(built), &spilled_->build, [] {}));
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += build_bytes;
    return SpillProbe();
  }

  // The whole probe side of this partition to bucket files by key hash.
  Status SpillProbe() {
    BucketWriter probe(&spilled_->probe, node_->left()->schema(), &node_->left_keys(), ctx_);
    FLOE_RETURN_NOT_OK(probe.Open());
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(node_->left(), partition_, ctx_));
    FLOE_RETURN_NOT_OK(probe.WriteAll(input.get()));
    FLOE_ASSIGN_OR_RAISE(const int64_t probe_bytes, probe.Finish());
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += probe_bytes;
    return Status::OK();
  }

  // Joins bucket `b` next: its build rows as the table, its probe rows as the probe side.
  Status LoadBucket(int b) {
    table_.reset();
    input_.reset();
    probe_.reset();
    bucket_ = b;
    done_probe_ = false;
    emitted_unmatched_build_ = false;
    std::error_code ec;
    // A broadcast join's build buckets are every task's: they stay until the last is done.
    const std::string build_path = shared_build_ != nullptr
                                       ? shared_build_->paths[static_cast<size_t>(b)]
                                       : spilled_->build[static_cast<size_t>(b)];
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr rows, OpenSpillFile(build_path, node_->right()->schema()));
    auto built = BuildTable(node_, std::move(rows), BuildConsumer(), ctx_, /*may_spill=*/false);
    if (!built.ok()) {
      return built.status().WithPrefix(
          fmt::format("hash join bucket {} of {} (the build side spilled; its keys are too "
                      "skewed for the buckets to fit): ",
                      b, kSpillBuckets));
    }
    table_ = std::move(built->table);
    if (shared_build_ == nullptr) {
      std::filesystem::remove(build_path, ec);
      spilled_->build[static_cast<size_t>(b)].clear();
    }
    const std::string& probe_path = spilled_->probe[static_cast<size_t>(b)];
    FLOE_ASSIGN_OR_RAISE(input_, OpenSpillFile(probe_path, node_->left()->schema()));
    return Status::OK();
  }

  // Right semi / anti: the output is build rows, decided once the probe side is done.
  bool BuildPreserved() const {
    return type_ == JoinType::kRightSemi || type_ == JoinType::kRightAnti;
  }

  Status StartProbe(RecordBatchPtr b) {
    probe_ = std::move(b);
    const int64_t n = probe_->num_rows();
    cand_pos_ = 0;
    group_pos_ = group_end_ = 0;
    cand_rows_.clear();
    cand_ids_.clear();
    if (type_ != JoinType::kInner && type_ != JoinType::kRight && !BuildPreserved()) {
      probe_matched_.assign(static_cast<size_t>(n), 0);
    }
    probe_null_.Zero(n);
    if (table_->num_rows == 0) return Status::OK();
    FLOE_ASSIGN_OR_RAISE(auto keys, EvaluateExprs(node_->left_keys(), *probe_));
    const bool any_null = MarkNullKeys(keys, node_->null_equals_null(), &probe_null_);
    const uint8_t* skip = any_null ? probe_null_.data() : nullptr;
    const bool filtered = UseFilter();
    if (filtered || table_->sharded()) FLOE_RETURN_NOT_OK(expr::HashRows(keys, &hashes_));
    if (filtered) {
      // Only the rows that pass the filter go to the hash table, gathered unless most
      // of them pass.
      sel_.resize(static_cast<size_t>(n));
      const int64_t m = table_->filter->Select(hashes_.data(), n, skip, sel_.data());
      filter_probed_ += n;
      filter_passed_ += m;
      if (m == 0) return Status::OK();
      if (m * 2 <= n) {
        ids_.resize(static_cast<size_t>(m));
        FLOE_RETURN_NOT_OK(Lookup(keys, sel_.data(), m, nullptr, ids_.data()));
        cand_rows_.reserve(static_cast<size_t>(m));
        cand_ids_.reserve(static_cast<size_t>(m));
        for (int64_t i = 0; i < m; ++i) {
          if (ids_[i] == kNone) continue;
          cand_rows_.push_back(sel_[i]);
          cand_ids_.push_back(ids_[i]);
        }
        return Status::OK();
      }
    }
    ids_.resize(static_cast<size_t>(n));
    FLOE_RETURN_NOT_OK(Lookup(keys, nullptr, n, skip, ids_.data()));
    cand_rows_.reserve(static_cast<size_t>(n));
    cand_ids_.reserve(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      if (ids_[r] == kNone) continue;
      cand_rows_.push_back(r);
      cand_ids_.push_back(ids_[r]);
    }
    return Status::OK();
  }

  // The key ids of `m` probe rows: rows[i] (or row i when `rows` is null, rows with skip[i]
  // set left out) into ids[i], kNone where the table has no such key. A sharded table looks
  // each row up in the shard of its hash (hashes_ holds them).
  Status Lookup(const std::vector<ArrayPtr>& keys, const int64_t* rows, int64_t m,
                const uint8_t* skip, uint32_t* ids) {
    if (!table_->sharded()) {
      const KeyTable& table = table_->shards[0];
      if (rows == nullptr) return table.Find(keys, ids, skip, &scratch_);
      FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> picked, TakeKeys(keys, rows, m, ctx_->pool()));
      return table.Find(picked, ids, nullptr, &scratch_);
    }
    const size_t shards = table_->shards.size();
    shard_pos_.resize(shards);
    shard_rows_.resize(shards);
    for (size_t s = 0; s < shards; ++s) {
      shard_pos_[s].clear();
      shard_rows_[s].clear();
    }
    for (int64_t i = 0; i < m; ++i) {
      ids[i] = kNone;
      const int64_t r = rows == nullptr ? i : rows[i];
      if (skip != nullptr && skip[r]) continue;
      const size_t s = table_->ShardOf(hashes_[static_cast<size_t>(r)]);
      shard_pos_[s].push_back(i);
      shard_rows_[s].push_back(r);
    }
    for (size_t s = 0; s < shards; ++s) {
      const std::vector<int64_t>& picked_rows = shard_rows_[s];
      const auto k = static_cast<int64_t>(picked_rows.size());
      if (k == 0) continue;
      FLOE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> picked,
                           TakeKeys(keys, picked_rows.data(), k, ctx_->pool()));
      local_ids_.resize(static_cast<size_t>(k));
      FLOE_RETURN_NOT_OK(table_->shards[s].Find(picked, local_ids_.data(), nullptr, &scratch_));
      const uint32_t base = table_->shard_base[s];
      const std::vector<int64_t>& pos = shard_pos_[s];
      for (int64_t j = 0; j < k; ++j) {
        const uint32_t id = local_ids_[static_cast<size_t>(j)];
        if (id != kNone) ids[pos[static_cast<size_t>(j)]] = base + id;
      }
    }
    return Status::OK();
  }

  // True while the build side's filter is worth checking: it has one, and most probe
  // rows seen so far failed it (past a first sample of rows).
  bool UseFilter() const {
    if (table_->filter == nullptr) return false;
    return filter_probed_ < (int64_t{1} << 16) || filter_passed_ * 2 <= filter_probed_;
  }

  // Collects up to batch_size candidate pairs, evaluates the filter, and emits matches.
  Status ProbeChunk() {
    const int64_t num_cands = static_cast<int64_t>(cand_rows_.size());
    const bool first_match_only = node_->filter() == nullptr &&
                                  (type_ == JoinType::kSemi || type_ == JoinType::kAnti ||
                                   type_ == JoinType::kMark || type_ == JoinType::kNullAwareAnti);
    if (first_match_only) {
      for (int64_t c = cand_pos_; c < num_cands; ++c) probe_matched_[cand_rows_[c]] = 1;
      cand_pos_ = num_cands;
    } else if (node_->filter() == nullptr && BuildPreserved()) {
      // Every row of a found key matches: mark them without forming pairs.
      MarkBuildRowsOfKeys(cand_pos_, num_cands);
      cand_pos_ = num_cands;
    }
    const int64_t limit = batch_size();
    int64_t m = 0;
    if (cand_pos_ < num_cands) {
      if (static_cast<int64_t>(probe_idx_.size()) < limit) {
        probe_idx_.resize(static_cast<size_t>(limit));
        build_idx_.resize(static_cast<size_t>(limit));
      }
      int64_t* probe_idx = probe_idx_.data();
      int64_t* build_idx = build_idx_.data();
      const int64_t* cand_rows = cand_rows_.data();
      const uint32_t* cand_ids = cand_ids_.data();
      switch (table_->row_map) {
        case RowMap::kIdentity: {
          m = std::min(limit, num_cands - cand_pos_);
          for (int64_t i = 0; i < m; ++i) {
            probe_idx[i] = cand_rows[cand_pos_ + i];
            build_idx[i] = cand_ids[cand_pos_ + i];
          }
          cand_pos_ += m;
          break;
        }
        case RowMap::kUnique: {
          m = std::min(limit, num_cands - cand_pos_);
          const uint32_t* rows = table_->rows.data();
          for (int64_t i = 0; i < m; ++i) {
            probe_idx[i] = cand_rows[cand_pos_ + i];
            build_idx[i] = rows[cand_ids[cand_pos_ + i]];
          }
          cand_pos_ += m;
          break;
        }
        case RowMap::kGroups: {
          const uint32_t* offsets = table_->offsets.data();
          const uint32_t* rows = table_->rows.data();
          while (cand_pos_ < num_cands && m < limit) {
            if (group_pos_ == group_end_) {
              const uint32_t id = cand_ids[cand_pos_];
              group_pos_ = offsets[id];
              group_end_ = offsets[id + 1];
            }
            const int64_t r = cand_rows[cand_pos_];
            const int64_t take = std::min<int64_t>(limit - m, group_end_ - group_pos_);
            for (int64_t i = 0; i < take; ++i) {
              probe_idx[m + i] = r;
              build_idx[m + i] = rows[group_pos_ + i];
            }
            m += take;
            group_pos_ += static_cast<uint32_t>(take);
            if (group_pos_ == group_end_) ++cand_pos_;
          }
          break;
        }
      }
    }
    if (m > 0) FLOE_RETURN_NOT_OK(EmitPairs(m));
    if (cand_pos_ >= num_cands) {
      FLOE_RETURN_NOT_OK(FinishProbeBatch());
      probe_.reset();
    }
    return Status::OK();
  }

  // Marks the build rows of the candidates' key ids [from, to) as matched.
  void MarkBuildRowsOfKeys(int64_t from, int64_t to) {
    uint8_t* matched = build_matched_.data();
    const uint32_t* ids = cand_ids_.data();
    switch (table_->row_map) {
      case RowMap::kIdentity:
        for (int64_t c = from; c < to; ++c) matched[ids[c]] = 1;
        break;
      case RowMap::kUnique: {
        const uint32_t* rows = table_->rows.data();
        for (int64_t c = from; c < to; ++c) matched[rows[ids[c]]] = 1;
        break;
      }
      case RowMap::kGroups: {
        const uint32_t* offsets = table_->offsets.data();
        const uint32_t* rows = table_->rows.data();
        for (int64_t c = from; c < to; ++c) {
          const uint32_t id = ids[c];
          if (matched[rows[offsets[id]]]) continue;  // the key's rows are marked together
          for (uint32_t i = offsets[id]; i < offsets[id + 1]; ++i) matched[rows[i]] = 1;
        }
        break;
      }
    }
  }

  // True when the indices are first, first + 1, ..., first + size - 1. (A span check of
  // first and last alone is not enough: a row matching twice next to a row matching
  // nothing spans the same range.)
  static bool IsConsecutive(const int64_t* indices, int64_t m) {
    for (int64_t i = 1; i < m; ++i) {
      if (indices[i] != indices[i - 1] + 1) return false;
    }
    return true;
  }

  // Emits the first m pairs of probe_idx_ and build_idx_.
  Status EmitPairs(int64_t m) {
    RecordBatchPtr pairs;
    const bool need_pairs = node_->filter() != nullptr || type_ == JoinType::kInner ||
                            type_ == JoinType::kLeft || type_ == JoinType::kRight ||
                            type_ == JoinType::kFull;
    if (need_pairs) {
      RecordBatchPtr l;
      if (IsConsecutive(probe_idx_.data(), m)) {
        // Each probe row of a range matched once (a foreign-key join): no gather needed.
        l = probe_->Slice(probe_idx_.front(), m);
      } else {
        FLOE_ASSIGN_OR_RAISE(l, TakeBatch(*probe_, probe_idx_.data(), m));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr r,
                           table_->rows_read.Take(build_idx_.data(), m, ctx_->pool()));
      std::vector<ArrayPtr> cols = l->columns();
      cols.insert(cols.end(), r->columns().begin(), r->columns().end());
      if (!pairs_schema_) {
        pairs_schema_ =
            JoinOutputSchema(*node_->left()->schema(), *node_->right()->schema(), JoinType::kInner);
      }
      FLOE_ASSIGN_OR_RAISE(pairs, RecordBatch::Make(pairs_schema_, m, std::move(cols)));
    }
    ArrayPtr mask;
    if (node_->filter() != nullptr) {
      expr::EvalContext ectx;
      FLOE_ASSIGN_OR_RAISE(mask, expr::EvaluateToArray(*node_->filter(), *pairs, ectx));
    }
    auto passes = [&](int64_t i) {
      return mask == nullptr || (mask->IsValid(i) && mask->BoolValue(i));
    };
    if (!probe_matched_.empty() || !build_matched_.empty()) {
      for (int64_t i = 0; i < m; ++i) {
        if (!passes(i)) continue;
        if (!probe_matched_.empty()) probe_matched_[probe_idx_[i]] = 1;
        if (!build_matched_.empty()) build_matched_[build_idx_[i]] = 1;
      }
    }
    if (type_ == JoinType::kInner || type_ == JoinType::kLeft || type_ == JoinType::kRight ||
        type_ == JoinType::kFull) {
      RecordBatchPtr out = pairs;
      if (mask != nullptr) {
        FLOE_ASSIGN_OR_RAISE(out, FilterBatch(*pairs, *mask));
      }
      if (out->num_rows() > 0) {
        FLOE_ASSIGN_OR_RAISE(out, RecordBatch::Make(schema(), out->num_rows(), out->columns()));
        out_.push_back(std::move(out));
      }
    }
    return Status::OK();
  }

  // Emits what depends on whole probe rows: unmatched left rows, semi/anti rows, marks.
  Status FinishProbeBatch() {
    const int64_t n = probe_->num_rows();
    switch (type_) {
      case JoinType::kLeft:
      case JoinType::kFull: {
        std::vector<int64_t> rows;
        for (int64_t r = 0; r < n; ++r) {
          if (!probe_matched_[r]) rows.push_back(r);
        }
        if (rows.empty()) break;
        for (size_t pos = 0; pos < rows.size(); pos += static_cast<size_t>(batch_size())) {
          const int64_t len =
              std::min<int64_t>(batch_size(), static_cast<int64_t>(rows.size() - pos));
          FLOE_ASSIGN_OR_RAISE(RecordBatchPtr l, TakeBatch(*probe_, rows.data() + pos, len));
          std::vector<ArrayPtr> cols = l->columns();
          for (const Field& f : node_->right()->schema()->fields()) {
            FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, NullColumn(f.type(), len));
            cols.push_back(std::move(nulls));
          }
          FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                               RecordBatch::Make(schema(), len, std::move(cols)));
          out_.push_back(std::move(out));
        }
        break;
      }
      case JoinType::kSemi:
      case JoinType::kAnti:
      case JoinType::kNullAwareAnti: {
        const uint8_t want = type_ == JoinType::kSemi ? 1 : 0;
        // Null-aware: a NULL probe key against a non-empty build side is unknown, not kept.
        const bool drop_null = type_ == JoinType::kNullAwareAnti && table_->num_rows > 0;
        std::vector<int64_t> rows;
        for (int64_t r = 0; r < n; ++r) {
          if (probe_matched_[r] == want && !(drop_null && probe_null_[r])) rows.push_back(r);
        }
        if (rows.empty()) break;
        if (static_cast<int64_t>(rows.size()) == n) {
          FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                               RecordBatch::Make(schema(), n, probe_->columns()));
          out_.push_back(std::move(out));
          break;
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                             TakeBatch(*probe_, rows.data(), static_cast<int64_t>(rows.size())));
        FLOE_ASSIGN_OR_RAISE(out, RecordBatch::Make(schema(), out->num_rows(), out->columns()));
        out_.push_back(std::move(out));
        break;
      }
      case JoinType::kMark: {
        BooleanBuilder mark(ctx_->pool());
        FLOE_RETURN_NOT_OK(mark.Reserve(n));
        const bool build_empty = table_->num_rows == 0;
        for (int64_t r = 0; r < n; ++r) {
          if (probe_matched_[r]) {
            mark.UnsafeAppend(true);
          } else if (!build_empty && (probe_null_[r] || table_->has_null_key)) {
            FLOE_RETURN_NOT_OK(mark.AppendNull());
          } else {
            mark.UnsafeAppend(false);
          }
        }
        FLOE_ASSIGN_OR_RAISE(ArrayPtr m, mark.Finish());
        std::vector<ArrayPtr> cols = probe_->columns();
        cols.push_back(std::move(m));
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), n, std::move(cols)));
        out_.push_back(std::move(out));
        break;
      }
      default:
        break;
    }
    return Status::OK();
  }

  // The build rows the join type keeps once probing is done: unmatched (right, full, right
  // anti; the first two with NULL left columns) or matched (right semi).
  Status EmitUnmatchedBuild() {
    const uint8_t want = type_ == JoinType::kRightSemi ? 1 : 0;
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < table_->num_rows; ++r) {
      if (build_matched_[r] == want) rows.push_back(r);
    }
    // A broadcast join emits this task's verdicts only: the rows with their build
    // positions, for the merge.
    const bool positions = BuildPreserved() && node_->mode() == JoinMode::kBroadcast;
    if (BuildPreserved() && !positions && static_cast<int64_t>(rows.size()) == table_->num_rows) {
      // Every build row: the table's batches as they are, in slices of at most batch_size.
      for (const RecordBatchPtr& batch : table_->rows_read.batches()) {
        for (int64_t pos = 0; pos < batch->num_rows(); pos += batch_size()) {
          const int64_t len = std::min<int64_t>(batch_size(), batch->num_rows() - pos);
          RecordBatchPtr slice = batch->Slice(pos, len);
          FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                               RecordBatch::Make(schema(), len, slice->columns()));
          out_.push_back(std::move(out));
        }
      }
      return Status::OK();
    }
    for (size_t pos = 0; pos < rows.size(); pos += static_cast<size_t>(batch_size())) {
      const int64_t len = std::min<int64_t>(batch_size(), static_cast<int64_t>(rows.size() - pos));
      std::vector<ArrayPtr> cols;
      if (!BuildPreserved()) {
        // Right and full joins: NULL left columns.
        for (const Field& f : node_->left()->schema()->fields()) {
          FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, NullColumn(f.type(), len));
          cols.push_back(std::move(nulls));
        }
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr r,
                           table_->rows_read.Take(rows.data() + pos, len, ctx_->pool()));
      cols.insert(cols.end(), r->columns().begin(), r->columns().end());
      if (positions) {
        Int64Builder builder(Int64(), ctx_->pool());
        FLOE_RETURN_NOT_OK(builder.AppendValues(rows.data() + pos, len));
        FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder.Finish());
        cols.push_back(std::move(column));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), len, std::move(cols)));
      out_.push_back(std::move(out));
    }
    return Status::OK();
  }

  const HashJoinExec* node_;
  int partition_;
  TaskContextPtr ctx_;
  JoinType type_;
  std::shared_ptr<const JoinTable> table_;
  // Set when the build side spilled: the bucket files, and the bucket being joined. A
  // broadcast join's build buckets are shared_build_'s (spilled_ holds the probe's only).
  std::unique_ptr<SpilledBuckets> spilled_;
  std::shared_ptr<const SharedBuildBuckets> shared_build_;
  int bucket_ = 0;
  std::vector<uint8_t> build_matched_;
  BatchStreamPtr input_;
  SchemaPtr pairs_schema_;

  RecordBatchPtr probe_;
  KeyTable::Scratch scratch_;
  std::vector<uint64_t> hashes_;
  std::vector<int64_t> sel_;
  // Lookup's per-shard positions and rows, and a shard's ids.
  std::vector<std::vector<int64_t>> shard_pos_, shard_rows_;
  std::vector<uint32_t> local_ids_;
  std::vector<uint32_t> ids_;
  // The probe rows whose keys are in the table, with their key ids; the next one to
  // pair up, and the part of its key's rows (kGroups) not yet paired.
  std::vector<int64_t> cand_rows_;
  std::vector<uint32_t> cand_ids_;
  int64_t cand_pos_ = 0;
  uint32_t group_pos_ = 0, group_end_ = 0;
  int64_t filter_probed_ = 0, filter_passed_ = 0;
  PoolBuffer<uint8_t> probe_null_;
  std::vector<uint8_t> probe_matched_;
  std::vector<int64_t> probe_idx_, build_idx_;

  std::vector<RecordBatchPtr> out_;
  size_t out_pos_ = 0;
  bool done_probe_ = false;
  bool emitted_unmatched_build_ = false;
};

}  // namespace

std::string_view JoinModeName(JoinMode mode) {
  return mode == JoinMode::kPartitioned ? "Partitioned" : "Broadcast";
}

int HashJoinExec::BroadcastBuildShards(const SessionConfig& config, int probe_partitions) {
  if (config.memory_limit_set()) return 1;
  return static_cast<int>(
      std::bit_ceil(static_cast<uint32_t>(std::clamp(2 * probe_partitions, 1, 16))));
}

namespace {

// The build side's hash partitioning re-expressed over the join's output, where its columns
// come after `probe_columns` probe columns; Unknown when it is not a hash or an expression
// does not carry over.
Partitioning BuildSidePartitioning(const ExecutionPlan& build, int probe_columns,
                                   const SchemaPtr& output) {
  const Partitioning& bp = build.properties().partitioning;
  if (bp.kind() != Partitioning::Kind::kHash) return Partitioning::Unknown(bp.partition_count());
  std::vector<int> mapping(static_cast<size_t>(build.schema()->num_fields()));
  for (size_t i = 0; i < mapping.size(); ++i) mapping[i] = probe_columns + static_cast<int>(i);
  std::vector<expr::PhysicalExprPtr> exprs;
  for (const expr::PhysicalExprPtr& e : bp.exprs()) {
    if (!e->source()) return Partitioning::Unknown(bp.partition_count());
    Result<expr::PhysicalExprPtr> shifted =
        expr::Compile(expr::RemapColumns(e->source(), mapping), output);
    if (!shifted.ok()) return Partitioning::Unknown(bp.partition_count());
    exprs.push_back(std::move(*shifted));
  }
  return Partitioning::Hash(std::move(exprs), bp.partition_count());
}

}  // namespace

Result<PlanPtr> HashJoinExec::Make(PlanPtr left, PlanPtr right,
                                   std::vector<expr::PhysicalExprPtr> left_keys,
                                   std::vector<expr::PhysicalExprPtr> right_keys,
                                   plan::JoinType type, expr::PhysicalExprPtr filter,
                                   std::vector<bool> null_equals_null, JoinMode mode,
                                   std::vector<DynamicFilterTarget> dynamic_filters) {
  if (left == nullptr || right == nullptr) return Status::Internal("HashJoinExec: missing input");
  if (left_keys.empty() || left_keys.size() != right_keys.size()) {
    return Status::Internal("HashJoinExec: {} left keys and {} right keys", left_keys.size(),
                            right_keys.size());
  }
  for (size_t k = 0; k < left_keys.size(); ++k) {
    if (!left_keys[k]->type()->Equals(*right_keys[k]->type())) {
      return Status::Internal("HashJoinExec: join key {} has types {} and {}", k,
                              left_keys[k]->type()->ToString(), right_keys[k]->type()->ToString());
    }
  }
  if (null_equals_null.empty()) null_equals_null.assign(left_keys.size(), false);
  if (null_equals_null.size() != left_keys.size()) {
    return Status::Internal("HashJoinExec: {} null_equals_null flags for {} keys",
                            null_equals_null.size(), left_keys.size());
  }
  for (const DynamicFilterTarget& target : dynamic_filters) {
    if (!PublishesDynamicFilters(mode, type) || target.key < 0 ||
        target.key >= static_cast<int>(right_keys.size()) ||
        !DynamicFilter::Supports(*right_keys[static_cast<size_t>(target.key)]->type())) {
      return Status::Internal("HashJoinExec: dynamic filter {} on key {} of a {} {} join",
                              target.id, target.key, JoinModeName(mode), plan::JoinTypeName(type));
    }
  }
  if (mode == JoinMode::kBroadcast && (type == JoinType::kRight || type == JoinType::kFull)) {
    return Status::Internal("HashJoinExec: a broadcast join cannot be a {} join",
                            plan::JoinTypeName(type));
  }
  if (mode != JoinMode::kBroadcast && type == JoinType::kNullAwareAnti) {
    return Status::Internal("HashJoinExec: a {} join must be broadcast", plan::JoinTypeName(type));
  }
  PlanProperties props;
  props.schema = JoinOutputSchema(*left->schema(), *right->schema(), type);
  const Partitioning& lp = left->properties().partitioning;
  const bool build_preserved = type == JoinType::kRightSemi || type == JoinType::kRightAnti;
  if (build_preserved && mode == JoinMode::kBroadcast) {
    // Each task's share of the build rows, with their positions for the merge.
    std::vector<Field> fields = props.schema->fields();
    fields.emplace_back(std::string(kBuildRowColumn), Int64(), false);
    props.schema = std::make_shared<Schema>(std::move(fields));
    props.partitioning = lp.kind() == Partitioning::Kind::kSingle
                             ? Partitioning::Single()
                             : Partitioning::Unknown(lp.partition_count());
  } else if (build_preserved) {
    // The build side's rows, partitioned as the probe side is (by the same keys).
    props.partitioning = right->properties().partitioning;
  } else if (type == JoinType::kRight && mode == JoinMode::kPartitioned) {
    // Each task joins one partition of both sides and emits its unmatched build rows: the
    // rows are partitioned as the build side is, by its columns (after the probe side's).
    props.partitioning = BuildSidePartitioning(*right, left->schema()->num_fields(), props.schema);
  } else if (type == JoinType::kRight || type == JoinType::kFull) {
    props.partitioning = lp.kind() == Partitioning::Kind::kSingle
                             ? Partitioning::Single()
                             : Partitioning::Unknown(lp.partition_count());
  } else {
    props.partitioning = lp;
  }
  return PlanPtr(new HashJoinExec(std::move(left), std::move(right), std::move(left_keys),
                                  std::move(right_keys), type, std::move(filter),
                                  std::move(null_equals_null), mode, std::move(dynamic_filters),
                                  std::move(props)));
}

Result<PlanPtr> HashJoinExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 2) return Status::Internal("HashJoinExec takes two children");
  return Make(std::move(children[0]), std::move(children[1]), left_keys_, right_keys_, type_,
              filter_, null_equals_null_, mode_, dynamic_filters_);
}

std::vector<Distribution> HashJoinExec::RequiredInputDistribution() const {
  if (mode_ == JoinMode::kBroadcast)
    return {Distribution::Unspecified(), Distribution::Broadcast()};
  return {Distribution::Hash(left_keys_), Distribution::Hash(right_keys_)};
}

Result<BatchStreamPtr> HashJoinExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("HashJoinExec: partition {} out of range", partition);
  }
  if (mode_ == JoinMode::kPartitioned && left_->partition_count() != right_->partition_count()) {
    return Status::Internal("HashJoinExec: {} left partitions and {} right partitions",
                            left_->partition_count(), right_->partition_count());
  }
  if (mode_ == JoinMode::kBroadcast && right_->partition_count() != 1) {
    return Status::Internal("HashJoinExec: broadcast build side has {} partitions",
                            right_->partition_count());
  }
  return std::make_unique<HashJoinStream>(this, partition, ctx);
}

std::string HashJoinExec::ToString() const {
  std::string out = "HashJoinExec: mode=" + std::string(JoinModeName(mode_)) +
                    ", type=" + std::string(plan::JoinTypeName(type_)) + ", on=[";
  for (size_t k = 0; k < left_keys_.size(); ++k) {
    if (k > 0) out += ", ";
    out += "(" + left_keys_[k]->ToString() +
           (null_equals_null_[k] ? " IS NOT DISTINCT FROM " : ", ") + right_keys_[k]->ToString() +
           ")";
  }
  out += "]";
  if (filter_) out += ", filter=" + filter_->ToString();
  if (!dynamic_filters_.empty()) {
    out += ", dynamic_filters=[";
    for (size_t i = 0; i < dynamic_filters_.size(); ++i) {
      if (i > 0) out += ", ";
      out += "#" + std::to_string(dynamic_filters_[i].id) + " on " +
             right_keys_[static_cast<size_t>(dynamic_filters_[i].key)]->ToString();
    }
    out += "]";
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h). A filter is compiled against the rows it sees: the left columns, then
// the right ones.

namespace pb = codec::proto;

Status HashJoinExec::Encode(codec::PlanEncoder& out) const {
  pb::HashJoinNode m;
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(left_keys_, m.mutable_left_keys()));
  FLOE_RETURN_NOT_OK(EncodePhysicalExprs(right_keys_, m.mutable_right_keys()));
  FLOE_ASSIGN_OR_RAISE(pb::JoinType type, internal::EncodeJoinType(type_));
  m.set_type(type);
  if (filter_) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*filter_, m.mutable_filter()));
  for (bool b : null_equals_null_) m.add_null_equals_null(b);
  m.set_mode(mode_ == JoinMode::kBroadcast ? pb::HashJoinNode::BROADCAST
                                           : pb::HashJoinNode::PARTITIONED);
  for (const DynamicFilterTarget& target : dynamic_filters_) {
    pb::DynamicFilterTarget* t = m.add_dynamic_filters();
    t->set_id(target.id);
    t->set_key(target.key);
  }
  return out.SetPayload(m);
}

Result<PlanPtr> HashJoinExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 2));
  pb::HashJoinNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(auto left_keys, in.Exprs(m.left_keys(), children[0]->schema()));
  FLOE_ASSIGN_OR_RAISE(auto right_keys, in.Exprs(m.right_keys(), children[1]->schema()));
  FLOE_ASSIGN_OR_RAISE(plan::JoinType type, internal::DecodeJoinType(in, m.type()));
  expr::PhysicalExprPtr filter;
  if (m.has_filter()) {
    FLOE_ASSIGN_OR_RAISE(
        filter, in.Expr(m.filter(), JoinOutputSchema(*children[0]->schema(), *children[1]->schema(),
                                                     JoinType::kInner)));
  }
  std::vector<bool> null_equals_null(m.null_equals_null().begin(), m.null_equals_null().end());
  JoinMode mode;
  switch (m.mode()) {
    case pb::HashJoinNode::PARTITIONED:
      mode = JoinMode::kPartitioned;
      break;
    case pb::HashJoinNode::BROADCAST:
      mode = JoinMode::kBroadcast;
      break;
    default:
      return in.Corrupt(fmt::format("unknown join mode {}", static_cast<int>(m.mode())));
  }
  std::vector<DynamicFilterTarget> dynamic_filters;
  for (const pb::DynamicFilterTarget& t : m.dynamic_filters()) {
    dynamic_filters.push_back(DynamicFilterTarget{t.id(), t.key()});
  }
  auto made = Make(std::move(children[0]), std::move(children[1]), std::move(left_keys),
                   std::move(right_keys), type, std::move(filter), std::move(null_equals_null),
                   mode, std::move(dynamic_filters));
  if (!made.ok()) return in.Corrupt(made.status().message());
  return made;
}

}  // namespace floe::exec
