#include "floe/iceberg/table_scan.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "floe/iceberg/delete_filter.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace {

// ---------------------------------------------------------------------------------------
// Snapshot, schema and projection
// ---------------------------------------------------------------------------------------

Result<const Snapshot*> ResolveSnapshot(const TableMetadata& metadata,
                                        const SnapshotSelector& selector) {
  int selectors = (selector.snapshot_id ? 1 : 0) + (selector.as_of_timestamp_ms ? 1 : 0) +
                  (selector.ref ? 1 : 0);
  if (selectors > 1) {
    return Status::Invalid("a scan selects its snapshot by id, by time or by ref, not several");
  }
  if (selector.snapshot_id) {
    const Snapshot* snapshot = metadata.SnapshotById(*selector.snapshot_id);
    if (snapshot == nullptr) {
      return Status::NotFound("table {} has no snapshot {}", metadata.location,
                              *selector.snapshot_id);
    }
    return snapshot;
  }
  if (selector.as_of_timestamp_ms) return metadata.SnapshotAsOf(*selector.as_of_timestamp_ms);
  if (selector.ref) return metadata.SnapshotByRef(*selector.ref);
  return metadata.CurrentSnapshot();
}

bool IsPinned(const SnapshotSelector& selector) {
  return selector.snapshot_id || selector.as_of_timestamp_ms || selector.ref;
}

Result<std::vector<int32_t>> ResolveProjection(const Schema& schema, const ScanOptions& options) {
  if (!options.projected_field_ids.empty()) return options.projected_field_ids;
  std::vector<int32_t> ids;
  if (options.projected_names.empty()) {
    for (const Field& field : schema.fields()) ids.push_back(field.field_id());
    return ids;
  }
  for (const std::string& name : options.projected_names) {
    FLOE_ASSIGN_OR_RAISE(const Field* field, schema.FindFieldByName(name, options.case_sensitive));
    if (field == nullptr) return Status::Bind("column {} does not exist", name);
    ids.push_back(field->field_id());
  }
  return ids;
}

// The schema's fields of `ids`, then the metadata columns among `ids` in the order given.
Result<SchemaPtr> ProjectWithMetadataColumns(const TableMetadata& metadata, const Schema& schema,
                                             const std::vector<int32_t>& ids) {
  std::vector<int32_t> ordinary;
  std::vector<int32_t> wanted_metadata;
  for (int32_t id : ids) (IsMetadataColumn(id) ? wanted_metadata : ordinary).push_back(id);
  FLOE_ASSIGN_OR_RAISE(SchemaPtr projected, schema.Select(ordinary));
  if (wanted_metadata.empty()) return projected;
  FLOE_ASSIGN_OR_RAISE(std::vector<Field> available, MetadataColumns(metadata));
  std::vector<Field> fields = projected->fields();
  for (int32_t id : wanted_metadata) {
    auto it = std::find_if(available.begin(), available.end(),
                           [&](const Field& f) { return f.field_id() == id; });
    if (it == available.end()) {
      return Status::Invalid("table {} has no metadata column with field id {}", metadata.location,
                             id);
    }
    fields.push_back(*it);
  }
  std::map<int32_t, FieldDefaults> defaults = projected->defaults();
  return Schema::Make(projected->schema_id(), std::move(fields), {}, std::move(defaults));
}

// The partition type of a spec. A spec of an older schema may name a source column that
// the scan's schema no longer has; its type is then taken from the newest schema that has
// it.
Result<TypePtr> PartitionTypeFor(const TableMetadata& metadata, const Schema& schema,
                                 const PartitionSpec& spec) {
  auto type = spec.PartitionType(schema);
  if (type.has_value()) return type;
  for (auto it = metadata.schemas.rbegin(); it != metadata.schemas.rend(); ++it) {
    auto older = spec.PartitionType(**it);
    if (older.has_value()) return older;
  }
  return type;
}

// ---------------------------------------------------------------------------------------
// Partition keys: spec id + partition values, as bytes, for matching delete files.
// ---------------------------------------------------------------------------------------

