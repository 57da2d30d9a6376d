#include "floe/connector/iceberg/iceberg_commit_exec.h"

#include <utility>

#include "floe/batch/builder.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::connector {

namespace pb = codec::proto;

namespace {

SchemaPtr CommitOutputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{Field("count", Int64(), false)});
}

}  // namespace

// ---------------------------------------------------------------------------------------
// IcebergCommitExec

namespace {

class CommitStream final : public exec::BatchStream {
 public:
  CommitStream(IcebergWriteTargetPtr target, exec::PlanPtr input, exec::TaskContextPtr ctx)
      : target_(std::move(target)),
        input_(std::move(input)),
        ctx_(std::move(ctx)),
        schema_(CommitOutputSchema()) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (done_) return RecordBatchPtr();
    done_ = true;
    FLOE_ASSIGN_OR_RAISE(int64_t rows, Commit());
    auto builder = MakeBuilder(Int64(), ctx_->pool());
    FLOE_RETURN_NOT_OK(builder->AppendScalar(Scalar::I64(rows)));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder->Finish());
    return RecordBatch::Make(schema_, 1, {std::move(column)});
  }

 private:
  Result<int64_t> Commit() {
    const iceberg::TableMetadata& metadata = *target_->table.metadata;
    iceberg::SchemaPtr schema = metadata.CurrentSchema();
    iceberg::PartitionSpecPtr default_spec = metadata.DefaultSpec();
    using Mode = IcebergWriteTarget::Mode;
    FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr input, exec::ExecutePlan(input_, 0, ctx_));
    std::vector<iceberg::DataFilePtr> files;
    // Delete files a row-level change replaces (deletion vectors merged into new ones).
    std::vector<iceberg::DataFilePtr> removed;
    int64_t rows = 0;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
      if (!batch) break;
      const Array& blobs = *batch->column(0);
      // A row-level change's writer names the spec of each row's files (a third column)
      // and counts the rows it changed; other writers write the default spec, and their
      // files' rows are the count.
      const bool row_level = batch->num_columns() >= 3;
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        const int32_t spec_id = row_level ? batch->column(2)->Value<int32_t>(r)
                                          : (default_spec ? default_spec->spec_id() : 0);
        iceberg::PartitionSpecPtr spec = metadata.SpecById(spec_id);
        FLOE_ASSIGN_OR_RAISE(TypePtr partition_type,
                             spec ? spec->PartitionType(*schema) : Result<TypePtr>(Struct({})));
        FLOE_ASSIGN_OR_RAISE(
            std::vector<iceberg::DataFilePtr> decoded,
            iceberg::DecodeDataFiles(blobs.BytesValue(r), partition_type, spec_id));
        if (row_level) rows += batch->column(1)->Value<int64_t>(r);
        if (batch->num_columns() >= 4 && batch->column(3)->BoolValue(r)) {
          for (iceberg::DataFilePtr& file : decoded) removed.push_back(std::move(file));
          continue;
        }
        for (iceberg::DataFilePtr& file : decoded) {
          if (!row_level) rows += file->record_count;
          files.push_back(std::move(file));
        }
      }
    }
    FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
    const bool commits_empty =
        target_->mode == Mode::kOverwrite ||
        (target_->mode == Mode::kRewriteFiles && !target_->rewritten_files.empty());
    if (files.empty() && !commits_empty) return rows;
    std::unique_ptr<iceberg::SnapshotProducer> producer;
    switch (target_->mode) {
      case Mode::kAppend: {
        auto append = iceberg::MergeAppend::Make(target_->ops);
        for (const iceberg::DataFilePtr& file : files) append->AppendFile(file);
        producer = std::move(append);
        break;
      }
      case Mode::kReplacePartitions: {
        // Data added concurrently to a replaced partition fails the commit: it would be
        // silently dropped otherwise.
        auto replace = iceberg::ReplacePartitions::Make(target_->ops);
        for (const iceberg::DataFilePtr& file : files) replace->AddFile(file);
        replace->ValidateNoConflictingData();
        if (const auto& current = target_->table.metadata->current_snapshot_id) {
          replace->ValidateFromSnapshot(*current);
        }
        producer = std::move(replace);
        break;
      }
      case Mode::kOverwrite: {
        auto overwrite = iceberg::OverwriteFiles::Make(target_->ops);
        overwrite->OverwriteByRowFilter(iceberg::Expression::True());
        for (const iceberg::DataFilePtr& file : files) overwrite->AddFile(file);
        overwrite->ValidateNoConflictingData();
        overwrite->ValidateNoConflictingDeletes();
        if (const auto& current = target_->table.metadata->current_snapshot_id) {
          overwrite->ValidateFromSnapshot(*current);
        }
        producer = std::move(overwrite);
        break;
      }
      case Mode::kRowDelta: {
        // Merge-on-read: the data files whose rows are deleted must still be live, and no
        // delete file may have been added for them concurrently; under serializable
        // isolation no data file may have been appended concurrently either.
        auto delta = iceberg::RowDelta::Make(target_->ops);
        for (const iceberg::DataFilePtr& file : files) {
          if (file->content == iceberg::FileContent::kData) {
            delta->AddRows(file);
          } else {
            delta->AddDeletes(file);
          }
        }
        for (const iceberg::DataFilePtr& file : removed) delta->RemoveDeletes(file);
        delta->ValidateNoConflictingDeleteFiles();
        if (target_->serializable) {
          delta->ValidateNoConflictingDataFiles();
          if (target_->conflict_filter) delta->ConflictDetectionFilter(target_->conflict_filter);
        }
        if (target_->base_snapshot_id) delta->ValidateFromSnapshot(*target_->base_snapshot_id);
        producer = std::move(delta);
        break;
      }
      case Mode::kRewriteFiles: {
        // Copy-on-write: the rewritten files must still be live (a concurrent removal
        // fails), delete files added concurrently for them would be lost, and under
        // serializable isolation data appended concurrently fails the commit.
        auto overwrite = iceberg::OverwriteFiles::Make(target_->ops);
        for (const std::string& path : target_->rewritten_files) overwrite->DeleteFile(path);
        for (const iceberg::DataFilePtr& file : files) overwrite->AddFile(file);
        overwrite->ValidateNoConflictingDeletes();
        if (target_->serializable) {
          overwrite->ConflictDetectionFilter(
              target_->conflict_filter ? target_->conflict_filter : iceberg::Expression::True());
          overwrite->ValidateNoConflictingData();
        }
        if (target_->base_snapshot_id) {
          overwrite->ValidateFromSnapshot(*target_->base_snapshot_id);
        }
        producer = std::move(overwrite);
        break;
      }
    }
    FLOE_ASSIGN_OR_RAISE(auto journal, WriteJournal::For(ctx_, target_.get()));
    // From here the files may be referenced by the table: no terminating process may delete
    // them any more (the other processes' first; each confirms before the commit begins).
    FLOE_RETURN_NOT_OK(ctx_->SealRemoteWrites());
    iceberg::InFlightFiles::Process().Seal(ctx_.get());
    iceberg::InFlightFiles::Process().SealOperation(target_->operation_id);
    Result<iceberg::Table> committed = producer->Commit();
    if (!committed.ok()) {
      // The data files may be part of the table when the outcome is unknown: keep them.
      if (committed.status().code() == StatusCode::kCommitStateUnknown) {
        journal->MarkCommitStateUnknown();
      }
      return committed.status();
    }
    journal->MarkCommitted();
    return rows;
  }

  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  exec::TaskContextPtr ctx_;
  SchemaPtr schema_;
  bool done_ = false;
};

}  // namespace

