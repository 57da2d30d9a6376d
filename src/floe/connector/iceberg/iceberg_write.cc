#include "floe/connector/iceberg/iceberg_write.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/batch/builder.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/exec/coalesce_partitions_exec.h"
#include "floe/exec/plan_codec.h"
#include "floe/expr/function_registry.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file_io.h"

namespace floe::connector {

namespace {

constexpr std::string_view kFanoutProperty = "write.fanout.enabled";
constexpr int64_t kMinFanoutBudget = 16LL << 20;

SchemaPtr WriteOutputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{Field("data_files", Binary(), false),
                                                     Field("record_count", Int64(), false)});
}

SchemaPtr CommitOutputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{Field("count", Int64(), false)});
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
// IcebergTransformExpr

Result<expr::PhysicalExprPtr> IcebergTransformExpr::Make(iceberg::Transform transform, int column,
                                                         const SchemaPtr& input_schema) {
  if (column < 0 || column >= input_schema->num_fields()) {
    return Status::Internal("IcebergTransformExpr: no column {}", column);
  }
  const Field& field = input_schema->field(column);
  if (!transform.CanTransform(*field.type())) {
    return Status::Invalid("transform {} cannot apply to column \"{}\" of type {}",
                           transform.ToString(), field.name(), field.type()->ToString());
  }
  FLOE_ASSIGN_OR_RAISE(TypePtr type, transform.ResultType(field.type()));
  expr::ExprPtr column_expr = expr::Column(column, field.name(), field.type(), field.nullable());
  FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr child, expr::Compile(column_expr, input_schema));
  auto out = std::shared_ptr<IcebergTransformExpr>(new IcebergTransformExpr());
  out->transform_ = transform;
  out->child_ = std::move(child);
  out->type_ = type;
  // bucket, truncate and the time transforms map non-NULL values to non-NULL values; void
  // maps everything to NULL.
  out->nullable_ = field.nullable() || transform.kind() == iceberg::TransformKind::kVoid;
  out->source_ = expr::Call("iceberg_transform",
                            {expr::Literal(Scalar::Str(transform.ToString())), column_expr}, type,
                            out->nullable_);
  return expr::PhysicalExprPtr(std::move(out));
}

Result<expr::ColumnarValue> IcebergTransformExpr::Evaluate(const RecordBatch& batch,
                                                           expr::EvalContext& ctx) const {
  FLOE_ASSIGN_OR_RAISE(ArrayPtr values, expr::EvaluateToArray(*child_, batch, ctx));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr transformed, transform_.Apply(*values));
  return expr::ColumnarValue(std::move(transformed));
}

std::string IcebergTransformExpr::ToString() const {
  return transform_.ToExpressionString(child_->ToString());
}

// Codec: the source, iceberg_transform('<transform>', column).

Result<expr::PhysicalExprPtr> IcebergTransformExpr::Decode(const expr::ExprPtr& source,
                                                           const SchemaPtr& input_schema) {
  if (source->kind != expr::ExprKind::kCall || source->name != "iceberg_transform" ||
      source->args.size() != 2) {
    return Status::Corrupt(
        "an IcebergTransform must be iceberg_transform('<transform>', column), "
        "not {}",
        source->ToString());
  }
  const expr::Expr& text = *source->args[0];
  const expr::Expr& column = *source->args[1];
  if (text.kind != expr::ExprKind::kLiteral || text.literal.is_null() ||
      text.literal.type() == nullptr || text.literal.type()->id() != TypeId::kString) {
    return Status::Corrupt("iceberg_transform's first argument must be a transform name, not {}",
                           text.ToString());
  }
  const std::string name = text.literal.get<std::string>();
  Result<iceberg::Transform> transform = iceberg::Transform::Parse(name);
  if (!transform.ok() || transform->kind() == iceberg::TransformKind::kUnknown) {
    return Status::Corrupt("unknown Iceberg transform \"{}\"", name);
  }
  if (column.kind != expr::ExprKind::kColumn || column.column < 0 ||
      column.column >= input_schema->num_fields()) {
    return Status::Corrupt("iceberg_transform's second argument must be an input column, not {}",
                           column.ToString());
  }
  const Field& field = input_schema->field(column.column);
  if (column.type == nullptr || !column.type->Equals(*field.type())) {
    return Status::Corrupt("iceberg_transform's column #{} is {} here, {} in the plan",
                           column.column, field.type()->ToString(),
                           column.type ? column.type->ToString() : "untyped");
  }
  Result<expr::PhysicalExprPtr> out = Make(*transform, column.column, input_schema);
  if (!out.ok()) return Status::Corrupt("{}", out.status().message());
  return out;
}

