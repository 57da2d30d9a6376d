#include "floe/exec/window/window_exec.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/row_keys.h"
#include "floe/exec/spill.h"
#include "floe/expr/aggregate.h"
#include "floe/type/type_visit.h"

namespace floe::exec {

using plan::WindowFrame;
using plan::WindowFrameBound;

namespace {

// Rows of one window partition, with the peer groups of the ORDER BY.
struct PartitionRows {
  RecordBatchPtr batch;
  int64_t n = 0;
  std::vector<int64_t> peer_start, peer_end;  // per row: its peer group [start, end)
  std::vector<int64_t> group_of;              // per row: index of its peer group
  std::vector<int64_t> group_start;           // per peer group: first row; + n at the end
};

// Where a chunk of a spilled partition sits in it (see WindowStream::ComputeSpilled): the
// rows and peer groups before it, the partition's rows, and per window the state of an
// aggregate over the rows before it (running frames) or its value over the whole partition.
struct ChunkPlace {
  int64_t offset = 0;
  int64_t groups_before = 0;
  int64_t total = 0;
  std::vector<std::vector<ArrayPtr>> prefix;  // per window; empty before the first chunk
  std::vector<ArrayPtr> whole;                // per window: a 1-row value, or null
};

// How a window function is computed over a partition too large to hold, a chunk at a time.
enum class Streaming {
  kNo,       // needs rows anywhere in the partition: not in chunks
  kRanking,  // row_number, rank, dense_rank, percent_rank, cume_dist, ntile
  kRunning,  // an aggregate over UNBOUNDED PRECEDING .. CURRENT ROW
  kWhole,    // an aggregate over the whole partition
  kSliding,  // reads a bounded number of rows around each row (SlidingMargins)
};

// The rows before and after a row that a window reads, for the windows computed over a
// chunk and those margins (kSliding).
struct Margins {
  int64_t before = 0;
  int64_t after = 0;
};

// The widest margin a sliding window is computed with: its chunks hold that many rows
// more on either side.
constexpr int64_t kMaxSlidingRows = int64_t{1} << 16;

// A ROWS frame between two bounded offsets (k PRECEDING, CURRENT ROW, k FOLLOWING) reads
// rows within its offsets of the current row; other frames depend on the whole partition,
// its peers or unbounded ends.
std::optional<Margins> RowsFrameMargins(const WindowFrame& f) {
  using K = WindowFrameBound::Kind;
  if (f.mode != WindowFrame::Mode::kRows) return std::nullopt;
  Margins m;
  for (const WindowFrameBound* b : {&f.start, &f.end}) {
    if (b->kind == K::kCurrentRow) continue;
    if ((b->kind != K::kPreceding && b->kind != K::kFollowing) || b->offset < 0 ||
        b->offset > kMaxSlidingRows) {
      return std::nullopt;
    }
    int64_t& side = b->kind == K::kPreceding ? m.before : m.after;
    side = std::max(side, b->offset);
  }
  return m;
}

// The margins of a sliding window: lag and lead with a constant offset (or none: 1), and
// first_value, last_value, nth_value and aggregates over bounded ROWS frames.
std::optional<Margins> SlidingMargins(const WindowExprSpec& w) {
  if (w.call.is_aggregate) return RowsFrameMargins(w.call.frame);
  switch (w.call.window_op) {
    case expr::WindowOp::kLag:
    case expr::WindowOp::kLead: {
      int64_t offset = 1;
      if (w.args.size() >= 2) {
        const expr::ExprPtr& e = w.args[1]->source();
        if (e == nullptr || e->kind != expr::ExprKind::kLiteral) return std::nullopt;
        const Scalar& v = e->literal;
        if (v.is_null()) {
          offset = 0;  // every row gets NULL
        } else if (std::holds_alternative<int32_t>(v.value())) {
          offset = v.get<int32_t>();
        } else if (std::holds_alternative<int64_t>(v.value())) {
          offset = v.get<int64_t>();
        } else {
          return std::nullopt;
        }
      }
      if (offset < -kMaxSlidingRows || offset > kMaxSlidingRows) return std::nullopt;
      // lag reads `offset` rows back, lead forward; a negative offset the other way.
      if (w.call.window_op == expr::WindowOp::kLead) offset = -offset;
      return offset >= 0 ? Margins{offset, 0} : Margins{0, -offset};
    }
    case expr::WindowOp::kFirstValue:
    case expr::WindowOp::kLastValue:
    case expr::WindowOp::kNthValue:
      return RowsFrameMargins(w.call.frame);
    default:
      return std::nullopt;
  }
}

Streaming StreamingOf(const WindowExprSpec& w) {
  using K = WindowFrameBound::Kind;
  if (SlidingMargins(w)) return Streaming::kSliding;
  if (!w.call.is_aggregate) {
    switch (w.call.window_op) {
      case expr::WindowOp::kRowNumber:
      case expr::WindowOp::kRank:
      case expr::WindowOp::kDenseRank:
      case expr::WindowOp::kPercentRank:
      case expr::WindowOp::kCumeDist:
      case expr::WindowOp::kNtile:
        return Streaming::kRanking;
      default:
        return Streaming::kNo;
    }
  }
  const WindowFrame& f = w.call.frame;
  if (f.start.kind != K::kUnboundedPreceding) return Streaming::kNo;
  if (f.end.kind == K::kUnboundedFollowing) return Streaming::kWhole;
  if (f.end.kind != K::kCurrentRow) return Streaming::kNo;
  // Without ORDER BY every row is a peer of every other: RANGE / GROUPS to the current row
  // is the whole partition.
  if (w.order_by.empty() && f.mode != WindowFrame::Mode::kRows) return Streaming::kWhole;
  return Streaming::kRunning;
}

// Row i of an integer argument; nullopt for NULL.
Result<std::optional<int64_t>> IntAt(const Array& a, int64_t i, std::string_view what) {
  if (a.IsNull(i)) return std::optional<int64_t>();
  return VisitPhysicalType(
      a.type_id(), [&]<typename T>(TypeTag<T>) -> Result<std::optional<int64_t>> {
        // Dates, times and timestamps share the integers' storage but are no integers.
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if (a.type()->is_integer()) return std::optional<int64_t>(a.Value<T>(i));
        }
        return Status::Invalid("{} must be an integer, not {}", what, a.type()->ToString());
      });
}

// An argument that must be the same integer for every row (its first row's value).
Result<int64_t> ConstantInt(const ArrayPtr& a, std::string_view what) {
  if (a->length() == 0) return 0;
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> v, IntAt(*a, 0, what));
  if (!v) return Status::Invalid("{} must not be NULL", what);
  return *v;
}

