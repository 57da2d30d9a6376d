#include "floe/iceberg/in_flight_files.h"

#include <utility>

#include "floe/iceberg/partitioned_writer.h"

namespace floe::iceberg {

InFlightFiles& InFlightFiles::Process() {
  static auto* files = new InFlightFiles();  // never destroyed: a signal may need it at exit
  return *files;
}

Result<std::shared_lock<std::shared_mutex>> InFlightFiles::Add(const void* owner,
                                                               std::shared_ptr<const io::FileIO> io,
                                                               const std::string& path) {
  if (terminating_.load()) {
    return Status::Cancelled("not creating {}: the process is terminating", path);
  }
  std::shared_lock<std::shared_mutex> creating(creating_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (terminated_) {
    return Status::Cancelled("not creating {}: the process is terminating", path);
  }
  files_[path] = Entry{owner, std::move(io)};
  return creating;
}

void InFlightFiles::Deleted(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (files_.erase(path) > 0 && terminating_.load()) ++deleted_by_writers_;
}

void InFlightFiles::Forget(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  files_.erase(path);
}

void InFlightFiles::Seal(const void* owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(files_, [owner](const auto& entry) { return entry.second.owner == owner; });
}

void InFlightFiles::AddOperation(const std::string& operation_id,
                                 std::shared_ptr<const io::FileIO> io, std::string data_location) {
  std::lock_guard<std::mutex> lock(mutex_);
  operations_[operation_id] = Operation{std::move(io), std::move(data_location)};
}

void InFlightFiles::SealOperation(const std::string& operation_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  operations_.erase(operation_id);
}

namespace {

// Deletes the files under `dir` (at any depth) that writers of `operation_id` named; their
// number.
int DeleteOperationFiles(const io::FileIO& io, const std::string& dir,
                         const std::string& operation_id, int depth) {
  Result<std::vector<io::FileInfo>> entries = io.ListDirectory(dir);
  if (!entries.ok()) return 0;
  int deleted = 0;
  for (const io::FileInfo& entry : *entries) {
    if (entry.is_directory) {
      if (depth < 64) deleted += DeleteOperationFiles(io, entry.path, operation_id, depth + 1);
    } else if (OutputFileFactory::NamedFor(entry.name, operation_id) &&
               io.Delete(entry.path).ok()) {
      ++deleted;
    }
  }
  return deleted;
}

}  // namespace

int InFlightFiles::Terminate() {
  // Held throughout: a writer about to create a file waits, then is refused.
  terminating_.store(true);
  std::unique_lock<std::shared_mutex> creating(creating_);
  std::lock_guard<std::mutex> lock(mutex_);
  terminated_ = true;
  int deleted = 0;
  for (const auto& [path, entry] : files_) {
    (void)entry.io->Delete(path);
    ++deleted;
  }
  for (const auto& [id, operation] : operations_) {
    deleted += DeleteOperationFiles(*operation.io, operation.data_location, id, 0);
  }
  return deleted + deleted_by_writers_;
}

size_t InFlightFiles::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return files_.size();
}

}  // namespace floe::iceberg