// ---------------------------------------------------------------------------------------
// Targets and journals

Result<IcebergWriteTargetPtr> MakeWriteTarget(std::string table_name, iceberg::Table table,
                                              iceberg::TableOperationsPtr ops,
                                              IcebergWriteTarget::Mode mode) {
  if (!table.metadata || !table.metadata->CurrentSchema()) {
    return Status::Invalid("table {} has no current schema", table_name);
  }
  auto target = std::make_shared<IcebergWriteTarget>();
  const auto& properties = table.metadata->properties;
  if (auto it = properties.find(std::string(kFanoutProperty)); it != properties.end()) {
    std::string value = it->second;
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (value != "true" && value != "false") {
      return Status::Invalid("table {}: property {} must be true or false, not '{}'", table_name,
                             kFanoutProperty, it->second);
    }
    target->fanout = value == "true";
  }
  target->table_name = std::move(table_name);
  target->table = std::move(table);
  target->ops = std::move(ops);
  target->operation_id = iceberg::NewUuid();
  target->mode = mode;
  return IcebergWriteTargetPtr(std::move(target));
}

Status IcebergWriteExec::DeleteUncommitted(const exec::TaskContextPtr& ctx) const {
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const WriteJournal> journal,
                       WriteJournal::For(ctx, target_.get()));
  return journal->DeleteUncommitted(*target_->table.io);
}

Result<std::shared_ptr<const WriteJournal>> WriteJournal::For(const exec::TaskContextPtr& ctx,
                                                              const IcebergWriteTarget* target) {
  return ctx->GetOrCreateShared<WriteJournal>(target,
                                              []() -> Result<std::shared_ptr<const WriteJournal>> {
                                                return std::make_shared<const WriteJournal>();
                                              });
}

void WriteJournal::Record(const std::vector<std::string>& paths) const {
  std::lock_guard<std::mutex> lock(mutex_);
  paths_.insert(paths_.end(), paths.begin(), paths.end());
}

void WriteJournal::MarkCommitted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  committed_ = true;
}

bool WriteJournal::committed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return committed_;
}

