#include "floe/iceberg/snapshot_producer.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <random>
#include <thread>
#include <unordered_set>

#include "floe/common/ascii.h"
#include "floe/iceberg/delete_filter.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/table_update.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> IntProperty(const std::map<std::string, std::string>& properties,
                            const std::string& key, int64_t default_value) {
  auto it = properties.find(key);
  if (it == properties.end()) return default_value;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) {
    return Status::Invalid("table property {} must be a non-negative integer, got '{}'", key, text);
  }
  return value;
}

std::string StripSlash(std::string location) {
  while (!location.empty() && location.back() == '/') location.pop_back();
  return location;
}

/// A key that identifies a partition of a spec (for sets of partitions).
std::string PartitionKey(int32_t spec_id, const PartitionValues& values) {
  std::string key = std::to_string(spec_id);
  for (const Scalar& v : values) {
    key.push_back('\0');
    if (v.is_null()) {
      key += "\x01null";
    } else {
      key += LiteralToString(v);
    }
  }
  return key;
}

/// "spec 0 (day=2024-01-01, bucket=3)" for messages.
std::string DescribePartition(const PartitionSpec* spec, int32_t spec_id,
                              const PartitionValues& values) {
  std::string out = "partition (";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    if (spec != nullptr && i < spec->fields().size()) out += spec->fields()[i].name + "=";
    out += values[i].is_null() ? "null" : LiteralToString(values[i]);
  }
  out += ") of spec " + std::to_string(spec_id);
  return out;
}

/// Snapshot summary counters (spec, "Snapshot Summary").
struct SummaryCounts {
  int64_t added_data_files = 0;
  int64_t deleted_data_files = 0;
  int64_t added_delete_files = 0;
  int64_t added_pos_delete_files = 0;
  int64_t added_eq_delete_files = 0;
  int64_t removed_delete_files = 0;
  int64_t removed_pos_delete_files = 0;
  int64_t removed_eq_delete_files = 0;
  int64_t added_records = 0;
  int64_t deleted_records = 0;
  int64_t added_size = 0;
  int64_t removed_size = 0;
  int64_t added_pos_deletes = 0;
  int64_t removed_pos_deletes = 0;
  int64_t added_eq_deletes = 0;
  int64_t removed_eq_deletes = 0;
  std::set<std::string> partitions;

  void Added(const DataFile& f) {
    added_size += f.file_size_in_bytes;
    partitions.insert(PartitionKey(f.spec_id, f.partition));
    switch (f.content) {
      case FileContent::kData:
        ++added_data_files;
        added_records += f.record_count;
        break;
      case FileContent::kPositionDeletes:
        ++added_delete_files;
        ++added_pos_delete_files;
        added_pos_deletes += f.record_count;
        break;
      case FileContent::kEqualityDeletes:
        ++added_delete_files;
        ++added_eq_delete_files;
        added_eq_deletes += f.record_count;
        break;
    }
  }
  void Removed(const DataFile& f) {
    removed_size += f.file_size_in_bytes;
    partitions.insert(PartitionKey(f.spec_id, f.partition));
    switch (f.content) {
      case FileContent::kData:
        ++deleted_data_files;
        deleted_records += f.record_count;
        break;
      case FileContent::kPositionDeletes:
        ++removed_delete_files;
        ++removed_pos_delete_files;
        removed_pos_deletes += f.record_count;
        break;
      case FileContent::kEqualityDeletes:
        ++removed_delete_files;
        ++removed_eq_delete_files;
        removed_eq_deletes += f.record_count;
        break;
    }
  }
};

void SetIfPositive(std::map<std::string, std::string>& summary, const char* key, int64_t v) {
  if (v > 0) summary[key] = std::to_string(v);
}

/// The summary of a snapshot with `counts` over `parent` (totals carried from the parent's
/// summary; a total the parent lacks is not written, as it cannot be known).
std::map<std::string, std::string> BuildSummary(const std::string& operation,
                                                const SummaryCounts& c, const Snapshot* parent,
                                                const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> s = extra;
  s["operation"] = operation;
  SetIfPositive(s, "added-data-files", c.added_data_files);
  SetIfPositive(s, "deleted-data-files", c.deleted_data_files);
  SetIfPositive(s, "added-delete-files", c.added_delete_files);
  SetIfPositive(s, "added-position-delete-files", c.added_pos_delete_files);
  SetIfPositive(s, "added-equality-delete-files", c.added_eq_delete_files);
  SetIfPositive(s, "removed-delete-files", c.removed_delete_files);
  SetIfPositive(s, "removed-position-delete-files", c.removed_pos_delete_files);
  SetIfPositive(s, "removed-equality-delete-files", c.removed_eq_delete_files);
  SetIfPositive(s, "added-records", c.added_records);
  SetIfPositive(s, "deleted-records", c.deleted_records);
  SetIfPositive(s, "added-files-size", c.added_size);
  SetIfPositive(s, "removed-files-size", c.removed_size);
  SetIfPositive(s, "added-position-deletes", c.added_pos_deletes);
  SetIfPositive(s, "removed-position-deletes", c.removed_pos_deletes);
  SetIfPositive(s, "added-equality-deletes", c.added_eq_deletes);
  SetIfPositive(s, "removed-equality-deletes", c.removed_eq_deletes);
  s["changed-partition-count"] = std::to_string(c.partitions.size());

  auto total = [&](const char* key, int64_t delta) {
    int64_t previous = 0;
    if (parent != nullptr) {
      auto it = parent->summary.find(key);
      if (it == parent->summary.end()) return;
      const std::string& text = it->second;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), previous);
      if (ec != std::errc() || ptr != text.data() + text.size()) return;
    }
    s[key] = std::to_string(previous + delta);
  };
  total("total-records", c.added_records - c.deleted_records);
  total("total-files-size", c.added_size - c.removed_size);
  total("total-data-files", c.added_data_files - c.deleted_data_files);
  total("total-delete-files", c.added_delete_files - c.removed_delete_files);
  total("total-position-deletes", c.added_pos_deletes - c.removed_pos_deletes);
  total("total-equality-deletes", c.added_eq_deletes - c.removed_eq_deletes);
  return s;
}

/// Packs items into bins of at most `target` weight, filling from the end of the list
/// (so that the bin holding the first, newest items is the one left partly empty), with
/// each bin's items and the bins in the original order.
std::vector<std::vector<ManifestFile>> PackEnd(const std::vector<ManifestFile>& items,
                                               int64_t target) {
  std::vector<std::vector<ManifestFile>> bins;
  std::vector<ManifestFile> current;
  int64_t weight = 0;
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (!current.empty() && weight + it->manifest_length > target) {
      std::reverse(current.begin(), current.end());
      bins.push_back(std::move(current));
      current.clear();
      weight = 0;
    }
    current.push_back(*it);
    weight += it->manifest_length;
  }
  if (!current.empty()) {
    std::reverse(current.begin(), current.end());
    bins.push_back(std::move(current));
  }
  std::reverse(bins.begin(), bins.end());
  return bins;
}

