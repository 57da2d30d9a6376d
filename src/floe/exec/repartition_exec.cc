#include "floe/exec/repartition_exec.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <utility>

#include "floe/codec/nodes.pb.h"
#include "floe/exec/partition_router.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/spill.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

// Every output partition's rows, routed once per query and held (in memory within the
// budget, else in spill files) until the query ends.
class RepartitionState {
 public:
  RepartitionState(int outputs, SchemaPtr schema, MemoryManager* memory, std::string spill_dir,
                   int64_t batch_size)
      : schema_(std::move(schema)),
        reservation_(memory, "RepartitionExec"),
        spill_dir_(std::move(spill_dir)),
        batch_size_(std::max<int64_t>(batch_size, 1)),
        outputs_(static_cast<size_t>(outputs)) {}

  ~RepartitionState() {
    for (Output& output : outputs_) {
      if (output.spill) {
        std::string path = output.spill->path();
        output.spill.reset();
        std::remove(path.c_str());
      }
      for (const std::string& path : output.spill_paths) std::remove(path.c_str());
    }
  }

  // Adds rows for output `p`: small pieces gather until they make a batch_size batch.
  Status Add(int p, RecordBatchPtr batch) const {
    std::lock_guard<std::mutex> lock(mutex_);
    Output& output = outputs_[static_cast<size_t>(p)];
    output.pending_rows += batch->num_rows();
    output.pending.push_back(std::move(batch));
    if (output.pending_rows >= batch_size_) FLOE_RETURN_NOT_OK(FlushPending(&output));
    return Status::OK();
  }

  Status Finish() const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Output& output : outputs_) {
      FLOE_RETURN_NOT_OK(FlushPending(&output));
      if (output.spill) {
        FLOE_RETURN_NOT_OK(output.spill->Finish().status());
        output.spill_paths.push_back(output.spill->path());
        output.spill.reset();
      }
    }
    return Status::OK();
  }

  // Output `p`'s rows: spill files to read first, then the batches in memory. The rows
  // stay until the query ends, so a partition may be read more than once (a plan that
  // refers to this node twice).
  void Get(int p, std::vector<std::string>* spill_paths,
           std::vector<RecordBatchPtr>* batches) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const Output& output = outputs_[static_cast<size_t>(p)];
    *spill_paths = output.spill_paths;
    *batches = output.batches;
  }

  const SchemaPtr& schema() const { return schema_; }

 private:
  struct Output {
    std::vector<RecordBatchPtr> pending;
    int64_t pending_rows = 0;
    std::vector<RecordBatchPtr> batches;
    int64_t bytes = 0;
    std::unique_ptr<SpillWriter> spill;
    std::vector<std::string> spill_paths;
  };

  Status FlushPending(Output* output) const {
    if (output->pending.empty()) return Status::OK();
    RecordBatchPtr batch;
    if (output->pending.size() == 1) {
      batch = std::move(output->pending[0]);
    } else {
      FLOE_ASSIGN_OR_RAISE(batch, ConcatenateBatches(schema_, output->pending));
    }
    output->pending.clear();
    output->pending_rows = 0;
    int64_t bytes = batch->memory_size();
    if (reservation_.TryResize(reservation_.size() + bytes)) {
      output->bytes += bytes;
      output->batches.push_back(std::move(batch));
      return Status::OK();
    }
    // Past the budget: this output's rows so far go to its spill file.
    if (!output->spill) {
      FLOE_ASSIGN_OR_RAISE(output->spill,
                           SpillWriter::Make(NewSpillPath(spill_dir_, "repartition"), schema_));
    }
    for (const RecordBatchPtr& held : output->batches)
      FLOE_RETURN_NOT_OK(output->spill->Write(*held));
    FLOE_RETURN_NOT_OK(output->spill->Write(*batch));
    output->batches.clear();
    (void)reservation_.TryResize(reservation_.size() - output->bytes);
    output->bytes = 0;
    return Status::OK();
  }

  SchemaPtr schema_;
  mutable std::mutex mutex_;
  mutable MemoryReservation reservation_;
  std::string spill_dir_;
  int64_t batch_size_;
  mutable std::vector<Output> outputs_;
};

// Reads the spill files, then the batches held in memory.
class HeldRowsStream final : public BatchStream {
 public:
  HeldRowsStream(SchemaPtr schema, std::vector<std::string> spill_paths,
                 std::vector<RecordBatchPtr> batches)
      : schema_(std::move(schema)),
        spill_paths_(std::move(spill_paths)),
        batches_(std::move(batches)) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    while (next_spill_ <= spill_paths_.size()) {
      if (!current_) {
        if (next_spill_ == spill_paths_.size()) break;
        FLOE_ASSIGN_OR_RAISE(current_, OpenSpillFile(spill_paths_[next_spill_], schema_));
        ++next_spill_;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, current_->Next());
      if (batch) return batch;
      current_.reset();
    }
    if (next_batch_ >= batches_.size()) return RecordBatchPtr();
    return std::move(batches_[next_batch_++]);
  }

 private:
  SchemaPtr schema_;
  std::vector<std::string> spill_paths_;
  size_t next_spill_ = 0;
  BatchStreamPtr current_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_batch_ = 0;
};

}  // namespace

