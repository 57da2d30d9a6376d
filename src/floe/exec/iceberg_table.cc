#include "floe/exec/iceberg_table.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "floe/exec/iceberg_filter.h"
#include "floe/iceberg/expression.h"

namespace floe::exec {

namespace {

std::optional<int64_t> SummaryNumber(const iceberg::Snapshot& snapshot, const std::string& key) {
  auto it = snapshot.summary.find(key);
  if (it == snapshot.summary.end()) return std::nullopt;
  int64_t value = 0;
  const char* begin = it->second.data();
  const char* end = begin + it->second.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

// Projects the planned scan's batches to the output columns and applies the limit.
class IcebergScanStream final : public BatchStream {
 public:
  IcebergScanStream(const IcebergScanExec* node, std::unique_ptr<RecordBatchReader> input)
      : node_(node), input_(std::move(input)), remaining_(node->parts().limit) {}

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (remaining_ && *remaining_ <= 0) {
        input_.reset();
        return RecordBatchPtr();
      }
      if (!input_) return RecordBatchPtr();
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
      if (!batch) {
        input_.reset();
        return RecordBatchPtr();
      }
      if (batch->num_rows() == 0) continue;
      int64_t rows = batch->num_rows();
      if (remaining_) {
        rows = std::min(rows, *remaining_);
        *remaining_ -= rows;
      }
      const std::vector<int>& projection = node_->parts().projection;
      std::vector<ArrayPtr> columns;
      columns.reserve(projection.size());
      for (int c : projection) {
        if (c < 0 || c >= batch->num_columns()) {
          return Status::Internal("IcebergScanExec: the task reader returned {} columns",
                                  batch->num_columns());
        }
        const ArrayPtr& column = batch->column(c);
        columns.push_back(rows == batch->num_rows() ? column : column->Slice(0, rows));
      }
      return RecordBatch::Make(schema(), rows, std::move(columns));
    }
  }

 private:
  const IcebergScanExec* node_;
  std::unique_ptr<RecordBatchReader> input_;
  std::optional<int64_t> remaining_;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// IcebergTable

Result<std::shared_ptr<IcebergTable>> IcebergTable::Make(std::string name, iceberg::Table table,
                                                         iceberg::SnapshotSelector selector) {
  iceberg::ScanOptions options;
  options.snapshot = selector;
  FLOE_ASSIGN_OR_RAISE(auto scan, iceberg::TableScan::Make(table.metadata, table.io, options));
  auto out = std::shared_ptr<IcebergTable>(new IcebergTable());
  out->name_ = std::move(name);
  out->iceberg_schema_ = scan->schema();
  out->schema_ = scan->schema()->columns();
  plan::Statistics& stats = out->statistics_;
  const iceberg::Snapshot* snapshot = scan->snapshot();
  if (snapshot == nullptr) {
    stats.row_count = 0;
    stats.total_bytes = 0;
    stats.exact = true;
  } else {
    stats.row_count = SummaryNumber(*snapshot, "total-records");
    stats.total_bytes = SummaryNumber(*snapshot, "total-files-size");
    std::optional<int64_t> deletes = SummaryNumber(*snapshot, "total-delete-files");
    stats.exact = stats.row_count.has_value() && deletes.has_value() && *deletes == 0;
  }
  out->table_ = std::move(table);
  out->selector_ = std::move(selector);
  return out;
}

IcebergTable::FilterPushdown IcebergTable::SupportsFilter(const expr::Expr& conjunct) const {
  return ToIcebergFilter(conjunct, *schema_) ? FilterPushdown::kInexact
                                             : FilterPushdown::kUnsupported;
}

Result<PlanPtr> IcebergTable::Scan(const ScanRequest& request, const SessionConfig& config) const {
  iceberg::ScanOptions options;
  options.snapshot = selector_;
  // Read the requested columns; with none (count(*)), the first column gives row counts.
  std::vector<int> wanted = request.projection;
  const bool counting_only = wanted.empty();
  if (counting_only && schema_->num_fields() > 0) wanted.push_back(0);
  for (int c : wanted) {
    if (c < 0 || c >= schema_->num_fields()) {
      return Status::Internal("IcebergTable: projected column {} out of range", c);
    }
    options.projected_field_ids.push_back(schema_->field(c).field_id());
  }
  if (options.projected_field_ids.empty()) {
    return Status::NotSupported("table {} has no columns to scan", name_);
  }
  iceberg::ExpressionPtr filter;
  std::vector<expr::ExprPtr> pushed;
  for (const expr::ExprPtr& conjunct : request.filters) {
    if (!conjunct) continue;
    std::optional<iceberg::ExpressionPtr> converted = ToIcebergFilter(*conjunct, *schema_);
    if (!converted) continue;
    filter = filter ? iceberg::Expression::And(filter, *converted) : *converted;
    pushed.push_back(conjunct);
  }
  options.filter = filter;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan,
                       iceberg::TableScan::Make(table_.metadata, table_.io, options));
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ScanTaskGroup> groups,
                       scan->PlanGroups(std::max(1, config.target_partitions())));
  IcebergScanExec::Parts parts;
  parts.table_name = name_;
  parts.table = table_;
  // Output column i is the projected scan column holding the requested field.
  const floe::Schema& projected = *scan->projected_schema()->columns();
  if (!counting_only) {
    for (int c : request.projection) {
      const int32_t id = schema_->field(c).field_id();
      int found = -1;
      for (int p = 0; p < projected.num_fields(); ++p) {
        if (projected.field(p).field_id() == id) found = p;
      }
      if (found < 0) return Status::Internal("IcebergTable: field id {} was not projected", id);
      parts.projection.push_back(found);
    }
  }
  parts.scan = std::move(scan);
  parts.groups = std::move(groups);
  parts.filters = std::move(pushed);
  parts.limit = request.limit;
  return IcebergScanExec::Make(std::move(parts));
}