/// What filtering one manifest of the parent snapshot gave.
struct FilteredManifest {
  /// The manifest to carry into the new snapshot (the original when nothing was removed).
  ManifestFile manifest;
  /// The entries removed by this operation.
  std::vector<ManifestEntry> removed;
  /// Live file paths of the manifest that were named for removal.
  std::vector<std::string> found_paths;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

Result<CommitRetryOptions> CommitRetryOptions::FromProperties(
    const std::map<std::string, std::string>& properties) {
  CommitRetryOptions o;
  FLOE_ASSIGN_OR_RAISE(int64_t retries,
                       IntProperty(properties, "commit.retry.num-retries", o.num_retries));
  if (retries > 1000) {
    return Status::Invalid("table property commit.retry.num-retries is too large: {}", retries);
  }
  o.num_retries = static_cast<int>(retries);
  FLOE_ASSIGN_OR_RAISE(o.min_wait_ms,
                       IntProperty(properties, "commit.retry.min-wait-ms", o.min_wait_ms));
  FLOE_ASSIGN_OR_RAISE(o.max_wait_ms,
                       IntProperty(properties, "commit.retry.max-wait-ms", o.max_wait_ms));
  FLOE_ASSIGN_OR_RAISE(o.total_timeout_ms, IntProperty(properties, "commit.retry.total-timeout-ms",
                                                       o.total_timeout_ms));
  return o;
}

Result<ManifestMergeOptions> ManifestMergeOptions::FromProperties(
    const std::map<std::string, std::string>& properties) {
  ManifestMergeOptions o;
  auto it = properties.find("commit.manifest-merge.enabled");
  if (it != properties.end()) {
    const std::string v = AsciiLower(it->second);
    if (v == "true") {
      o.enabled = true;
    } else if (v == "false") {
      o.enabled = false;
    } else {
      return Status::Invalid(
          "table property commit.manifest-merge.enabled must be true or false, got '{}'",
          it->second);
    }
  }
  FLOE_ASSIGN_OR_RAISE(
      int64_t min_count,
      IntProperty(properties, "commit.manifest.min-count-to-merge", o.min_count_to_merge));
  o.min_count_to_merge = static_cast<int>(std::min<int64_t>(min_count, 1 << 30));
  FLOE_ASSIGN_OR_RAISE(
      o.target_size_bytes,
      IntProperty(properties, "commit.manifest.target-size-bytes", o.target_size_bytes));
  return o;
}

Result<Table> RunWithRetries(const CommitRetryOptions& options,
                             const std::function<Result<Table>(int attempt)>& attempt,
                             const std::function<bool(const Status&)>& retryable) {
  const int64_t start = NowMs();
  for (int n = 0;; ++n) {
    Result<Table> result = attempt(n);
    if (result.has_value()) return result;
    const Status& status = result.error();
    if (status.code() != StatusCode::kCommitConflict) return result;
    if (retryable && !retryable(status)) return result;
    if (n >= options.num_retries) {
      return status.WithPrefix(fmt::format("commit failed after {} attempts: ", n + 1));
    }
    int64_t wait = options.min_wait_ms;
    for (int i = 0; i < n && wait < options.max_wait_ms; ++i) wait *= 2;
    wait = std::min(wait, options.max_wait_ms);
    if (NowMs() - start + wait > options.total_timeout_ms) {
      return status.WithPrefix(
          fmt::format("commit failed after {} attempts (retry timeout of {} ms reached): ", n + 1,
                      options.total_timeout_ms));
    }
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
}

std::string DeleteFileKey(const DataFile& file) {
  if (!file.content_offset) return file.file_path;
  return file.file_path + "@" + std::to_string(*file.content_offset);
}

int64_t NewSnapshotId(const TableMetadata* metadata) {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<uint64_t>(NowMs()) ^
                                          std::hash<std::thread::id>{}(std::this_thread::get_id())};
  for (;;) {
    auto id =
        static_cast<int64_t>(rng() & static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
    if (id == 0) continue;
    if (metadata != nullptr && metadata->SnapshotById(id) != nullptr) continue;
    return id;
  }
}

// ---------------------------------------------------------------------------------------
// SnapshotProducer
// ---------------------------------------------------------------------------------------

struct SnapshotProducer::State {
  std::string branch{kMainBranch};
  std::map<std::string, std::string> custom_summary;
  std::optional<CommitRetryOptions> retry_override;
  std::string uuid = NewUuid();
  int manifest_counter = 0;
  bool started = false;
  std::optional<int64_t> starting_snapshot_id;
  /// A validation failure: a real conflict, not retried.
  bool fatal_conflict = false;
  bool committed = false;

  bool new_manifests_written = false;
  std::vector<ManifestFile> new_manifests;
  std::map<std::string, FilteredManifest> filtered;
  std::map<std::string, ManifestFile> merged;
  /// Every file this operation wrote, in order.
  std::vector<std::string> written;

  TableOperationsPtr ops;

  std::string NextManifestPath(const TableMetadata& base) {
    return StripSlash(base.location) + "/metadata/" + uuid + "-m" +
           std::to_string(manifest_counter++) + ".avro";
  }
};

SnapshotProducer::SnapshotProducer(TableOperationsPtr ops, std::string operation,
                                   bool merge_manifests)
    : ops_(std::move(ops)),
      operation_(std::move(operation)),
      merge_manifests_(merge_manifests),
      state_(std::make_unique<State>()) {
  state_->ops = ops_;
}

SnapshotProducer::~SnapshotProducer() = default;

void SnapshotProducer::ToBranch(std::string branch) { state_->branch = std::move(branch); }

void SnapshotProducer::SetSummaryProperty(std::string key, std::string value) {
  state_->custom_summary[std::move(key)] = std::move(value);
}

void SnapshotProducer::SetRetryOptions(CommitRetryOptions options) {
  state_->retry_override = options;
}

Status SnapshotProducer::AddFileInternal(DataFilePtr file) {
  if (file == nullptr) return Status::Invalid("cannot add a null data file");
  if (file->content == FileContent::kData) {
    added_data_files_.push_back(std::move(file));
  } else {
    added_delete_files_.push_back(std::move(file));
  }
  return Status::OK();
}

void SnapshotProducer::DeletePathInternal(std::string path) {
  delete_paths_.insert(std::move(path));
}

void SnapshotProducer::DeleteByFilterInternal(ExpressionPtr filter) {
  delete_filter_ =
      delete_filter_ ? Expression::Or(delete_filter_, std::move(filter)) : std::move(filter);
}

namespace {

/// Binds and projects a row filter through each spec on demand.
class FilterProjections {
 public:
  FilterProjections(ExpressionPtr bound, SchemaPtr schema)
      : bound_(std::move(bound)), schema_(std::move(schema)) {}

  struct ForSpec {
    PartitionSpecPtr spec;
    TypePtr partition_type;
    ExpressionPtr inclusive;
    ExpressionPtr strict;
    std::unique_ptr<ManifestEvaluator> manifest_evaluator;
  };

  Result<const ForSpec*> Get(const TableMetadata& base, int32_t spec_id) {
    auto it = by_spec_.find(spec_id);
    if (it != by_spec_.end()) return &it->second;
    PartitionSpecPtr spec = base.SpecById(spec_id);
    if (spec == nullptr) {
      return Status::Corrupt("table has no partition spec {} (named by a manifest)", spec_id);
    }
    ForSpec f;
    f.spec = spec;
    FLOE_ASSIGN_OR_RAISE(f.partition_type, spec->PartitionType(*schema_));
    FLOE_ASSIGN_OR_RAISE(f.inclusive, ProjectInclusive(bound_, *spec, *schema_, f.partition_type));
    FLOE_ASSIGN_OR_RAISE(f.strict, ProjectStrict(bound_, *spec, *schema_, f.partition_type));
    FLOE_ASSIGN_OR_RAISE(f.manifest_evaluator,
                         ManifestEvaluator::Make(f.inclusive, f.partition_type));
    return &by_spec_.emplace(spec_id, std::move(f)).first->second;
  }

  const ExpressionPtr& bound() const { return bound_; }
  const SchemaPtr& schema() const { return schema_; }

 private:
  ExpressionPtr bound_;
  SchemaPtr schema_;
  std::map<int32_t, ForSpec> by_spec_;
};

}  // namespace

/// What one commit attempt works on: the table as refreshed, and what each step leaves for the
/// steps after it.
struct SnapshotProducer::Attempt {
  Attempt(int attempt, Table refreshed, std::shared_ptr<const io::FileIO> file_io)
      : number(attempt),
        table(std::move(refreshed)),
        base(*table.metadata),
        io(std::move(file_io)) {}

  /// The attempt number (0 first).
  const int number;
  const Table table;
  const TableMetadata& base;
  const std::shared_ptr<const io::FileIO> io;

  /// ResolveParent: the parent (the branch head, or the current snapshot for a branch to be
  /// created), the snapshot the branch must still be at, and the branch's ref.
  const Snapshot* parent = nullptr;
  std::optional<int64_t> ref_snapshot;
  std::optional<SnapshotRef> existing_ref;
  /// CheckAgainstTable: the current schema and the format version.
  SchemaPtr schema;
  int format_version = 0;
  /// BindRemovals: the replaced partitions (ReplacePartitions) and the bound delete filter.
  std::set<std::string> replaced_partitions;
  bool replace_all = false;
  std::unique_ptr<FilterProjections> delete_filter;
  /// ValidateConcurrentCommits: the snapshots committed since the starting snapshot.
  std::vector<const Snapshot*> concurrent;
  /// AddNewFiles and FilterParentManifests: the summary's counts.
  SummaryCounts counts;
  /// FilterParentManifests: the paths named for removal that were found live, the parent's
  /// manifests carried into the new snapshot, and the data files removed.
  std::set<std::string> found_paths;
  std::vector<ManifestFile> carried;
  std::vector<DataFilePtr> removed_data;
  /// MergeManifests: the manifests of the new manifest list.
  std::vector<ManifestFile> manifests;
};

Result<Table> SnapshotProducer::Commit() {
  State& st = *state_;
  if (st.committed) {
    return Status::Invalid("table {}: this {} operation was already committed (snapshot {})",
                           ops_->name(), operation_, snapshot_id_);
  }
  st.fatal_conflict = false;
  std::set<std::string> committed_files;

  auto attempt_fn = [&](int attempt) { return CommitAttempt(attempt, &committed_files); };

  FLOE_ASSIGN_OR_RAISE(CommitRetryOptions retry, RetryOptions());
  Result<Table> result =
      RunWithRetries(retry, attempt_fn, [&](const Status&) { return !st.fatal_conflict; });
  // Files this operation wrote that the committed snapshot does not reference (earlier
  // attempts' lists and manifests, or everything after a failure) are referenced by no
  // metadata: delete them. Errors while deleting are ignored (the files are orphans).
  st.committed = result.has_value();
  if (!result.has_value() && result.error().code() == StatusCode::kCommitStateUnknown) {
    // The last attempt may have committed: its manifest list and manifests (and the files
    // of earlier attempts that it carried over) may be referenced. Keep everything.
    st.written.clear();
    return result;
  }
  DeleteUncommittedFiles(st.committed, committed_files);
  return result;
}

Result<CommitRetryOptions> SnapshotProducer::RetryOptions() const {
  const State& st = *state_;
  CommitRetryOptions retry;
  if (st.retry_override) {
    retry = *st.retry_override;
  } else {
    auto current = ops_->Refresh();
    if (current.has_value()) {
      FLOE_ASSIGN_OR_RAISE(retry,
                           CommitRetryOptions::FromProperties(current->metadata->properties));
    }
  }
  return retry;
}

void SnapshotProducer::DeleteUncommittedFiles(bool committed,
                                              const std::set<std::string>& committed_files) {
  State& st = *state_;
  std::shared_ptr<const io::FileIO> io = ops_->io();
  for (const std::string& path : st.written) {
    if (committed && committed_files.count(path) > 0) continue;
    (void)io->Delete(path);
  }
  st.written.clear();
  st.new_manifests_written = false;
  st.new_manifests.clear();
  st.filtered.clear();
  st.merged.clear();
}

Result<Table> SnapshotProducer::CommitAttempt(int attempt, std::set<std::string>* committed_files) {
  FLOE_ASSIGN_OR_RAISE(Table table, ops_->Refresh());
  Attempt a(attempt, std::move(table), ops_->io());
  FLOE_RETURN_NOT_OK(ResolveParent(a));
  AssignSnapshotId(a);
  SetStartingSnapshot(a);
  FLOE_RETURN_NOT_OK(CheckAgainstTable(a));
  FLOE_RETURN_NOT_OK(BindRemovals(a));
  FLOE_RETURN_NOT_OK(ValidateConcurrentCommits(a));
  FLOE_RETURN_NOT_OK(ValidateAddedFilesMatchFilter(a));
  FLOE_RETURN_NOT_OK(AddNewFiles(a));
  FLOE_RETURN_NOT_OK(FilterParentManifests(a));
  FLOE_RETURN_NOT_OK(ValidateDeletedFilesExist(a));
  FLOE_RETURN_NOT_OK(ValidateNoNewDeletes(a));
  FLOE_RETURN_NOT_OK(ValidateReferencedFilesExist(a));
  FLOE_RETURN_NOT_OK(MergeManifests(a));
  return CommitSnapshot(a, committed_files);
}

Status SnapshotProducer::ResolveParent(Attempt& a) {
  const State& st = *state_;
  const TableMetadata& base = a.base;
  if (auto it = base.refs.find(st.branch); it != base.refs.end()) {
    if (!it->second.is_branch()) {
      return Status::Invalid("table {}: {} is a tag, not a branch; cannot commit to it",
                             ops_->name(), st.branch);
    }
    a.parent = base.SnapshotById(it->second.snapshot_id);
    a.ref_snapshot = it->second.snapshot_id;
    a.existing_ref = it->second;
  } else if (st.branch != kMainBranch) {
    a.parent = base.CurrentSnapshot();
  }
  return Status::OK();
}

void SnapshotProducer::AssignSnapshotId(const Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  if (snapshot_id_ == 0 || base.SnapshotById(snapshot_id_) != nullptr) {
    if (snapshot_id_ != 0) {
      // The id was taken by a concurrent commit: everything written with it is stale.
      st.new_manifests_written = false;
      st.new_manifests.clear();
      st.filtered.clear();
      st.merged.clear();
    }
    snapshot_id_ = NewSnapshotId(&base);
  }
}

void SnapshotProducer::SetStartingSnapshot(const Attempt& a) {
  State& st = *state_;
  const Snapshot* parent = a.parent;
  if (!st.started) {
    st.started = true;
    if (!validate_from_snapshot_id_) {
      st.starting_snapshot_id = parent ? std::optional<int64_t>(parent->snapshot_id) : std::nullopt;
    } else {
      st.starting_snapshot_id = validate_from_snapshot_id_;
    }
  }
}

Status SnapshotProducer::CheckAgainstTable(Attempt& a) {
  const TableMetadata& base = a.base;
  for (const auto& f : added_data_files_) {
    if (f == nullptr || f->content != FileContent::kData) {
      return Status::Invalid("table {}: only data files can be appended ({} is a delete file)",
                             ops_->name(), f ? f->file_path : std::string("null"));
    }
  }
  a.schema = base.CurrentSchema();
  if (a.schema == nullptr) return Status::Corrupt("table {} has no current schema", ops_->name());
  a.format_version = base.format_version;
  if (a.format_version < 2 && !added_delete_files_.empty()) {
    return Status::Invalid("table {}: delete files need format version 2 or later (table is v{})",
                           ops_->name(), a.format_version);
  }
  return Status::OK();
}

Status SnapshotProducer::BindRemovals(Attempt& a) {
  const TableMetadata& base = a.base;
  const SchemaPtr& schema = a.schema;
  // Replaced partitions (ReplacePartitions).
  if (replace_added_partitions_) {
    for (const auto& f : added_data_files_) {
      PartitionSpecPtr spec = base.SpecById(f->spec_id);
      if (spec != nullptr && spec->is_unpartitioned()) a.replace_all = true;
      a.replaced_partitions.insert(PartitionKey(f->spec_id, f->partition));
    }
  }

  // The delete filter and the conflict detection filter, bound to the current schema.
  if (delete_filter_) {
    FLOE_ASSIGN_OR_RAISE(ExpressionPtr bound, Bind(delete_filter_, *schema, case_sensitive_));
    a.delete_filter = std::make_unique<FilterProjections>(bound, schema);
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateConcurrentCommits(Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const Snapshot* parent = a.parent;
  if (parent != nullptr && st.starting_snapshot_id != parent->snapshot_id) {
    bool found_start = !st.starting_snapshot_id.has_value();
    for (int64_t id : base.Ancestors(parent->snapshot_id)) {
      if (st.starting_snapshot_id && id == *st.starting_snapshot_id) {
        found_start = true;
        break;
      }
      a.concurrent.push_back(base.SnapshotById(id));
    }
    if (!found_start) {
      st.fatal_conflict = true;
      return Status::CommitConflict(
          "table {}: cannot validate concurrent commits: snapshot {} is no longer an ancestor "
          "of branch {}",
          ops_->name(), *st.starting_snapshot_id, st.branch);
    }
    if (validate_no_conflicting_data_) {
      FLOE_RETURN_NOT_OK(ValidateNoConflictingData(a));
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateNoConflictingData(const Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const SchemaPtr& schema = a.schema;
  const std::set<std::string>& replaced_partitions = a.replaced_partitions;
  const bool replace_all = a.replace_all;
  const std::vector<const Snapshot*>& concurrent = a.concurrent;
  std::unique_ptr<FilterProjections> conflict;
  ExpressionPtr conflict_expr = conflict_detection_filter_;
  if (!conflict_expr && !replace_added_partitions_) {
    conflict_expr = delete_paths_.empty() && delete_filter_ ? delete_filter_ : Expression::True();
  }
  if (conflict_expr) {
    FLOE_ASSIGN_OR_RAISE(ExpressionPtr bound, Bind(conflict_expr, *schema, case_sensitive_));
    conflict = std::make_unique<FilterProjections>(bound, schema);
  }
  for (const Snapshot* snap : concurrent) {
    if (snap == nullptr) continue;
    std::string op = snap->operation();
    if (op != "append" && op != "overwrite") continue;
    std::vector<ManifestFile> manifests;
    if (!snap->manifest_list.empty()) {
      FLOE_ASSIGN_OR_RAISE(manifests, ReadManifestList(*io, snap->manifest_list));
    } else {
      FLOE_ASSIGN_OR_RAISE(
          manifests,
          ManifestFilesFromPaths(*io, snap->manifests, snap->snapshot_id, base.default_spec_id));
    }
    for (const ManifestFile& m : manifests) {
      if (m.content != FileContent::kData || m.added_snapshot_id != snap->snapshot_id) continue;
      if (m.added_files_count && *m.added_files_count == 0) continue;
      PartitionSpecPtr spec = base.SpecById(m.partition_spec_id);
      if (spec == nullptr) continue;
      const FilterProjections::ForSpec* proj = nullptr;
      if (conflict) {
        FLOE_ASSIGN_OR_RAISE(proj, conflict->Get(base, m.partition_spec_id));
        FLOE_ASSIGN_OR_RAISE(bool may, proj->manifest_evaluator->MayMatch(m));
        if (!may) continue;
      }
      FLOE_ASSIGN_OR_RAISE(auto entries,
                           ReadManifest(*io, m, *spec, *schema, ManifestReadOptions::Live()));
      for (const ManifestEntry& e : entries) {
        if (e.status != ManifestEntryStatus::kAdded || e.snapshot_id != snap->snapshot_id) {
          continue;
        }
        const DataFile& f = *e.data_file;
        bool conflicts = false;
        if (replace_added_partitions_) {
          conflicts =
              replace_all || replaced_partitions.count(PartitionKey(f.spec_id, f.partition)) > 0;
        }
        if (!conflicts && conflict) {
          FLOE_ASSIGN_OR_RAISE(bool in_partition, EvaluatePartition(*proj->inclusive, f.partition));
          if (in_partition) {
            FLOE_ASSIGN_OR_RAISE(conflicts,
                                 InclusiveMetricsMayMatch(*conflict->bound(), *schema, f));
          }
        }
        if (conflicts) {
          st.fatal_conflict = true;
          return Status::CommitConflict(
              "table {}: found conflicting data file {} in {}, added by concurrent snapshot "
              "{} ({})",
              ops_->name(), f.file_path, DescribePartition(spec.get(), f.spec_id, f.partition),
              snap->snapshot_id, op);
        }
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateAddedFilesMatchFilter(const Attempt& a) {
  const TableMetadata& base = a.base;
  const SchemaPtr& schema = a.schema;
  const std::unique_ptr<FilterProjections>& delete_filter = a.delete_filter;
  if (validate_added_files_match_filter_ && delete_filter != nullptr) {
    for (const auto& f : added_data_files_) {
      FLOE_ASSIGN_OR_RAISE(const FilterProjections::ForSpec* proj,
                           delete_filter->Get(base, f->spec_id));
      FLOE_ASSIGN_OR_RAISE(bool all, EvaluatePartition(*proj->strict, f->partition));
      if (!all) {
        FLOE_ASSIGN_OR_RAISE(all, StrictMetricsAllMatch(*delete_filter->bound(), *schema, *f));
      }
      if (!all) {
        return Status::Invalid(
            "table {}: added file {} may hold rows that do not match the overwrite filter '{}'",
            ops_->name(), f->file_path, delete_filter_->ToString());
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::AddNewFiles(Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const SchemaPtr& schema = a.schema;
  const int format_version = a.format_version;
  SummaryCounts& counts = a.counts;
  for (const auto& f : added_data_files_) counts.Added(*f);
  for (const auto& f : added_delete_files_) counts.Added(*f);

  if (!st.new_manifests_written) {
    auto write_group = [&](const std::vector<DataFilePtr>& files, FileContent content) -> Status {
      std::map<int32_t, std::vector<DataFilePtr>> by_spec;
      for (const auto& f : files) by_spec[f->spec_id].push_back(f);
      for (const auto& [spec_id, group] : by_spec) {
        PartitionSpecPtr spec = base.SpecById(spec_id);
        if (spec == nullptr) {
          return Status::Invalid(
              "table {}: added file {} names partition spec {}, which the "
              "table does not have",
              ops_->name(), group.front()->file_path, spec_id);
        }
        ManifestWriterOptions wo;
        wo.format_version = format_version;
        wo.content = content;
        wo.snapshot_id = snapshot_id_;
        std::string path = st.NextManifestPath(base);
        st.written.push_back(path);
        FLOE_ASSIGN_OR_RAISE(auto writer,
                             ManifestWriter::Make(*io, path, *schema, *spec, std::move(wo)));
        for (const auto& f : group) FLOE_RETURN_NOT_OK(writer->Add(*f));
        FLOE_ASSIGN_OR_RAISE(ManifestFile mf, writer->Close());
        st.new_manifests.push_back(std::move(mf));
      }
      return Status::OK();
    };
    FLOE_RETURN_NOT_OK(write_group(added_data_files_, FileContent::kData));
    FLOE_RETURN_NOT_OK(write_group(added_delete_files_, FileContent::kPositionDeletes));
    st.new_manifests_written = true;
  }
  return Status::OK();
}

Status SnapshotProducer::FilterParentManifests(Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const Snapshot* parent = a.parent;
  const SchemaPtr& schema = a.schema;
  const int format_version = a.format_version;
  const std::set<std::string>& replaced_partitions = a.replaced_partitions;
  const bool replace_all = a.replace_all;
  const std::unique_ptr<FilterProjections>& delete_filter = a.delete_filter;
  std::vector<ManifestFile> parent_manifests;
  if (parent != nullptr) {
    if (!parent->manifest_list.empty()) {
      FLOE_ASSIGN_OR_RAISE(parent_manifests, ReadManifestList(*io, parent->manifest_list));
    } else {
      FLOE_ASSIGN_OR_RAISE(parent_manifests,
                           ManifestFilesFromPaths(*io, parent->manifests, parent->snapshot_id,
                                                  base.default_spec_id));
    }
  }
  const bool removes_files = !delete_paths_.empty() || delete_filter != nullptr ||
                             replace_added_partitions_ || !removed_delete_keys_.empty();
  std::set<std::string>& found_paths = a.found_paths;
  std::vector<ManifestFile>& carried = a.carried;
  std::vector<DataFilePtr>& removed_data = a.removed_data;
  SummaryCounts& counts = a.counts;
  for (const ManifestFile& m : parent_manifests) {
    bool has_live = !(m.added_files_count && m.existing_files_count &&
                      *m.added_files_count + *m.existing_files_count == 0);
    // A manifest left with only DELETED entries by an earlier snapshot is history: it is
    // not carried into the new snapshot.
    if (!has_live) continue;
    if (!removes_files) {
      carried.push_back(m);
      continue;
    }
    auto cached = st.filtered.find(m.manifest_path);
    if (cached == st.filtered.end()) {
      PartitionSpecPtr spec = base.SpecById(m.partition_spec_id);
      if (spec == nullptr) {
        return Status::Corrupt(
            "table {}: manifest {} names partition spec {}, which the table "
            "does not have",
            ops_->name(), m.manifest_path, m.partition_spec_id);
      }
      const FilterProjections::ForSpec* proj = nullptr;
      bool may_match_filter = false;
      if (delete_filter) {
        FLOE_ASSIGN_OR_RAISE(proj, delete_filter->Get(base, m.partition_spec_id));
        FLOE_ASSIGN_OR_RAISE(may_match_filter, proj->manifest_evaluator->MayMatch(m));
      }
      bool may_match_partition = false;
      if (replace_added_partitions_) {
        may_match_partition = replace_all;
        for (const auto& f : added_data_files_) {
          if (f->spec_id == m.partition_spec_id) may_match_partition = true;
        }
      }
      const bool may_hold_removed_deletes =
          !removed_delete_keys_.empty() && m.content != FileContent::kData;
      if (delete_paths_.empty() && !may_match_filter && !may_match_partition &&
          !may_hold_removed_deletes) {
        carried.push_back(m);
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(auto entries,
                           ReadManifest(*io, m, *spec, *schema, ManifestReadOptions::Live()));
      FilteredManifest result;
      std::vector<bool> remove(entries.size(), false);
      for (size_t i = 0; i < entries.size(); ++i) {
        const DataFile& f = *entries[i].data_file;
        if (delete_paths_.count(f.file_path) > 0) {
          remove[i] = true;
          result.found_paths.push_back(f.file_path);
          continue;
        }
        if (may_hold_removed_deletes && f.content != FileContent::kData &&
            removed_delete_keys_.count(DeleteFileKey(f)) > 0) {
          remove[i] = true;
          result.found_paths.push_back(DeleteFileKey(f));
          continue;
        }
        if (may_match_partition &&
            (replace_all || replaced_partitions.count(PartitionKey(f.spec_id, f.partition)) > 0)) {
          remove[i] = true;
          continue;
        }
        if (may_match_filter) {
          FLOE_ASSIGN_OR_RAISE(bool all_partition, EvaluatePartition(*proj->strict, f.partition));
          bool all = all_partition;
          if (!all) {
            FLOE_ASSIGN_OR_RAISE(all, StrictMetricsAllMatch(*delete_filter->bound(), *schema, f));
          }
          if (all) {
            remove[i] = true;
            continue;
          }
          if (f.content == FileContent::kData) {
            FLOE_ASSIGN_OR_RAISE(bool some_partition,
                                 EvaluatePartition(*proj->inclusive, f.partition));
            bool some = some_partition;
            if (some) {
              FLOE_ASSIGN_OR_RAISE(some,
                                   InclusiveMetricsMayMatch(*delete_filter->bound(), *schema, f));
            }
            if (some) {
              return Status::Invalid(
                  "table {}: cannot delete data file {} by filter '{}': some of its rows may "
                  "match and others may not (needs row-level deletes)",
                  ops_->name(), f.file_path, delete_filter_->ToString());
            }
          }
        }
      }
      if (std::find(remove.begin(), remove.end(), true) == remove.end()) {
        result.manifest = m;
      } else {
        ManifestWriterOptions wo;
        wo.format_version = format_version;
        wo.content = m.content;
        wo.snapshot_id = snapshot_id_;
        std::string path = st.NextManifestPath(base);
        st.written.push_back(path);
        FLOE_ASSIGN_OR_RAISE(auto writer,
                             ManifestWriter::Make(*io, path, *schema, *spec, std::move(wo)));
        for (size_t i = 0; i < entries.size(); ++i) {
          if (remove[i]) {
            FLOE_RETURN_NOT_OK(writer->Delete(entries[i]));
            result.removed.push_back(entries[i]);
          } else {
            FLOE_RETURN_NOT_OK(writer->Existing(entries[i]));
          }
        }
        FLOE_ASSIGN_OR_RAISE(result.manifest, writer->Close());
      }
      cached = st.filtered.emplace(m.manifest_path, std::move(result)).first;
    }
    for (const auto& e : cached->second.removed) {
      counts.Removed(*e.data_file);
      if (e.data_file->content == FileContent::kData) removed_data.push_back(e.data_file);
    }
    found_paths.insert(cached->second.found_paths.begin(), cached->second.found_paths.end());
    carried.push_back(cached->second.manifest);
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateDeletedFilesExist(const Attempt& a) {
  State& st = *state_;
  const int attempt = a.number;
  const std::set<std::string>& found_paths = a.found_paths;
  if (validate_deleted_files_exist_) {
    for (const std::string& key : removed_delete_keys_) {
      if (found_paths.count(key) > 0) continue;
      st.fatal_conflict = true;
      return Status::CommitConflict(
          "table {}: delete file {} to be replaced is no longer in branch {} (replaced by a "
          "concurrent commit)",
          ops_->name(), key, st.branch);
    }
    for (const std::string& path : delete_paths_) {
      if (found_paths.count(path) > 0) continue;
      if (attempt > 0) {
        st.fatal_conflict = true;
        return Status::CommitConflict(
            "table {}: file {} to be removed is no longer in branch {} (removed by a "
            "concurrent commit)",
            ops_->name(), path, st.branch);
      }
      return Status::Invalid("table {}: file {} to be removed is not a live file of branch {}",
                             ops_->name(), path, st.branch);
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateNoNewDeletes(const Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const std::vector<const Snapshot*>& concurrent = a.concurrent;
  const std::vector<DataFilePtr>& removed_data = a.removed_data;
  const bool protects = !removed_data.empty() || !referenced_data_files_.empty();
  if (validate_no_new_deletes_ && protects && !concurrent.empty()) {
    // What each protected data file is called in the message, by path and by partition.
    std::map<std::string, std::string> removed_by_path;
    std::map<std::string, std::string> removed_by_partition;
    for (const auto& f : removed_data) {
      removed_by_path.emplace(f->file_path, f->file_path);
      removed_by_partition.emplace(PartitionKey(f->spec_id, f->partition), f->file_path);
    }
    for (const std::string& path : referenced_data_files_) removed_by_path.emplace(path, path);
    for (const std::string& key : referenced_partitions_) {
      removed_by_partition.emplace(key, "(a data file of its partition)");
    }
    const std::string any_file = removed_by_path.empty() ? removed_by_partition.begin()->second
                                                         : removed_by_path.begin()->second;
    for (const Snapshot* snap : concurrent) {
      if (snap == nullptr || snap->manifest_list.empty()) continue;
      FLOE_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(*io, snap->manifest_list));
      for (const ManifestFile& m : manifests) {
        if (m.content == FileContent::kData || m.added_snapshot_id != snap->snapshot_id) continue;
        FLOE_ASSIGN_OR_RAISE(auto entries,
                             ReadManifestSelfDescribed(*io, m, ManifestReadOptions::Live(false)));
        for (const ManifestEntry& e : entries) {
          if (e.status != ManifestEntryStatus::kAdded || e.snapshot_id != snap->snapshot_id) {
            continue;
          }
          const DataFile& d = *e.data_file;
          const std::string* hit = nullptr;
          const std::optional<std::string> scoped =
              d.referenced_data_file ? d.referenced_data_file : FileScopedPath(d);
          if (scoped) {
            auto it = removed_by_path.find(*scoped);
            if (it != removed_by_path.end()) hit = &it->second;
          } else {
            PartitionSpecPtr dspec = base.SpecById(d.spec_id);
            if (dspec != nullptr && dspec->is_unpartitioned()) {
              hit = &any_file;  // a global delete file applies to every data file
            } else {
              auto it = removed_by_partition.find(PartitionKey(d.spec_id, d.partition));
              if (it != removed_by_partition.end()) hit = &it->second;
            }
          }
          if (hit != nullptr) {
            st.fatal_conflict = true;
            return Status::CommitConflict(
                "table {}: delete file {} added by concurrent snapshot {} may apply to data "
                "file {}, which this {} {}",
                ops_->name(), d.file_path, snap->snapshot_id, *hit, operation_,
                referenced_data_files_.count(*hit) > 0 ? "deletes rows of" : "removes");
          }
        }
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateReferencedFilesExist(const Attempt& a) {
  State& st = *state_;
  if (referenced_data_files_.empty()) return Status::OK();
  for (const Snapshot* snap : a.concurrent) {
    if (snap == nullptr || snap->manifest_list.empty()) continue;
    const std::string op = snap->operation();
    if (op != "overwrite" && op != "delete" && op != "replace") continue;
    FLOE_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(*a.io, snap->manifest_list));
    for (const ManifestFile& m : manifests) {
      if (m.content != FileContent::kData || m.added_snapshot_id != snap->snapshot_id) continue;
      if (m.deleted_files_count && *m.deleted_files_count == 0) continue;
      FLOE_ASSIGN_OR_RAISE(auto entries,
                           ReadManifestSelfDescribed(*a.io, m, ManifestReadOptions::All(false)));
      for (const ManifestEntry& e : entries) {
        if (e.status != ManifestEntryStatus::kDeleted || e.snapshot_id != snap->snapshot_id) {
          continue;
        }
        if (referenced_data_files_.count(e.data_file->file_path) > 0) {
          st.fatal_conflict = true;
          return Status::CommitConflict(
              "table {}: data file {}, whose rows this {} deletes, was removed by concurrent "
              "snapshot {} ({})",
              ops_->name(), e.data_file->file_path, operation_, snap->snapshot_id, op);
        }
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::MergeManifests(Attempt& a) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const SchemaPtr& schema = a.schema;
  const int format_version = a.format_version;
  const std::vector<ManifestFile>& carried = a.carried;
  std::vector<ManifestFile>& manifests = a.manifests;
  FLOE_ASSIGN_OR_RAISE(ManifestMergeOptions merge,
                       ManifestMergeOptions::FromProperties(base.properties));
  if (!merge_manifests_ || !merge.enabled) {
    manifests = st.new_manifests;
    manifests.insert(manifests.end(), carried.begin(), carried.end());
  } else {
    // Groups by (spec id descending, data before deletes), new manifests first.
    std::map<std::pair<int32_t, int>, std::vector<ManifestFile>, std::greater<>> groups;
    auto group_key = [](const ManifestFile& m) {
      return std::make_pair(m.partition_spec_id, m.content == FileContent::kData ? 1 : 0);
    };
    for (const auto& m : st.new_manifests) groups[group_key(m)].push_back(m);
    for (const auto& m : carried) groups[group_key(m)].push_back(m);
    for (auto& [key, group] : groups) {
      const std::string& first = group.front().manifest_path;
      for (auto& bin : PackEnd(group, merge.target_size_bytes)) {
        bool has_first = std::any_of(bin.begin(), bin.end(), [&](const ManifestFile& m) {
          return m.manifest_path == first;
        });
        if (bin.size() == 1 ||
            (has_first && static_cast<int>(bin.size()) < merge.min_count_to_merge)) {
          manifests.insert(manifests.end(), bin.begin(), bin.end());
          continue;
        }
        std::string cache_key;
        for (const auto& m : bin) cache_key += m.manifest_path + '\n';
        auto cached = st.merged.find(cache_key);
        if (cached == st.merged.end()) {
          PartitionSpecPtr spec = base.SpecById(key.first);
          if (spec == nullptr) {
            return Status::Corrupt("table {}: no partition spec {} for merging manifests",
                                   ops_->name(), key.first);
          }
          ManifestWriterOptions wo;
          wo.format_version = format_version;
          wo.content = bin.front().content;
          wo.snapshot_id = snapshot_id_;
          std::string path = st.NextManifestPath(base);
          st.written.push_back(path);
          FLOE_ASSIGN_OR_RAISE(auto writer,
                               ManifestWriter::Make(*io, path, *schema, *spec, std::move(wo)));
          for (const auto& m : bin) {
            FLOE_ASSIGN_OR_RAISE(auto entries,
                                 ReadManifest(*io, m, *spec, *schema, ManifestReadOptions::All()));
            for (const auto& e : entries) {
              if (e.status == ManifestEntryStatus::kDeleted) {
                // Only this snapshot's deletes are kept; older ones are history.
                if (e.snapshot_id == snapshot_id_) FLOE_RETURN_NOT_OK(writer->Delete(e));
              } else if (e.status == ManifestEntryStatus::kAdded && e.snapshot_id == snapshot_id_) {
                if (e.sequence_number == kUnassignedSequenceNumber) {
                  FLOE_RETURN_NOT_OK(writer->Add(*e.data_file));
                } else {
                  FLOE_RETURN_NOT_OK(writer->Add(*e.data_file, e.sequence_number));
                }
              } else {
                FLOE_RETURN_NOT_OK(writer->Existing(e));
              }
            }
          }
          FLOE_ASSIGN_OR_RAISE(ManifestFile merged, writer->Close());
          cached = st.merged.emplace(cache_key, std::move(merged)).first;
        }
        manifests.push_back(cached->second);
      }
    }
  }
  return Status::OK();
}

Result<Table> SnapshotProducer::CommitSnapshot(const Attempt& a,
                                               std::set<std::string>* committed_files) {
  State& st = *state_;
  const TableMetadata& base = a.base;
  const std::shared_ptr<const io::FileIO>& io = a.io;
  const Snapshot* parent = a.parent;
  const int format_version = a.format_version;
  const int attempt = a.number;
  const SummaryCounts& counts = a.counts;
  const std::vector<ManifestFile>& manifests = a.manifests;
  const std::optional<int64_t>& ref_snapshot = a.ref_snapshot;
  const std::optional<SnapshotRef>& existing_ref = a.existing_ref;
  Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id_;
  if (parent != nullptr) snapshot.parent_snapshot_id = parent->snapshot_id;
  snapshot.sequence_number = format_version >= 2 ? base.last_sequence_number + 1 : 0;
  snapshot.timestamp_ms = std::max(NowMs(), base.last_updated_ms);
  snapshot.schema_id = base.current_schema_id;
  snapshot.summary = BuildSummary(operation_, counts, parent, st.custom_summary);
  if (replace_added_partitions_) snapshot.summary["replace-partitions"] = "true";

  ManifestListWriterOptions lo;
  lo.format_version = format_version;
  lo.snapshot_id = snapshot_id_;
  lo.parent_snapshot_id = snapshot.parent_snapshot_id;
  lo.sequence_number = snapshot.sequence_number;
  if (format_version >= 3) lo.first_row_id = base.next_row_id.value_or(0);
  std::string list_path = StripSlash(base.location) + "/metadata/snap-" +
                          std::to_string(snapshot_id_) + "-" + std::to_string(attempt + 1) + "-" +
                          st.uuid + ".avro";
  st.written.push_back(list_path);
  FLOE_ASSIGN_OR_RAISE(auto list_writer, ManifestListWriter::Make(*io, list_path, lo));
  for (const auto& m : manifests) FLOE_RETURN_NOT_OK(list_writer->Add(m));
  FLOE_RETURN_NOT_OK(list_writer->Close());
  snapshot.manifest_list = list_path;
  if (format_version >= 3) {
    snapshot.first_row_id = lo.first_row_id;
    snapshot.added_rows = list_writer->next_row_id().value_or(*lo.first_row_id) - *lo.first_row_id;
  }

  std::vector<TableRequirement> requirements;
  if (!base.table_uuid.empty()) {
    requirements.push_back(TableRequirement::AssertTableUuid(base.table_uuid));
  }
  requirements.push_back(TableRequirement::AssertRefSnapshotId(st.branch, ref_snapshot));
  SnapshotRef ref = existing_ref.value_or(SnapshotRef{});
  ref.snapshot_id = snapshot_id_;
  ref.type = SnapshotRef::Type::kBranch;
  std::vector<TableUpdate> updates;
  updates.push_back(update::AddSnapshot{snapshot});
  updates.push_back(update::SetSnapshotRef{st.branch, ref});

  FLOE_ASSIGN_OR_RAISE(Table committed, ops_->Commit(requirements, updates));
  committed_files->insert(list_path);
  for (const auto& m : list_writer->manifests()) committed_files->insert(m.manifest_path);
  return committed;
}

// ---------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------

FastAppend::FastAppend(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "append", /*merge_manifests=*/false) {}

std::unique_ptr<FastAppend> FastAppend::Make(TableOperationsPtr ops) {
  return std::unique_ptr<FastAppend>(new FastAppend(std::move(ops)));
}

FastAppend& FastAppend::AppendFile(DataFilePtr file) {
  added_data_files_.push_back(std::move(file));
  return *this;
}

MergeAppend::MergeAppend(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "append", /*merge_manifests=*/true) {}

std::unique_ptr<MergeAppend> MergeAppend::Make(TableOperationsPtr ops) {
  return std::unique_ptr<MergeAppend>(new MergeAppend(std::move(ops)));
}

MergeAppend& MergeAppend::AppendFile(DataFilePtr file) {
  added_data_files_.push_back(std::move(file));
  return *this;
}

OverwriteFiles::OverwriteFiles(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "overwrite", /*merge_manifests=*/true) {}

std::unique_ptr<OverwriteFiles> OverwriteFiles::Make(TableOperationsPtr ops) {
  return std::unique_ptr<OverwriteFiles>(new OverwriteFiles(std::move(ops)));
}

OverwriteFiles& OverwriteFiles::OverwriteByRowFilter(ExpressionPtr filter) {
  DeleteByFilterInternal(std::move(filter));
  return *this;
}

OverwriteFiles& OverwriteFiles::AddFile(DataFilePtr file) {
  (void)AddFileInternal(std::move(file));
  return *this;
}

OverwriteFiles& OverwriteFiles::DeleteFile(std::string path) {
  DeletePathInternal(std::move(path));
  return *this;
}

OverwriteFiles& OverwriteFiles::ConflictDetectionFilter(ExpressionPtr filter) {
  conflict_detection_filter_ = std::move(filter);
  return *this;
}

OverwriteFiles& OverwriteFiles::ValidateNoConflictingData() {
  validate_no_conflicting_data_ = true;
  return *this;
}

OverwriteFiles& OverwriteFiles::ValidateNoConflictingDeletes() {
  validate_no_new_deletes_ = true;
  return *this;
}

OverwriteFiles& OverwriteFiles::ValidateAddedFilesMatchOverwriteFilter() {
  validate_added_files_match_filter_ = true;
  return *this;
}

OverwriteFiles& OverwriteFiles::ValidateFromSnapshot(int64_t snapshot_id) {
  validate_from_snapshot_id_ = snapshot_id;
  return *this;
}

OverwriteFiles& OverwriteFiles::CaseSensitive(bool case_sensitive) {
  case_sensitive_ = case_sensitive;
  return *this;
}

ReplacePartitions::ReplacePartitions(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "overwrite", /*merge_manifests=*/true) {
  replace_added_partitions_ = true;
}

std::unique_ptr<ReplacePartitions> ReplacePartitions::Make(TableOperationsPtr ops) {
  return std::unique_ptr<ReplacePartitions>(new ReplacePartitions(std::move(ops)));
}

ReplacePartitions& ReplacePartitions::AddFile(DataFilePtr file) {
  added_data_files_.push_back(std::move(file));
  return *this;
}

ReplacePartitions& ReplacePartitions::ValidateNoConflictingData() {
  validate_no_conflicting_data_ = true;
  return *this;
}

ReplacePartitions& ReplacePartitions::ValidateFromSnapshot(int64_t snapshot_id) {
  validate_from_snapshot_id_ = snapshot_id;
  return *this;
}

DeleteFiles::DeleteFiles(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "delete", /*merge_manifests=*/true) {}

std::unique_ptr<DeleteFiles> DeleteFiles::Make(TableOperationsPtr ops) {
  return std::unique_ptr<DeleteFiles>(new DeleteFiles(std::move(ops)));
}

DeleteFiles& DeleteFiles::DeleteFile(std::string path) {
  DeletePathInternal(std::move(path));
  return *this;
}

DeleteFiles& DeleteFiles::DeleteFromRowFilter(ExpressionPtr filter) {
  DeleteByFilterInternal(std::move(filter));
  return *this;
}

DeleteFiles& DeleteFiles::ValidateNoConflictingData(ExpressionPtr filter, int64_t snapshot_id) {
  validate_no_conflicting_data_ = true;
  conflict_detection_filter_ = std::move(filter);
  validate_from_snapshot_id_ = snapshot_id;
  return *this;
}

DeleteFiles& DeleteFiles::CaseSensitive(bool case_sensitive) {
  case_sensitive_ = case_sensitive;
  return *this;
}

RowDelta::RowDelta(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "delete", /*merge_manifests=*/true) {}

std::unique_ptr<RowDelta> RowDelta::Make(TableOperationsPtr ops) {
  return std::unique_ptr<RowDelta>(new RowDelta(std::move(ops)));
}

RowDelta& RowDelta::AddRows(DataFilePtr file) {
  operation_ = "overwrite";
  (void)AddFileInternal(std::move(file));
  return *this;
}

RowDelta& RowDelta::AddDeletes(DataFilePtr file) {
  if (file != nullptr) {
    const std::optional<std::string> scoped =
        file->referenced_data_file ? file->referenced_data_file : FileScopedPath(*file);
    if (scoped) {
      referenced_data_files_.insert(*scoped);
    } else {
      referenced_partitions_.insert(PartitionKey(file->spec_id, file->partition));
    }
  }
  (void)AddFileInternal(std::move(file));
  return *this;
}

RowDelta& RowDelta::RemoveDeletes(DataFilePtr file) {
  if (file != nullptr) removed_delete_keys_.insert(DeleteFileKey(*file));
  return *this;
}

RowDelta& RowDelta::ValidateFromSnapshot(int64_t snapshot_id) {
  validate_from_snapshot_id_ = snapshot_id;
  return *this;
}

RowDelta& RowDelta::ValidateNoConflictingDataFiles() {
  validate_no_conflicting_data_ = true;
  conflict_detection_filter_ = Expression::True();
  return *this;
}

RowDelta& RowDelta::ConflictDetectionFilter(ExpressionPtr filter) {
  conflict_detection_filter_ = std::move(filter);
  return *this;
}

RowDelta& RowDelta::ValidateNoConflictingDeleteFiles() {
  validate_no_new_deletes_ = true;
  return *this;
}

RewriteFiles::RewriteFiles(TableOperationsPtr ops)
    : SnapshotProducer(std::move(ops), "replace", /*merge_manifests=*/true) {
  validate_no_new_deletes_ = true;
}

std::unique_ptr<RewriteFiles> RewriteFiles::Make(TableOperationsPtr ops) {
  return std::unique_ptr<RewriteFiles>(new RewriteFiles(std::move(ops)));
}

RewriteFiles& RewriteFiles::DeleteFile(std::string path) {
  DeletePathInternal(std::move(path));
  return *this;
}

RewriteFiles& RewriteFiles::AddFile(DataFilePtr file) {
  (void)AddFileInternal(std::move(file));
  return *this;
}

}  // namespace floe::iceberg
