#include "floe/connector/iceberg/iceberg_table.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "floe/codec/iceberg_codec.h"
#include "floe/codec/value_codec.h"
#include "floe/connector/iceberg/declared_types.h"
#include "floe/connector/iceberg/iceberg_codec_internal.h"
#include "floe/connector/iceberg/iceberg_filter.h"
#include "floe/exec/plan_codec.h"
#include "floe/expr/expr.h"
#include "floe/expr/physical_expr.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/single_value.h"
#include "floe/type/sql_type_name.h"

namespace floe::connector {

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

bool TrivialResidual(const iceberg::FileScanTask& task) {
  return task.residual == nullptr || iceberg::IsAlwaysTrue(*task.residual);
}

// A whole data file whose rows all come out: its manifest record count is the task's
// output row count (a part's, its share of it: the parts of a file add up to it).
bool CountableFromMetadata(const iceberg::FileScanTask& task) {
  return task.is_whole_file() && task.delete_files.empty() && TrivialResidual(task);
}

// Batches of `rows` rows and no columns.
class RowCountReader final : public RecordBatchReader {
 public:
  RowCountReader(int64_t rows, int64_t batch_size)
      : schema_(std::make_shared<const Schema>(std::vector<Field>{})),
        rows_(rows),
        batch_size_(batch_size) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (rows_ <= 0) return RecordBatchPtr();
    const int64_t n = std::min(rows_, batch_size_);
    rows_ -= n;
    return RecordBatch::Make(schema_, n, {});
  }

 private:
  SchemaPtr schema_;
  int64_t rows_;
  int64_t batch_size_;
};

// Opens the tasks of one scan partition. Shared by the partition's stream and the pool
// tasks that open files ahead of it, so it lives as long as either.
class TaskOpener {
 public:
  TaskOpener(std::unique_ptr<iceberg::TaskReader> reader, bool counting, int64_t batch_size)
      : reader_(std::move(reader)), counting_(counting), batch_size_(batch_size) {}

  Result<std::unique_ptr<RecordBatchReader>> Open(const iceberg::FileScanTask& task) const {
    if (counting_ && CountableFromMetadata(task) && !task.is_part()) {
      return std::unique_ptr<RecordBatchReader>(
          new RowCountReader(task.data_file->record_count, batch_size_));
    }
    return reader_->Read(task);
  }

 private:
  std::unique_ptr<iceberg::TaskReader> reader_;
  bool counting_;
  int64_t batch_size_;
};

// One task opened ahead of its turn: the reader and its first batch. Whoever claims it
// first (a pool worker or the consuming thread) opens it, so a partition never waits for
// work queued behind a busy pool.
struct OpenedTask {
  enum class State { kQueued, kRunning, kDone };
  std::mutex mutex;
  std::condition_variable done;
  State state = State::kQueued;
  // Set when the stream is gone: a worker that finishes drops what it opened.
  bool abandoned = false;
  // The task's index in the group.
  size_t index = 0;
  Status status;
  std::unique_ptr<RecordBatchReader> reader;
  RecordBatchPtr first;

  bool Claim() {
    std::lock_guard<std::mutex> lock(mutex);
    if (state != State::kQueued || abandoned) return false;
    state = State::kRunning;
    return true;
  }

