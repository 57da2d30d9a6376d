#include "floe/iceberg/expire_snapshots.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <map>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_update.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

namespace {

constexpr int64_t kDefaultMaxSnapshotAgeMs = 5LL * 24 * 60 * 60 * 1000;

Result<int64_t> LongProperty(const TableMetadata& base, const std::string& key,
                             int64_t default_value) {
  auto it = base.properties.find(key);
  if (it == base.properties.end()) return default_value;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) {
    return Status::Invalid("table property {} must be a non-negative integer, got '{}'", key, text);
  }
  return value;
}

/// now - age, saturating.
int64_t Before(int64_t now, int64_t age) {
  if (age >= now - std::numeric_limits<int64_t>::min() / 2) {
    return std::numeric_limits<int64_t>::min();
  }
  return now - age;
}

Result<std::vector<ManifestFile>> SnapshotManifests(const io::FileIO& io, const TableMetadata& base,
                                                    const Snapshot& snapshot) {
  if (!snapshot.manifest_list.empty()) return ReadManifestList(io, snapshot.manifest_list);
  return ManifestFilesFromPaths(io, snapshot.manifests, snapshot.snapshot_id, base.default_spec_id);
}

/// Deletes the files only the expired snapshots reached. Every manifest read happens before
/// the first deletion, so a read error deletes nothing.
Status DeleteUnreachableFiles(const io::FileIO& io_ref, const TableMetadata& before,
                              ExpireSnapshotsResult* out) {
  ExpireSnapshotsResult& result = *out;
  const io::FileIO* io = &io_ref;
  // Reachability is computed against the committed metadata: anything a kept snapshot
  // reaches stays.
  const TableMetadata& after = *result.table.metadata;
  std::set<std::string> kept_lists;
  std::set<std::string> kept_manifests;
  std::vector<ManifestFile> kept_manifest_files;
  for (const Snapshot& s : after.snapshots) {
    kept_lists.insert(s.manifest_list);
    FLOE_ASSIGN_OR_RAISE(auto manifests, SnapshotManifests(*io, after, s));
    for (auto& m : manifests) {
      if (kept_manifests.insert(m.manifest_path).second) kept_manifest_files.push_back(m);
    }
  }
  std::set<std::string> lists_to_delete;
  std::set<std::string> manifests_to_delete;
  std::vector<ManifestFile> expired_manifest_files;
  for (int64_t id : result.expired_snapshot_ids) {
    const Snapshot* s = before.SnapshotById(id);
    if (s == nullptr) continue;
    if (!s->manifest_list.empty() && kept_lists.count(s->manifest_list) == 0) {
      lists_to_delete.insert(s->manifest_list);
    }
    FLOE_ASSIGN_OR_RAISE(auto manifests, SnapshotManifests(*io, before, *s));
    for (auto& m : manifests) {
      if (kept_manifests.count(m.manifest_path) > 0) continue;
      if (manifests_to_delete.insert(m.manifest_path).second) expired_manifest_files.push_back(m);
    }
  }
  // Data and delete files reached by the manifests going away, minus those live in a kept one.
  std::set<std::string> candidates;
  for (const ManifestFile& m : expired_manifest_files) {
    FLOE_ASSIGN_OR_RAISE(auto entries,
                         ReadManifestSelfDescribed(*io, m, ManifestReadOptions::All(false)));
    for (const auto& e : entries) candidates.insert(e.data_file->file_path);
  }
  if (!candidates.empty()) {
    for (const ManifestFile& m : kept_manifest_files) {
      FLOE_ASSIGN_OR_RAISE(auto entries,
                           ReadManifestSelfDescribed(*io, m, ManifestReadOptions::Live(false)));
      for (const auto& e : entries) candidates.erase(e.data_file->file_path);
    }
  }
  std::set<std::string> kept_stats;
  for (const auto& st : after.statistics) kept_stats.insert(st.statistics_path);
  std::set<std::string> stats_to_delete;
  for (const auto& st : before.statistics) {
    if (kept_stats.count(st.statistics_path) == 0) stats_to_delete.insert(st.statistics_path);
  }
  for (const auto& st : before.partition_statistics) {
    bool kept = std::any_of(after.partition_statistics.begin(), after.partition_statistics.end(),
                            [&](const auto& k) { return k.statistics_path == st.statistics_path; });
    if (!kept) stats_to_delete.insert(st.statistics_path);
  }

  auto delete_all = [&](const std::set<std::string>& paths, std::vector<std::string>* sink) {
    for (const auto& p : paths) {
      // Cleanup is best effort: a file that cannot be deleted stays an orphan.
      if (io->Delete(p).ok()) sink->push_back(p);
    }
  };
  delete_all(candidates, &result.deleted_files);
  delete_all(manifests_to_delete, &result.deleted_manifests);
  delete_all(lists_to_delete, &result.deleted_manifest_lists);
  delete_all(stats_to_delete, &result.deleted_statistics_files);
  return Status::OK();
}

}  // namespace