Result<ArrayPtr> IntArray(const TypePtr& type, const std::vector<int64_t>& values) {
  if (type->id() == TypeId::kInt32) {
    Int32Builder b(type);
    FLOE_RETURN_NOT_OK(b.Reserve(static_cast<int64_t>(values.size())));
    for (int64_t v : values) b.UnsafeAppend(static_cast<int32_t>(v));
    return b.Finish();
  }
  Int64Builder b(type->id() == TypeId::kInt64 ? type : Int64());
  FLOE_RETURN_NOT_OK(b.Reserve(static_cast<int64_t>(values.size())));
  for (int64_t v : values) b.UnsafeAppend(v);
  return b.Finish();
}

Result<ArrayPtr> DoubleArray(const std::vector<double>& values) {
  Float64Builder b(Float64());
  FLOE_RETURN_NOT_OK(b.Reserve(static_cast<int64_t>(values.size())));
  for (double v : values) b.UnsafeAppend(v);
  return b.Finish();
}

class WindowStream final : public BatchStream {
 public:
  WindowStream(const WindowExec* node, int partition, TaskContextPtr ctx)
      : node_(node),
        partition_(partition),
        ctx_(std::move(ctx)),
        reservation_(ctx_->memory(), "WindowExec[" + std::to_string(partition) + "]") {}

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    const auto& spec0 = node_->windows()[0];
    while (true) {
      while (!out_.empty()) {
        Output& front = out_.front();
        if (front.stream == nullptr) {
          RecordBatchPtr b = std::move(front.batch);
          out_.pop_front();
          return b;
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, front.stream->Next());
        if (b != nullptr) return b;
        front.stream.reset();
        std::error_code ec;
        std::filesystem::remove(front.path, ec);
        out_.pop_front();
      }
      if (done_) return RecordBatchPtr();
      if (!input_) {
        FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->input(), partition_, ctx_));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input_->Next());
      if (b == nullptr) {
        done_ = true;
        FLOE_RETURN_NOT_OK(FlushPartition());
        continue;
      }
      if (b->num_rows() == 0) continue;
      if (spec0.partition_by.empty()) {
        FLOE_RETURN_NOT_OK(Hold(b));
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(auto keys, EvaluateExprs(spec0.partition_by, *b));
      FLOE_RETURN_NOT_OK(EncodeRowKeys(keys, std::vector<SortOptions>(keys.size()), &keys_));
      int64_t seg = 0;
      const int64_t n = b->num_rows();
      for (int64_t r = 0; r <= n; ++r) {
        if (r < n && (r == 0 ? (has_key_ && keys_.Key(r) == current_key_)
                             : keys_.Key(r) == keys_.Key(r - 1))) {
          continue;
        }
        // Rows [seg, r) share one key.
        if (r > seg) FLOE_RETURN_NOT_OK(Hold(b->Slice(seg, r - seg)));
        if (r < n) {
          FLOE_RETURN_NOT_OK(FlushPartition());
          current_key_.assign(keys_.Key(r));
          has_key_ = true;
        }
        seg = r;
      }
    }
  }

 private:
  int64_t batch_size() const { return std::max<int64_t>(1, ctx_->config().batch_size()); }

  Status Hold(RecordBatchPtr b) {
    if (spill_ != nullptr) {
      spilled_rows_ += b->num_rows();
      return spill_->Write(*b).status();
    }
    held_bytes_ += b->memory_size();
    // The partition's batches, and as much again to compute its windows. A partition that
    // can spill does so past its task's share of memory_limit too, so that the tasks that
    // spilled keep room to compute their chunks.
    const bool over_share = SpillShare() > 0 && held_bytes_ * 2 > SpillShare() && Spillable();
    if (over_share || !reservation_.TryResize(held_bytes_ * 2)) {
      // Past the budget: windows computable a chunk at a time send the partition to a
      // spill file; others cannot go on.
      if (!Spillable()) {
        return reservation_.OutOfMemory(
            held_bytes_ * 2, "a window partition of " + node_->ToString() +
                                 " (only ranking functions, aggregates over UNBOUNDED "
                                 "PRECEDING to CURRENT ROW or the whole partition, lag and "
                                 "lead with a constant offset, and functions over ROWS frames "
                                 "of bounded offsets spill)");
      }
      spill_path_ = NewSpillPath(ctx_->spill_directory(), "window");
      FLOE_ASSIGN_OR_RAISE(spill_, SpillWriter::Make(spill_path_, node_->input()->schema()));
      held_.push_back(std::move(b));
      for (const RecordBatchPtr& h : held_) {
        spilled_rows_ += h->num_rows();
        FLOE_RETURN_NOT_OK(spill_->Write(*h).status());
      }
      held_.clear();
      held_bytes_ = 0;
      (void)reservation_.TryResize(0);
      return Status::OK();
    }
    held_.push_back(std::move(b));
    return Status::OK();
  }

  // A task's share of memory_limit for a window partition that can spill: a quarter of the
  // limit over the tasks (0 without a limit).
  int64_t SpillShare() const {
    const int64_t limit = ctx_->config().memory_limit();
    if (limit <= 0) return 0;
    return limit / (4 * std::max(1, ctx_->config().target_partitions()));
  }

  bool Spillable() const {
    for (const WindowExprSpec& w : node_->windows()) {
      if (StreamingOf(w) == Streaming::kNo) return false;
    }
    return true;
  }

  // Computes the windows of the partition in the spill file, a chunk of whole peer groups
  // at a time, into a second spill file that Next then reads out batch by batch.
  Status FlushSpilled() {
    FLOE_ASSIGN_OR_RAISE(const int64_t bytes, spill_->Finish());
    spill_.reset();
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += bytes;
    const auto& windows = node_->windows();
    ChunkPlace place;
    place.total = spilled_rows_;
    place.prefix.resize(windows.size());
    place.whole.resize(windows.size());
    // Whole-partition aggregates first: one pass over the file.
    bool any_whole = false;
    for (const WindowExprSpec& w : windows)
      any_whole = any_whole || StreamingOf(w) == Streaming::kWhole;
    if (any_whole) {
      std::vector<std::unique_ptr<expr::GroupsAccumulator>> accs(windows.size());
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr rows,
                           OpenSpillFile(spill_path_, node_->input()->schema()));
      while (true) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, rows->Next());
        if (b == nullptr) break;
        std::vector<uint32_t> zeros(static_cast<size_t>(b->num_rows()), 0);
        for (size_t i = 0; i < windows.size(); ++i) {
          if (StreamingOf(windows[i]) != Streaming::kWhole) continue;
          if (accs[i] == nullptr) {
            FLOE_ASSIGN_OR_RAISE(
                accs[i], expr::MakeGroupsAccumulator(windows[i].call.aggregate, ctx_->pool()));
          }
          FLOE_ASSIGN_OR_RAISE(auto args, AggregateArgs(windows[i], *b));
          FLOE_RETURN_NOT_OK(accs[i]->Update(args, zeros.data(), nullptr, 1));
        }
      }
      for (size_t i = 0; i < windows.size(); ++i) {
        if (accs[i] != nullptr) {
          FLOE_ASSIGN_OR_RAISE(place.whole[i], accs[i]->Evaluate());
        }
      }
    }
    // Then chunks of about two batches, cut where the ORDER BY key changes (without ORDER BY
    // anywhere: no function here then depends on peers). Sliding windows see the rows of
    // their margins around a chunk too: the last rows of the chunks before it (`tail`) and
    // the first rows after it (left pending: a chunk is cut where as many follow).
    const int64_t chunk_rows = batch_size() * 2;
    Margins margins;
    for (const WindowExprSpec& w : windows) {
      if (std::optional<Margins> m = SlidingMargins(w)) {
        margins.before = std::max(margins.before, m->before);
        margins.after = std::max(margins.after, m->after);
      }
    }
    RecordBatchPtr tail;
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr rows, OpenSpillFile(spill_path_, node_->input()->schema()));
    Output result;
    result.path = NewSpillPath(ctx_->spill_directory(), "window-out");
    out_paths_.push_back(result.path);
    FLOE_ASSIGN_OR_RAISE(chunk_out_, SpillWriter::Make(result.path, schema()));
    std::vector<RecordBatchPtr> pending;
    int64_t pending_rows = 0;
    bool eof = false;
    // Set when the rows pending are one peer group: at least one more batch is read.
    bool read_more = false;
    while (!eof || pending_rows > 0) {
      while (!eof && (pending_rows < chunk_rows + margins.after || read_more)) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, rows->Next());
        if (b == nullptr) {
          eof = true;
          break;
        }
        pending_rows += b->num_rows();
        pending.push_back(std::move(b));
        read_more = false;
      }
      if (pending_rows == 0) break;
      RecordBatchPtr all;
      if (pending.size() == 1) {
        all = pending[0];
      } else {
        FLOE_ASSIGN_OR_RAISE(all, ConcatenateBatches(node_->input()->schema(), pending));
      }
      pending.clear();
      const int64_t n = all->num_rows();
      // Before the end, the chunk leaves margins.after rows pending: a cut at most there.
      // A chunk ends at a peer group's end, at most chunk_rows in when one ends by then (a
      // larger chunk must fit the budget).
      const int64_t most = eof ? n : n - margins.after;
      int64_t cut = 0;
      for (const int64_t limit : {std::min(most, chunk_rows), most}) {
        if (limit <= 0) break;
        FLOE_ASSIGN_OR_RAISE(cut, LastPeerBoundary(*all->Slice(0, std::min(n, limit + 1))));
        cut = std::min(cut, limit);
        if (cut > 0) break;
      }
      if (cut == 0 && eof) cut = n;  // one peer group to the partition's end
      if (cut == 0) {
        // One peer group so far: read on.
        pending.push_back(all);
        read_more = true;
        if (!reservation_.TryResize(all->memory_size() * 2)) {
          return reservation_.OutOfMemory(
              all->memory_size() * 2,
              "a peer group of a spilled window partition of " + node_->ToString());
        }
        continue;
      }
      RecordBatchPtr chunk = cut == n ? all : all->Slice(0, cut);
      RecordBatchPtr ahead;
      if (cut < n) {
        pending.push_back(all->Slice(cut, n - cut));
        if (margins.after > 0) ahead = all->Slice(cut, std::min(margins.after, n - cut));
      }
      pending_rows = n - cut;
      // A chunk of up to two batches is computed even when the budget is taken by the
      // query's other operators (at most that much over memory_limit per task): they spill
      // when they need room, a chunk cannot. A larger one (a large peer group) must fit.
      if (!reservation_.TryResize(chunk->memory_size() * 2) && chunk->num_rows() > chunk_rows) {
        return reservation_.OutOfMemory(
            chunk->memory_size() * 2,
            "a chunk of a spilled window partition of " + node_->ToString());
      }
      FLOE_RETURN_NOT_OK(ComputeChunk(chunk, tail, ahead, &place));
      if (margins.before > 0) {
        FLOE_ASSIGN_OR_RAISE(tail, LastRows(tail, chunk, margins.before));
      }
    }
    (void)reservation_.TryResize(0);
    FLOE_ASSIGN_OR_RAISE(const int64_t out_bytes, chunk_out_->Finish());
    chunk_out_.reset();
    if (QueryMetrics* m = ctx_->metrics()) m->For(node_, partition_).spilled_bytes += out_bytes;
    std::error_code ec;
    std::filesystem::remove(spill_path_, ec);
    spill_path_.clear();
    spilled_rows_ = 0;
    FLOE_ASSIGN_OR_RAISE(result.stream, OpenSpillFile(result.path, schema()));
    out_.push_back(std::move(result));
    return Status::OK();
  }

  // The last `rows` rows of `before` followed by `chunk` (fewer when they hold fewer).
  Result<RecordBatchPtr> LastRows(const RecordBatchPtr& before, const RecordBatchPtr& chunk,
                                  int64_t rows) {
    RecordBatchPtr all = chunk;
    if (before != nullptr && chunk->num_rows() < rows) {
      FLOE_ASSIGN_OR_RAISE(all, ConcatenateBatches(node_->input()->schema(), {before, chunk}));
    }
    const int64_t n = all->num_rows();
    return n <= rows ? all : all->Slice(n - rows, rows);
  }

  // The last row of `batch` whose ORDER BY key differs from the row before it; 0 when none
  // does (every row is a peer of the first); the batch's length without ORDER BY.
  Result<int64_t> LastPeerBoundary(const RecordBatch& batch) {
    const auto& order = node_->windows()[0].order_by;
    if (order.empty()) return batch.num_rows();
    FLOE_ASSIGN_OR_RAISE(auto cols, EvaluateKeys(order, batch));
    RowKeys keys;
    FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, SortOptionsOf(order), &keys));
    for (int64_t r = batch.num_rows() - 1; r > 0; --r) {
      if (keys.Key(r) != keys.Key(r - 1)) return r;
    }
    return 0;
  }

  // The windows of one chunk of a spilled partition, placed by `place` (advanced past it).
  // `before` and `after` are the rows of the partition right before and after the chunk
  // that its sliding windows read (null when none).
  Status ComputeChunk(const RecordBatchPtr& chunk, const RecordBatchPtr& before,
                      const RecordBatchPtr& after, ChunkPlace* place) {
    PartitionRows p;
    p.batch = chunk;
    p.n = chunk->num_rows();
    range_keys_.clear();
    FLOE_RETURN_NOT_OK(ComputePeers(&p));
    const bool no_order = node_->windows()[0].order_by.empty();
    std::vector<ArrayPtr> cols = chunk->columns();
    const auto& windows = node_->windows();
    // The chunk with the rows around it, for the sliding windows: computed over those rows
    // as if they were the partition, a window reads the same rows for each of the chunk's
    // (the partition's own ends clip frames where those rows end too).
    PartitionRows around;
    int64_t around_offset = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
      const WindowExprSpec& w = windows[i];
      ArrayPtr col;
      switch (StreamingOf(w)) {
        case Streaming::kSliding: {
          if (around.batch == nullptr) {
            std::vector<RecordBatchPtr> parts;
            if (before != nullptr) parts.push_back(before);
            parts.push_back(chunk);
            if (after != nullptr) parts.push_back(after);
            around_offset = before == nullptr ? 0 : before->num_rows();
            if (parts.size() == 1) {
              around.batch = chunk;
            } else {
              FLOE_ASSIGN_OR_RAISE(around.batch,
                                   ConcatenateBatches(node_->input()->schema(), parts));
            }
            around.n = around.batch->num_rows();
          }
          FLOE_ASSIGN_OR_RAISE(ArrayPtr all, Compute(w, around));
          col = all->Slice(around_offset, p.n);
          break;
        }
        case Streaming::kRanking: {
          FLOE_ASSIGN_OR_RAISE(col, RankChunk(w, p, *place, no_order));
          break;
        }
        case Streaming::kRunning: {
          FLOE_ASSIGN_OR_RAISE(auto args, AggregateArgs(w, *chunk));
          const std::vector<ArrayPtr>* prefix =
              place->prefix[i].empty() ? nullptr : &place->prefix[i];
          FLOE_ASSIGN_OR_RAISE(col, Aggregate(w, p, args, prefix));
          // The state of the rows so far: the prefix's and this chunk's.
          FLOE_ASSIGN_OR_RAISE(auto acc,
                               expr::MakeGroupsAccumulator(w.call.aggregate, ctx_->pool()));
          uint32_t zero = 0;
          if (prefix != nullptr) FLOE_RETURN_NOT_OK(acc->Merge(*prefix, &zero, 1));
          std::vector<uint32_t> zeros(static_cast<size_t>(p.n), 0);
          FLOE_RETURN_NOT_OK(acc->Update(args, zeros.data(), nullptr, 1));
          FLOE_ASSIGN_OR_RAISE(place->prefix[i], acc->State());
          break;
        }
        case Streaming::kWhole: {
          std::vector<int64_t> idx(static_cast<size_t>(p.n), 0);
          FLOE_ASSIGN_OR_RAISE(col, TakeArray(*place->whole[i], idx.data(), p.n));
          break;
        }
        case Streaming::kNo:
          return Status::Internal("window {} cannot be computed in chunks", w.name);
      }
      cols.push_back(std::move(col));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), p.n, std::move(cols)));
    for (int64_t pos = 0; pos < p.n; pos += batch_size()) {
      FLOE_RETURN_NOT_OK(
          chunk_out_->Write(*out->Slice(pos, std::min(batch_size(), p.n - pos))).status());
    }
    place->offset += p.n;
    place->groups_before += static_cast<int64_t>(p.group_start.size()) - 1;
    return Status::OK();
  }

  // A ranking function over a chunk: the chunk's own peers placed after `place`'s rows.
  Result<ArrayPtr> RankChunk(const WindowExprSpec& w, const PartitionRows& p,
                             const ChunkPlace& place, bool no_order) {
    using expr::WindowOp;
    const WindowOp op = w.call.window_op;
    const int64_t total = place.total;
    // Without ORDER BY all rows are peers: the first row starts and the last ends the group.
    auto peer_start = [&](int64_t r) { return no_order ? 0 : place.offset + p.peer_start[r]; };
    auto peer_end = [&](int64_t r) { return no_order ? total : place.offset + p.peer_end[r]; };
    if (op == WindowOp::kPercentRank || op == WindowOp::kCumeDist) {
      std::vector<double> v(static_cast<size_t>(p.n));
      for (int64_t r = 0; r < p.n; ++r) {
        v[r] =
            op == WindowOp::kPercentRank
                ? (total <= 1 ? 0.0
                              : static_cast<double>(peer_start(r)) / static_cast<double>(total - 1))
                : static_cast<double>(peer_end(r)) / static_cast<double>(total);
      }
      return DoubleArray(v);
    }
    std::vector<int64_t> v(static_cast<size_t>(p.n));
    if (op == WindowOp::kNtile) {
      FLOE_ASSIGN_OR_RAISE(auto args, EvaluateExprs(w.args, *p.batch));
      FLOE_ASSIGN_OR_RAISE(int64_t buckets, ConstantInt(args.at(0), "argument of ntile"));
      if (buckets <= 0) return Status::Invalid("argument of ntile must be greater than zero");
      // The first `extra` buckets hold size + 1 rows, the others size.
      const int64_t size = total / buckets, extra = total % buckets;
      for (int64_t r = 0; r < p.n; ++r) {
        const int64_t g = place.offset + r;
        v[r] = g < extra * (size + 1) ? g / (size + 1) + 1
                                      : extra + (g - extra * (size + 1)) / size + 1;
      }
      return IntArray(w.call.type, v);
    }
    for (int64_t r = 0; r < p.n; ++r) {
      v[r] = op == WindowOp::kRowNumber ? place.offset + r + 1
             : op == WindowOp::kRank    ? peer_start(r) + 1
             : no_order                 ? 1
                                        : place.groups_before + p.group_of[r] + 1;
    }
    return IntArray(w.call.type, v);
  }

  // An aggregate window's arguments over `batch`.
  Result<std::vector<ArrayPtr>> AggregateArgs(const WindowExprSpec& w, const RecordBatch& batch) {
    FLOE_ASSIGN_OR_RAISE(auto args, EvaluateExprs(w.args, batch));
    FLOE_RETURN_NOT_OK(FillCountStarArg(batch, &args));
    return args;
  }

  // count(*) has no argument: the accumulators take a first column (or NULLs) instead.
  static Status FillCountStarArg(const RecordBatch& batch, std::vector<ArrayPtr>* args) {
    if (args->empty()) args->push_back(batch.num_columns() > 0 ? batch.column(0) : nullptr);
    if ((*args)[0] == nullptr) {
      FLOE_ASSIGN_OR_RAISE((*args)[0], Array::MakeNull(Int32(), batch.num_rows()));
    }
    return Status::OK();
  }

  Status FlushPartition() {
    if (spill_ != nullptr) return FlushSpilled();
    if (held_.empty()) return Status::OK();
    PartitionRows p;
    if (held_.size() == 1) {
      p.batch = held_[0];
    } else {
      FLOE_ASSIGN_OR_RAISE(p.batch, ConcatenateBatches(node_->input()->schema(), held_));
    }
    held_.clear();
    held_bytes_ = 0;
    p.n = p.batch->num_rows();
    range_keys_.clear();
    FLOE_RETURN_NOT_OK(ComputePeers(&p));
    std::vector<ArrayPtr> cols = p.batch->columns();
    for (const auto& w : node_->windows()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr col, Compute(w, p));
      cols.push_back(std::move(col));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), p.n, std::move(cols)));
    for (int64_t pos = 0; pos < p.n; pos += batch_size()) {
      out_.push_back(Output{out->Slice(pos, std::min(batch_size(), p.n - pos)), nullptr, ""});
    }
    (void)reservation_.TryResize(0);
    return Status::OK();
  }

  Status ComputePeers(PartitionRows* p) {
    const auto& order = node_->windows()[0].order_by;
    const int64_t n = p->n;
    p->peer_start.resize(static_cast<size_t>(n));
    p->peer_end.resize(static_cast<size_t>(n));
    p->group_of.resize(static_cast<size_t>(n));
    p->group_start.clear();
    RowKeys keys;
    if (!order.empty()) {
      FLOE_ASSIGN_OR_RAISE(auto cols, EvaluateKeys(order, *p->batch));
      FLOE_RETURN_NOT_OK(EncodeRowKeys(cols, SortOptionsOf(order), &keys));
    }
    int64_t start = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (r > 0 && (order.empty() ? false : keys.Key(r) != keys.Key(r - 1))) start = r;
      if (start == r) p->group_start.push_back(r);
      p->peer_start[r] = start;
      p->group_of[r] = static_cast<int64_t>(p->group_start.size()) - 1;
    }
    p->group_start.push_back(n);
    for (int64_t r = 0; r < n; ++r) p->peer_end[r] = p->group_start[p->group_of[r] + 1];
    return Status::OK();
  }

  // RANGE with an offset: the rows whose (single, numeric or date/time) ORDER BY value is
  // within `off` of row r's, in the direction of the ordering. NULL rows frame their peers.
  Result<int64_t> RangeOffsetBound(const PartitionRows& p, int64_t r, int64_t off, bool is_end) {
    if (range_keys_.size() != static_cast<size_t>(p.n)) FLOE_RETURN_NOT_OK(LoadRangeKeys(p));
    if (range_null_[r]) return is_end ? p.peer_end[r] : p.peer_start[r];
    const double target = range_keys_[r] + static_cast<double>(off);
    auto begin = range_keys_.begin() + range_begin_, end = range_keys_.begin() + range_end_;
    auto it = is_end ? std::upper_bound(begin, end, target) : std::lower_bound(begin, end, target);
    return static_cast<int64_t>(it - range_keys_.begin());
  }

  Status LoadRangeKeys(const PartitionRows& p) {
    const auto& order = node_->windows()[0].order_by;
    if (order.size() != 1) {
      return Status::NotSupported(
          "RANGE with an offset PRECEDING or FOLLOWING needs exactly one ORDER BY column, not {}",
          order.size());
    }
    expr::EvalContext ectx;
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, expr::EvaluateToArray(*order[0].expr, *p.batch, ectx));
    const double sign = order[0].descending ? -1.0 : 1.0;
    range_keys_.assign(static_cast<size_t>(p.n), 0.0);
    range_null_.assign(static_cast<size_t>(p.n), 0);
    range_begin_ = p.n;
    range_end_ = 0;
    FLOE_RETURN_NOT_OK(VisitPhysicalType(a->type_id(), [&]<typename T>(TypeTag<T>) -> Status {
      // Numbers, dates, times and timestamps order by their value as a double.
      constexpr bool kNumeric =
          std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, Int128>;
      for (int64_t r = 0; r < p.n; ++r) {
        if (a->IsNull(r)) {
          range_null_[r] = 1;
          continue;
        }
        if constexpr (!kNumeric) {
          return Status::NotSupported("RANGE with an offset over ORDER BY of type {}",
                                      a->type()->ToString());
        } else {
          range_keys_[r] = sign * static_cast<double>(a->Value<T>(r));
          range_begin_ = std::min(range_begin_, r);
          range_end_ = r + 1;
        }
      }
      return Status::OK();
    }));
    if (range_begin_ > range_end_) range_begin_ = range_end_;
    return Status::OK();
  }

  // The frame [start, end) of every row.
  Status Frames(const WindowFrame& frame, const PartitionRows& p, std::vector<int64_t>* fs,
                std::vector<int64_t>* fe) {
    const int64_t n = p.n;
    fs->resize(static_cast<size_t>(n));
    fe->resize(static_cast<size_t>(n));
    using K = WindowFrameBound::Kind;
    auto bound = [&](const WindowFrameBound& b, int64_t r, bool is_end) -> Result<int64_t> {
      switch (b.kind) {
        case K::kUnboundedPreceding:
          return int64_t{0};
        case K::kUnboundedFollowing:
          return n;
        case K::kCurrentRow:
          if (frame.mode == WindowFrame::Mode::kRows) return is_end ? r + 1 : r;
          return is_end ? p.peer_end[r] : p.peer_start[r];
        case K::kPreceding:
        case K::kFollowing: {
          const int64_t off = b.kind == K::kPreceding ? -b.offset : b.offset;
          if (frame.mode != WindowFrame::Mode::kRange) {
            // An offset past the partition's rows or groups is as good as unbounded: it
            // is clamped first, so that 9223372036854775807 PRECEDING does not wrap.
            const int64_t clamped = std::clamp<int64_t>(off, -n - 1, n + 1);
            if (frame.mode == WindowFrame::Mode::kRows) {
              return std::clamp<int64_t>(r + clamped + (is_end ? 1 : 0), 0, n);
            }
            const int64_t groups = static_cast<int64_t>(p.group_start.size()) - 1;
            int64_t g = p.group_of[r] + clamped + (is_end ? 1 : 0);
            g = std::clamp<int64_t>(g, 0, groups);
            return p.group_start[g];
          }
          return RangeOffsetBound(p, r, off, is_end);
        }
      }
      return int64_t{0};
    };
    for (int64_t r = 0; r < n; ++r) {
      FLOE_ASSIGN_OR_RAISE(int64_t s, bound(frame.start, r, false));
      FLOE_ASSIGN_OR_RAISE(int64_t e, bound(frame.end, r, true));
      (*fs)[r] = s;
      (*fe)[r] = std::max(s, e);
    }
    return Status::OK();
  }

  Result<ArrayPtr> Compute(const WindowExprSpec& w, const PartitionRows& p) {
    const int64_t n = p.n;
    const std::string& fn = w.call.function;
    FLOE_ASSIGN_OR_RAISE(auto args, EvaluateExprs(w.args, *p.batch));
    if (w.call.is_aggregate) return Aggregate(w, p, args);
    using expr::WindowOp;
    const WindowOp op = w.call.window_op;
    switch (op) {
      case WindowOp::kRowNumber:
      case WindowOp::kRank:
      case WindowOp::kDenseRank: {
        std::vector<int64_t> v(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
          v[r] = op == WindowOp::kRowNumber ? r + 1
                 : op == WindowOp::kRank    ? p.peer_start[r] + 1
                                            : p.group_of[r] + 1;
        }
        return IntArray(w.call.type, v);
      }
      case WindowOp::kPercentRank:
      case WindowOp::kCumeDist: {
        std::vector<double> v(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
          if (op == WindowOp::kPercentRank) {
            v[r] = n <= 1 ? 0.0 : static_cast<double>(p.peer_start[r]) / static_cast<double>(n - 1);
          } else {
            v[r] = static_cast<double>(p.peer_end[r]) / static_cast<double>(n);
          }
        }
        return DoubleArray(v);
      }
      case WindowOp::kNtile: {
        FLOE_ASSIGN_OR_RAISE(int64_t buckets, ConstantInt(args.at(0), "argument of ntile"));
        if (buckets <= 0) return Status::Invalid("argument of ntile must be greater than zero");
        std::vector<int64_t> v(static_cast<size_t>(n));
        const int64_t size = n / buckets, extra = n % buckets;
        int64_t r = 0;
        for (int64_t b = 0; b < buckets && r < n; ++b) {
          const int64_t len = size + (b < extra ? 1 : 0);
          for (int64_t i = 0; i < len && r < n; ++i) v[r++] = b + 1;
        }
        return IntArray(w.call.type, v);
      }
      case WindowOp::kLag:
      case WindowOp::kLead: {
        ArrayPtr source = args[0];
        const bool has_default = args.size() >= 3;
        if (has_default) {
          FLOE_ASSIGN_OR_RAISE(source, ConcatenateArrays({args[0], args[2]}));
        }
        // The offset is evaluated for every row (PostgreSQL); a NULL offset gives NULL.
        std::vector<int64_t> idx(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
          std::optional<int64_t> offset = 1;
          if (args.size() >= 2) {
            FLOE_ASSIGN_OR_RAISE(offset, IntAt(*args[1], r, "offset of " + fn));
          }
          if (!offset) {
            idx[r] = -1;
            continue;
          }
          // |offset| past the partition's rows lands outside it whatever the sign.
          const int64_t step = std::clamp<int64_t>(*offset, -n - 1, n + 1);
          const int64_t t = op == WindowOp::kLag ? r - step : r + step;
          idx[r] = (t >= 0 && t < n) ? t : (has_default ? n + r : -1);
        }
        return TakeArray(*source, idx.data(), n);
      }
      case WindowOp::kFirstValue:
      case WindowOp::kLastValue:
      case WindowOp::kNthValue: {
        std::vector<int64_t> fs, fe;
        FLOE_RETURN_NOT_OK(Frames(w.call.frame, p, &fs, &fe));
        int64_t nth = 1;
        if (op == WindowOp::kNthValue) {
          FLOE_ASSIGN_OR_RAISE(nth, ConstantInt(args.at(1), "argument of nth_value"));
          if (nth <= 0) return Status::Invalid("argument of nth_value must be greater than zero");
        }
        std::vector<int64_t> idx(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
          if (fs[r] >= fe[r]) {
            idx[r] = -1;
          } else if (op == WindowOp::kLastValue) {
            idx[r] = fe[r] - 1;
          } else {
            idx[r] = fs[r] + nth - 1 < fe[r] ? fs[r] + nth - 1 : -1;
          }
        }
        return TakeArray(*args.at(0), idx.data(), n);
      }
    }
    return Status::NotSupported("window function {} is not supported", fn);
  }

  // Aggregates over frames through a segment tree of partial states: level 0 holds each
  // row's state, level k+1 merges pairs of level k; a frame merges O(log n) nodes.
  // `prefix`, when given, is the state of rows before the partition's rows here (a chunk of
  // a spilled partition): every frame starts with them.
  Result<ArrayPtr> Aggregate(const WindowExprSpec& w, const PartitionRows& p,
                             std::vector<ArrayPtr> args,
                             const std::vector<ArrayPtr>* prefix = nullptr) {
    const int64_t n = p.n;
    const expr::ResolvedAggregate& fn = w.call.aggregate;
    FLOE_RETURN_NOT_OK(FillCountStarArg(*p.batch, &args));
    std::vector<int64_t> fs, fe;
    FLOE_RETURN_NOT_OK(Frames(w.call.frame, p, &fs, &fe));
    bool whole = prefix == nullptr;
    for (int64_t r = 0; r < n && whole; ++r) whole = fs[r] == 0 && fe[r] == n;
    if (whole) {
      FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(fn, ctx_->pool()));
      std::vector<uint32_t> zeros(static_cast<size_t>(n), 0);
      FLOE_RETURN_NOT_OK(acc->Update(args, zeros.data(), nullptr, 1));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr one, acc->Evaluate());
      std::vector<int64_t> idx(static_cast<size_t>(n), 0);
      return TakeArray(*one, idx.data(), n);
    }
    // Level 0: one state per row.
    std::vector<std::vector<ArrayPtr>> levels;
    std::vector<int64_t> level_size, level_off;
    {
      FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(fn, ctx_->pool()));
      std::vector<uint32_t> ids(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) ids[r] = static_cast<uint32_t>(r);
      FLOE_RETURN_NOT_OK(acc->Update(args, ids.data(), nullptr, n));
      FLOE_ASSIGN_OR_RAISE(auto states, acc->State());
      levels.push_back(std::move(states));
      level_size.push_back(n);
    }
    while (level_size.back() > 1) {
      const int64_t m = level_size.back();
      const int64_t up = (m + 1) / 2;
      FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(fn, ctx_->pool()));
      std::vector<uint32_t> ids(static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) ids[i] = static_cast<uint32_t>(i / 2);
      FLOE_RETURN_NOT_OK(acc->Merge(levels.back(), ids.data(), up));
      FLOE_ASSIGN_OR_RAISE(auto states, acc->State());
      levels.push_back(std::move(states));
      level_size.push_back(up);
    }
    int64_t off = 0;
    for (int64_t s : level_size) {
      level_off.push_back(off);
      off += s;
    }
    std::vector<int64_t> take;
    std::vector<uint32_t> group;
    // A frame's nodes merge left to right: string_agg and other order-sensitive
    // aggregates see the frame's rows in the window's order.
    std::vector<int64_t> right_nodes;
    for (int64_t r = 0; r < n; ++r) {
      int64_t l = fs[r], h = fe[r];
      size_t level = 0;
      right_nodes.clear();
      while (l < h) {
        if (l & 1) {
          take.push_back(level_off[level] + l);
          group.push_back(static_cast<uint32_t>(r));
          ++l;
        }
        if (h & 1) {
          --h;
          right_nodes.push_back(level_off[level] + h);
        }
        l >>= 1;
        h >>= 1;
        ++level;
      }
      for (auto it = right_nodes.rbegin(); it != right_nodes.rend(); ++it) {
        take.push_back(*it);
        group.push_back(static_cast<uint32_t>(r));
      }
    }
    const size_t fields = levels[0].size();
    std::vector<ArrayPtr> picked;
    for (size_t f = 0; f < fields; ++f) {
      std::vector<ArrayPtr> parts;
      for (auto& lv : levels) parts.push_back(lv[f]);
      FLOE_ASSIGN_OR_RAISE(ArrayPtr all, ConcatenateArrays(parts));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr t,
                           TakeArray(*all, take.data(), static_cast<int64_t>(take.size())));
      picked.push_back(std::move(t));
    }
    FLOE_ASSIGN_OR_RAISE(auto acc, expr::MakeGroupsAccumulator(fn, ctx_->pool()));
    if (prefix != nullptr) {
      // The rows before come first in every frame.
      std::vector<int64_t> zeros(static_cast<size_t>(n), 0);
      std::vector<ArrayPtr> repeated;
      for (const ArrayPtr& s : *prefix) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr r, TakeArray(*s, zeros.data(), n));
        repeated.push_back(std::move(r));
      }
      std::vector<uint32_t> ids(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) ids[r] = static_cast<uint32_t>(r);
      FLOE_RETURN_NOT_OK(acc->Merge(repeated, ids.data(), n));
    }
    FLOE_RETURN_NOT_OK(acc->Merge(picked, group.data(), n));
    return acc->Evaluate();
  }

  const WindowExec* node_;
  int partition_;
  TaskContextPtr ctx_;
  MemoryReservation reservation_;
  BatchStreamPtr input_;
  RowKeys keys_;
  std::string current_key_;
  bool has_key_ = false;
  std::vector<RecordBatchPtr> held_;
  int64_t held_bytes_ = 0;
  std::vector<double> range_keys_;
  std::vector<uint8_t> range_null_;
  int64_t range_begin_ = 0, range_end_ = 0;
  // What Next hands out, in order: computed batches, or a spilled partition's results read
  // back from their file.
  struct Output {
    RecordBatchPtr batch;
    BatchStreamPtr stream;
    std::string path;
  };
  std::deque<Output> out_;
  bool done_ = false;
  std::unique_ptr<SpillWriter> chunk_out_;  // a spilled partition's results being written
  std::vector<std::string> out_paths_;      // every results file (removed at the end)
  // The partition being spilled, once it outgrew the budget.
  std::unique_ptr<SpillWriter> spill_;
  std::string spill_path_;
  int64_t spilled_rows_ = 0;

 public:
  ~WindowStream() override {
    spill_.reset();
    chunk_out_.reset();
    out_.clear();
    std::error_code ec;
    if (!spill_path_.empty()) std::filesystem::remove(spill_path_, ec);
    for (const std::string& path : out_paths_) std::filesystem::remove(path, ec);
  }
};

}  // namespace