  // Runs on the claiming thread.
  void Fill(const TaskOpener& opener, const iceberg::FileScanTask& task) {
    Status st;
    std::unique_ptr<RecordBatchReader> opened;
    RecordBatchPtr batch;
    Result<std::unique_ptr<RecordBatchReader>> made = opener.Open(task);
    if (!made.ok()) {
      st = made.status();
    } else {
      opened = std::move(*made);
      Result<RecordBatchPtr> next = opened->Next();
      if (next.ok()) {
        batch = std::move(*next);
      } else {
        st = next.status();
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    state = State::kDone;
    if (!abandoned) {
      status = std::move(st);
      reader = std::move(opened);
      first = std::move(batch);
    }
    done.notify_all();
  }
};

// Reads a group's tasks in order, with at most `concurrency` of them open at once: the
// one being consumed and the ones opened ahead on the thread pool. Then projects the
// batches to the output columns and applies the limit.
class IcebergScanStream final : public exec::BatchStream {
 public:
  IcebergScanStream(const IcebergScanExec* node, exec::TaskContextPtr ctx,
                    std::shared_ptr<const TaskOpener> opener,
                    std::vector<iceberg::FileScanTask> tasks, int concurrency, ThreadPool* threads)
      : node_(node),
        ctx_(std::move(ctx)),
        opener_(std::move(opener)),
        tasks_(std::move(tasks)),
        concurrency_(threads == nullptr ? 1 : std::max(1, concurrency)),
        threads_(threads),
        remaining_(node->parts().limit) {}

  ~IcebergScanStream() override { Abandon(); }

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      FLOE_RETURN_NOT_OK(ctx_->CheckCancelled());
      if (finished_ || (remaining_ && *remaining_ <= 0)) return Finish();
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, NextInput());
      if (!batch) return Finish();
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
      if (node_->relabels()) return Convert(rows, std::move(columns));
      return RecordBatch::Make(schema(), rows, std::move(columns));
    }
  }

 private:
  // Gives the columns with a declared type that type (declared_types.h): a relabelling of
  // the same storage, or a cast (a smallint stored as an int).
  Result<RecordBatchPtr> Convert(int64_t rows, std::vector<ArrayPtr> columns) {
    const std::vector<expr::PhysicalExprPtr>& conversions = node_->conversions();
    for (size_t i = 0; i < columns.size(); ++i) {
      const TypePtr& declared = schema()->field(static_cast<int>(i)).type();
      const Array& column = *columns[i];
      if (conversions[i] == nullptr && !column.type()->Equals(*declared)) {
        FLOE_ASSIGN_OR_RAISE(
            columns[i], Array::Make(declared, column.length(), column.buffers(), column.children(),
                                    column.null_count(), column.offset()));
      }
    }
    std::vector<Field> stored_fields;
    for (size_t i = 0; i < columns.size(); ++i) {
      const Field& f = schema()->field(static_cast<int>(i));
      stored_fields.push_back(f.WithType(columns[i]->type()));
    }
    FLOE_ASSIGN_OR_RAISE(
        RecordBatchPtr stored,
        RecordBatch::Make(std::make_shared<const Schema>(std::move(stored_fields)), rows, columns));
    expr::EvalContext eval;
    eval.pool = ctx_->pool();
    for (size_t i = 0; i < columns.size(); ++i) {
      if (conversions[i] == nullptr) continue;
      Result<ArrayPtr> converted = expr::EvaluateToArray(*conversions[i], *stored, eval);
      if (!converted.ok()) {
        const Field& f = schema()->field(static_cast<int>(i));
        return Status(converted.status().code(),
                      fmt::format("table {}: column \"{}\" is declared {} ({}) but holds a value "
                                  "that type cannot: {}",
                                  node_->parts().table_name, f.name(), SqlTypeName(*f.type()),
                                  kDeclaredTypesProperty, converted.status().message()));
      }
      columns[i] = std::move(*converted);
    }
    return RecordBatch::Make(schema(), rows, std::move(columns));
  }

  RecordBatchPtr Finish() {
    finished_ = true;
    current_.reset();
    Abandon();
    return RecordBatchPtr();
  }

  // Drops the files opened ahead; workers still opening one drop it when they finish.
  void Abandon() {
    for (const std::shared_ptr<OpenedTask>& slot : ahead_) {
      std::lock_guard<std::mutex> lock(slot->mutex);
      slot->abandoned = true;
      slot->reader.reset();
      slot->first.reset();
    }
    ahead_.clear();
  }

  // The next batch of the group's tasks, in task order; nullptr after the last task.
  Result<RecordBatchPtr> NextInput() {
    while (true) {
      if (current_) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, current_->Next());
        if (batch) return batch;
        current_.reset();
      }
      if (next_task_ == tasks_.size() && ahead_.empty()) return RecordBatchPtr();
      if (concurrency_ == 1) {
        FLOE_ASSIGN_OR_RAISE(current_, opener_->Open(tasks_[next_task_++]));
        continue;
      }
      if (ahead_.empty()) QueueNext();
      std::shared_ptr<OpenedTask> slot = std::move(ahead_.front());
      ahead_.pop_front();
      // Keep the next files opening while this one is consumed.
      while (ahead_.size() + 1 < static_cast<size_t>(concurrency_) && next_task_ < tasks_.size()) {
        QueueNext();
      }
      if (slot->Claim()) slot->Fill(*opener_, tasks_[slot->index]);
      std::unique_lock<std::mutex> lock(slot->mutex);
      slot->done.wait(lock, [&] { return slot->state == OpenedTask::State::kDone; });
      FLOE_RETURN_NOT_OK(slot->status);
      current_ = std::move(slot->reader);
      if (slot->first) return std::move(slot->first);
    }
  }

  void QueueNext() {
    auto slot = std::make_shared<OpenedTask>();
    slot->index = next_task_++;
    ahead_.push_back(slot);
    std::shared_ptr<const TaskOpener> opener = opener_;
    iceberg::FileScanTask task = tasks_[slot->index];
    threads_->Spawn([slot, opener, task = std::move(task)] {
      if (slot->Claim()) slot->Fill(*opener, task);
    });
  }

  const IcebergScanExec* node_;
  exec::TaskContextPtr ctx_;
  // Declared before what it opened, so it outlives it.
  std::shared_ptr<const TaskOpener> opener_;
  std::vector<iceberg::FileScanTask> tasks_;
  int concurrency_;
  ThreadPool* threads_;
  size_t next_task_ = 0;
  std::deque<std::shared_ptr<OpenedTask>> ahead_;
  std::unique_ptr<RecordBatchReader> current_;
  std::optional<int64_t> remaining_;
  bool finished_ = false;
};

// ---------------------------------------------------------------------------------------
// Exact pushdown

// The column a term names directly (no cast), or -1.
int DirectColumn(const expr::Expr& e, const Schema& columns) {
  if (e.kind != expr::ExprKind::kColumn || e.column < 0 || e.column >= columns.num_fields()) {
    return -1;
  }
  if (!e.type || !columns.field(e.column).type()->Equals(*e.type)) return -1;
  return e.column;
}

bool SameTypeConstant(const expr::Expr& e, const DataType& type) {
  return e.kind == expr::ExprKind::kLiteral && !e.literal.is_null() && e.literal.type() &&
         e.literal.type()->Equals(type);
}

// The column of a conjunct whose truth on a row is decided by that column's value alone
// and that ToIcebergFilter converts with the same meaning; -1 otherwise.
int ExactConjunctColumn(const expr::Expr& e, const Schema& columns) {
  if (e.kind != expr::ExprKind::kCall || e.args.empty()) return -1;
  const std::string& name = e.name;
  if ((name == "is_null" || name == "is_not_null") && e.args.size() == 1) {
    return DirectColumn(*e.args[0], columns);
  }
  const bool comparison =
      name == "eq" || name == "lt" || name == "le" || name == "gt" || name == "ge";
  const bool in_list = name == "in_list";
  if (!comparison && !in_list) return -1;
  int column = DirectColumn(*e.args[0], columns);
  size_t first_constant = 1;
  if (column < 0 && comparison && e.args.size() == 2) {
    column = DirectColumn(*e.args[1], columns);
    first_constant = 0;
  }
  if (column < 0) return -1;
  const DataType& type = *columns.field(column).type();
  const bool ordered = type.is_integer() || type.id() == TypeId::kDate;
  const bool equality_only = type.id() == TypeId::kString || type.id() == TypeId::kBoolean;
  if (!ordered && !equality_only) return -1;
  if (comparison) {
    if (e.args.size() != 2) return -1;
    if (!ordered && name != "eq") return -1;
    return SameTypeConstant(*e.args[first_constant], type) ? column : -1;
  }
  if (e.args.size() < 2) return -1;
  for (size_t i = 1; i < e.args.size(); ++i) {
    if (!SameTypeConstant(*e.args[i], type)) return -1;
  }
  return column;
}

