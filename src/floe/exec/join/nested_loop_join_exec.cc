#include "floe/exec/join/nested_loop_join_exec.h"

#include <algorithm>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/codec/nodes.pb.h"
#include "floe/codec/plan_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"

namespace floe::exec {

using plan::JoinType;

SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, JoinType type) {
  std::vector<Field> fields;
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    return std::make_shared<Schema>(right.fields());
  }
  const bool left_nullable = type == JoinType::kRight || type == JoinType::kFull;
  const bool right_nullable = type == JoinType::kLeft || type == JoinType::kFull;
  for (const Field& f : left.fields()) {
    fields.push_back(left_nullable ? f.WithNullable(true) : f);
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti || type == JoinType::kNullAwareAnti) {
    return std::make_shared<Schema>(std::move(fields));
  }
  if (type == JoinType::kMark) {
    fields.emplace_back("mark", Boolean(), true);
    return std::make_shared<Schema>(std::move(fields));
  }
  for (const Field& f : right.fields()) {
    fields.push_back(right_nullable ? f.WithNullable(true) : f);
  }
  return std::make_shared<Schema>(std::move(fields));
}

namespace {

struct BuildSide {
  RecordBatchPtr batch;  // null when empty
  int64_t num_rows = 0;
  std::unique_ptr<MemoryReservation> reservation;
};

Result<std::shared_ptr<const BuildSide>> CollectRight(const NestedLoopJoinExec* node,
                                                      const TaskContextPtr& ctx) {
  auto side = std::make_shared<BuildSide>();
  side->reservation =
      std::make_unique<MemoryReservation>(ctx->memory(), "NestedLoopJoinExec right side");
  std::vector<RecordBatchPtr> batches;
  int64_t bytes = 0;
  for (int p = 0; p < node->right()->partition_count(); ++p) {
    FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, ExecutePlan(node->right(), p, ctx));
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, s->Next());
      if (b == nullptr) break;
      if (b->num_rows() == 0) continue;
      bytes += b->memory_size();
      if (!side->reservation->TryResize(bytes)) {
        return side->reservation->OutOfMemory(
            bytes, "the nested loop join right side of " + node->ToString());
      }
      batches.push_back(std::move(b));
    }
  }
  if (!batches.empty()) {
    if (batches.size() == 1) {
      side->batch = batches[0];
    } else {
      FLOE_ASSIGN_OR_RAISE(side->batch, ConcatenateBatches(node->right()->schema(), batches));
    }
    side->num_rows = side->batch->num_rows();
  }
  return std::shared_ptr<const BuildSide>(std::move(side));
}

