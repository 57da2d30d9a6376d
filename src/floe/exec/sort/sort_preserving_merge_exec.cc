#include "floe/exec/sort/sort_preserving_merge_exec.h"

#include "floe/codec/nodes.pb.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "floe/exec/sort/k_way_merge.h"

namespace floe::exec {

namespace {

class SortPreservingMergeStream final : public BatchStream {
 public:
  SortPreservingMergeStream(const SortPreservingMergeExec* node, TaskContextPtr ctx)
      : node_(node), ctx_(std::move(ctx)) {}
  const SchemaPtr& schema() const override { return node_->schema(); }
  Result<RecordBatchPtr> Next() override {
    if (!merged_) {
      std::vector<std::unique_ptr<MergeCursor>> cursors;
      for (int p = 0; p < node_->input()->partition_count(); ++p) {
        FLOE_ASSIGN_OR_RAISE(BatchStreamPtr s, ExecutePlan(node_->input(), p, ctx_));
        cursors.push_back(std::make_unique<MergeCursor>(std::move(s), node_->keys()));
      }
      merged_ = MakeMergeStream(schema(), std::move(cursors),
                                std::max<int64_t>(1, ctx_->config().batch_size()),
                                node_->fetch().value_or(-1));
    }
    return merged_->Next();
  }

 private:
  const SortPreservingMergeExec* node_;
  TaskContextPtr ctx_;
  BatchStreamPtr merged_;
};

}  // namespace

Result<PlanPtr> SortPreservingMergeExec::Make(Ordering keys, PlanPtr input,
                                              std::optional<int64_t> fetch) {
  if (input == nullptr) return Status::Internal("SortPreservingMergeExec: no input");
  if (keys.empty()) return Status::Internal("SortPreservingMergeExec: no sort keys");
  PlanProperties props;
  props.schema = input->schema();
  props.partitioning = Partitioning::Single();
  props.ordering = keys;
  return PlanPtr(
      new SortPreservingMergeExec(std::move(keys), std::move(input), fetch, std::move(props)));
}

Result<PlanPtr> SortPreservingMergeExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("SortPreservingMergeExec takes one child");
  return Make(keys_, std::move(children[0]), fetch_);
}

Result<BatchStreamPtr> SortPreservingMergeExec::Execute(int partition,
                                                        const TaskContextPtr& ctx) const {
  if (partition != 0) {
    return Status::Internal("SortPreservingMergeExec: partition {} out of range", partition);
  }
  return std::make_unique<SortPreservingMergeStream>(this, ctx);
}

std::string SortPreservingMergeExec::ToString() const {
  std::string out = "SortPreservingMergeExec: " + OrderingToString(keys_);
  if (fetch_) out += " fetch=" + std::to_string(*fetch_);
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status SortPreservingMergeExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::SortPreservingMergeNode m;
  FLOE_RETURN_NOT_OK(EncodeOrdering(keys_, m.mutable_keys()));
  if (fetch_) m.mutable_fetch()->set_value(*fetch_);
  return out.SetPayload(m);
}

Result<PlanPtr> SortPreservingMergeExec::Decode(codec::PlanDecoder& in,
                                                std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::SortPreservingMergeNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(Ordering keys, DecodeOrdering(m.keys(), children[0]->schema(), in));
  if (m.has_fetch() && m.fetch().value() < 0) return in.Corrupt("a negative fetch");
  return Make(std::move(keys), std::move(children[0]), internal::DecodeFetch(m));
}

}  // namespace floe::exec