Status WriteJournal::DeleteUncommitted(const io::FileIO& io) const {
  std::vector<std::string> paths;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (committed_) return Status::OK();
    paths.swap(paths_);
  }
  Status first;
  for (const std::string& path : paths) {
    Status st = io.Delete(path);
    iceberg::InFlightFiles::Process().Remove(path);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

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
    const iceberg::TableMetadata& metadata = *target_->table.metadata;
    FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions options,
                         iceberg::WriterOptionsForTable(metadata, target_->table.io));
    options.writer_id = partition_;
    options.task_id = 0;
    options.operation_id = target_->operation_id;
    options.sort_order_id = sort_order_id_;
    options.in_flight_owner = ctx_.get();  // sealed by the commit (CommitStream)
    // A write's memory is its writers': half of the process's limit, shared by the tasks
    // it runs at once (the rest is for the input's exchanges and spillable operators).
    const int slots = ctx_->threads() != nullptr ? std::max(1, ctx_->threads()->size()) : 1;
    options.fanout_memory_budget_bytes =
        std::max<int64_t>(kMinFanoutBudget, ctx_->config().memory_limit() / 2 / slots);
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
  if (input_schema->num_fields() != static_cast<int>(columns.size())) {
    return Status::Invalid("writing {}: the input has {} columns, the table {}", target->table_name,
                           input_schema->num_fields(), columns.size());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& have = input_schema->field(static_cast<int>(i));
    if (!have.type()->Equals(*columns[i].type())) {
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
    iceberg::PartitionSpecPtr spec = metadata.DefaultSpec();
    FLOE_ASSIGN_OR_RAISE(TypePtr partition_type,
                         spec ? spec->PartitionType(*schema) : Result<TypePtr>(Struct({})));
    const int32_t spec_id = spec ? spec->spec_id() : 0;
    FLOE_ASSIGN_OR_RAISE(exec::BatchStreamPtr input, exec::ExecutePlan(input_, 0, ctx_));
    std::vector<iceberg::DataFilePtr> files;
    int64_t rows = 0;
    while (true) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input->Next());
      if (!batch) break;
      const Array& blobs = *batch->column(0);
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        FLOE_ASSIGN_OR_RAISE(
            std::vector<iceberg::DataFilePtr> decoded,
            iceberg::DecodeDataFiles(blobs.BytesValue(r), partition_type, spec_id));
        for (iceberg::DataFilePtr& file : decoded) {
          rows += file->record_count;
          files.push_back(std::move(file));
        }
      }
    }
    FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
    using Mode = IcebergWriteTarget::Mode;
    if (files.empty() && target_->mode != Mode::kOverwrite) return rows;
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
    }
    FLOE_ASSIGN_OR_RAISE(auto journal, WriteJournal::For(ctx_, target_.get()));
    // From here the files may be referenced by the table: no terminating process may delete
    // them any more (the other processes' first; each confirms before the commit begins).
    FLOE_RETURN_NOT_OK(ctx_->SealRemoteWrites());
    iceberg::InFlightFiles::Process().Seal(ctx_.get());
    iceberg::InFlightFiles::Process().SealOperation(target_->operation_id);
    FLOE_ASSIGN_OR_RAISE(iceberg::Table committed, producer->Commit());
    (void)committed;
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
  }
  return "IcebergCommitExec: " + target_->table_name + " (append)";
}

// ---------------------------------------------------------------------------------------
// Codecs (exec/plan_codec.h; messages in codec/iceberg.proto). IcebergWriteExec and
// IcebergCommitExec carry their target; the partition tuple, the sort keys and the required
// distribution follow from it and the input, as when planned.
//
// A write target carries the base metadata location and the table's schema, spec, sort order
// and properties as planned (checked against that file on decode). The commit needs the
// catalog connection of the session that planned the statement, which no message can
// carry: a target decoded in the process that planned it is that very target (the same
// object, found by its operation id while the plan lives), so the commit and the statement's
// write journal work as before; a target rebuilt elsewhere can write data files, but an
// IcebergCommitExec there is refused (kNotSupported).

namespace pb = codec::proto;