Result<PlanPtr> WindowExec::Make(std::vector<WindowExprSpec> windows, PlanPtr input) {
  if (input == nullptr) return Status::Internal("WindowExec: no input");
  if (windows.empty()) return Status::Internal("WindowExec: no window functions");
  for (const auto& w : windows) {
    if (w.partition_by.size() != windows[0].partition_by.size() ||
        w.order_by.size() != windows[0].order_by.size()) {
      return Status::Internal("WindowExec: windows with different PARTITION BY / ORDER BY");
    }
    if (!w.call.is_aggregate && expr::FindWindowOp(w.call.function) != w.call.window_op) {
      return Status::Internal("WindowExec: window function {} does not match its operation",
                              w.call.function);
    }
  }
  std::vector<Field> fields = input->schema()->fields();
  for (const auto& w : windows) fields.emplace_back(w.name, w.call.type, true);
  PlanProperties props;
  props.schema = std::make_shared<Schema>(std::move(fields));
  props.partitioning = input->properties().partitioning;
  props.ordering = input->properties().ordering;
  return PlanPtr(new WindowExec(std::move(windows), std::move(input), std::move(props)));
}

Result<PlanPtr> WindowExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("WindowExec takes one child");
  return Make(windows_, std::move(children[0]));
}

std::vector<Distribution> WindowExec::RequiredInputDistribution() const {
  if (windows_[0].partition_by.empty()) return {Distribution::Single()};
  return {Distribution::Hash(windows_[0].partition_by)};
}

