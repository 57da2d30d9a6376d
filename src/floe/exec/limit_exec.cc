#include "floe/exec/limit_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/plan_codec_internal.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

class LimitStream final : public BatchStream {
 public:
  LimitStream(BatchStreamPtr input, int64_t offset, std::optional<int64_t> fetch)
      : input_(std::move(input)), skip_(offset), remaining_(fetch) {}

  const SchemaPtr& schema() const override { return input_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (remaining_ && *remaining_ <= 0) {
        input_.reset();  // Releases the input's resources early.
        return RecordBatchPtr();
      }
      if (!input_) return RecordBatchPtr();
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        input_.reset();
        return batch;
      }
      int64_t rows = batch->num_rows();
      int64_t begin = 0;
      if (skip_ > 0) {
        begin = std::min(skip_, rows);
        skip_ -= begin;
      }
      int64_t take = rows - begin;
      if (remaining_) {
        take = std::min(take, *remaining_);
        *remaining_ -= take;
      }
      if (take <= 0) continue;
      if (begin == 0 && take == rows) return batch;
      return batch->Slice(begin, take);
    }
  }

 private:
  BatchStreamPtr input_;
  SchemaPtr schema_;
  int64_t skip_;
  std::optional<int64_t> remaining_;
};

}  // namespace

LimitExec::LimitExec(PlanPtr input, int64_t offset, std::optional<int64_t> fetch, bool global)
    : input_(std::move(input)), offset_(offset), fetch_(fetch), global_(global) {
  properties_ = input_->properties();
  if (global_) properties_.partitioning = Partitioning::Single();
}

Result<PlanPtr> LimitExec::Make(PlanPtr input, int64_t offset, std::optional<int64_t> fetch,
                                bool global) {
  if (!input) return Status::Internal("LimitExec: no input");
  if (offset < 0) return Status::Internal("LimitExec: negative offset {}", offset);
  if (fetch && *fetch < 0) return Status::Internal("LimitExec: negative fetch {}", *fetch);
  if (!global && offset != 0) {
    return Status::Internal("LimitExec: a local limit cannot have an offset ({})", offset);
  }
  return PlanPtr(new LimitExec(std::move(input), offset, fetch, global));
}

Result<PlanPtr> LimitExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("LimitExec takes one child, got {}", children.size());
  }
  return Make(std::move(children[0]), offset_, fetch_, global_);
}

std::vector<Distribution> LimitExec::RequiredInputDistribution() const {
  return {global_ ? Distribution::Single() : Distribution::Unspecified()};
}

Result<BatchStreamPtr> LimitExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (global_ && input_->partition_count() != 1) {
    return Status::Internal("LimitExec: a global limit needs one input partition, got {}",
                            input_->partition_count());
  }
  FLOE_ASSIGN_OR_RAISE(BatchStreamPtr input, ExecutePlan(input_, partition, ctx));
  return BatchStreamPtr(std::make_unique<LimitStream>(std::move(input), offset_, fetch_));
}

std::string LimitExec::ToString() const {
  std::string out = fmt::format("LimitExec: {}", global_ ? "global" : "local");
  if (offset_ > 0) out += fmt::format(" offset={}", offset_);
  out += fetch_ ? fmt::format(" fetch={}", *fetch_) : std::string(" fetch=all");
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status LimitExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::LimitNode m;
  m.set_offset(offset_);
  if (fetch_) m.mutable_fetch()->set_value(*fetch_);
  m.set_global(global_);
  return out.SetPayload(m);
}

Result<PlanPtr> LimitExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::LimitNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  if (m.offset() < 0 || (m.has_fetch() && m.fetch().value() < 0)) {
    return in.Corrupt("a negative offset or fetch");
  }
  return Make(std::move(children[0]), m.offset(), internal::DecodeFetch(m), m.global());
}

}  // namespace floe::exec