Result<std::string> PartitionKey(int32_t spec_id, const PartitionValues& values) {
  std::string key = std::to_string(spec_id);
  for (const Scalar& value : values) {
    if (value.is_null()) {
      key += "|n";
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(std::string bytes, SerializeValue(value));
    key += "|v";
    key += std::to_string(bytes.size());
    key += ':';
    key += bytes;
  }
  return key;
}

// ---------------------------------------------------------------------------------------
// Delete file index (spec, "Scan Planning": which delete files apply to a data file).
// ---------------------------------------------------------------------------------------

struct IndexedDelete {
  DataFilePtr file;
  int64_t sequence_number = 0;
};

class DeleteFileIndex {
 public:
  Status Add(const ManifestEntry& entry, const PartitionSpec& spec) {
    const DataFilePtr& file = entry.data_file;
    IndexedDelete indexed{file, entry.sequence_number};
    if (file->content == FileContent::kPositionDeletes) {
      if (file->referenced_data_file) {
        by_data_file_[*file->referenced_data_file].push_back(indexed);
        return Status::OK();
      }
      if (std::optional<std::string> only = FileScopedPath(*file)) {
        by_data_file_[*only].push_back(indexed);
        return Status::OK();
      }
    } else if (file->content != FileContent::kEqualityDeletes) {
      return Status::OK();
    }
    if (spec.is_unpartitioned()) {
      (file->content == FileContent::kEqualityDeletes ? global_equality_ : global_position_)
          .push_back(indexed);
      return Status::OK();
    }
    FLOE_ASSIGN_OR_RAISE(std::string key, PartitionKey(file->spec_id, file->partition));
    by_partition_[key].push_back(indexed);
    return Status::OK();
  }

  void Finish() {
    auto sort = [](std::vector<IndexedDelete>& files) {
      std::sort(files.begin(), files.end(), [](const IndexedDelete& a, const IndexedDelete& b) {
        return std::tie(a.sequence_number, a.file->file_path) <
               std::tie(b.sequence_number, b.file->file_path);
      });
    };
    for (auto& [_, files] : by_data_file_) sort(files);
    for (auto& [_, files] : by_partition_) sort(files);
    sort(global_equality_);
    sort(global_position_);
  }

  bool empty() const {
    return by_data_file_.empty() && by_partition_.empty() && global_equality_.empty() &&
           global_position_.empty();
  }

  // The delete files for a data file with this data sequence number: position deletes
  // (and deletion vectors) with a sequence number >= it, equality deletes with a
  // strictly greater one, in the same partition or from an unpartitioned spec.
  Result<std::vector<DataFilePtr>> For(const DataFile& data, int64_t data_sequence) const {
    std::vector<DataFilePtr> out;
    auto take = [&](const std::vector<IndexedDelete>& files) {
      for (const IndexedDelete& d : files) {
        bool applies = d.file->content == FileContent::kEqualityDeletes
                           ? d.sequence_number > data_sequence
                           : d.sequence_number >= data_sequence;
        if (applies) out.push_back(d.file);
      }
    };
    if (auto it = by_data_file_.find(data.file_path); it != by_data_file_.end()) take(it->second);
    if (!by_partition_.empty()) {
      FLOE_ASSIGN_OR_RAISE(std::string key, PartitionKey(data.spec_id, data.partition));
      if (auto it = by_partition_.find(key); it != by_partition_.end()) take(it->second);
    }
    take(global_position_);
    take(global_equality_);
    // A deletion vector replaces the position delete files of earlier sequence numbers
    // for the same data file (spec, "Deletion Vectors"): keep only the newest DV.
    const DataFile* newest_dv = nullptr;
    for (const DataFilePtr& file : out) {
      if (file->is_deletion_vector()) newest_dv = file.get();
    }
    if (newest_dv != nullptr) {
      std::erase_if(out, [&](const DataFilePtr& file) {
        return file->content == FileContent::kPositionDeletes && file.get() != newest_dv;
      });
    }
    return out;
  }

 private:
  std::unordered_map<std::string, std::vector<IndexedDelete>> by_data_file_;
  std::unordered_map<std::string, std::vector<IndexedDelete>> by_partition_;
  std::vector<IndexedDelete> global_equality_;
  std::vector<IndexedDelete> global_position_;
};

// Everything planning needs per partition spec: the partition type and the filter's
// projections and evaluators for it.
struct SpecContext {
  PartitionSpecPtr spec;
  TypePtr partition_type;
  std::unique_ptr<ManifestEvaluator> manifest_evaluator;
  ExpressionPtr inclusive;  // bound to the partition type; nullptr without a filter
  std::unique_ptr<ResidualEvaluator> residuals;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// TableScan
// ---------------------------------------------------------------------------------------

Result<std::unique_ptr<TableScan>> TableScan::Make(TableMetadataPtr metadata,
                                                   std::shared_ptr<const io::FileIO> io,
                                                   ScanOptions options) {
  std::unique_ptr<TableScan> scan(new TableScan());
  FLOE_ASSIGN_OR_RAISE(scan->snapshot_, ResolveSnapshot(*metadata, options.snapshot));
  if (scan->snapshot_ != nullptr && IsPinned(options.snapshot)) {
    scan->schema_ = metadata->SchemaForSnapshot(*scan->snapshot_);
  } else {
    scan->schema_ = metadata->CurrentSchema();
  }
  if (scan->schema_ == nullptr) {
    return Status::Corrupt("table {} has no current schema", metadata->location);
  }
  FLOE_ASSIGN_OR_RAISE(std::vector<int32_t> ids, ResolveProjection(*scan->schema_, options));
  FLOE_ASSIGN_OR_RAISE(scan->projected_,
                       ProjectWithMetadataColumns(*metadata, *scan->schema_, ids));
  // v3 types floe cannot represent (variant, geometry, ...) parse, but cannot be read.
  for (const Field& field : scan->projected_->fields()) {
    FLOE_RETURN_NOT_OK(CheckRepresentable(field, field.name()));
  }
  if (options.filter != nullptr) {
    FLOE_ASSIGN_OR_RAISE(scan->bound_filter_,
                         Bind(options.filter, *scan->schema_, options.case_sensitive));
  }
  scan->split_target_size_ = options.split_target_size;
  if (scan->split_target_size_ <= 0) {
    std::string property = metadata->Property("read.split.target-size");
    int64_t value = 0;
    auto [end, ec] = std::from_chars(property.data(), property.data() + property.size(), value);
    scan->split_target_size_ =
        (ec == std::errc() && end == property.data() + property.size() && value > 0)
            ? value
            : kDefaultSplitTargetSize;
  }
  scan->metadata_ = std::move(metadata);
  scan->io_ = std::move(io);
  scan->options_ = std::move(options);
  return scan;
}

namespace {

// Sequence numbers decide which delete files apply to which data files (spec: "Scan
// Planning"): a manifest numbered above its snapshot would apply its deletes to rows written
// after them, or escape the deletes meant for it, so such a manifest list is refused.
Status CheckManifestSequenceNumbers(const Snapshot& snapshot,
                                    const std::vector<ManifestFile>& manifests) {
  for (const ManifestFile& m : manifests) {
    if (m.sequence_number > snapshot.sequence_number) {
      return Status::Corrupt(
          "manifest list {} of snapshot {}: manifest {} has sequence number {}, above the "
          "snapshot's sequence number {}",
          snapshot.manifest_list, snapshot.snapshot_id, m.manifest_path, m.sequence_number,
          snapshot.sequence_number);
    }
    if (m.min_sequence_number > m.sequence_number) {
      return Status::Corrupt(
          "manifest list {} of snapshot {}: manifest {} has min_sequence_number {}, above its "
          "sequence number {}",
          snapshot.manifest_list, snapshot.snapshot_id, m.manifest_path, m.min_sequence_number,
          m.sequence_number);
    }
  }
  return Status::OK();
}

// Sorts tasks by (file path, start, part), the plan's deterministic order, after their
// size, largest first, when `largest_first` (GroupTasks). Paths are not compared over their
// common prefix again and again: a table's paths share their location (often 60+ bytes),
// and a comparison through each task's DataFile pointer misses the cache. Each task gets a
// key of the 16 bytes after the prefix all paths share (big-endian, zero padded: a shorter
// path sorts first, as it does by bytes); only equal keys compare the paths' rest. Tasks
// already in path order (PlanFiles' output, as GroupTasks gets it) are not compared by path
// again: their index is their path's rank. The tasks move once, in place.
void SortTasks(std::vector<FileScanTask>* tasks, bool largest_first) {
  if (tasks->size() < 2) return;
  std::string_view first = (*tasks)[0].data_file->file_path;
  size_t common = first.size();
  for (const FileScanTask& task : *tasks) {
    std::string_view path = task.data_file->file_path;
    // Most paths hold the whole prefix: one vectorised comparison, no byte loop.
    if (path.size() >= common && std::memcmp(path.data(), first.data(), common) == 0) continue;
    const size_t n = std::min(common, path.size());
    common = static_cast<size_t>(
        std::mismatch(first.begin(), first.begin() + n, path.begin()).first - first.begin());
  }
  // The paths' rests are copied next to each other, so the comparisons of keys whose heads
  // tie (files of one partition directory) read one arena instead of a string per DataFile.
  size_t rest_bytes = 0;
  for (const FileScanTask& task : *tasks) rest_bytes += task.data_file->file_path.size() - common;
  std::string arena;
  arena.reserve(rest_bytes);
  struct Key {
    int64_t size;  // minus the weight when largest_first, else 0
    uint64_t head[2];
    size_t rest_offset;
    uint32_t rest_size;
    uint32_t index;
    int64_t start;
    int64_t part;
  };
  std::vector<Key> keys;
  keys.reserve(tasks->size());
  for (size_t i = 0; i < tasks->size(); ++i) {
    const FileScanTask& task = (*tasks)[i];
    std::string_view rest = std::string_view(task.data_file->file_path).substr(common);
    unsigned char bytes[16] = {};
    std::memcpy(bytes, rest.data(), std::min<size_t>(rest.size(), 16));
    Key key{largest_first ? -task.weight() : 0,
            {},
            arena.size(),
            static_cast<uint32_t>(rest.size()),
            static_cast<uint32_t>(i),
            task.start,
            task.part_begin};
    for (int h = 0; h < 2; ++h) {
      std::memcpy(&key.head[h], bytes + 8 * h, 8);
      if constexpr (std::endian::native == std::endian::little) {
        key.head[h] = __builtin_bswap64(key.head[h]);
      }
    }
    keys.push_back(key);
    arena.append(rest);
  }
  const std::string_view rests = arena;
  auto path_less = [rests](const Key& a, const Key& b) {
    if (a.head[0] != b.head[0]) return a.head[0] < b.head[0];
    if (a.head[1] != b.head[1]) return a.head[1] < b.head[1];
    const int c =
        rests.substr(a.rest_offset, a.rest_size).compare(rests.substr(b.rest_offset, b.rest_size));
    if (c != 0) return c < 0;
    if (a.start != b.start) return a.start < b.start;
    return a.part < b.part;
  };
  if (std::is_sorted(keys.begin(), keys.end(), path_less)) {
    if (!largest_first) return;
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      return a.size != b.size ? a.size < b.size : a.index < b.index;
    });
  } else {
    std::sort(keys.begin(), keys.end(), [&path_less](const Key& a, const Key& b) {
      return a.size != b.size ? a.size < b.size : path_less(a, b);
    });
  }
  // Position k takes the task at keys[k].index: each cycle of that permutation is followed
  // once, a position marked done by pointing it at itself.
  std::vector<uint32_t> from(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) from[k] = keys[k].index;
  keys = {};
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] == i) continue;
    FileScanTask held = std::move((*tasks)[i]);
    size_t at = i;
    while (from[at] != i) {
      const size_t next = from[at];
      (*tasks)[at] = std::move((*tasks)[next]);
      from[at] = static_cast<uint32_t>(at);
      at = next;
    }
    (*tasks)[at] = std::move(held);
    from[at] = static_cast<uint32_t>(at);
  }
}

}  // namespace

