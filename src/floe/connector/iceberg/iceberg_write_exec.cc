#include "floe/connector/iceberg/iceberg_write_exec.h"

#include <algorithm>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/connector/iceberg/iceberg_transform_expr.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::connector {

namespace pb = codec::proto;

namespace {

SchemaPtr WriteOutputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{Field("data_files", Binary(), false),
                                                     Field("record_count", Int64(), false)});
}

// The top-level column index of a field id in the table schema, or -1 when the field is
// nested (or gone).
int TopLevelIndex(const iceberg::Schema& schema, int32_t field_id) {
  const std::vector<Field>& fields = schema.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id() == field_id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// IcebergWriteExec

namespace {

class WriteStream final : public exec::BatchStream {
 public:
  WriteStream(IcebergWriteTargetPtr target, exec::PlanPtr input, int partition,
              exec::TaskContextPtr ctx, std::optional<int32_t> sort_order_id)
      : target_(std::move(target)),
        input_(std::move(input)),
        partition_(partition),
        ctx_(std::move(ctx)),
        sort_order_id_(sort_order_id),
        schema_(WriteOutputSchema()) {}

  ~WriteStream() override {
    // Abandoned before the end (cancelled, or an error above): nothing of this writer
    // may stay behind.
    if (writer_) (void)writer_->Abort();
  }

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (done_) return RecordBatchPtr();
    done_ = true;
    Result<RecordBatchPtr> result = WriteAll();
    if (!result.ok() && writer_) {
      (void)writer_->Abort();
      writer_.reset();
    }
    return result;
  }

 private:
  Result<RecordBatchPtr> WriteAll() {
    FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions options,
                         TaskWriterOptions(*target_, partition_, ctx_));
    options.sort_order_id = sort_order_id_;
    iceberg::SchemaPtr schema = options.schema;
    iceberg::PartitionSpecPtr spec = options.spec;
    FLOE_ASSIGN_OR_RAISE(writer_,
                         iceberg::MakePartitionedWriter(std::move(options), target_->fanout));
    FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr input, exec::ExecutePlan(input_, partition_, ctx_));
    int64_t rows = 0;
    while (true) {
      FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
      if (!batch) break;
      if (batch->num_rows() == 0) continue;
      FLOE_RETURN_NOT_OK(writer_->Write(*batch));
      rows += batch->num_rows();
    }
    FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::DataFile> files, writer_->Close());
    std::vector<std::string> paths;
    std::vector<iceberg::DataFilePtr> shared;
    for (iceberg::DataFile& file : files) {
      paths.push_back(file.file_path);
      shared.push_back(std::make_shared<const iceberg::DataFile>(std::move(file)));
    }
    // From here the files belong to the statement: the journal deletes them unless the
    // commit takes them.
    FLOE_ASSIGN_OR_RAISE(auto journal, WriteJournal::For(ctx_, target_.get()));
    journal->Record(paths);
    writer_.reset();
    if (shared.empty()) return RecordBatchPtr();
    FLOE_ASSIGN_OR_RAISE(TypePtr partition_type,
                         spec ? spec->PartitionType(*schema) : Result<TypePtr>(Struct({})));
    FLOE_ASSIGN_OR_RAISE(std::string encoded, iceberg::EncodeDataFiles(shared, partition_type));
    auto files_builder = MakeBuilder(Binary(), ctx_->pool());
    FLOE_RETURN_NOT_OK(files_builder->AppendScalar(Scalar::Make(Binary(), std::move(encoded))));
    auto rows_builder = MakeBuilder(Int64(), ctx_->pool());
    FLOE_RETURN_NOT_OK(rows_builder->AppendScalar(Scalar::I64(rows)));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr files_array, files_builder->Finish());
    FLOE_ASSIGN_OR_RAISE(ArrayPtr rows_array, rows_builder->Finish());
    return RecordBatch::Make(schema_, 1, {std::move(files_array), std::move(rows_array)});
  }

  IcebergWriteTargetPtr target_;
  exec::PlanPtr input_;
  int partition_;
  exec::TaskContextPtr ctx_;
  std::optional<int32_t> sort_order_id_;
  SchemaPtr schema_;
  std::unique_ptr<iceberg::PartitionedWriter> writer_;
  bool done_ = false;
};

// The ordering a SortField asks for, over the input's columns; nullopt when its source is
// not a top-level column.
Result<std::optional<exec::PhysicalSortExpr>> SortKeyOf(const iceberg::Schema& schema,
                                                        const SchemaPtr& input_schema,
                                                        const iceberg::SortField& field) {
  const int column = TopLevelIndex(schema, field.source_id);
  if (column < 0) return std::optional<exec::PhysicalSortExpr>();
  exec::PhysicalSortExpr key;
  FLOE_ASSIGN_OR_RAISE(key.expr, IcebergTransformExpr::Make(field.transform, column, input_schema));
  key.descending = field.direction == iceberg::SortDirection::kDesc;
  key.nulls_first = field.null_order == iceberg::NullOrder::kNullsFirst;
  return std::optional<exec::PhysicalSortExpr>(std::move(key));
}

}  // namespace

