#include "floe/exec/sort/sort_exec.h"

#include <algorithm>
#include <filesystem>
#include <queue>

#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/k_way_merge.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/spill.h"

namespace floe::exec {

namespace {

// Emits rows of one batch in the order of `indices`, batch_size rows at a time.
class TakeStream final : public BatchStream {
 public:
  TakeStream(SchemaPtr schema, RecordBatchPtr batch, PoolVector<int64_t> indices,
             int64_t batch_size, std::shared_ptr<void> owned)
      : schema_(std::move(schema)),
        batch_(std::move(batch)),
        indices_(std::move(indices)),
        batch_size_(batch_size),
        owned_(std::move(owned)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    const int64_t n = static_cast<int64_t>(indices_.size());
    if (pos_ >= n) {
      batch_.reset();
      owned_.reset();
      return RecordBatchPtr();
    }
    const int64_t len = std::min(batch_size_, n - pos_);
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, TakeBatch(*batch_, indices_.data() + pos_, len));
    pos_ += len;
    return out;
  }

 private:
  SchemaPtr schema_;
  RecordBatchPtr batch_;
  PoolVector<int64_t> indices_;
  int64_t batch_size_;
  int64_t pos_ = 0;
  std::shared_ptr<void> owned_;
};

// The batches of `first`, then those of `rest`.
class PrependStream final : public BatchStream {
 public:
  PrependStream(SchemaPtr schema, std::vector<RecordBatchPtr> first, BatchStream& rest)
      : schema_(std::move(schema)), first_(std::move(first)), rest_(rest) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (next_ < first_.size()) return std::move(first_[next_++]);
    return rest_.Next();
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> first_;
  size_t next_ = 0;
  BatchStream& rest_;
};

// A sorted run written to a spill file.
struct SpilledRun {
  std::string path;
  int64_t bytes = 0;
};

// Sorted runs in input order (a merge breaks ties by run order, which keeps the sort
// stable); their files are removed when the last reader of them is gone.
struct SpillFiles {
  std::vector<SpilledRun> runs;
  ~SpillFiles() {
    std::error_code ec;
    for (const auto& run : runs) std::filesystem::remove(run.path, ec);
  }
};

// Sorts buffered batches: one batch and the permutation that sorts it.
Status SortBuffered(const SchemaPtr& schema, const Ordering& keys,
                    const std::vector<RecordBatchPtr>& batches, RecordBatchPtr* out,
                    PoolVector<int64_t>* indices) {
  if (batches.size() == 1) {
    *out = batches[0];
  } else {
    FLOE_ASSIGN_OR_RAISE(*out, ConcatenateBatches(schema, batches));
  }
  FLOE_ASSIGN_OR_RAISE(auto cols, EvaluateKeys(keys, **out));
  RowKeys row_keys;
  FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, SortOptionsOf(keys), &row_keys));
  *indices = SortIndices(row_keys);
  return Status::OK();
}

// The bytes per row of a normalized key and its offset, counting the fixed-width keys
// (a null byte and the value); `variable_keys` gets the number of the others, whose
// values are bounded by the bytes of the batch that holds their source columns.
int64_t EncodedKeyBytesPerRow(const Ordering& keys, int* variable_keys) {
  int64_t per_row = 4;
  *variable_keys = 0;
  for (const PhysicalSortExpr& key : keys) {
    const DataType& type = *key.expr->type();
    const int width = type.id() == TypeId::kBoolean ? 1 : type.byte_width();
    if (width > 0) {
      per_row += 1 + width;
    } else {
      per_row += 1;
      ++*variable_keys;
    }
  }
  return per_row;
}

// What buffering `batch` for a sort holds at most, in bytes: the batch, its copy in the
// concatenated run, and what sorting the run takes per row (SortBuffered): the encoded
// keys (a null byte and the value for fixed-width keys; a variable-width key is bounded
// by the batch's own bytes, which hold its source column), their offsets, the sort's
// 24-byte entries and the 8-byte permutation. Under-counting here lets a spilling sort
// hold far more than its budget (a 64 MiB-limited sort of two bigint keys held 86 bytes a
// row against 56 counted).
int64_t BufferedSortBytes(const Ordering& keys, const RecordBatch& batch) {
  int variable_keys = 0;
  const int64_t key_row = EncodedKeyBytesPerRow(keys, &variable_keys);
  return (2 + variable_keys) * batch.memory_size() + (key_row + 24 + 8) * batch.num_rows();
}