// True when every partition spec of the table has an identity field on `field_id`.
bool IdentityPartitionedInEverySpec(const iceberg::TableMetadata& metadata, int32_t field_id) {
  if (metadata.partition_specs.empty()) return false;
  for (const iceberg::PartitionSpecPtr& spec : metadata.partition_specs) {
    bool found = false;
    for (const iceberg::PartitionField& field : spec->fields()) {
      if (field.source_id == field_id &&
          field.transform.kind() == iceberg::TransformKind::kIdentity) {
        found = true;
      }
    }
    if (!found) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Sort order

// The sort order every planned file carries, when it is the table's default one and not
// the unsorted order; nullptr otherwise.
iceberg::SortOrderPtr CommonSortOrder(const iceberg::TableMetadata& metadata,
                                      const std::vector<iceberg::ScanTaskGroup>& groups) {
  iceberg::SortOrderPtr order = metadata.DefaultSortOrder();
  if (order == nullptr || order->is_unsorted() || order->order_id() == 0) return nullptr;
  bool any = false;
  for (const iceberg::ScanTaskGroup& group : groups) {
    for (const iceberg::FileScanTask& task : group.tasks) {
      any = true;
      const std::optional<int32_t>& id = task.data_file->sort_order_id;
      if (!id.has_value() || *id != order->order_id()) return nullptr;
    }
  }
  return any ? order : nullptr;
}

// A file's bound of a column, or nullopt when missing or undecodable.
std::optional<Scalar> FileBound(const iceberg::DataFile& file, int32_t field_id,
                                const TypePtr& type, bool lower) {
  const std::map<int32_t, std::string>& bounds = lower ? file.lower_bounds : file.upper_bounds;
  auto it = bounds.find(field_id);
  if (it == bounds.end()) return std::nullopt;
  Result<Scalar> value = iceberg::DeserializeValue(type, it->second);
  if (!value.ok() || value->is_null()) return std::nullopt;
  return std::move(*value);
}

// True when every row of `a` sorts strictly before every row of `b` by the first key
// (`field_id` of `type`, in `direction`), proven by the files' metrics: no NULLs (and no
// floating-point key, whose NaNs the bounds leave out) and non-overlapping bounds.
bool FileBefore(const iceberg::DataFile& a, const iceberg::DataFile& b, int32_t field_id,
                const TypePtr& type, iceberg::SortDirection direction) {
  if (type->id() == TypeId::kFloat32 || type->id() == TypeId::kFloat64) return false;
  for (const iceberg::DataFile* file : {&a, &b}) {
    auto nulls = file->null_value_counts.find(field_id);
    if (nulls == file->null_value_counts.end() || nulls->second != 0) return false;
  }
  const bool ascending = direction == iceberg::SortDirection::kAsc;
  // Ascending: a's upper bound < b's lower bound; descending: a's lower > b's upper.
  std::optional<Scalar> left = FileBound(a, field_id, type, /*lower=*/!ascending);
  std::optional<Scalar> right = FileBound(b, field_id, type, /*lower=*/ascending);
  if (!left || !right) return false;
  const int cmp = iceberg::CompareValues(*left, *right);
  return ascending ? cmp < 0 : cmp > 0;
}

// True when reading `tasks` in order yields rows in the sort order whose first key is
// `field_id`: a file's tasks are consecutive and in byte order, and consecutive files
// are ordered by their metrics.
bool GroupKeepsOrder(const std::vector<iceberg::FileScanTask>& tasks, int32_t field_id,
                     const TypePtr& type, iceberg::SortDirection direction) {
  std::set<std::string> finished;
  for (size_t i = 1; i < tasks.size(); ++i) {
    const iceberg::FileScanTask& prev = tasks[i - 1];
    const iceberg::FileScanTask& task = tasks[i];
    if (prev.data_file->file_path == task.data_file->file_path) {
      if (task.start <= prev.start) return false;
      continue;
    }
    finished.insert(prev.data_file->file_path);
    if (finished.count(task.data_file->file_path) > 0) return false;
    if (type == nullptr ||
        !FileBefore(*prev.data_file, *task.data_file, field_id, type, direction)) {
      return false;
    }
  }
  return true;
}

// Puts each group's tasks in sort-key order when the files share the table's sort order:
// by the first key's lower bound (upper bound when descending), then path and start.
// Groups whose files' bounds are unknown keep an order the ordering check then rejects.
void ArrangeForSortOrder(const iceberg::TableMetadata& metadata, const iceberg::Schema& schema,
                         std::vector<iceberg::ScanTaskGroup>& groups) {
  iceberg::SortOrderPtr order = CommonSortOrder(metadata, groups);
  if (order == nullptr) return;
  const iceberg::SortField& key = order->fields().front();
  if (key.transform.kind() != iceberg::TransformKind::kIdentity) return;
  const Field* field = schema.FindFieldById(key.source_id);
  if (field == nullptr) return;
  const TypePtr type = field->type();
  const bool ascending = key.direction == iceberg::SortDirection::kAsc;
  for (iceberg::ScanTaskGroup& group : groups) {
    if (group.tasks.size() < 2) continue;
    std::vector<std::pair<std::optional<Scalar>, iceberg::FileScanTask>> keyed;
    for (iceberg::FileScanTask& task : group.tasks) {
      std::optional<Scalar> bound = FileBound(*task.data_file, key.source_id, type, ascending);
      keyed.emplace_back(std::move(bound), std::move(task));
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
      if (a.first.has_value() != b.first.has_value()) return a.first.has_value();
      if (a.first && b.first) {
        const int cmp = iceberg::CompareValues(*a.first, *b.first);
        if (cmp != 0) return ascending ? cmp < 0 : cmp > 0;
      }
      return std::tie(a.second.data_file->file_path, a.second.start) <
             std::tie(b.second.data_file->file_path, b.second.start);
    });
    group.tasks.clear();
    for (auto& entry : keyed) group.tasks.push_back(std::move(entry.second));
  }
}

// The ordering the scan's partitions produce (see IcebergScanExec), or none.
exec::Ordering ScanOrdering(const IcebergScanExec::Parts& parts, const SchemaPtr& output) {
  const iceberg::TableMetadata& metadata = parts.scan->metadata();
  iceberg::SortOrderPtr order = CommonSortOrder(metadata, parts.groups);
  if (order == nullptr) return {};
  const iceberg::SortField& first = order->fields().front();
  if (first.transform.kind() != iceberg::TransformKind::kIdentity) return {};
  const Field* first_field = parts.scan->schema()->FindFieldById(first.source_id);
  TypePtr first_type = first_field != nullptr ? first_field->type() : nullptr;
  for (const iceberg::ScanTaskGroup& group : parts.groups) {
    if (!GroupKeepsOrder(group.tasks, first.source_id, first_type, first.direction)) return {};
  }
  exec::Ordering ordering;
  for (const iceberg::SortField& key : order->fields()) {
    if (key.transform.kind() != iceberg::TransformKind::kIdentity) break;
    int column = -1;
    for (int i = 0; i < output->num_fields(); ++i) {
      if (output->field(i).has_field_id() && output->field(i).field_id() == key.source_id) {
        column = i;
      }
    }
    if (column < 0) break;
    const Field& field = output->field(column);
    Result<expr::PhysicalExprPtr> compiled =
        expr::Compile(expr::Column(column, field.name(), field.type(), field.nullable()), output);
    if (!compiled.ok()) break;
    ordering.push_back(exec::PhysicalSortExpr{*compiled,
                                              key.direction == iceberg::SortDirection::kDesc,
                                              key.null_order == iceberg::NullOrder::kNullsFirst});
  }
  return ordering;
}

// Rows of the planned tasks, and whether that is the exact output count.
std::pair<int64_t, bool> PlannedRows(const std::vector<iceberg::ScanTaskGroup>& groups) {
  int64_t rows = 0;
  bool exact = true;
  for (const iceberg::ScanTaskGroup& group : groups) {
    for (const iceberg::FileScanTask& task : group.tasks) {
      rows += task.estimated_row_count;
      if (!CountableFromMetadata(task)) exact = false;
    }
  }
  return {rows, exact};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// IcebergTable

Result<std::shared_ptr<IcebergTable>> IcebergTable::Make(
    std::string name, iceberg::Table table, iceberg::SnapshotSelector selector,
    std::shared_ptr<const std::set<std::string>> only_files) {
  iceberg::ScanOptions options;
  options.snapshot = selector;
  FLOE_ASSIGN_OR_RAISE(auto scan, iceberg::TableScan::Make(table.metadata, table.io, options));
  auto out = std::shared_ptr<IcebergTable>(new IcebergTable());
  out->name_ = std::move(name);
  out->iceberg_schema_ = scan->schema();
  SchemaPtr columns = ApplyDeclaredTypes(scan->schema()->columns(), table.metadata->properties);
  // The metadata columns follow the table's, hidden; a table column of the same name wins.
  std::vector<Field> fields = columns->fields();
  FLOE_ASSIGN_OR_RAISE(std::vector<Field> metadata_columns,
                       iceberg::MetadataColumns(*table.metadata));
  for (Field& field : metadata_columns) {
    if (columns->GetFieldIndex(field.name()) >= 0) continue;
    fields.push_back(std::move(field));
    ++out->hidden_columns_;
  }
  out->schema_ = std::make_shared<const Schema>(std::move(fields));
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
  if (only_files != nullptr) {
    stats.exact = false;
    out->column_statistics_done_ = true;
    out->only_files_ = std::move(only_files);
  }
  return out;
}

bool IcebergTable::SameSource(const plan::TableSource& other) const {
  if (this == &other) return true;
  const auto* o = dynamic_cast<const IcebergTable*>(&other);
  return o != nullptr && o->name_ == name_ &&
         o->table_.metadata_location == table_.metadata_location &&
         !table_.metadata_location.empty() && o->selector_.snapshot_id == selector_.snapshot_id &&
         o->selector_.as_of_timestamp_ms == selector_.as_of_timestamp_ms &&
         o->selector_.ref == selector_.ref && only_files_ == nullptr && o->only_files_ == nullptr &&
         o->schema_->Equals(*schema_);
}

plan::Statistics IcebergTable::statistics() const {
  std::lock_guard<std::mutex> lock(statistics_mutex_);
  if (column_statistics_done_) return statistics_;
  column_statistics_done_ = true;
  iceberg::ScanOptions options;
  options.snapshot = selector_;
  options.only_files = only_files_;
  options.collect_column_stats = true;
  Result<std::unique_ptr<iceberg::TableScan>> scan =
      iceberg::TableScan::Make(table_.metadata, table_.io, options);
  if (!scan.ok() || (*scan)->snapshot() == nullptr) return statistics_;
  std::optional<int64_t> files = SummaryNumber(*(*scan)->snapshot(), "total-data-files");
  if (!files.has_value() || *files > kColumnStatisticsMaxFiles) return statistics_;
  Result<std::vector<iceberg::FileScanTask>> tasks = (*scan)->PlanFiles();
  if (!tasks.ok()) return statistics_;
  const iceberg::ScanStatistics planned = (*scan)->Statistics(*tasks);
  // The plan counts rows exactly when neither deletes nor splits make it an estimate.
  if (planned.row_count_exact) {
    statistics_.row_count = planned.row_count;
    statistics_.exact = true;
  }
  if (!statistics_.total_bytes) statistics_.total_bytes = planned.total_bytes;
  // Bytes of each column over the files (compressed: a lower bound of its width).
  std::map<int32_t, int64_t> column_bytes;
  std::set<std::string> seen;
  for (const iceberg::FileScanTask& task : *tasks) {
    if (!seen.insert(task.data_file->file_path).second) continue;
    for (const auto& [id, bytes] : task.data_file->column_sizes) column_bytes[id] += bytes;
  }
  const int64_t rows = planned.row_count;
  std::vector<plan::ColumnStatistics> columns;
  for (const Field& field : schema_->fields()) {
    plan::ColumnStatistics column;
    const int fixed = field.type()->byte_width();
    if (fixed > 0) column.avg_width = fixed;
    auto it = planned.columns.find(field.field_id());
    if (it != planned.columns.end()) {
      const iceberg::ColumnStatistics& metrics = it->second;
      column.null_count = metrics.null_count;
      if (metrics.lower_bound && metrics.upper_bound) {
        column.min = metrics.lower_bound;
        column.max = metrics.upper_bound;
      }
    }
    if (fixed <= 0 && rows > 0) {
      auto bytes = column_bytes.find(field.field_id());
      if (bytes != column_bytes.end()) {
        double width = static_cast<double>(bytes->second) / static_cast<double>(rows);
        auto length = [](const std::optional<Scalar>& s) {
          const auto* v = s ? std::get_if<std::string>(&s->value()) : nullptr;
          return v ? static_cast<double>(v->size()) : 0.0;
        };
        width = std::max(width, (length(column.min) + length(column.max)) / 2);
        column.avg_width = width + 4;
      }
    }
    columns.push_back(std::move(column));
  }
  statistics_.columns = std::move(columns);
  return statistics_;
}

IcebergTable::FilterPushdown IcebergTable::SupportsFilter(const expr::Expr& conjunct) const {
  // Metadata columns are not in the Iceberg schema the scan binds its filter to.
  for (int column : expr::ReferencedColumns(conjunct)) {
    if (column >= schema_->num_fields() - hidden_columns_) return FilterPushdown::kUnsupported;
  }
  if (!ToIcebergFilter(conjunct, *schema_)) return FilterPushdown::kUnsupported;
  const int column = ExactConjunctColumn(conjunct, *schema_);
  if (column >= 0 && schema_->field(column).has_field_id() &&
      IdentityPartitionedInEverySpec(*table_.metadata, schema_->field(column).field_id())) {
    return FilterPushdown::kExact;
  }
  return FilterPushdown::kInexact;
}

Result<std::optional<int64_t>> IcebergTable::ExactRowCount(
    const std::vector<expr::ExprPtr>& filters) const {
  iceberg::ExpressionPtr filter;
  for (const expr::ExprPtr& conjunct : filters) {
    if (!conjunct || SupportsFilter(*conjunct) != FilterPushdown::kExact) return std::nullopt;
    std::optional<iceberg::ExpressionPtr> converted = ToIcebergFilter(*conjunct, *schema_);
    if (!converted) return std::nullopt;
    filter = filter ? iceberg::Expression::And(filter, *converted) : *converted;
  }
  iceberg::ScanOptions options;
  options.snapshot = selector_;
  options.only_files = only_files_;
  options.filter = filter;
  if (schema_->num_fields() > 0) options.projected_field_ids = {schema_->field(0).field_id()};
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan,
                       iceberg::TableScan::Make(table_.metadata, table_.io, options));
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  int64_t rows = 0;
  for (const iceberg::FileScanTask& task : tasks) {
    if (!CountableFromMetadata(task)) return std::nullopt;
    rows += task.data_file->record_count;
  }
  return rows;
}

std::optional<int64_t> IcebergTable::CountRowsExactly(
    const std::vector<expr::ExprPtr>& filters) const {
  Result<std::optional<int64_t>> rows = ExactRowCount(filters);
  return rows.ok() ? *rows : std::nullopt;
}

Result<exec::PlanPtr> IcebergTable::Scan(const exec::ScanRequest& request,
                                         const exec::SessionConfig& config) const {
  iceberg::ScanOptions options;
  options.snapshot = selector_;
  options.only_files = only_files_;
  // Read the requested columns; with none (count(*)), the first column is planned but not
  // read (the scan counts rows).
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
  // A sort key's bounds order the files of a group (ArrangeForSortOrder).
  iceberg::SortOrderPtr order = table_.metadata->DefaultSortOrder();
  if (order != nullptr && !order->is_unsorted()) {
    options.metrics_field_ids.push_back(order->fields().front().source_id);
  }
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan,
                       iceberg::TableScan::Make(table_.metadata, table_.io, options));
  // A table of few large files would leave partitions idle: its tasks are cut into parts
  // of their rows, when every column read is flat (the reader cannot cut nested ones).
  bool flat = !counting_only;
  for (int c : wanted) flat = flat && !schema_->field(c).type()->is_nested();
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::ScanTaskGroup> groups,
                       scan->PlanGroups(std::max(1, config.target_partitions()), flat));
  ArrangeForSortOrder(scan->metadata(), *scan->schema(), groups);
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