namespace {

pb::IcebergWriteTarget::Mode EncodeMode(IcebergWriteTarget::Mode mode) {
  switch (mode) {
    case IcebergWriteTarget::Mode::kAppend:
      return pb::IcebergWriteTarget::APPEND;
    case IcebergWriteTarget::Mode::kReplacePartitions:
      return pb::IcebergWriteTarget::REPLACE_PARTITIONS;
    case IcebergWriteTarget::Mode::kOverwrite:
      return pb::IcebergWriteTarget::OVERWRITE;
  }
  return pb::IcebergWriteTarget::APPEND;
}

// The schema, spec and sort order a write uses, in their Iceberg JSON forms.
struct TargetForms {
  std::string schema;
  std::string spec;
  std::string sort_order;
};

Result<TargetForms> FormsOf(const iceberg::TableMetadata& metadata, std::string_view name) {
  iceberg::SchemaPtr schema = metadata.CurrentSchema();
  iceberg::PartitionSpecPtr spec = metadata.DefaultSpec();
  iceberg::SortOrderPtr order = metadata.DefaultSortOrder();
  if (!schema || !spec || !order) {
    return Status::Invalid("table {} lacks its current schema, default spec or sort order", name);
  }
  TargetForms forms;
  FLOE_ASSIGN_OR_RAISE(forms.schema, iceberg::SchemaToJsonString(*schema));
  forms.spec = iceberg::PartitionSpecToJson(*spec).dump();
  forms.sort_order = iceberg::SortOrderToJson(*order).dump();
  return forms;
}

Status EncodeTarget(const IcebergWriteTarget& target, pb::IcebergWriteTarget* out) {
  FLOE_RETURN_NOT_OK(
      internal::EncodeTableRef(target.table, target.table_name, out->mutable_table()));
  const iceberg::TableMetadata& metadata = *target.table.metadata;
  FLOE_ASSIGN_OR_RAISE(TargetForms forms, FormsOf(metadata, target.table_name));
  out->set_table_name(target.table_name);
  out->set_schema_json(std::move(forms.schema));
  out->set_partition_spec_json(std::move(forms.spec));
  out->set_sort_order_json(std::move(forms.sort_order));
  for (const auto& [key, value] : metadata.properties) {
    pb::KeyValue* property = out->add_properties();
    property->set_key(key);
    property->set_value(value);
  }
  if (target.ops) out->set_catalog_table(target.ops->name());
  out->set_operation_id(target.operation_id);
  out->set_mode(EncodeMode(target.mode));
  out->set_fanout(target.fanout);
  return Status::OK();
}

// The targets of this process's plans, by operation id, while their plans live. A target
// decoded here is the planned one: the commit keeps its catalog connection and the writers
// and the commit share the statement's write journal (keyed by the target).
class LiveTargets {
 public:
  static LiveTargets& Get() {
    static LiveTargets* live = new LiveTargets();
    return *live;
  }

  void Add(const IcebergWriteTargetPtr& target, bool planned_here) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(targets_, [](const auto& entry) { return entry.second.target.expired(); });
    auto it = targets_.find(target->operation_id);
    if (it != targets_.end() && !it->second.target.expired()) {
      // The planned target wins over one rebuilt from a message.
      if (it->second.planned_here || !planned_here) return;
    }
    targets_[target->operation_id] = Entry{target, planned_here};
  }

  std::pair<IcebergWriteTargetPtr, bool> Find(const std::string& operation_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = targets_.find(operation_id);
    if (it == targets_.end()) return {nullptr, false};
    return {it->second.target.lock(), it->second.planned_here};
  }

 private:
  struct Entry {
    std::weak_ptr<const IcebergWriteTarget> target;
    bool planned_here = false;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> targets_;
};

// Table operations of a target rebuilt from a message: writers never call them; a commit
// cannot, because the catalog connection stayed with the session that planned it.
class UnconnectedTableOperations final : public iceberg::TableOperations {
 public:
  UnconnectedTableOperations(std::string name, std::string operation_id,
                             std::shared_ptr<const io::FileIO> io)
      : name_(std::move(name)), operation_id_(std::move(operation_id)), io_(std::move(io)) {}

  Result<iceberg::Table> Refresh() const override { return Unconnected(); }
  Result<iceberg::Table> Commit(const std::vector<iceberg::TableRequirement>&,
                                const std::vector<iceberg::TableUpdate>&) override {
    return Unconnected();
  }
  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  std::string name() const override { return name_; }

 private:
  Status Unconnected() const {
    return Status::NotSupported(
        "table {}: the write of operation {} was decoded in a process that did not plan it and "
        "has no catalog connection; only the planning process commits",
        name_, operation_id_);
  }