ExpireSnapshots::ExpireSnapshots(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<ExpireSnapshots> ExpireSnapshots::Make(TableOperationsPtr ops) {
  return std::unique_ptr<ExpireSnapshots>(new ExpireSnapshots(std::move(ops)));
}

ExpireSnapshots& ExpireSnapshots::ExpireOlderThan(int64_t timestamp_ms) {
  older_than_ms_ = timestamp_ms;
  return *this;
}
ExpireSnapshots& ExpireSnapshots::RetainLast(int count) {
  retain_last_ = count;
  return *this;
}
ExpireSnapshots& ExpireSnapshots::ExpireSnapshotId(int64_t snapshot_id) {
  explicit_ids_.insert(snapshot_id);
  return *this;
}
ExpireSnapshots& ExpireSnapshots::CleanExpiredFiles(bool clean) {
  clean_ = clean;
  return *this;
}
ExpireSnapshots& ExpireSnapshots::SetNowMs(int64_t now_ms) {
  now_ms_ = now_ms;
  return *this;
}

Result<std::pair<std::set<int64_t>, std::set<std::string>>> ExpireSnapshots::Apply(
    const TableMetadata& base, int64_t now_ms) const {
  const std::string table = ops_->name();
  if (retain_last_ && *retain_last_ < 1) {
    return Status::Invalid("table {}: must retain at least one snapshot, got {}", table,
                           *retain_last_);
  }
  FLOE_ASSIGN_OR_RAISE(int64_t max_age, LongProperty(base, "history.expire.max-snapshot-age-ms",
                                                     kDefaultMaxSnapshotAgeMs));
  FLOE_ASSIGN_OR_RAISE(int64_t min_keep,
                       LongProperty(base, "history.expire.min-snapshots-to-keep", 1));
  FLOE_ASSIGN_OR_RAISE(int64_t max_ref_age, LongProperty(base, "history.expire.max-ref-age-ms",
                                                         std::numeric_limits<int64_t>::max()));
  const int64_t default_older_than = older_than_ms_ ? *older_than_ms_ : Before(now_ms, max_age);
  const int64_t default_min_keep = retain_last_ ? *retain_last_ : std::max<int64_t>(min_keep, 1);

  // Refs that stay.
  std::set<std::string> removed_refs;
  std::map<std::string, SnapshotRef> kept_refs;
  for (const auto& [name, ref] : base.refs) {
    const Snapshot* snap = base.SnapshotById(ref.snapshot_id);
    if (name == kMainBranch) {
      kept_refs.emplace(name, ref);
      continue;
    }
    int64_t ref_age = ref.max_ref_age_ms.value_or(max_ref_age);
    if (snap == nullptr || (snap->timestamp_ms < Before(now_ms, ref_age))) {
      removed_refs.insert(name);
    } else {
      kept_refs.emplace(name, ref);
    }
  }
  std::map<int64_t, std::string> ref_heads;
  for (const auto& [name, ref] : kept_refs) ref_heads.emplace(ref.snapshot_id, name);
  for (int64_t id : explicit_ids_) {
    if (auto it = ref_heads.find(id); it != ref_heads.end()) {
      return Status::Invalid("table {}: cannot expire snapshot {}: ref '{}' points at it", table,
                             id, it->second);
    }
  }

  std::set<int64_t> retain;
  std::set<int64_t> in_branch_history;
  for (const auto& [name, ref] : kept_refs) {
    if (!ref.is_branch()) {
      retain.insert(ref.snapshot_id);
      in_branch_history.insert(ref.snapshot_id);
      continue;
    }
    int64_t older_than =
        ref.max_snapshot_age_ms ? Before(now_ms, *ref.max_snapshot_age_ms) : default_older_than;
    int64_t keep = ref.min_snapshots_to_keep ? *ref.min_snapshots_to_keep : default_min_keep;
    int64_t kept = 0;
    bool stopped = false;
    for (int64_t id : base.Ancestors(ref.snapshot_id)) {
      in_branch_history.insert(id);
      if (stopped) continue;
      const Snapshot* s = base.SnapshotById(id);
      if (kept < keep || s->timestamp_ms >= older_than) {
        retain.insert(id);
        ++kept;
      } else {
        stopped = true;
      }
    }
  }
  for (const Snapshot& s : base.snapshots) {
    if (in_branch_history.count(s.snapshot_id) == 0 && s.timestamp_ms >= default_older_than) {
      retain.insert(s.snapshot_id);
    }
  }
  std::set<int64_t> expired;
  for (const Snapshot& s : base.snapshots) {
    if (retain.count(s.snapshot_id) == 0 || explicit_ids_.count(s.snapshot_id) > 0) {
      expired.insert(s.snapshot_id);
    }
  }
  return std::make_pair(std::move(expired), std::move(removed_refs));
}

Result<ExpireSnapshotsResult> ExpireSnapshots::Commit() {
  const int64_t now_ms = now_ms_ ? *now_ms_
                                 : std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  FLOE_ASSIGN_OR_RAISE(Table current, ops_->Refresh());
  FLOE_ASSIGN_OR_RAISE(CommitRetryOptions retry,
                       CommitRetryOptions::FromProperties(current.metadata->properties));
  ExpireSnapshotsResult result;
  TableMetadataPtr before;
  FLOE_ASSIGN_OR_RAISE(
      result.table, RunWithRetries(retry, [&](int) -> Result<Table> {
        FLOE_ASSIGN_OR_RAISE(Table table, ops_->Refresh());
        const TableMetadata& base = *table.metadata;
        FLOE_ASSIGN_OR_RAISE(auto applied, Apply(base, now_ms));
        before = table.metadata;
        result.expired_snapshot_ids.assign(applied.first.begin(), applied.first.end());
        result.removed_refs.assign(applied.second.begin(), applied.second.end());
        if (applied.first.empty() && applied.second.empty()) return table;
        std::vector<TableRequirement> requirements;
        if (!base.table_uuid.empty()) {
          requirements.push_back(TableRequirement::AssertTableUuid(base.table_uuid));
        }
        for (const auto& [name, ref] : base.refs) {
          requirements.push_back(TableRequirement::AssertRefSnapshotId(name, ref.snapshot_id));
        }
        std::vector<TableUpdate> updates;
        for (const auto& name : applied.second) updates.push_back(update::RemoveSnapshotRef{name});
        if (!applied.first.empty()) {
          updates.push_back(update::RemoveSnapshots{result.expired_snapshot_ids});
        }
        return ops_->Commit(requirements, updates);
      }));
  if (!clean_ || result.expired_snapshot_ids.empty()) return result;

  // Cleanup, only now that the commit succeeded; its failure does not undo the commit.
  result.cleanup_status = DeleteUnreachableFiles(*ops_->io(), *before, &result);
  return result;
}

}  // namespace floe::iceberg