std::vector<Ordering> WindowExec::RequiredInputOrdering() const {
  Ordering required;
  for (const auto& e : windows_[0].partition_by) required.push_back({e, false, false});
  for (const auto& k : windows_[0].order_by) required.push_back(k);
  return {required};
}

Result<BatchStreamPtr> WindowExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("WindowExec: partition {} out of range", partition);
  }
  return std::make_unique<WindowStream>(this, partition, ctx);
}

std::string WindowExec::ToString() const {
  std::string out = "WindowExec: wdw=[";
  for (size_t i = 0; i < windows_.size(); ++i) {
    if (i > 0) out += ", ";
    out += windows_[i].name;
  }
  return out + "]";
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

namespace pb = codec::proto;

namespace {

pb::WindowFrameBound::Kind EncodeBoundKind(plan::WindowFrameBound::Kind kind) {
  using K = plan::WindowFrameBound::Kind;
  switch (kind) {
    case K::kUnboundedPreceding:
      return pb::WindowFrameBound::UNBOUNDED_PRECEDING;
    case K::kPreceding:
      return pb::WindowFrameBound::PRECEDING;
    case K::kCurrentRow:
      return pb::WindowFrameBound::CURRENT_ROW;
    case K::kFollowing:
      return pb::WindowFrameBound::FOLLOWING;
    case K::kUnboundedFollowing:
      return pb::WindowFrameBound::UNBOUNDED_FOLLOWING;
  }
  return pb::WindowFrameBound::CURRENT_ROW;
}

Result<plan::WindowFrameBound> DecodeBound(const codec::PlanDecoder& in,
                                           const pb::WindowFrameBound& m) {
  using K = plan::WindowFrameBound::Kind;
  plan::WindowFrameBound bound;
  switch (m.kind()) {
    case pb::WindowFrameBound::UNBOUNDED_PRECEDING:
      bound.kind = K::kUnboundedPreceding;
      break;
    case pb::WindowFrameBound::PRECEDING:
      bound.kind = K::kPreceding;
      break;
    case pb::WindowFrameBound::CURRENT_ROW:
      bound.kind = K::kCurrentRow;
      break;
    case pb::WindowFrameBound::FOLLOWING:
      bound.kind = K::kFollowing;
      break;
    case pb::WindowFrameBound::UNBOUNDED_FOLLOWING:
      bound.kind = K::kUnboundedFollowing;
      break;
    default:
      return in.Corrupt(fmt::format("unknown window frame bound {}", static_cast<int>(m.kind())));
  }
  if (m.offset() < 0) return in.Corrupt("a negative window frame offset");
  bound.offset = m.offset();
  return bound;
}

}  // namespace

Status WindowExec::Encode(codec::PlanEncoder& out) const {
  pb::WindowNode m;
  for (const WindowExprSpec& w : windows_) {
    pb::WindowExpr* wm = m.add_windows();
    wm->set_function(w.call.function);
    wm->set_is_aggregate(w.call.is_aggregate);
    if (w.call.is_aggregate) {
      FLOE_RETURN_NOT_OK(
          internal::EncodeAggregateFunction(w.call.aggregate, wm->mutable_aggregate()));
    }
    switch (w.call.frame.mode) {
      case plan::WindowFrame::Mode::kRows:
        wm->set_frame_mode(pb::WindowExpr::ROWS);
        break;
      case plan::WindowFrame::Mode::kRange:
        wm->set_frame_mode(pb::WindowExpr::RANGE);
        break;
      case plan::WindowFrame::Mode::kGroups:
        wm->set_frame_mode(pb::WindowExpr::GROUPS);
        break;
    }
    wm->mutable_frame_start()->set_kind(EncodeBoundKind(w.call.frame.start.kind));
    wm->mutable_frame_start()->set_offset(w.call.frame.start.offset);
    wm->mutable_frame_end()->set_kind(EncodeBoundKind(w.call.frame.end.kind));
    wm->mutable_frame_end()->set_offset(w.call.frame.end.offset);
    if (w.call.type == nullptr) return Status::Internal("window {} has no type", w.name);
    codec::EncodeType(*w.call.type, wm->mutable_type());
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(w.args, wm->mutable_args()));
    FLOE_RETURN_NOT_OK(EncodePhysicalExprs(w.partition_by, wm->mutable_partition_by()));
    FLOE_RETURN_NOT_OK(EncodeOrdering(w.order_by, wm->mutable_order_by()));
    wm->set_name(w.name);
  }
  return out.SetPayload(m);
}