  std::string name_;
  std::string operation_id_;
  std::shared_ptr<const io::FileIO> io_;
};

Result<IcebergWriteTargetPtr> DecodeTarget(const codec::PlanDecoder& in,
                                           const pb::IcebergWriteTarget& m, bool need_catalog) {
  if (m.operation_id().empty()) return in.Corrupt("a write target without an operation id");
  auto [live, planned_here] = LiveTargets::Get().Find(m.operation_id());
  if (live != nullptr) {
    pb::IcebergWriteTarget mine;
    FLOE_RETURN_NOT_OK(exec::DecodeError(in, EncodeTarget(*live, &mine)));
    if (mine.SerializeAsString() != m.SerializeAsString()) {
      return in.Corrupt(fmt::format(
          "the write target of operation {} (table {}) differs from the one planned in this "
          "process",
          m.operation_id(), live->table_name));
    }
    if (planned_here || !need_catalog) return live;
  }
  if (need_catalog) {
    return Status::NotSupported(
        "plan node {}: the commit of operation {} to table {} can only run in the process that "
        "planned it (it needs that session's catalog connection)",
        in.node_name(), m.operation_id(),
        m.catalog_table().empty() ? m.table_name() : m.catalog_table());
  }
  auto target = std::make_shared<IcebergWriteTarget>();
  target->table_name = m.table_name();
  FLOE_ASSIGN_OR_RAISE(target->table, internal::DecodeTableRef(in, m.table(), m.table_name()));
  const iceberg::TableMetadata& metadata = *target->table.metadata;
  Result<TargetForms> forms = FormsOf(metadata, m.table_name());
  if (!forms.ok()) return exec::DecodeError(in, forms.status());
  auto check = [&](std::string_view what, const std::string& have, const std::string& want) {
    if (have == want) return Status::OK();
    return in.Corrupt(fmt::format("the {} of table {} in {} is {}, the plan's is {}", what,
                                  m.table_name(), m.table().metadata_location(), have, want));
  };
  FLOE_RETURN_NOT_OK(check("schema", forms->schema, m.schema_json()));
  FLOE_RETURN_NOT_OK(check("partition spec", forms->spec, m.partition_spec_json()));
  FLOE_RETURN_NOT_OK(check("sort order", forms->sort_order, m.sort_order_json()));
  std::map<std::string, std::string> properties;
  for (const pb::KeyValue& property : m.properties()) {
    properties[property.key()] = property.value();
  }
  if (properties != metadata.properties) {
    return in.Corrupt(fmt::format("the properties of table {} in {} differ from the plan's",
                                  m.table_name(), m.table().metadata_location()));
  }
  switch (m.mode()) {
    case pb::IcebergWriteTarget::APPEND:
      target->mode = IcebergWriteTarget::Mode::kAppend;
      break;
    case pb::IcebergWriteTarget::REPLACE_PARTITIONS:
      target->mode = IcebergWriteTarget::Mode::kReplacePartitions;
      break;
    case pb::IcebergWriteTarget::OVERWRITE:
      target->mode = IcebergWriteTarget::Mode::kOverwrite;
      break;
    default:
      return in.Corrupt(fmt::format("unknown write mode {}", static_cast<int>(m.mode())));
  }
  target->operation_id = m.operation_id();
  target->fanout = m.fanout();
  target->ops = std::make_shared<UnconnectedTableOperations>(
      m.catalog_table().empty() ? m.table_name() : m.catalog_table(), m.operation_id(),
      target->table.io);
  IcebergWriteTargetPtr out = std::move(target);
  LiveTargets::Get().Add(out, /*planned_here=*/false);
  return out;
}

Status EncodeTargetOf(const IcebergWriteTargetPtr& target, pb::IcebergWriteTarget* out) {
  if (target == nullptr) return Status::Internal("a write node without its target");
  FLOE_RETURN_NOT_OK(EncodeTarget(*target, out));
  // Decoding in this process finds this target again (see LiveTargets).
  LiveTargets::Get().Add(
      target, target->ops != nullptr &&
                  dynamic_cast<const UnconnectedTableOperations*>(target->ops.get()) == nullptr);
  return Status::OK();
}

}  // namespace

Status IcebergWriteExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergWriteExec::Decode(codec::PlanDecoder& in,
                                               std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergWriteNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       DecodeTarget(in, m.target(), /*need_catalog=*/false));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

Status IcebergCommitExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(EncodeTargetOf(target_, m.mutable_target()));
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergCommitExec::Decode(codec::PlanDecoder& in,
                                                std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 1));
  pb::IcebergCommitNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  FLOE_ASSIGN_OR_RAISE(IcebergWriteTargetPtr target,
                       DecodeTarget(in, m.target(), /*need_catalog=*/true));
  Result<exec::PlanPtr> plan = Make(std::move(target), std::move(children[0]));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