// ---------------------------------------------------------------------------------------
// IcebergScanExec

Result<PlanPtr> IcebergScanExec::Make(Parts parts) {
  if (!parts.scan) return Status::Internal("IcebergScanExec: no planned scan");
  if (parts.limit && *parts.limit < 0) {
    return Status::Internal("IcebergScanExec: negative limit {}", *parts.limit);
  }
  const floe::Schema& projected = *parts.scan->projected_schema()->columns();
  std::vector<Field> fields;
  for (int c : parts.projection) {
    if (c < 0 || c >= projected.num_fields()) {
      return Status::Internal("IcebergScanExec: projected column {} out of range ({} columns)", c,
                              projected.num_fields());
    }
    fields.push_back(projected.field(c));
  }
  if (parts.groups.empty()) parts.groups.emplace_back();
  auto node = std::shared_ptr<IcebergScanExec>(new IcebergScanExec());
  node->properties_.schema = std::make_shared<const Schema>(std::move(fields));
  node->properties_.partitioning = Partitioning::Unknown(static_cast<int>(parts.groups.size()));
  node->parts_ = std::move(parts);
  return PlanPtr(std::move(node));
}

Result<PlanPtr> IcebergScanExec::WithNewChildren(std::vector<PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("IcebergScanExec takes no children");
  return Make(parts_);
}

Result<BatchStreamPtr> IcebergScanExec::Execute(int partition, const TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= static_cast<int>(parts_.groups.size())) {
    return Status::Internal("IcebergScanExec: no partition {}", partition);
  }
  iceberg::TaskReaderOptions options;
  options.batch_size = ctx->config().batch_size();
  options.pool = ctx->pool();
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TaskReader> reader,
                       iceberg::MakeTaskReader(parts_.table, *parts_.scan, options));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<RecordBatchReader> input,
                       reader->Read(parts_.groups[static_cast<size_t>(partition)]));
  // The stream keeps the task reader alive through the batches it hands out.
  struct Owned final : public BatchStream {
    std::unique_ptr<iceberg::TaskReader> reader;
    std::unique_ptr<IcebergScanStream> stream;
    const SchemaPtr& schema() const override { return stream->schema(); }
    Result<RecordBatchPtr> Next() override { return stream->Next(); }
  };
  auto owned = std::make_unique<Owned>();
  owned->reader = std::move(reader);
  owned->stream = std::make_unique<IcebergScanStream>(this, std::move(input));
  return BatchStreamPtr(std::move(owned));
}

std::string IcebergScanExec::ToString() const {
  const iceberg::Snapshot* snapshot = parts_.scan->snapshot();
  std::string out = fmt::format("IcebergScanExec: table={}", parts_.table_name);
  out += snapshot != nullptr ? fmt::format(" snapshot={}", snapshot->snapshot_id)
                             : std::string(" snapshot=none");
  out += " projection=[";
  const floe::Schema& projected = *parts_.scan->projected_schema()->columns();
  for (size_t i = 0; i < parts_.projection.size(); ++i) {
    if (i > 0) out += ", ";
    out += projected.field(parts_.projection[i]).name();
  }
  out += "]";
  if (parts_.scan->bound_filter() && !iceberg::IsAlwaysTrue(*parts_.scan->bound_filter())) {
    out += " filter=[" + parts_.scan->bound_filter()->ToString() + "]";
  }
  if (parts_.limit) out += fmt::format(" limit={}", *parts_.limit);
  out += " groups=[";
  for (size_t g = 0; g < parts_.groups.size(); ++g) {
    if (g > 0) out += ", ";
    const iceberg::ScanTaskGroup& group = parts_.groups[g];
    std::set<std::string> files;
    for (const iceberg::FileScanTask& task : group.tasks) files.insert(task.data_file->file_path);
    out += fmt::format("{} files {} bytes", files.size(), group.total_bytes);
  }
  return out + "]";
}

}  // namespace floe::exec