Result<exec::PlanPtr> IcebergWriteExec::Make(IcebergWriteTargetPtr target, exec::PlanPtr input) {
  if (!target || !input) return Status::Internal("IcebergWriteExec: no target or input");
  const iceberg::TableMetadata& metadata = *target->table.metadata;
  iceberg::SchemaPtr schema = metadata.CurrentSchema();
  const std::vector<Field>& columns = schema->fields();
  const SchemaPtr& input_schema = input->schema();
  const size_t lineage = target->row_lineage ? 2 : 0;
  if (input_schema->num_fields() != static_cast<int>(columns.size() + lineage)) {
    return Status::Invalid("writing {}: the input has {} columns, the table {}{}",
                           target->table_name, input_schema->num_fields(), columns.size(),
                           lineage > 0 ? " and its two row lineage columns" : "");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& have = input_schema->field(static_cast<int>(i));
    if (!SameShape(*have.type(), *columns[i].type())) {
      return Status::Invalid("writing {}: input column {} is {}, the table's column \"{}\" is {}",
                             target->table_name, i + 1, have.type()->ToString(), columns[i].name(),
                             columns[i].type()->ToString());
    }
  }
  auto out = std::shared_ptr<IcebergWriteExec>(new IcebergWriteExec());
  out->target_ = std::move(target);
  out->input_ = std::move(input);
  if (iceberg::PartitionSpecPtr spec = metadata.DefaultSpec()) {
    for (const iceberg::PartitionField& field : spec->fields()) {
      if (field.transform.kind() == iceberg::TransformKind::kVoid) continue;
      const int column = TopLevelIndex(*schema, field.source_id);
      if (column < 0) {
        // A source inside a struct: rows are not distributed by it (the fanout and
        // clustered writers still separate partitions; clustered input is then sorted
        // by the top-level fields only, which is not enough).
        if (!out->target_->fanout) {
          return Status::NotSupported(
              "writing {}: clustered writes (write.fanout.enabled = false) of a partition "
              "field over a nested column (\"{}\") are not supported",
              out->target_->table_name, field.name);
        }
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr e,
                           IcebergTransformExpr::Make(field.transform, column, input_schema));
      out->partition_exprs_.push_back(std::move(e));
    }
  }
  if (iceberg::SortOrderPtr order = metadata.DefaultSortOrder()) {
    for (const iceberg::SortField& field : order->fields()) {
      FLOE_ASSIGN_OR_RAISE(std::optional<exec::PhysicalSortExpr> key,
                           SortKeyOf(*schema, input_schema, field));
      if (!key) break;  // the order cannot be applied past a nested key
      out->sort_order_.push_back(std::move(*key));
    }
  }
  out->properties_.schema = WriteOutputSchema();
  out->properties_.partitioning = exec::Partitioning::Unknown(out->input_->partition_count());
  return exec::PlanPtr(std::move(out));
}

Result<exec::PlanPtr> IcebergWriteExec::WithNewChildren(std::vector<exec::PlanPtr> children) const {
  if (children.size() != 1) {
    return Status::Internal("IcebergWriteExec takes one child, got {}", children.size());
  }
  return Make(target_, std::move(children[0]));
}

std::vector<exec::Distribution> IcebergWriteExec::RequiredInputDistribution() const {
  if (partition_exprs_.empty()) return {exec::Distribution::Unspecified()};
  return {exec::Distribution::Hash(partition_exprs_)};
}

std::vector<exec::Ordering> IcebergWriteExec::RequiredInputOrdering() const {
  exec::Ordering ordering;
  if (!target_->fanout) {
    for (const expr::PhysicalExprPtr& e : partition_exprs_) {
      ordering.push_back(exec::PhysicalSortExpr{e, false, true});
    }
  }
  ordering.insert(ordering.end(), sort_order_.begin(), sort_order_.end());
  return {ordering};
}

Result<exec::BatchStreamPtr> IcebergWriteExec::Execute(int partition,
                                                       const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("IcebergWriteExec: no partition {}", partition);
  }
  std::optional<int32_t> sort_order_id;
  if (iceberg::SortOrderPtr order = target_->table.metadata->DefaultSortOrder();
      order && !order->fields().empty() && sort_order_.size() == order->fields().size()) {
    sort_order_id = order->order_id();
  }
  return exec::BatchStreamPtr(
      std::make_unique<WriteStream>(target_, input_, partition, ctx, sort_order_id));
}

std::string IcebergWriteExec::ToString() const {
  std::string out = "IcebergWriteExec: " + target_->table_name;
  if (!partition_exprs_.empty()) {
    out += " partition=[";
    for (size_t i = 0; i < partition_exprs_.size(); ++i) {
      if (i > 0) out += ", ";
      out += partition_exprs_[i]->ToString();
    }
    out += "]";
  }
  if (!sort_order_.empty()) out += " sort=[" + exec::OrderingToString(sort_order_) + "]";
  out += target_->fanout ? " fanout" : " clustered";
  return out;
}

Status IcebergWriteExec::DeleteUncommitted(const exec::TaskContextPtr& ctx) const {
  return DeleteUncommittedWrites(*target_, ctx);
}

Status IcebergWriteExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(internal::EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergWriteExec::Decode(codec::PlanDecoder& in,
                                               std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       internal::DecodeTarget(in, m.target(), /*need_catalog=*/false));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

}  // namespace floe::connector
