#pragma once

// The data files this process is writing for statements that have not begun to commit: what it
// deletes when it is told to terminate (SIGTERM: from mpirun when another rank of the job died,
// or from a user), so that a statement ended that way leaves none of its files behind.
//
// A file joins the set just before it is created, under its owner (a statement's query context
// in this process; writers without one hand their files to their caller at Close). It leaves
// the set when it is deleted, or when its owner is sealed: a statement seals its files in every
// process before its commit begins (rank 0 waits until every rank has), so a file that a commit
// may reference is never deleted by a terminating process, and a file deleted by one is never
// referenced.

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "floe/common/result.h"
#include "floe/common/status.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

class InFlightFiles {
 public:
  /// The process's set.
  static InFlightFiles& Process();

  /// Adds `path` (written through `io` for `owner`) before it is created; kCancelled once
  /// Terminate ran (the caller must not create the file). The caller holds the returned lock
  /// until the file exists (or its creation failed): Terminate waits for it, so a file is
  /// never created after Terminate deleted its path.
  Result<std::shared_lock<std::shared_mutex>> Add(const void* owner,
                                                  std::shared_ptr<const io::FileIO> io,
                                                  const std::string& path);
  /// Forgets `path`: its writer deleted it (it aborted). Once termination has begun, such a
  /// file counts as one that Terminate deleted: a writer refused a new file fails, and its
  /// abort may delete its other files before Terminate gets to them.
  void Deleted(const std::string& path);
  /// Forgets `path` without deleting it: it was handed to the caller, or never created.
  void Forget(const std::string& path);
  /// Forgets every file of `owner`: its commit may reference them from now on (or it ended).
  void Seal(const void* owner);

  /// The process that will commit a statement (a single process, or rank 0) adds the
  /// statement's write operation before any of its files is written: until the operation is
  /// sealed, Terminate also deletes every file under `data_location`, at any depth, that the
  /// operation's writers named (OutputFileFactory::NamedFor), so files
  /// that another process wrote before it died go too.
  void AddOperation(const std::string& operation_id, std::shared_ptr<const io::FileIO> io,
                    std::string data_location);
  /// The operation's commit begins (or the statement ended): Terminate leaves its files.
  void SealOperation(const std::string& operation_id);
  /// Waits for the creations under way, then deletes every file in the set (failures are
  /// ignored: the process is going away) and refuses every later Add. Returns the number of
  /// unfinished files that are gone: those it deleted or tried to, and those their writers
  /// deleted after termination began.
  int Terminate();

  size_t size() const;

 private:
  struct Entry {
    const void* owner;
    std::shared_ptr<const io::FileIO> io;
  };
  struct Operation {
    std::shared_ptr<const io::FileIO> io;
    std::string data_location;
  };
  std::shared_mutex creating_;  // shared while a file is created, exclusive in Terminate
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> files_;
  std::unordered_map<std::string, Operation> operations_;
  bool terminated_ = false;
  int deleted_by_writers_ = 0;  // Deleted() calls after termination began
  // Set as Terminate begins: later Adds are refused without taking `creating_`, so the
  // creations under way are all Terminate waits for (glibc's shared_mutex prefers readers,
  // and a stream of new creations could otherwise keep it waiting).
  std::atomic<bool> terminating_{false};
};

}  // namespace floe::iceberg
