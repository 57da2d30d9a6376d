#include "floe/exec/window/window_exec.h"

#include <algorithm>
#include <optional>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/row_keys.h"
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
      if (out_pos_ < out_.size()) return out_[out_pos_++];
      out_.clear();
      out_pos_ = 0;
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
    held_bytes_ += b->memory_size();
    // The partition's batches, and as much again to compute its windows.
    if (!reservation_.TryResize(held_bytes_ * 2)) {
      return reservation_.OutOfMemory(held_bytes_ * 2,
                                      "a window partition of " + node_->ToString());
    }
    held_.push_back(std::move(b));
    return Status::OK();
  }

  Status FlushPartition() {
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
      out_.push_back(out->Slice(pos, std::min(batch_size(), p.n - pos)));
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
  Result<ArrayPtr> Aggregate(const WindowExprSpec& w, const PartitionRows& p,
                             std::vector<ArrayPtr> args) {
    const int64_t n = p.n;
    const expr::ResolvedAggregate& fn = w.call.aggregate;
    if (args.empty()) args.push_back(p.batch->num_columns() > 0 ? p.batch->column(0) : nullptr);
    if (args[0] == nullptr) {
      FLOE_ASSIGN_OR_RAISE(args[0], Array::MakeNull(Int32(), n));
    }
    std::vector<int64_t> fs, fe;
    FLOE_RETURN_NOT_OK(Frames(w.call.frame, p, &fs, &fe));
    bool whole = true;
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
  std::vector<RecordBatchPtr> out_;
  size_t out_pos_ = 0;
  bool done_ = false;
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