class NestedLoopJoinStream final : public BatchStream {
 public:
  NestedLoopJoinStream(const NestedLoopJoinExec* node, int partition, TaskContextPtr ctx)
      : node_(node), partition_(partition), ctx_(std::move(ctx)), type_(node->join_type()) {}

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    if (!right_) {
      const NestedLoopJoinExec* node = node_;
      TaskContextPtr ctx = ctx_;
      FLOE_ASSIGN_OR_RAISE(right_, ctx_->GetOrCreateShared<BuildSide>(
                                       node_, [node, ctx]() { return CollectRight(node, ctx); }));
      if (type_ == JoinType::kRight || type_ == JoinType::kFull) {
        right_matched_.assign(static_cast<size_t>(right_->num_rows), 0);
      }
      pairs_schema_ =
          JoinOutputSchema(*node_->left()->schema(), *node_->right()->schema(), JoinType::kInner);
    }
    while (true) {
      if (out_pos_ < out_.size()) return out_[out_pos_++];
      out_.clear();
      out_pos_ = 0;
      if (done_) {
        if (!right_matched_.empty() && !emitted_right_) {
          emitted_right_ = true;
          FLOE_RETURN_NOT_OK(EmitUnmatchedRight());
          continue;
        }
        return RecordBatchPtr();
      }
      if (left_ == nullptr) {
        if (!input_) {
          FLOE_ASSIGN_OR_RAISE(input_, ExecutePlan(node_->left(), partition_, ctx_));
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr b, input_->Next());
        if (b == nullptr) {
          done_ = true;
          input_.reset();
          continue;
        }
        if (b->num_rows() == 0) continue;
        left_ = std::move(b);
        l_ = 0;
        r_ = 0;
        matched_.assign(static_cast<size_t>(left_->num_rows()), 0);
        unknown_.assign(static_cast<size_t>(left_->num_rows()), 0);
      }
      FLOE_RETURN_NOT_OK(Step());
    }
  }

 private:
  int64_t batch_size() const { return std::max<int64_t>(1, ctx_->config().batch_size()); }

  Status Step() {
    const int64_t n = left_->num_rows();
    const int64_t m = right_->num_rows;
    std::vector<int64_t> li, ri;
    while (l_ < n && m > 0 && static_cast<int64_t>(li.size()) < batch_size()) {
      li.push_back(l_);
      ri.push_back(r_);
      if (++r_ == m) {
        r_ = 0;
        ++l_;
      }
    }
    if (m == 0) l_ = n;
    if (!li.empty()) {
      const int64_t k = static_cast<int64_t>(li.size());
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr l, TakeBatch(*left_, li.data(), k));
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr r, TakeBatch(*right_->batch, ri.data(), k));
      std::vector<ArrayPtr> cols = l->columns();
      cols.insert(cols.end(), r->columns().begin(), r->columns().end());
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr pairs,
                           RecordBatch::Make(pairs_schema_, k, std::move(cols)));
      ArrayPtr mask;
      if (node_->filter()) {
        expr::EvalContext ectx;
        FLOE_ASSIGN_OR_RAISE(mask, expr::EvaluateToArray(*node_->filter(), *pairs, ectx));
      }
      for (int64_t i = 0; i < k; ++i) {
        if (mask == nullptr || (mask->IsValid(i) && mask->BoolValue(i))) {
          matched_[li[i]] = 1;
          if (!right_matched_.empty()) right_matched_[ri[i]] = 1;
        } else if (mask->IsNull(i)) {
          unknown_[li[i]] = 1;
        }
      }
      if (type_ == JoinType::kInner || type_ == JoinType::kLeft || type_ == JoinType::kRight ||
          type_ == JoinType::kFull) {
        RecordBatchPtr out = pairs;
        if (mask) {
          FLOE_ASSIGN_OR_RAISE(out, FilterBatch(*pairs, *mask));
        }
        if (out->num_rows() > 0) {
          FLOE_ASSIGN_OR_RAISE(out, RecordBatch::Make(schema(), out->num_rows(), out->columns()));
          out_.push_back(std::move(out));
        }
      }
    }
    if (l_ >= n) {
      FLOE_RETURN_NOT_OK(FinishLeft());
      left_.reset();
    }
    return Status::OK();
  }

  Status FinishLeft() {
    const int64_t n = left_->num_rows();
    if (type_ == JoinType::kLeft || type_ == JoinType::kFull || type_ == JoinType::kSemi ||
        type_ == JoinType::kAnti) {
      const uint8_t want = type_ == JoinType::kSemi ? 1 : 0;
      std::vector<int64_t> rows;
      for (int64_t r = 0; r < n; ++r) {
        if (matched_[r] == want) rows.push_back(r);
      }
      for (size_t pos = 0; pos < rows.size(); pos += static_cast<size_t>(batch_size())) {
        const int64_t len =
            std::min<int64_t>(batch_size(), static_cast<int64_t>(rows.size() - pos));
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr l, TakeBatch(*left_, rows.data() + pos, len));
        std::vector<ArrayPtr> cols = l->columns();
        if (type_ == JoinType::kLeft || type_ == JoinType::kFull) {
          for (const Field& f : node_->right()->schema()->fields()) {
            FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, Array::MakeNull(f.type(), len));
            cols.push_back(std::move(nulls));
          }
        }
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), len, std::move(cols)));
        out_.push_back(std::move(out));
      }
    } else if (type_ == JoinType::kMark) {
      BooleanBuilder mark(ctx_->pool());
      for (int64_t r = 0; r < n; ++r) {
        if (matched_[r]) {
          FLOE_RETURN_NOT_OK(mark.Append(true));
        } else if (unknown_[r]) {
          FLOE_RETURN_NOT_OK(mark.AppendNull());
        } else {
          FLOE_RETURN_NOT_OK(mark.Append(false));
        }
      }
      FLOE_ASSIGN_OR_RAISE(ArrayPtr m, mark.Finish());
      std::vector<ArrayPtr> cols = left_->columns();
      cols.push_back(std::move(m));
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), n, std::move(cols)));
      out_.push_back(std::move(out));
    }
    return Status::OK();
  }

  Status EmitUnmatchedRight() {
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < right_->num_rows; ++r) {
      if (!right_matched_[r]) rows.push_back(r);
    }
    for (size_t pos = 0; pos < rows.size(); pos += static_cast<size_t>(batch_size())) {
      const int64_t len = std::min<int64_t>(batch_size(), static_cast<int64_t>(rows.size() - pos));
      std::vector<ArrayPtr> cols;
      for (const Field& f : node_->left()->schema()->fields()) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr nulls, Array::MakeNull(f.type(), len));
        cols.push_back(std::move(nulls));
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr r, TakeBatch(*right_->batch, rows.data() + pos, len));
      cols.insert(cols.end(), r->columns().begin(), r->columns().end());
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(schema(), len, std::move(cols)));
      out_.push_back(std::move(out));
    }
    return Status::OK();
  }

  const NestedLoopJoinExec* node_;
  int partition_;
  TaskContextPtr ctx_;
  JoinType type_;
  std::shared_ptr<const BuildSide> right_;
  SchemaPtr pairs_schema_;
  std::vector<uint8_t> right_matched_;
  BatchStreamPtr input_;
  RecordBatchPtr left_;
  int64_t l_ = 0, r_ = 0;
  std::vector<uint8_t> matched_, unknown_;
  std::vector<RecordBatchPtr> out_;
  size_t out_pos_ = 0;
  bool done_ = false;
  bool emitted_right_ = false;
};

}  // namespace