Result<exec::PlanPtr> IcebergScanExec::Make(Parts parts) {
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
  for (const iceberg::ScanTaskGroup& group : parts.groups) {
    for (const iceberg::FileScanTask& task : group.tasks) {
      if (task.data_file == nullptr) return Status::Internal("IcebergScanExec: a task has no file");
    }
  }
  if (parts.groups.empty()) parts.groups.emplace_back();
  auto node = std::shared_ptr<IcebergScanExec>(new IcebergScanExec());
  auto stored = std::make_shared<const Schema>(std::move(fields));
  node->properties_.schema = ApplyDeclaredTypes(stored, parts.table.metadata->properties);
  for (int i = 0; i < stored->num_fields(); ++i) {
    const Field& declared = node->properties_.schema->field(i);
    expr::PhysicalExprPtr conversion;
    if (!declared.type()->Equals(*stored->field(i).type())) node->relabels_ = true;
    // Values of the declared type's storage take its type as they are; others are cast.
    if (!SameShape(*declared.type(), *stored->field(i).type())) {
      const Field& from = stored->field(i);
      FLOE_ASSIGN_OR_RAISE(
          conversion,
          expr::Compile(expr::Cast(expr::Column(i, from.name(), from.type(), from.nullable()),
                                   declared.type()),
                        stored));
    }
    node->conversions_.push_back(std::move(conversion));
  }
  node->properties_.partitioning =
      exec::Partitioning::Unknown(static_cast<int>(parts.groups.size()));
  node->properties_.ordering = ScanOrdering(parts, node->properties_.schema);
  node->parts_ = std::move(parts);
  return exec::PlanPtr(std::move(node));
}

