#include "floe/catalog/purge.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "floe/common/thread_pool.h"
#include "floe/iceberg/manifest_io.h"

namespace floe::catalog {

Result<std::vector<std::string>> ReachableFiles(const io::FileIO& io,
                                                const iceberg::TableMetadata& metadata,
                                                const std::string& metadata_location) {
  ThreadPool* pool = DefaultThreadPool();
  // Manifest lists (or a v1 snapshot's manifests), one slot per snapshot, read in parallel.
  const auto& snapshots = metadata.snapshots;
  std::vector<std::vector<iceberg::ManifestFile>> listed(snapshots.size());
  FLOE_RETURN_NOT_OK(
      pool->ParallelFor(static_cast<int64_t>(snapshots.size()), [&](int64_t i) -> Status {
        const iceberg::Snapshot& snapshot = snapshots[i];
        if (!snapshot.manifest_list.empty()) {
          Result<std::vector<iceberg::ManifestFile>> list =
              iceberg::ReadManifestList(io, snapshot.manifest_list);
          if (!list.ok()) {
            // A list that is already gone has nothing left to delete.
            return list.status().code() == StatusCode::kNotFound ? Status::OK() : list.status();
          }
          listed[i] = std::move(*list);
          return Status::OK();
        }
        for (const std::string& path : snapshot.manifests) {
          FLOE_ASSIGN_OR_RAISE(bool exists, io.Exists(path));
          if (!exists) continue;
          FLOE_ASSIGN_OR_RAISE(auto one,
                               iceberg::ManifestFilesFromPaths(io, {path}, snapshot.snapshot_id,
                                                               metadata.default_spec_id));
          listed[i].insert(listed[i].end(), one.begin(), one.end());
        }
        return Status::OK();
      }));

  std::set<std::string> files;
  std::vector<const iceberg::ManifestFile*> manifests;
  std::set<std::string> manifests_seen;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    files.insert(snapshots[i].manifest_list);
    files.insert(snapshots[i].manifests.begin(), snapshots[i].manifests.end());
    for (const auto& manifest : listed[i]) {
      if (manifests_seen.insert(manifest.manifest_path).second) manifests.push_back(&manifest);
    }
  }
  files.insert(manifests_seen.begin(), manifests_seen.end());

  // Every manifest's data and delete files, deleted entries included.
  std::vector<std::vector<std::string>> content(manifests.size());
  FLOE_RETURN_NOT_OK(
      pool->ParallelFor(static_cast<int64_t>(manifests.size()), [&](int64_t i) -> Status {
        Result<std::vector<iceberg::ManifestEntry>> entries = iceberg::ReadManifestSelfDescribed(
            io, *manifests[i], iceberg::ManifestReadOptions::All(/*with_stats=*/false));
        if (!entries.ok()) {
          return entries.status().code() == StatusCode::kNotFound ? Status::OK() : entries.status();
        }
        for (const auto& entry : *entries) {
          if (entry.data_file != nullptr) content[i].push_back(entry.data_file->file_path);
        }
        return Status::OK();
      }));
  for (const auto& paths : content) files.insert(paths.begin(), paths.end());

  for (const auto& stats : metadata.statistics) files.insert(stats.statistics_path);
  for (const auto& stats : metadata.partition_statistics) files.insert(stats.statistics_path);
  for (const auto& entry : metadata.metadata_log) files.insert(entry.metadata_file);
  files.insert(metadata_location);
  files.erase(std::string());
  return std::vector<std::string>(files.begin(), files.end());
}

namespace {

// Deletes `paths` through `io` in slices of up to 1000 (one S3 DeleteObjects request
// each) that run in parallel; one Status per path.
std::vector<Status> DeleteInParallel(const io::FileIO& io, const std::vector<std::string>& paths) {
  constexpr size_t kSlice = 1000;
  const size_t slices = (paths.size() + kSlice - 1) / kSlice;
  std::vector<Status> results(paths.size());
  (void)DefaultThreadPool()->ParallelFor(static_cast<int64_t>(slices), [&](int64_t s) -> Status {
    const size_t first = static_cast<size_t>(s) * kSlice;
    const size_t last = std::min(paths.size(), first + kSlice);
    std::vector<std::string> slice(paths.begin() + first, paths.begin() + last);
    std::vector<Status> deleted = io.DeleteFiles(slice);
    for (size_t i = first; i < last; ++i) results[i] = std::move(deleted[i - first]);
    return Status::OK();
  });
  return results;
}

}  // namespace

Status DeleteDroppedTableFiles(const io::FileIO& io, const TableIdentifier& id,
                               const Result<std::vector<std::string>>& files,
                               const iceberg::TableMetadata& metadata,
                               const std::string& metadata_location) {
  Status first_error = files.status();
  size_t failed = 0;
  if (files.ok()) {
    std::vector<std::string> ordered;
    std::vector<std::string> metadata_files;
    std::set<std::string> metadata_set{metadata_location};
    for (const auto& entry : metadata.metadata_log) metadata_set.insert(entry.metadata_file);
    for (const std::string& file : *files) {
      (metadata_set.count(file) != 0 ? metadata_files : ordered).push_back(file);
    }
    for (const std::vector<std::string>* round : {&ordered, &metadata_files}) {
      for (const Status& deleted : DeleteInParallel(io, *round)) {
        if (deleted.ok()) continue;
        ++failed;
        if (first_error.ok()) first_error = deleted;
      }
    }
  }
  if (first_error.ok()) return Status::OK();
  return first_error.WithPrefix(
      fmt::format("table {} was dropped, but purging its files failed{}: ", id.ToString(),
                  failed > 1 ? fmt::format(" ({} files could not be deleted)", failed) : ""));
}

}  // namespace floe::catalog