Result<PlanPtr> NestedLoopJoinExec::Make(PlanPtr left, PlanPtr right, plan::JoinType type,
                                         expr::PhysicalExprPtr filter) {
  if (left == nullptr || right == nullptr) {
    return Status::Internal("NestedLoopJoinExec: missing input");
  }
  if (type == JoinType::kRightSemi || type == JoinType::kRightAnti) {
    return Status::Internal("NestedLoopJoinExec: a {} join is a hash join only",
                            plan::JoinTypeName(type));
  }
  PlanProperties props;
  props.schema = JoinOutputSchema(*left->schema(), *right->schema(), type);
  if (type == JoinType::kRight || type == JoinType::kFull) {
    props.partitioning = Partitioning::Single();
  } else {
    props.partitioning = left->properties().partitioning;
  }
  return PlanPtr(new NestedLoopJoinExec(std::move(left), std::move(right), type, std::move(filter),
                                        std::move(props)));
}

Result<PlanPtr> NestedLoopJoinExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 2) return Status::Internal("NestedLoopJoinExec takes two children");
  return Make(std::move(children[0]), std::move(children[1]), type_, filter_);
}

std::vector<Distribution> NestedLoopJoinExec::RequiredInputDistribution() const {
  if (type_ == JoinType::kRight || type_ == JoinType::kFull) {
    return {Distribution::Single(), Distribution::Single()};
  }
  return {Distribution::Unspecified(), Distribution::Broadcast()};
}

Result<BatchStreamPtr> NestedLoopJoinExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("NestedLoopJoinExec: partition {} out of range", partition);
  }
  return std::make_unique<NestedLoopJoinStream>(this, partition, ctx);
}

std::string NestedLoopJoinExec::ToString() const {
  std::string out = "NestedLoopJoinExec: type=" + std::string(plan::JoinTypeName(type_));
  if (filter_) out += ", filter=" + filter_->ToString();
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h). A filter is compiled against the rows it sees: the left columns, then
// the right ones.

namespace pb = codec::proto;

Status NestedLoopJoinExec::Encode(codec::PlanEncoder& out) const {
  pb::NestedLoopJoinNode m;
  FLOE_ASSIGN_OR_RAISE(pb::JoinType type, internal::EncodeJoinType(type_));
  m.set_type(type);
  if (filter_) FLOE_RETURN_NOT_OK(codec::EncodePhysicalExpr(*filter_, m.mutable_filter()));
  return out.SetPayload(m);
}

Result<PlanPtr> NestedLoopJoinExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 2));
  pb::NestedLoopJoinNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(plan::JoinType type, internal::DecodeJoinType(in, m.type()));
  expr::PhysicalExprPtr filter;
  if (m.has_filter()) {
    FLOE_ASSIGN_OR_RAISE(
        filter, in.Expr(m.filter(), JoinOutputSchema(*children[0]->schema(), *children[1]->schema(),
                                                     JoinType::kInner)));
  }
  return Make(std::move(children[0]), std::move(children[1]), type, std::move(filter));
}

}  // namespace floe::exec