Result<PlanPtr> RepartitionExec::Make(PlanPtr input, Partitioning partitioning) {
  if (!input) return Status::Internal("RepartitionExec: no input");
  if (partitioning.kind() != Partitioning::Kind::kHash &&
      partitioning.kind() != Partitioning::Kind::kRoundRobin) {
    return Status::Internal("RepartitionExec: cannot repartition into {}", partitioning.ToString());
  }
  if (partitioning.partition_count() < 1) {
    return Status::Internal("RepartitionExec: {} partitions", partitioning.partition_count());
  }
  if (partitioning.kind() == Partitioning::Kind::kHash && partitioning.exprs().empty()) {
    return Status::Internal("RepartitionExec: hash partitioning without expressions");
  }
  PlanProperties properties;
  properties.schema = input->schema();
  properties.partitioning = std::move(partitioning);
  return PlanPtr(new RepartitionExec(std::move(input), std::move(properties)));
}

Result<PlanPtr> RepartitionExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("RepartitionExec takes one child, got {}", children.size());
  }
  return Make(std::move(children[0]), properties_.partitioning);
}

Result<BatchStreamPtr> RepartitionExec::Execute(int partition, const TaskContextPtr& ctx) const {
  const Partitioning& out = properties_.partitioning;
  if (partition < 0 || partition >= out.partition_count()) {
    return Status::Internal("RepartitionExec: no partition {}", partition);
  }
  const int n = out.partition_count();
  std::function<Result<std::shared_ptr<const RepartitionState>>()> make =
      [&]() -> Result<std::shared_ptr<const RepartitionState>> {
    auto state = std::make_shared<RepartitionState>(
        n, schema(), ctx->memory(), ctx->spill_directory(), ctx->config().batch_size());
    std::atomic<int64_t> round_robin{0};
    auto run_input = [&](int64_t input_partition) -> Status {
      FLOE_ASSIGN_OR_RAISE(BatchStreamPtr stream,
                           ExecutePlan(input_, static_cast<int>(input_partition), ctx));
      PartitionRouter router(
          schema(), n, ctx->config().batch_size(), ctx->pool(),
          [&state](int p, RecordBatchPtr b) { return state->Add(p, std::move(b)); });
      while (true) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
        if (!batch) return router.Finish();
        if (batch->num_rows() == 0) continue;
        if (out.kind() == Partitioning::Kind::kRoundRobin) {
          int p = static_cast<int>(round_robin.fetch_add(1) % n);
          FLOE_RETURN_NOT_OK(state->Add(p, std::move(batch)));
        } else {
          FLOE_RETURN_NOT_OK(router.AddByHash(batch, out.exprs()));
        }
      }
    };
    const int inputs = input_->partition_count();
    if (ctx->threads() != nullptr && inputs > 1) {
      FLOE_RETURN_NOT_OK(ctx->threads()->ParallelFor(inputs, run_input));
    } else {
      for (int i = 0; i < inputs; ++i) FLOE_RETURN_NOT_OK(run_input(i));
    }
    FLOE_RETURN_NOT_OK(state->Finish());
    return std::shared_ptr<const RepartitionState>(std::move(state));
  };
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const RepartitionState> state,
                       ctx->GetOrCreateShared<RepartitionState>(this, make));
  std::vector<std::string> spill_paths;
  std::vector<RecordBatchPtr> batches;
  state->Get(partition, &spill_paths, &batches);
  return BatchStreamPtr(
      std::make_unique<HeldRowsStream>(schema(), std::move(spill_paths), std::move(batches)));
}

std::string RepartitionExec::ToString() const {
  return fmt::format("RepartitionExec: {} from {} partitions", properties_.partitioning.ToString(),
                     input_->partition_count());
}

// ---------------------------------------------------------------------------------------
// Codec (plan_codec.h)

Status RepartitionExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::RepartitionNode m;
  FLOE_RETURN_NOT_OK(EncodePartitioning(properties_.partitioning, m.mutable_partitioning()));
  return out.SetPayload(m);
}

Result<PlanPtr> RepartitionExec::Decode(codec::PlanDecoder& in, std::vector<PlanPtr> children) {
  FLOE_RETURN_NOT_OK(ExpectChildren(in, children, 1));
  codec::proto::RepartitionNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(Partitioning partitioning,
                       DecodePartitioning(m.partitioning(), children[0]->schema(), in));
  return Make(std::move(children[0]), std::move(partitioning));
}

}  // namespace floe::exec