Result<std::vector<FileScanTask>> TableScan::PlanFiles() const {
  if (snapshot_ == nullptr) return std::vector<FileScanTask>{};
  const TableMetadata& metadata = *metadata_;

  std::vector<ManifestFile> manifests;
  if (!snapshot_->manifest_list.empty()) {
    FLOE_ASSIGN_OR_RAISE(manifests, ReadManifestList(*io_, snapshot_->manifest_list));
    if (metadata.format_version >= 2) {
      FLOE_RETURN_NOT_OK(CheckManifestSequenceNumbers(*snapshot_, manifests));
    }
  } else {
    FLOE_ASSIGN_OR_RAISE(manifests,
                         ManifestFilesFromPaths(*io_, snapshot_->manifests, snapshot_->snapshot_id,
                                                metadata.default_spec_id));
  }

  // Per-spec projections and evaluators, built once.
  std::map<int32_t, SpecContext> specs;
  for (const ManifestFile& manifest : manifests) {
    if (specs.count(manifest.partition_spec_id)) continue;
    PartitionSpecPtr spec = metadata.SpecById(manifest.partition_spec_id);
    if (spec == nullptr) {
      return Status::Corrupt("manifest {} names partition spec {}, which table {} lacks",
                             manifest.manifest_path, manifest.partition_spec_id, metadata.location);
    }
    SpecContext context;
    context.spec = spec;
    FLOE_ASSIGN_OR_RAISE(context.partition_type, PartitionTypeFor(metadata, *schema_, *spec));
    if (bound_filter_ != nullptr) {
      FLOE_ASSIGN_OR_RAISE(context.inclusive, ProjectInclusive(bound_filter_, *spec, *schema_,
                                                               context.partition_type));
      FLOE_ASSIGN_OR_RAISE(context.manifest_evaluator,
                           ManifestEvaluator::Make(context.inclusive, context.partition_type));
      FLOE_ASSIGN_OR_RAISE(context.residuals,
                           ResidualEvaluator::Make(bound_filter_, spec, schema_));
    }
    specs.emplace(manifest.partition_spec_id, std::move(context));
  }

  // Manifest-list pruning by partition summaries.
  std::vector<const ManifestFile*> kept;
  for (const ManifestFile& manifest : manifests) {
    const SpecContext& context = specs.at(manifest.partition_spec_id);
    if (context.manifest_evaluator != nullptr) {
      FLOE_ASSIGN_OR_RAISE(bool may_match, context.manifest_evaluator->MayMatch(manifest));
      if (!may_match) continue;
    }
    kept.push_back(&manifest);
  }

  // Read the surviving manifests in parallel, each into its own slot.
  std::vector<std::vector<ManifestEntry>> entries(kept.size());
  bool need_stats = bound_filter_ != nullptr || options_.collect_column_stats ||
                    !options_.metrics_field_ids.empty();
  // Empty means every column's metrics.
  std::vector<int32_t> filter_ids;
  if (need_stats && !options_.collect_column_stats) {
    if (bound_filter_ != nullptr) filter_ids = ReferencedFieldIds(*bound_filter_);
    for (int32_t id : options_.metrics_field_ids) {
      if (std::find(filter_ids.begin(), filter_ids.end(), id) == filter_ids.end()) {
        filter_ids.push_back(id);
      }
    }
  }
  auto read_one = [&](int64_t i) -> Status {
    const ManifestFile& manifest = *kept[static_cast<size_t>(i)];
    const SpecContext& context = specs.at(manifest.partition_spec_id);
    // Data manifests need metrics only for the filter's columns; delete manifests need the
    // file_path bounds that mark file-scoped position deletes.
    ManifestReadOptions read_options;
    if (manifest.content == FileContent::kData) {
      read_options = ManifestReadOptions::Live(need_stats);
      if (need_stats) read_options.stats_column_ids = filter_ids;
    } else {
      read_options = ManifestReadOptions::Live(true);
      read_options.stats_column_ids = {kDeleteFilePathFieldId};
    }
    FLOE_ASSIGN_OR_RAISE(auto read,
                         ReadManifest(*io_, manifest, context.partition_type, read_options));
    if (metadata.format_version >= 2) {
      for (const ManifestEntry& entry : read) {
        // An entry keeps the sequence number of the snapshot that added its file, which
        // cannot be later than the snapshot that added the manifest holding it.
        if (entry.sequence_number > manifest.sequence_number) {
          return Status::Corrupt(
              "manifest {}: the entry for {} has sequence number {}, above the manifest's {}",
              manifest.manifest_path, entry.data_file->file_path, entry.sequence_number,
              manifest.sequence_number);
        }
      }
    }
    if (context.inclusive != nullptr) {
      std::vector<ManifestEntry> matching;
      matching.reserve(read.size());
      for (ManifestEntry& entry : read) {
        FLOE_ASSIGN_OR_RAISE(bool in_partition,
                             EvaluatePartition(*context.inclusive, entry.data_file->partition));
        if (!in_partition) continue;
        if (entry.data_file->content == FileContent::kData) {
          FLOE_ASSIGN_OR_RAISE(
              bool may_match, InclusiveMetricsMayMatch(*bound_filter_, *schema_, *entry.data_file));
          if (!may_match) continue;
        }
        matching.push_back(std::move(entry));
      }
      read = std::move(matching);
    }
    entries[static_cast<size_t>(i)] = std::move(read);
    return Status::OK();
  };
  if (options_.pool != nullptr && kept.size() > 1) {
    FLOE_RETURN_NOT_OK(options_.pool->ParallelFor(static_cast<int64_t>(kept.size()), read_one));
  } else {
    for (size_t i = 0; i < kept.size(); ++i) FLOE_RETURN_NOT_OK(read_one(static_cast<int64_t>(i)));
  }

  DeleteFileIndex deletes;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]->content == FileContent::kData) continue;
    const SpecContext& context = specs.at(kept[i]->partition_spec_id);
    for (const ManifestEntry& entry : entries[i]) {
      FLOE_RETURN_NOT_OK(deletes.Add(entry, *context.spec));
    }
  }
  deletes.Finish();

  std::vector<FileScanTask> tasks;
  size_t data_entries = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]->content == FileContent::kData) data_entries += entries[i].size();
  }
  tasks.reserve(data_entries);  // one task per file unless files split
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]->content != FileContent::kData) continue;
    const SpecContext& context = specs.at(kept[i]->partition_spec_id);
    for (const ManifestEntry& entry : entries[i]) {
      const DataFilePtr& file = entry.data_file;
      if (file->content != FileContent::kData) continue;
      if (options_.only_files != nullptr && options_.only_files->count(file->file_path) == 0) {
        continue;
      }
      FileScanTask base;
      base.data_file = file;
      base.spec = context.spec;
      base.data_sequence_number = entry.sequence_number;
      FLOE_ASSIGN_OR_RAISE(base.delete_files, deletes.For(*file, entry.sequence_number));
      if (context.residuals != nullptr) {
        FLOE_ASSIGN_OR_RAISE(ExpressionPtr residual,
                             context.residuals->ResidualFor(file->partition));
        if (residual != nullptr && !IsAlwaysTrue(*residual)) {
          FLOE_ASSIGN_OR_RAISE(bool all_match, StrictMetricsAllMatch(*residual, *schema_, *file));
          if (all_match) residual = nullptr;
        }
        if (residual != nullptr && IsAlwaysFalse(*residual)) continue;
        if (residual != nullptr && IsAlwaysTrue(*residual)) residual = nullptr;
        base.residual = std::move(residual);
      }
      std::vector<std::pair<int64_t, int64_t>> ranges = SplitRanges(*file, split_target_size_);
      for (const auto& [start, length] : ranges) {
        FileScanTask task = base;
        task.start = start;
        task.length = length;
        task.estimated_row_count =
            ranges.size() == 1 || file->file_size_in_bytes <= 0
                ? file->record_count
                : std::max<int64_t>(
                      1, static_cast<int64_t>(static_cast<double>(file->record_count) *
                                              static_cast<double>(length) /
                                              static_cast<double>(file->file_size_in_bytes)));
        tasks.push_back(std::move(task));
      }
    }
  }
  SortTasks(&tasks, /*largest_first=*/false);
  return tasks;
}