// What merging holds per spilled run (MergeCursorBytes) for runs written in chunks like
// `chunk`, which took `encoded_bytes` in the file: its keys are encoded per row.
int64_t SortCursorBytes(const Ordering& keys, const RecordBatch& chunk, int64_t encoded_bytes) {
  int variable_keys = 0;
  const int64_t key_row = EncodedKeyBytesPerRow(keys, &variable_keys);
  return MergeCursorBytes(encoded_bytes,
                          variable_keys * chunk.memory_size() + key_row * chunk.num_rows());
}

class SortStream final : public BatchStream {
 public:
  SortStream(const SortExec* node, int partition, TaskContextPtr ctx)
      : node_(node),
        partition_(partition),
        ctx_(std::move(ctx)),
        reservation_(ctx_->memory(), "SortExec[" + std::to_string(partition) + "]") {}

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    if (!output_) {
      FLOE_ASSIGN_OR_RAISE(
          BatchStreamPtr input,
          ExecutePlan(node_->input(), node_->preserve_partitioning() ? partition_ : 0, ctx_));
      if (node_->fetch().has_value()) {
        FLOE_ASSIGN_OR_RAISE(output_, TopK(*input, *node_->fetch()));
      } else {
        FLOE_ASSIGN_OR_RAISE(output_, FullSort(*input, std::nullopt));
      }
    }
    return output_->Next();
  }

 private:
  int64_t batch_size() const { return std::max<int64_t>(1, ctx_->config().batch_size()); }

  // Sorts all of `input`, spilling sorted runs past the memory budget; with `fetch`, keeps
  // only the first `fetch` rows (of each run, and of the result).
  Result<BatchStreamPtr> FullSort(BatchStream& input, std::optional<int64_t> fetch) {
    std::vector<RecordBatchPtr> buffered;
    int64_t buffered_bytes = 0;
    auto files = std::make_shared<SpillFiles>();
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input.Next());
      if (b == nullptr) break;
      if (b->num_rows() == 0) continue;
      const int64_t need = BufferedSortBytes(node_->keys(), *b);
      if (!reservation_.TryResize(buffered_bytes + need)) {
        if (!buffered.empty()) {
          FLOE_RETURN_NOT_OK(SpillRun(buffered, fetch, files.get()));
          buffered.clear();
          buffered_bytes = 0;
        }
        // A single batch is held even past the budget; it is spilled with the next.
        (void)reservation_.TryResize(need);
      }
      buffered_bytes += need;
      buffered.push_back(std::move(b));
    }
    if (files->runs.empty()) {
      if (buffered.empty()) return MakeVectorStream(schema(), {});
      RecordBatchPtr all;
      PoolVector<int64_t> indices;
      FLOE_RETURN_NOT_OK(SortBuffered(schema(), node_->keys(), buffered, &all, &indices));
      buffered.clear();
      Truncate(&indices, fetch);
      return std::make_unique<TakeStream>(schema(), std::move(all), std::move(indices),
                                          batch_size(), nullptr);
    }
    if (!buffered.empty()) FLOE_RETURN_NOT_OK(SpillRun(buffered, fetch, files.get()));
    buffered.clear();
    reservation_.Free();
    return MergeRuns(std::move(files), fetch);
  }

  static void Truncate(PoolVector<int64_t>* indices, std::optional<int64_t> fetch) {
    if (fetch && static_cast<int64_t>(indices->size()) > *fetch) {
      indices->resize(static_cast<size_t>(*fetch));
    }
  }

  // Merges the spilled runs. Each run read at once holds a chunk and its keys
  // (cursor_bytes_), so the merge reserves that for every run; while the budget does not
  // take them all, the neighbouring runs with the fewest bytes between them are merged into
  // one run on disk first, as many at a time as the budget takes (at least two, so that
  // the merge always makes progress).
  Result<BatchStreamPtr> MergeRuns(std::shared_ptr<SpillFiles> files,
                                   std::optional<int64_t> fetch) {
    while (true) {
      const auto runs = static_cast<int64_t>(files->runs.size());
      if (reservation_.TryResize(runs * cursor_bytes_)) break;
      if (runs <= 2) {
        (void)reservation_.TryResize(2 * cursor_bytes_);
        break;
      }
      // As many runs as what this merge holds and what is left of the budget take.
      const int64_t room = reservation_.size() + ctx_->memory()->available();
      int64_t fan_in = std::clamp<int64_t>(room / cursor_bytes_, 2, runs - 1);
      if (!reservation_.TryResize(fan_in * cursor_bytes_)) fan_in = 2;
      FLOE_RETURN_NOT_OK(MergeNeighbours(files.get(), fan_in, fetch));
      reservation_.Free();
    }
    std::vector<std::unique_ptr<MergeCursor>> cursors;
    for (const SpilledRun& run : files->runs) {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, OpenSpillFile(run.path, schema()));
      cursors.push_back(std::make_unique<MergeCursor>(std::move(s), node_->keys()));
    }
    return MakeMergeStream(schema(), std::move(cursors), batch_size(), fetch.value_or(-1), files);
  }

  // Replaces the `fan_in` neighbouring runs with the fewest bytes in all by their merge.
  Status MergeNeighbours(SpillFiles* files, int64_t fan_in, std::optional<int64_t> fetch) {
    std::vector<SpilledRun>& runs = files->runs;
    size_t first = 0;
    int64_t best = INT64_MAX;
    for (size_t b = 0; b + static_cast<size_t>(fan_in) <= runs.size(); ++b) {
      int64_t bytes = 0;
      for (size_t i = b; i < b + static_cast<size_t>(fan_in); ++i) bytes += runs[i].bytes;
      if (bytes < best) {
        best = bytes;
        first = b;
      }
    }
    std::vector<std::unique_ptr<MergeCursor>> cursors;
    for (size_t i = first; i < first + static_cast<size_t>(fan_in); ++i) {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, OpenSpillFile(runs[i].path, schema()));
      cursors.push_back(std::make_unique<MergeCursor>(std::move(s), node_->keys()));
    }
    BatchStreamPtr merged =
        MakeMergeStream(schema(), std::move(cursors), batch_size(), fetch.value_or(-1), nullptr);
    // Owned here until it replaces its inputs, so that a failure removes it too.
    SpillFiles out;
    out.runs.push_back({NewSpillPath(ctx_->spill_directory(), "sort"), 0});
    FLOE_ASSIGN_OR_RAISE(out.runs[0].bytes, WriteRun(*merged, out.runs[0].path));
    merged.reset();
    std::error_code ec;
    for (size_t i = first; i < first + static_cast<size_t>(fan_in); ++i) {
      std::filesystem::remove(runs[i].path, ec);
    }
    runs[first] = std::move(out.runs[0]);
    out.runs.clear();
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(first) + 1,
               runs.begin() + static_cast<std::ptrdiff_t>(first + static_cast<size_t>(fan_in)));
    return Status::OK();
  }

  // Writes the batches of `input` to a new spill file at `path`; returns its bytes and
  // raises cursor_bytes_ to what reading its largest chunk back takes.
  Result<int64_t> WriteRun(BatchStream& input, const std::string& path) {
    FLOE_ASSIGN_OR_RAISE(auto writer, SpillWriter::Make(path, schema()));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr chunk, input.Next());
      if (chunk == nullptr) break;
      FLOE_ASSIGN_OR_RAISE(const int64_t encoded, writer->Write(*chunk));
      cursor_bytes_ = std::max(cursor_bytes_, SortCursorBytes(node_->keys(), *chunk, encoded));
    }
    FLOE_ASSIGN_OR_RAISE(int64_t bytes, writer->Finish());
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += bytes;
    return bytes;
  }

  Status SpillRun(const std::vector<RecordBatchPtr>& buffered, std::optional<int64_t> fetch,
                  SpillFiles* files) {
    RecordBatchPtr all;
    PoolVector<int64_t> indices;
    FLOE_RETURN_NOT_OK(SortBuffered(schema(), node_->keys(), buffered, &all, &indices));
    Truncate(&indices, fetch);
    files->runs.push_back({NewSpillPath(ctx_->spill_directory(), "sort"), 0});
    TakeStream sorted(schema(), std::move(all), std::move(indices), batch_size(), nullptr);
    FLOE_ASSIGN_OR_RAISE(files->runs.back().bytes, WriteRun(sorted, files->runs.back().path));
    reservation_.Free();
    return Status::OK();
  }

  struct HeapEntry {
    std::string key;
    int64_t seq;
    int batch;
    int64_t row;
  };
  struct HeapLess {
    bool operator()(const HeapEntry& a, const HeapEntry& b) const {
      int c = CompareKeys(a.key, b.key);
      return c != 0 ? c < 0 : a.seq < b.seq;
    }
  };

  // The bytes a key holds outside its HeapEntry (none while it fits the string's own
  // buffer).
  static int64_t KeyHeapBytes(const std::string& key) {
    return key.capacity() > 15 ? static_cast<int64_t>(key.capacity()) + 1 : 0;
  }

  // The first k rows by a bounded heap over the rows seen so far, which keeps the batches
  // that hold the heap's rows (compacted when they hold many more). While what it holds
  // fits the memory budget it stays in memory; past it, the heap's rows (in input order,
  // so that ties keep their order) and the rest of the input go to the spilling sort,
  // which keeps at most k rows of each run.
  Result<BatchStreamPtr> TopK(BatchStream& input, int64_t k) {
    if (k <= 0) return MakeVectorStream(schema(), {});
    std::vector<HeapEntry> heap;
    std::vector<RecordBatchPtr> batches;
    int64_t held_rows = 0;
    int64_t batch_bytes = 0;
    int64_t key_bytes = 0;
    int64_t seq = 0;
    const auto options = SortOptionsOf(node_->keys());
    RowKeys keys;
    HeapLess less;
    auto held_bytes = [&] {
      return batch_bytes + key_bytes + static_cast<int64_t>(heap.capacity() * sizeof(HeapEntry));
    };
    // Keeps only the rows the heap refers to, in input order, in batches of batch_size.
    auto compact = [&]() -> Status {
      std::vector<HeapEntry*> order;
      order.reserve(heap.size());
      for (HeapEntry& e : heap) order.push_back(&e);
      std::sort(order.begin(), order.end(),
                [](const HeapEntry* a, const HeapEntry* b) { return a->seq < b->seq; });
      FLOE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> kept,
                           GatherRows(order, batches, /*renumber=*/true));
      batches = std::move(kept);
      held_rows = static_cast<int64_t>(heap.size());
      batch_bytes = 0;
      for (const RecordBatchPtr& b : batches) batch_bytes += b->memory_size();
      return Status::OK();
    };
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input.Next());
      if (b == nullptr) break;
      if (b->num_rows() == 0) continue;
      FLOE_ASSIGN_OR_RAISE(auto cols, EvaluateKeys(node_->keys(), *b));
      FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, options, &keys));
      bool used = false;
      const int batch_id = static_cast<int>(batches.size());
      for (int64_t r = 0; r < b->num_rows(); ++r, ++seq) {
        std::string_view key = keys.Key(r);
        if (static_cast<int64_t>(heap.size()) < k) {
          heap.push_back({std::string(key), seq, batch_id, r});
          key_bytes += KeyHeapBytes(heap.back().key);
          std::push_heap(heap.begin(), heap.end(), less);
          used = true;
        } else if (CompareKeys(key, heap.front().key) < 0) {
          std::pop_heap(heap.begin(), heap.end(), less);
          key_bytes -= KeyHeapBytes(heap.back().key);
          heap.back() = {std::string(key), seq, batch_id, r};
          key_bytes += KeyHeapBytes(heap.back().key);
          std::push_heap(heap.begin(), heap.end(), less);
          used = true;
        }
      }
      if (!used) continue;
      held_rows += b->num_rows();
      batch_bytes += b->memory_size();
      batches.push_back(std::move(b));
      bool compacted = false;
      if (held_rows > 4 * k + 4 * batch_size()) {
        FLOE_RETURN_NOT_OK(compact());
        compacted = true;
      }
      if (reservation_.TryResize(held_bytes())) continue;
      if (!compacted) {
        FLOE_RETURN_NOT_OK(compact());
        if (reservation_.TryResize(held_bytes())) continue;
      }
      // Past the budget even when compact: the spilling sort takes over from the heap's
      // rows, which compact() left in input order.
      std::vector<RecordBatchPtr> kept = std::move(batches);
      heap = {};
      batches = {};
      reservation_.Free();
      PrependStream rest(schema(), std::move(kept), input);
      return FullSort(rest, k);
    }
    std::sort(heap.begin(), heap.end(), less);
    std::vector<HeapEntry*> sorted;
    sorted.reserve(heap.size());
    for (HeapEntry& e : heap) sorted.push_back(&e);
    FLOE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> out,
                         GatherRows(sorted, batches, /*renumber=*/false));
    return MakeVectorStream(schema(), std::move(out));
  }

  // The rows `entries` refer to, in that order, in batches of batch_size rows; with
  // `renumber`, each entry is pointed at its row in the result.
  Result<std::vector<RecordBatchPtr>> GatherRows(const std::vector<HeapEntry*>& entries,
                                                 const std::vector<RecordBatchPtr>& batches,
                                                 bool renumber) {
    std::vector<RecordBatchPtr> out;
    RowInterleaver rows(schema());
    for (HeapEntry* e : entries) {
      rows.Add(batches[static_cast<size_t>(e->batch)], e->row);
      if (renumber) {
        e->batch = static_cast<int>(out.size());
        e->row = rows.num_rows() - 1;
      }
      if (rows.num_rows() == batch_size()) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr chunk, rows.Finish());
        out.push_back(std::move(chunk));
      }
    }
    if (rows.num_rows() > 0) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr chunk, rows.Finish());
      out.push_back(std::move(chunk));
    }
    return out;
  }

  const SortExec* node_;
  int partition_;
  TaskContextPtr ctx_;
  MemoryReservation reservation_;
  BatchStreamPtr output_;
  // What merging holds per spilled run (see SortCursorBytes), for the largest chunk
  // written so far.
  int64_t cursor_bytes_ = 0;
};

}  // namespace