Result<exec::PlanPtr> IcebergCommitExec::Make(IcebergWriteTargetPtr target, exec::PlanPtr input) {
  if (!target || !input) return Status::Internal("IcebergCommitExec: no target or input");
  const SchemaPtr& in = input->schema();
  if (in->num_fields() < 1 || in->field(0).type()->id() != TypeId::kBinary) {
    return Status::Internal("IcebergCommitExec: the input's first column must be data_files");
  }
  auto out = std::shared_ptr<IcebergCommitExec>(new IcebergCommitExec());
  out->target_ = std::move(target);
  out->input_ = std::move(input);
  out->properties_.schema = CommitOutputSchema();
  out->properties_.partitioning = exec::Partitioning::Single();
  return exec::PlanPtr(std::move(out));
}

Result<exec::PlanPtr> IcebergCommitExec::WithNewChildren(
    std::vector<exec::PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("IcebergCommitExec takes one child, got {}", children.size());
  }
  return Make(target_, std::move(children[0]));
}

std::vector<exec::Distribution> IcebergCommitExec::RequiredInputDistribution() const {
  return {exec::Distribution::Single()};
}

Result<exec::BatchStreamPtr> IcebergCommitExec::Execute(int partition,
                                                        const exec::TaskContextPtr& ctx) const {
  if (partition != 0) return Status::Internal("IcebergCommitExec: no partition {}", partition);
  if (input_->partition_count() != 1) {
    return Status::Internal("IcebergCommitExec needs a single input partition, got {}",
                            input_->partition_count());
  }
  return exec::BatchStreamPtr(std::make_unique<CommitStream>(target_, input_, ctx));
}

std::string IcebergCommitExec::ToString() const {
  switch (target_->mode) {
    case IcebergWriteTarget::Mode::kAppend:
      break;
    case IcebergWriteTarget::Mode::kReplacePartitions:
      return "IcebergCommitExec: " + target_->table_name + " (replace partitions)";
    case IcebergWriteTarget::Mode::kOverwrite:
      return "IcebergCommitExec: " + target_->table_name + " (overwrite)";
    case IcebergWriteTarget::Mode::kRowDelta:
      return "IcebergCommitExec: " + target_->table_name + " (row delta)";
    case IcebergWriteTarget::Mode::kRewriteFiles:
      return "IcebergCommitExec: " + target_->table_name + " (rewrite files)";
  }
  return "IcebergCommitExec: " + target_->table_name + " (append)";
}

Status IcebergCommitExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(internal::EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergCommitExec::Decode(codec::PlanDecoder& in,
                                                std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       internal::DecodeTarget(in, m.target(), /*need_catalog=*/true));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

}  // namespace floe::connector