Result<std::vector<ScanTaskGroup>> TableScan::PlanGroups(int max_groups, bool parts) const {
  FLOE_ASSIGN_OR_RAISE(std::vector<FileScanTask> tasks, PlanFiles());
  if (parts) tasks = SplitTasksIntoParts(std::move(tasks), max_groups);
  return GroupTasks(std::move(tasks), max_groups);
}

ScanStatistics TableScan::Statistics(const std::vector<FileScanTask>& tasks) const {
  ScanStatistics stats;
  std::map<std::string, const DataFile*> delete_files;
  std::map<int32_t, TypePtr> primitive_types;
  if (options_.collect_column_stats) {
    for (const Field& field : schema_->fields()) {
      if (!field.type()->is_nested()) primitive_types[field.field_id()] = field.type();
    }
  }
  for (const auto& [id, type] : primitive_types) stats.columns[id] = ColumnStatistics{};
  std::map<int32_t, bool> null_unknown, lower_unknown, upper_unknown;

  const DataFile* previous = nullptr;
  for (const FileScanTask& task : tasks) {
    stats.row_count += task.estimated_row_count;
    stats.total_bytes += task.length;
    if (!task.delete_files.empty() || task.residual != nullptr) stats.row_count_exact = false;
    for (const DataFilePtr& d : task.delete_files) delete_files[d->file_path] = d.get();
    const DataFile& file = *task.data_file;
    // Splits of one file are adjacent after planning's sort; count a file's metrics once.
    if (previous == &file) continue;
    previous = &file;
    if (!task.is_whole_file()) stats.row_count_exact = false;
    ++stats.file_count;
    for (auto& entry : stats.columns) {
      // A plain variable, not a structured binding: lambdas below capture it.
      const int32_t id = entry.first;
      ColumnStatistics& column = entry.second;
      if (!null_unknown[id]) {
        auto it = file.null_value_counts.find(id);
        if (it == file.null_value_counts.end()) {
          null_unknown[id] = true;
          column.null_count.reset();
        } else {
          column.null_count = column.null_count.value_or(0) + it->second;
        }
      }
      const TypePtr& type = primitive_types[id];
      auto merge = [&](const std::map<int32_t, std::string>& bounds, bool& unknown,
                       std::optional<Scalar>& bound, bool lower) {
        if (unknown) return;
        auto it = bounds.find(id);
        if (it == bounds.end()) {
          unknown = true;
          bound.reset();
          return;
        }
        auto value = DeserializeValue(type, it->second);
        if (!value.has_value()) {
          unknown = true;
          bound.reset();
          return;
        }
        if (!bound.has_value()) {
          bound = std::move(*value);
          return;
        }
        int cmp = CompareValues(*value, *bound);
        if (lower ? cmp < 0 : cmp > 0) bound = std::move(*value);
      };
      merge(file.lower_bounds, lower_unknown[id], column.lower_bound, true);
      merge(file.upper_bounds, upper_unknown[id], column.upper_bound, false);
    }
  }
  if (stats.file_count == 0) {
    for (auto& [_, column] : stats.columns) column.null_count = 0;
  }
  stats.delete_file_count = static_cast<int64_t>(delete_files.size());
  if (stats.delete_file_count > 0) stats.row_count_exact = false;
  return stats;
}