Result<PlanPtr> SortExec::Make(Ordering keys, PlanPtr input, std::optional<int64_t> fetch,
                               bool preserve_partitioning) {
  if (input == nullptr) return Status::Internal("SortExec: no input");
  if (keys.empty()) return Status::Internal("SortExec: no sort keys");
  if (fetch.has_value() && *fetch < 0) {
    return Status::Internal("SortExec: negative fetch {}", *fetch);
  }
  PlanProperties props;
  props.schema = input->schema();
  props.partitioning =
      preserve_partitioning ? input->properties().partitioning : Partitioning::Single();
  props.ordering = keys;
  return PlanPtr(new SortExec(std::move(keys), std::move(input), fetch, preserve_partitioning,
                              std::move(props)));
}

Result<PlanPtr> SortExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("SortExec takes one child");
  return Make(keys_, std::move(children[0]), fetch_, preserve_partitioning_);
}

std::vector<Distribution> SortExec::RequiredInputDistribution() const {
  return {preserve_partitioning_ ? Distribution::Unspecified() : Distribution::Single()};
}

Result<BatchStreamPtr> SortExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("SortExec: partition {} out of range", partition);
  }
  if (!preserve_partitioning_ && input_->partition_count() != 1) {
    return Status::Internal("SortExec: input has {} partitions where one is required",
                            input_->partition_count());
  }
  return std::make_unique<SortStream>(this, partition, ctx);
}

std::string SortExec::ToString() const {
  std::string out = "SortExec: " + OrderingToString(keys_);
  if (fetch_) out += " fetch=" + std::to_string(*fetch_);
  if (preserve_partitioning_) out += " preserve_partitioning";
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status SortExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::SortNode m;
  FLOE_RETURN_NOT_OK(EncodeOrdering(keys_, m.mutable_keys()));
  if (fetch_) m.mutable_fetch()->set_value(*fetch_);
  m.set_preserve_partitioning(preserve_partitioning_);
  return out.SetPayload(m);
}

Result<PlanPtr> SortExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::SortNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(Ordering keys, DecodeOrdering(m.keys(), children[0]->schema(), in));
  if (m.has_fetch() && m.fetch().value() < 0) return in.Corrupt("a negative fetch");
  return Make(std::move(keys), std::move(children[0]), internal::DecodeFetch(m),
              m.preserve_partitioning());
}

}  // namespace floe::exec