Result<exec::PlanPtr> IcebergScanExec::WithNewChildren(std::vector<exec::PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("IcebergScanExec takes no children");
  FLOE_ASSIGN_OR_RAISE(exec::PlanPtr made, Make(parts_));
  made = exec::WithDynamicFilters(std::move(made), dynamic_filters_);
  if (made == nullptr) return Status::Internal("IcebergScanExec: a dynamic filter it cannot read");
  return made;
}

exec::PlanPtr IcebergScanExec::WithDynamicFilter(int id, int column) const {
  if (parts_.limit || parts_.projection.empty() || column < 0 ||
      column >= static_cast<int>(parts_.projection.size()) ||
      conversions_[static_cast<size_t>(column)] != nullptr ||
      !exec::DynamicFilter::Supports(*schema()->field(column).type())) {
    return nullptr;
  }
  auto copy = std::shared_ptr<IcebergScanExec>(new IcebergScanExec(*this));
  copy->dynamic_filters_.push_back(exec::DynamicFilterUse{id, column});
  return copy;
}

namespace {

// The table field a dynamic filter's bitmap can be given to the task reader for: the
// scan's top-level field of the filtered column's name, of an integer-like type (nullptr
// for another, or a metadata column).
const floe::Field* KeySetField(const IcebergScanExec& node, const exec::DynamicFilterUse& use) {
  const std::string& name = node.schema()->field(use.column).name();
  Result<const floe::Field*> field =
      node.parts().scan->schema()->FindFieldByName(name, /*case_sensitive=*/true);
  if (!field.ok() || *field == nullptr || !exec::DynamicFilter::Supports(*(*field)->type())) {
    return nullptr;
  }
  return *field;
}

// The bitmaps of the published dynamic filters that have one, by field id, for the task
// reader (TaskReaderOptions::key_sets).
std::vector<std::pair<int32_t, std::shared_ptr<const KeyBitmap>>> DynamicKeySets(
    const IcebergScanExec& node, const exec::TaskContext& ctx) {
  std::vector<std::pair<int32_t, std::shared_ptr<const KeyBitmap>>> out;
  for (const exec::DynamicFilterUse& use : node.dynamic_filters()) {
    std::shared_ptr<const exec::DynamicFilter> filter = ctx.FindDynamicFilter(use.id);
    if (filter == nullptr || !filter->min || !filter->bitmap) continue;
    if (const floe::Field* field = KeySetField(node, use)) {
      out.emplace_back(field->field_id(), filter->bitmap);
    }
  }
  return out;
}

// The residual the published dynamic filters of `node` add to its tasks' (bound to the
// scan's schema), for the filters without a bitmap: kFalse when a filter holds no key,
// null when none is published.
Result<iceberg::ExpressionPtr> DynamicResidual(const IcebergScanExec& node,
                                               const exec::TaskContext& ctx) {
  iceberg::ExpressionPtr out;
  const floe::Schema& output = *node.schema();
  for (const exec::DynamicFilterUse& use : node.dynamic_filters()) {
    std::shared_ptr<const exec::DynamicFilter> filter = ctx.FindDynamicFilter(use.id);
    if (filter == nullptr) continue;
    if (!filter->min) return iceberg::Expression::False();
    const std::string& name = output.field(use.column).name();
    // A filter with a bitmap goes to the task reader as a key set (DynamicKeySets).
    if (filter->bitmap && KeySetField(node, use) != nullptr) continue;
    iceberg::ExpressionPtr term;
    if (filter->listed &&
        static_cast<int64_t>(filter->values.size()) <= exec::DynamicFilter::kMaxIcebergValues) {
      term = iceberg::Expression::Make(iceberg::Operation::kIn, name, filter->values);
    } else {
      term = iceberg::Expression::And(
          iceberg::Expression::Make(iceberg::Operation::kGtEq, name, {*filter->min}),
          iceberg::Expression::Make(iceberg::Operation::kLtEq, name, {*filter->max}));
    }
    // A column the schema cannot bind (a metadata column) takes no filter: filters are
    // only ever an optimization.
    Result<iceberg::ExpressionPtr> bound = iceberg::Bind(term, *node.parts().scan->schema(), true);
    if (!bound.ok()) continue;
    out = out == nullptr ? *bound : iceberg::Expression::And(out, *bound);
  }
  return out;
}

}  // namespace