// ---------------------------------------------------------------------------------------
// Splitting and grouping
// ---------------------------------------------------------------------------------------

std::vector<std::pair<int64_t, int64_t>> SplitRanges(const DataFile& file, int64_t target_size) {
  const int64_t size = file.file_size_in_bytes;
  const std::vector<int64_t>& offsets = file.split_offsets;
  bool valid = offsets.size() > 1 && target_size > 0;
  for (size_t i = 0; valid && i < offsets.size(); ++i) {
    if (offsets[i] < 0 || offsets[i] >= size) valid = false;
    if (i > 0 && offsets[i] <= offsets[i - 1]) valid = false;
  }
  if (!valid) return {{0, size}};
  std::vector<std::pair<int64_t, int64_t>> ranges;
  // The first range starts at 0 so that bytes before the first row group (the magic)
  // belong to some task; every range ends where the next begins.
  int64_t start = 0;
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] - start >= target_size) {
      ranges.emplace_back(start, offsets[i] - start);
      start = offsets[i];
    }
  }
  ranges.emplace_back(start, size - start);
  return ranges;
}

std::vector<FileScanTask> SplitTasksIntoParts(std::vector<FileScanTask> tasks, int max_groups) {
  if (max_groups < 2 || tasks.empty()) return tasks;
  int64_t total = 0;
  for (const FileScanTask& task : tasks) total += task.estimated_row_count;
  const int64_t groups = std::min<int64_t>(max_groups, total / kMinRowsPerTaskPart);
  if (groups < 2) return tasks;
  // Only where whole tasks would leave groups idle: a part decompresses the pages it
  // shares with its neighbour (a megabyte each, as writers page), which costs more than
  // evening out groups that all have work (measured: 82/18 rows in two files, TPC-H Q22
  // 8% slower cut; one file, 25% faster).
  if (static_cast<int64_t>(tasks.size()) >= groups) return tasks;
  // The groups' shares are cut from the tasks in order: group g's share ends where the
  // rows taken reach (g + 1) / groups of them. A cut inside a task makes two parts of it
  // (in units of its estimated rows), none under half of kMinRowsPerTaskPart rows.
  std::vector<FileScanTask> out;
  int64_t taken = 0;
  int64_t g = 0;
  for (FileScanTask& task : tasks) {
    const int64_t rows = task.estimated_row_count;
    int64_t begin = 0;
    while (begin < rows) {
      int64_t end = rows;
      const int64_t share_end = total * (g + 1) / groups;
      if (g + 1 < groups && taken + (rows - begin) > share_end) {
        end = begin + (share_end - taken);
        if (rows - end < kMinRowsPerTaskPart / 2) end = rows;
        if (end - begin < kMinRowsPerTaskPart / 2 && end < rows) {
          ++g;  // too little left of this share: the task starts the next one
          continue;
        }
      }
      FileScanTask piece = task;
      if (begin > 0 || end < rows) {
        piece.part_begin = begin;
        piece.part_end = end;
        piece.parts = rows;
        piece.estimated_row_count = end - begin;
      }
      out.push_back(std::move(piece));
      taken += end - begin;
      begin = end;
      if (g + 1 < groups && taken >= total * (g + 1) / groups) ++g;
    }
    if (rows <= 0) out.push_back(std::move(task));
  }
  return out;
}