// ---------------------------------------------------------------------------------------
// Planning

namespace {

// The index of the table column `name`, -1 if there is none.
int TableColumnIndex(const std::vector<Field>& fields, const std::string& name) {
  for (size_t f = 0; f < fields.size(); ++f) {
    if (fields[f].name() == name) return static_cast<int>(f);
  }
  return -1;
}

}  // namespace

std::vector<TypePtr> InsertTargetTypes(const iceberg::Schema& table_schema,
                                       const std::vector<std::string>& columns) {
  const std::vector<Field>& fields = table_schema.fields();
  std::vector<TypePtr> types;
  if (columns.empty()) {
    for (const Field& f : fields) types.push_back(f.type());
    return types;
  }
  for (const std::string& name : columns) {
    const int found = TableColumnIndex(fields, name);
    types.push_back(found < 0 ? nullptr : fields[found].type());
  }
  return types;
}

Result<plan::LogicalPlanPtr> ConformInsertInput(plan::LogicalPlanPtr input,
                                                const iceberg::Schema& table_schema,
                                                const std::vector<std::string>& columns,
                                                std::string_view table_name) {
  const std::vector<Field>& fields = table_schema.fields();
  const SchemaPtr& in = input->schema;
  // For each table column, the input column assigned to it (-1: none, NULL).
  std::vector<int> source(fields.size(), -1);
  if (columns.empty()) {
    if (in->num_fields() > static_cast<int>(fields.size())) {
      return Status::Bind("INSERT has more expressions than target columns ({} into {} of {})",
                          in->num_fields(), fields.size(), table_name);
    }
    for (int i = 0; i < in->num_fields(); ++i) source[i] = i;
  } else {
    for (size_t i = 0; i < columns.size(); ++i) {
      const int found = TableColumnIndex(fields, columns[i]);
      if (found < 0) {
        return Status::Bind("column \"{}\" of relation \"{}\" does not exist", columns[i],
                            table_name);
      }
      if (source[found] >= 0) {
        return Status::Bind("column \"{}\" specified more than once", columns[i]);
      }
      source[found] = static_cast<int>(i);
    }
    if (in->num_fields() > static_cast<int>(columns.size())) {
      return Status::Bind("INSERT has more expressions than target columns");
    }
    if (in->num_fields() < static_cast<int>(columns.size())) {
      return Status::Bind("INSERT has more target columns than expressions");
    }
  }
  std::vector<expr::ExprPtr> exprs;
  std::vector<std::string> names;
  for (size_t f = 0; f < fields.size(); ++f) {
    const Field& column = fields[f];
    const TypePtr& type = column.type();
    names.push_back(column.name());
    if (source[f] < 0) {
      exprs.push_back(expr::Literal(Scalar::Null(type)));
      continue;
    }
    const Field& have = in->field(source[f]);
    expr::ExprPtr value = expr::Column(source[f], have.name(), have.type(), have.nullable());
    if (have.type()->Equals(*type)) {
      exprs.push_back(std::move(value));
    } else if (expr::CanImplicitCast(*have.type(), *type) ||
               expr::CanExplicitCast(*have.type(), *type)) {
      exprs.push_back(expr::Cast(std::move(value), type));
    } else {
      return Status::Bind("column \"{}\" is of type {} but expression is of type {}", column.name(),
                          type->ToString(), have.type()->ToString());
    }
  }
  return plan::MakeProjection(std::move(input), std::move(exprs), std::move(names));
}

Result<exec::PlanPtr> PlanIcebergWrite(IcebergWriteTargetPtr target, exec::PlanPtr input) {
  FLOE_ASSIGN_OR_RAISE(exec::PlanPtr write, IcebergWriteExec::Make(target, std::move(input)));
  return IcebergCommitExec::Make(std::move(target), std::move(write));
}

}  // namespace floe::connector