Result<exec::BatchStreamPtr> IcebergScanExec::Execute(int partition,
                                                      const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= static_cast<int>(parts_.groups.size())) {
    return Status::Internal("IcebergScanExec: no partition {}", partition);
  }
  FLOE_RETURN_NOT_OK(ctx->CheckCancelled());
  const exec::SessionConfig& config = ctx->config();
  iceberg::TaskReaderOptions options;
  options.batch_size = config.batch_size();
  options.use_page_index = config.iceberg_use_page_index();
  options.read_ahead_bytes = config.iceberg_read_ahead_bytes();
  options.verify_page_checksums = config.parquet_verify_page_checksums();
  options.pool = ctx->pool();
  const bool counting = parts_.projection.empty();
  std::unique_ptr<iceberg::TaskReader> reader;
  if (counting) {
    // Counting reads no column: the tasks that cannot be counted from the manifests
    // open only the footers (and their delete files).
    const iceberg::Table& table = parts_.table;
    FLOE_ASSIGN_OR_RAISE(std::optional<iceberg::NameMapping> mapping,
                         iceberg::NameMapping::FromTableProperties(table.metadata->properties,
                                                                   table.metadata_location));
    std::shared_ptr<const iceberg::NameMapping> shared;
    if (mapping.has_value()) {
      shared = std::make_shared<const iceberg::NameMapping>(std::move(*mapping));
    }
    FLOE_ASSIGN_OR_RAISE(iceberg::SchemaPtr none, parts_.scan->schema()->Select({}));
    FLOE_ASSIGN_OR_RAISE(reader,
                         iceberg::TaskReader::Make(table.io, std::move(none), parts_.scan->schema(),
                                                   std::move(shared), options));
  } else {
    // A residual comes from kInexact filters only (SupportsFilter): the engine's filter
    // stays above the scan and evaluates them on every row, so the task reader only prunes
    // with the residual and drops the rows the Parquet reader rules out cheaply; the same
    // for the keys of the joins above that come as bitmaps.
    options.apply_residual = false;
    options.key_sets = DynamicKeySets(*this, *ctx);
    FLOE_ASSIGN_OR_RAISE(reader, iceberg::MakeTaskReader(parts_.table, *parts_.scan, options));
  }
  auto opener = std::make_shared<const TaskOpener>(std::move(reader), counting, options.batch_size);
  std::vector<iceberg::FileScanTask> tasks = parts_.groups[static_cast<size_t>(partition)].tasks;
  // The keys of the joins above, published before this partition opens: each task's
  // residual takes them (it prunes and drops rows; the engine's filters stay above).
  FLOE_ASSIGN_OR_RAISE(iceberg::ExpressionPtr dynamic, DynamicResidual(*this, *ctx));
  if (dynamic != nullptr) {
    if (iceberg::IsAlwaysFalse(*dynamic)) tasks.clear();
    for (iceberg::FileScanTask& task : tasks) {
      task.residual =
          task.residual == nullptr ? dynamic : iceberg::Expression::And(task.residual, dynamic);
    }
  }
  return exec::BatchStreamPtr(new IcebergScanStream(this, ctx, std::move(opener), std::move(tasks),
                                                    config.iceberg_read_concurrency(),
                                                    ctx->threads()));
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
  const auto [rows, exact] = PlannedRows(parts_.groups);
  out += fmt::format(" rows={} ({})", rows, exact ? "exact" : "estimate");
  if (!properties_.ordering.empty()) {
    out += " ordering=[" + exec::OrderingToString(properties_.ordering) + "]";
  }
  out += " groups=[";
  for (size_t g = 0; g < parts_.groups.size(); ++g) {
    if (g > 0) out += ", ";
    const iceberg::ScanTaskGroup& group = parts_.groups[g];
    std::set<std::string> files;
    size_t parts = 0;  // tasks that read part of a range other groups read too
    for (const iceberg::FileScanTask& task : group.tasks) {
      files.insert(task.data_file->file_path);
      if (task.is_part()) ++parts;
    }
    out += fmt::format("{} files", files.size());
    if (parts > 0) out += fmt::format(" ({} in part)", parts);
    out += fmt::format(" {} bytes", group.total_bytes);
  }
  out += "]";
  return out + exec::DynamicFilterUsesToString(dynamic_filters_, *schema());
}

// ---------------------------------------------------------------------------------------
// Codec (exec/plan_codec.h; the message is in codec/iceberg.proto). A scan travels with
// everything it was planned from: its pinned table (iceberg_codec_internal.h), the snapshot,
// schema, projection and bound filter of its TableScan, and the planned task groups with
// every data and delete file. Nothing is planned again on decode.

