#include "floe/scheduler/shuffle_writer_exec.h"

#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/partition_router.h"
#include "floe/exec/plan_codec.h"

namespace floe::scheduler {

ShuffleWriterExec::ShuffleWriterExec(exec::PlanPtr input, int stage_id, exec::Partitioning output)
    : input_(std::move(input)), stage_id_(stage_id), output_(std::move(output)) {
  properties_.schema = input_->schema();
  properties_.partitioning = exec::Partitioning::Unknown(input_->partition_count());
  properties_.ordering = input_->properties().ordering;
}

Result<exec::PlanPtr> ShuffleWriterExec::Make(exec::PlanPtr input, int stage_id,
                                              exec::Partitioning output) {
  if (!input) return Status::Invalid("ShuffleWriterExec needs an input");
  switch (output.kind()) {
    case exec::Partitioning::Kind::kHash:
      if (output.exprs().empty()) {
        return Status::Invalid("ShuffleWriterExec: hash partitioning without keys");
      }
      [[fallthrough]];
    case exec::Partitioning::Kind::kRoundRobin:
      if (output.partition_count() < 1) {
        return Status::Invalid("ShuffleWriterExec: {} partitions", output.partition_count());
      }
      break;
    case exec::Partitioning::Kind::kSingle:
      break;
    case exec::Partitioning::Kind::kUnknown:
      if (output.partition_count() != input->partition_count()) {
        return Status::Invalid(
            "ShuffleWriterExec: {} keeps partitions only with the input's count ({})",
            output.ToString(), input->partition_count());
      }
      break;
  }
  return exec::PlanPtr(new ShuffleWriterExec(std::move(input), stage_id, std::move(output)));
}

Result<exec::PlanPtr> ShuffleWriterExec::WithNewChildren(
    std::vector<exec::PlanPtr> children) const {
  if (children.size() != 1) return Status::Internal("ShuffleWriterExec takes one child");
  return Make(std::move(children[0]), stage_id_, output_);
}

std::string ShuffleWriterExec::ToString() const {
  std::string out = "ShuffleWriterExec: stage=" + std::to_string(stage_id_) + ", output=";
  if (output_.kind() == exec::Partitioning::Kind::kUnknown) {
    out += "KeepPartitions(" + std::to_string(output_.partition_count()) + ")";
  } else {
    out += output_.ToString();
  }
  return out;
}

Result<exec::BatchStreamPtr> ShuffleWriterExec::Execute(int partition,
                                                        const exec::TaskContextPtr& ctx) const {
  exec::ExchangeService* exchange = ctx->exchange().get();
  if (exchange == nullptr) {
    return Status::Internal("ShuffleWriterExec of stage {} runs without an exchange", stage_id_);
  }
  const int n = output_.partition_count();
  FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr input, exec::ExecutePlan(input_, partition, ctx));
  exec::PartitionRouter buffers(schema(), n, ctx->config().batch_size(), ctx->pool(),
                                [&](int output, RecordBatchPtr batch) {
                                  return exchange->Write(stage_id_, partition, output, batch);
                                });
  int round_robin = n > 0 ? partition % n : 0;
  while (true) {
    FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    switch (output_.kind()) {
      case exec::Partitioning::Kind::kHash:
        FLOE_RETURN_NOT_OK(buffers.AddByHash(batch, output_.exprs()));
        break;
      case exec::Partitioning::Kind::kRoundRobin:
        FLOE_RETURN_NOT_OK(buffers.Add(round_robin, batch));
        round_robin = (round_robin + 1) % n;
        break;
      case exec::Partitioning::Kind::kSingle:
        FLOE_RETURN_NOT_OK(buffers.Add(0, batch));
        break;
      case exec::Partitioning::Kind::kUnknown:
        FLOE_RETURN_NOT_OK(buffers.Add(partition, batch));
        break;
    }
  }
  FLOE_RETURN_NOT_OK(buffers.Finish());
  FLOE_RETURN_NOT_OK(exchange->Finish(stage_id_, partition));
  return exec::MakeVectorStream(schema(), {});
}

// Codec (exec/plan_codec.h)

namespace pb = codec::proto;

Status ShuffleWriterExec::Encode(codec::PlanEncoder& out) const {
  pb::ShuffleWriterNode m;
  m.set_stage_id(stage_id_);
  FLOE_RETURN_NOT_OK(exec::EncodePartitioning(output_, m.mutable_output()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> ShuffleWriterExec::Decode(codec::PlanDecoder& in,
                                                std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::ShuffleWriterNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(exec::Partitioning output,
                       exec::DecodePartitioning(m.output(), children[0]->schema(), in));
  return Make(std::move(children[0]), m.stage_id(), std::move(output));
}

}  // namespace floe::scheduler