Result<PlanPtr> WindowExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  pb::WindowNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  const SchemaPtr& input = children[0]->schema();
  std::vector<WindowExprSpec> windows;
  for (const pb::WindowExpr& wm : m.windows()) {
    WindowExprSpec w;
    w.call.function = wm.function();
    w.call.is_aggregate = wm.is_aggregate();
    if (wm.is_aggregate()) {
      FLOE_ASSIGN_OR_RAISE(w.call.aggregate, internal::DecodeAggregateFunction(in, wm.aggregate()));
    } else {
      std::optional<expr::WindowOp> op = expr::FindWindowOp(wm.function());
      if (!op) return in.Corrupt(fmt::format("unknown window function '{}'", wm.function()));
      w.call.window_op = *op;
    }
    switch (wm.frame_mode()) {
      case pb::WindowExpr::ROWS:
        w.call.frame.mode = plan::WindowFrame::Mode::kRows;
        break;
      case pb::WindowExpr::RANGE:
        w.call.frame.mode = plan::WindowFrame::Mode::kRange;
        break;
      case pb::WindowExpr::GROUPS:
        w.call.frame.mode = plan::WindowFrame::Mode::kGroups;
        break;
      default:
        return in.Corrupt(
            fmt::format("unknown window frame mode {}", static_cast<int>(wm.frame_mode())));
    }
    FLOE_ASSIGN_OR_RAISE(w.call.frame.start, DecodeBound(in, wm.frame_start()));
    FLOE_ASSIGN_OR_RAISE(w.call.frame.end, DecodeBound(in, wm.frame_end()));
    FLOE_ASSIGN_OR_RAISE(w.call.type, DecodeNodeType(in, wm.type()));
    FLOE_ASSIGN_OR_RAISE(w.args, in.Exprs(wm.args(), input));
    FLOE_ASSIGN_OR_RAISE(w.partition_by, in.Exprs(wm.partition_by(), input));
    FLOE_ASSIGN_OR_RAISE(w.order_by, DecodeOrdering(wm.order_by(), input, in));
    w.name = wm.name();
    windows.push_back(std::move(w));
  }
  return Make(std::move(windows), std::move(children[0]));
}

}  // namespace floe::exec