namespace pb = codec::proto;

namespace {

// The field ids that select `projected` out of `full` (Schema::Select): a field kept whole
// by its own id, a struct kept in part by the ids of what it keeps.
void ProjectionIds(const Field& projected, const Field& full, std::vector<int32_t>* out) {
  if (projected.type()->Equals(*full.type()) || projected.type()->id() != TypeId::kStruct ||
      full.type()->id() != TypeId::kStruct) {
    out->push_back(projected.field_id());
    return;
  }
  for (const Field& child : projected.type()->fields()) {
    for (const Field& candidate : full.type()->fields()) {
      if (candidate.field_id() == child.field_id()) ProjectionIds(child, candidate, out);
    }
  }
}

// The index of each distinct data file of the scan (by pointer, in order of appearance).
struct FileTable {
  std::map<const iceberg::DataFile*, int32_t> index;
  Status Add(const iceberg::DataFilePtr& file, pb::IcebergScanNode* m, int32_t* at) {
    auto it = index.find(file.get());
    if (it != index.end()) {
      *at = it->second;
      return Status::OK();
    }
    *at = static_cast<int32_t>(index.size());
    index.emplace(file.get(), *at);
    return codec::EncodeDataFile(*file, m->add_files());
  }
};

Status EncodeTask(const iceberg::FileScanTask& task, FileTable* files, pb::IcebergScanNode* m,
                  pb::IcebergScanTask* out) {
  int32_t at = 0;
  FLOE_RETURN_NOT_OK(files->Add(task.data_file, m, &at));
  out->set_data_file(at);
  out->set_spec_id(task.spec ? task.spec->spec_id() : task.data_file->spec_id);
  out->set_data_sequence_number(task.data_sequence_number);
  out->set_start(task.start);
  out->set_length(task.length);
  for (const iceberg::DataFilePtr& file : task.delete_files) {
    FLOE_RETURN_NOT_OK(files->Add(file, m, &at));
    out->add_delete_files(at);
  }
  if (task.residual) {
    FLOE_RETURN_NOT_OK(codec::EncodeIcebergExpression(*task.residual, out->mutable_residual()));
  }
  out->set_estimated_row_count(task.estimated_row_count);
  if (task.is_part()) {
    out->set_part_begin(task.part_begin);
    out->set_part_end(task.part_end);
    out->set_parts(task.parts);
  }
  return Status::OK();
}

Result<iceberg::FileScanTask> DecodeTask(const codec::PlanDecoder& in, const pb::IcebergScanTask& m,
                                         const std::vector<iceberg::DataFilePtr>& files,
                                         const iceberg::TableMetadata& metadata,
                                         const iceberg::Schema& schema) {
  auto file_at = [&](int32_t i) -> Result<iceberg::DataFilePtr> {
    if (i < 0 || static_cast<size_t>(i) >= files.size()) {
      return in.Corrupt(fmt::format("a task names file {} of {}", i, files.size()));
    }
    return files[static_cast<size_t>(i)];
  };
  iceberg::FileScanTask task;
  FLOE_ASSIGN_OR_RAISE(task.data_file, file_at(m.data_file()));
  task.spec = metadata.SpecById(m.spec_id());
  if (task.spec == nullptr) {
    return in.Corrupt(fmt::format("the task of {} names partition spec {}, which the table lacks",
                                  task.data_file->file_path, m.spec_id()));
  }
  if (m.start() < 0 || m.length() < 0 || m.estimated_row_count() < 0) {
    return in.Corrupt(fmt::format("the task of {} has a negative start, length or row count",
                                  task.data_file->file_path));
  }
  task.data_sequence_number = m.data_sequence_number();
  task.start = m.start();
  task.length = m.length();
  for (int32_t i : m.delete_files()) {
    FLOE_ASSIGN_OR_RAISE(iceberg::DataFilePtr file, file_at(i));
    task.delete_files.push_back(std::move(file));
  }
  if (m.has_residual()) {
    Result<iceberg::ExpressionPtr> residual = codec::DecodeIcebergExpression(m.residual(), schema);
    if (!residual.ok()) {
      return exec::DecodeError(in, residual.status().WithPrefix(fmt::format(
                                       "the residual of {}: ", task.data_file->file_path)));
    }
    task.residual = std::move(*residual);
  }
  task.estimated_row_count = m.estimated_row_count();
  if (m.parts() != 0 || m.part_begin() != 0 || m.part_end() != 0) {
    task.part_begin = m.part_begin();
    task.part_end = m.part_end();
    task.parts = m.parts();
    if (task.parts < 1 || task.part_begin < 0 || task.part_begin >= task.part_end ||
        task.part_end > task.parts) {
      return in.Corrupt(fmt::format("the task of {} is rows [{}, {}) of {} parts",
                                    task.data_file->file_path, task.part_begin, task.part_end,
                                    task.parts));
    }
  }
  return task;
}

}  // namespace

Status IcebergScanExec::Encode(codec::PlanEncoder& out) const {
  pb::IcebergScanNode m;
  const iceberg::TableScan& scan = *parts_.scan;
  const iceberg::TableMetadata& metadata = scan.metadata();
  if (parts_.table.metadata.get() != &metadata) {
    return Status::NotSupported("table {}: the scan was planned over other metadata than {}",
                                parts_.table_name, parts_.table.metadata_location);
  }
  m.set_table_name(parts_.table_name);
  FLOE_RETURN_NOT_OK(internal::EncodeTableRef(parts_.table, parts_.table_name, m.mutable_table()));
  const iceberg::Schema& schema = *scan.schema();
  if (const iceberg::Snapshot* snapshot = scan.snapshot()) {
    m.mutable_snapshot_id()->set_value(snapshot->snapshot_id);
    // A scan of the current snapshot with the current schema rebuilds unpinned; any other
    // selects its snapshot, and with it the snapshot's schema.
    m.set_pinned(metadata.current_snapshot_id != snapshot->snapshot_id ||
                 schema.schema_id() != metadata.current_schema_id);
  }
  m.set_schema_id(schema.schema_id());
  const iceberg::Schema& projected = *scan.projected_schema();
  for (const Field& field : projected.fields()) {
    const Field* full = schema.FindFieldById(field.field_id());
    if (full == nullptr && !iceberg::IsMetadataColumn(field.field_id())) {
      return Status::Internal("table {}: projected field {} is not in the scan's schema",
                              parts_.table_name, field.field_id());
    }
    std::vector<int32_t> ids;
    if (iceberg::IsMetadataColumn(field.field_id())) {
      m.add_projected_field_ids(field.field_id());
      continue;
    }
    ProjectionIds(field, *full, &ids);
    for (int32_t id : ids) m.add_projected_field_ids(id);
  }
  codec::EncodeSchema(*projected.columns(), m.mutable_projected_schema());
  if (scan.bound_filter()) {
    FLOE_RETURN_NOT_OK(codec::EncodeIcebergExpression(*scan.bound_filter(), m.mutable_filter()));
  }
  FileTable files;
  for (const iceberg::ScanTaskGroup& group : parts_.groups) {
    pb::IcebergScanTaskGroup* g = m.add_groups();
    for (const iceberg::FileScanTask& task : group.tasks) {
      FLOE_RETURN_NOT_OK(EncodeTask(task, &files, &m, g->add_tasks()));
    }
    g->set_total_bytes(group.total_bytes);
    g->set_estimated_row_count(group.estimated_row_count);
  }
  for (int c : parts_.projection) m.add_projection(c);
  for (const expr::ExprPtr& filter : parts_.filters) {
    FLOE_RETURN_NOT_OK(codec::EncodeExpr(*filter, m.add_filters()));
  }
  if (parts_.limit) m.mutable_limit()->set_value(*parts_.limit);
  exec::EncodeDynamicFilterUses(dynamic_filters_, m.mutable_dynamic_filters());
  return out.SetPayload(m);
}

