#pragma once

// A test-only TableOperations: metadata files are written into a directory through
// LocalFileIO, the "current metadata" pointer is kept in memory behind a mutex and swapped
// with compare-and-set semantics, like a catalog. Tests can inject a concurrent commit that
// runs between an operation's Refresh and its Commit, or make commits fail.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/table_update.h"
#include "floe/io/file_io.h"

namespace floe::iceberg::testing {

class InMemoryTableOps final : public TableOperations {
 public:
  /// Creates a table at `options.location` (metadata in `<location>/metadata/`).
  static Result<std::shared_ptr<InMemoryTableOps>> Create(const NewTableOptions& options,
                                                          std::string name = "db.t") {
    auto io = std::make_shared<io::LocalFileIO>();
    FLOE_ASSIGN_OR_RAISE(TableMetadataPtr metadata, NewTableMetadata(options, NowMs()));
    auto ops = std::shared_ptr<InMemoryTableOps>(new InMemoryTableOps(io, std::move(name)));
    FLOE_ASSIGN_OR_RAISE(std::string location, ops->WriteMetadata(*metadata));
    ops->location_ = std::move(location);
    ops->metadata_ = std::move(metadata);
    return ops;
  }

  Result<Table> Refresh() const override {
    std::lock_guard<std::mutex> lock(mu_);
    ++refresh_count_;
    return Table{location_, metadata_, io_};
  }

  Result<Table> Commit(const std::vector<TableRequirement>& requirements,
                       const std::vector<TableUpdate>& updates) override {
    std::function<Status()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++commit_calls_;
      if (fail_next_commits_ > 0) {
        --fail_next_commits_;
        return Status::CommitConflict("injected commit failure for table {}", name_);
      }
      if (!before_commit_hooks_.empty()) {
        hook = std::move(before_commit_hooks_.front());
        before_commit_hooks_.erase(before_commit_hooks_.begin());
      }
    }
    // The hook commits through this object, as a concurrent writer would.
    if (hook) FLOE_RETURN_NOT_OK(hook());
    std::lock_guard<std::mutex> lock(mu_);
    FLOE_RETURN_NOT_OK(CheckRequirements(metadata_.get(), requirements));
    FLOE_ASSIGN_OR_RAISE(TableMetadataPtr next,
                         ApplyUpdates(*metadata_, updates, NowMs(), location_));
    FLOE_ASSIGN_OR_RAISE(std::string location, WriteMetadata(*next));
    location_ = std::move(location);
    metadata_ = std::move(next);
    ++successful_commits_;
    if (unknown_next_commits_ > 0) {
      --unknown_next_commits_;
      return Status::CommitStateUnknown("injected: the outcome of the commit to table {} was lost",
                                        name_);
    }
    return Table{location_, metadata_, io_};
  }

  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  std::string name() const override { return name_; }

  /// Runs `hook` at the start of a later Commit call (one hook per call, in order), before
  /// the requirements are checked: a concurrent commit made there makes the caller's base
  /// stale.
  void AddBeforeCommitHook(std::function<Status()> hook) {
    std::lock_guard<std::mutex> lock(mu_);
    before_commit_hooks_.push_back(std::move(hook));
  }
  /// The next `n` Commit calls fail with kCommitConflict without looking at the request.
  void FailNextCommits(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_next_commits_ = n;
  }
  /// The next `n` Commit calls that succeed report kCommitStateUnknown instead, as a
  /// catalog whose connection was lost while the commit landed.
  void HideNextCommitOutcomes(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    unknown_next_commits_ = n;
  }

  int commit_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return commit_calls_;
  }
  int successful_commits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return successful_commits_;
  }
  TableMetadataPtr current() const {
    std::lock_guard<std::mutex> lock(mu_);
    return metadata_;
  }
  std::string metadata_location() const {
    std::lock_guard<std::mutex> lock(mu_);
    return location_;
  }

  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

 private:
  InMemoryTableOps(std::shared_ptr<io::LocalFileIO> io, std::string name)
      : io_(std::move(io)), name_(std::move(name)) {}

  Result<std::string> WriteMetadata(const TableMetadata& metadata) {
    std::string dir = metadata.location;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    std::string path = dir + "/metadata/" + MetadataFileName(version_++);
    FLOE_ASSIGN_OR_RAISE(std::string json, TableMetadataToJsonString(metadata, true));
    FLOE_ASSIGN_OR_RAISE(auto out, io_->NewOutputFile(path, io::CreateMode::kExclusive));
    FLOE_RETURN_NOT_OK(out->Write(json));
    FLOE_RETURN_NOT_OK(out->Close());
    return path;
  }

  std::shared_ptr<io::LocalFileIO> io_;
  std::string name_;
  mutable std::mutex mu_;
  std::string location_;
  TableMetadataPtr metadata_;
  int64_t version_ = 0;
  mutable int refresh_count_ = 0;
  int commit_calls_ = 0;
  int successful_commits_ = 0;
  int fail_next_commits_ = 0;
  int unknown_next_commits_ = 0;
  std::vector<std::function<Status()>> before_commit_hooks_;
};

}  // namespace floe::iceberg::testing