std::vector<ScanTaskGroup> GroupTasks(std::vector<FileScanTask> tasks, int max_groups) {
  if (max_groups < 1) max_groups = 1;
  size_t n = std::max<size_t>(1, std::min(tasks.size(), static_cast<size_t>(max_groups)));
  std::vector<ScanTaskGroup> groups(n);
  SortTasks(&tasks, /*largest_first=*/true);
  // Each task's group first, so that each group's tasks are allocated once.
  std::vector<uint32_t> group_of(tasks.size());
  std::vector<size_t> counts(n);
  for (size_t t = 0; t < tasks.size(); ++t) {
    size_t lightest = 0;
    for (size_t g = 1; g < n; ++g) {
      if (groups[g].total_bytes < groups[lightest].total_bytes) lightest = g;
    }
    groups[lightest].total_bytes += tasks[t].weight();
    groups[lightest].estimated_row_count += tasks[t].estimated_row_count;
    group_of[t] = static_cast<uint32_t>(lightest);
    ++counts[lightest];
  }
  if (n == 1) {
    groups[0].tasks = std::move(tasks);
    return groups;
  }
  for (size_t g = 0; g < n; ++g) groups[g].tasks.reserve(counts[g]);
  for (size_t t = 0; t < tasks.size(); ++t) {
    groups[group_of[t]].tasks.push_back(std::move(tasks[t]));
  }
  return groups;
}

}  // namespace floe::iceberg