Result<exec::PlanPtr> IcebergScanExec::Decode(codec::PlanDecoder& in,
                                              std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  pb::IcebergScanNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  const std::string& name = m.table_name();
  Parts parts;
  parts.table_name = name;
  FLOE_ASSIGN_OR_RAISE(parts.table, internal::DecodeTableRef(in, m.table(), name));
  const iceberg::TableMetadataPtr& metadata = parts.table.metadata;
  // The schema the scan reads with, resolved as TableScan::Make will, so that the filter
  // binds to it first.
  iceberg::SchemaPtr schema = metadata->CurrentSchema();
  iceberg::ScanOptions options;
  if (m.pinned()) {
    if (!m.has_snapshot_id()) return in.Corrupt("a pinned scan without a snapshot");
    const iceberg::Snapshot* snapshot = metadata->SnapshotById(m.snapshot_id().value());
    if (snapshot == nullptr) {
      return in.Corrupt(fmt::format("table {} has no snapshot {} in {}", name,
                                    m.snapshot_id().value(), parts.table.metadata_location));
    }
    options.snapshot.snapshot_id = m.snapshot_id().value();
    schema = metadata->SchemaForSnapshot(*snapshot);
  }
  if (schema == nullptr || schema->schema_id() != m.schema_id()) {
    return in.Corrupt(fmt::format("table {}: the scan reads schema {}, the metadata gives {}", name,
                                  m.schema_id(), schema ? schema->schema_id() : -1));
  }
  options.projected_field_ids.assign(m.projected_field_ids().begin(),
                                     m.projected_field_ids().end());
  if (m.has_filter()) {
    Result<iceberg::ExpressionPtr> filter = codec::DecodeIcebergExpression(m.filter(), *schema);
    if (!filter.ok())
      return exec::DecodeError(in, filter.status().WithPrefix("the scan's filter: "));
    options.filter = std::move(*filter);
  }
  Result<std::unique_ptr<iceberg::TableScan>> made =
      iceberg::TableScan::Make(metadata, parts.table.io, std::move(options));
  if (!made.ok()) return exec::DecodeError(in, made.status());
  std::shared_ptr<const iceberg::TableScan> scan = std::move(*made);
  const iceberg::Snapshot* snapshot = scan->snapshot();
  if (m.has_snapshot_id() != (snapshot != nullptr) ||
      (snapshot != nullptr && snapshot->snapshot_id != m.snapshot_id().value())) {
    return in.Corrupt(fmt::format(
        "table {}: the scan reads snapshot {}, the metadata gives {}", name,
        m.has_snapshot_id() ? std::to_string(m.snapshot_id().value()) : std::string("none"),
        snapshot ? std::to_string(snapshot->snapshot_id) : std::string("none")));
  }
  Result<SchemaPtr> projected = codec::DecodeSchema(m.projected_schema());
  if (!projected.ok()) return exec::DecodeError(in, projected.status());
  if (!(*projected)->Equals(*scan->projected_schema()->columns())) {
    return in.Corrupt(fmt::format("table {}: the projected field ids select {}, the plan has {}",
                                  name, scan->projected_schema()->columns()->ToString(),
                                  (*projected)->ToString()));
  }
  std::vector<iceberg::DataFilePtr> files;
  files.reserve(static_cast<size_t>(m.files_size()));
  for (const pb::IcebergDataFile& f : m.files()) {
    Result<iceberg::DataFilePtr> file = codec::DecodeDataFile(f);
    if (!file.ok()) return exec::DecodeError(in, file.status());
    files.push_back(std::move(*file));
  }
  for (const pb::IcebergScanTaskGroup& g : m.groups()) {
    iceberg::ScanTaskGroup group;
    for (const pb::IcebergScanTask& t : g.tasks()) {
      FLOE_ASSIGN_OR_RAISE(iceberg::FileScanTask task,
                           DecodeTask(in, t, files, *metadata, *scan->schema()));
      group.tasks.push_back(std::move(task));
    }
    group.total_bytes = g.total_bytes();
    group.estimated_row_count = g.estimated_row_count();
    parts.groups.push_back(std::move(group));
  }
  const int columns = scan->projected_schema()->num_fields();
  for (int32_t c : m.projection()) {
    if (c < 0 || c >= columns) {
      return in.Corrupt(fmt::format("projected column {} of {}", c, columns));
    }
    parts.projection.push_back(c);
  }
  // The filters are over the table's columns as SQL sees them (IcebergTable::schema()).
  FLOE_ASSIGN_OR_RAISE(
      parts.filters, exec::DecodeNodeFilters(in, m.filters(),
                                             ApplyDeclaredTypes(scan->schema()->columns(),
                                                                parts.table.metadata->properties)));
  FLOE_ASSIGN_OR_RAISE(parts.limit, exec::DecodeNodeLimit(in, m.has_limit(), m.limit()));
  parts.scan = std::move(scan);
  Result<exec::PlanPtr> plan = Make(std::move(parts));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  exec::PlanPtr out =
      exec::WithDynamicFilters(*plan, exec::DecodeDynamicFilterUses(m.dynamic_filters()));
  if (out == nullptr) return in.Corrupt("a dynamic filter over a column that cannot take one");
  return out;
}

}  // namespace floe::connector
