#pragma once

// Spill files: record batches written to local disk and read back in order, in floe's
// own simple format (per batch: row count, then each array's buffers with their lengths;
// checked on read). Files live in the query's spill directory and are removed by their
// owner.

#include <cstdint>
#include <memory>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

class SpillWriter {
 public:
  /// Creates (truncates) `path`. kIOError naming the path.
  static Result<std::unique_ptr<SpillWriter>> Make(std::string path, SchemaPtr schema);
  ~SpillWriter();

  Status Write(const RecordBatch& batch);
  /// Flushes and closes; returns the bytes written.
  Result<int64_t> Finish();
  const std::string& path() const { return path_; }

 private:
  SpillWriter(std::string path, SchemaPtr schema, int fd)
      : path_(std::move(path)), schema_(std::move(schema)), fd_(fd) {}
  std::string path_;
  SchemaPtr schema_;
  int fd_;
  int64_t bytes_ = 0;
};

/// Reads a finished spill file back, batch by batch. kCorrupt naming the file and
/// offset when it does not parse.
Result<BatchStreamPtr> OpenSpillFile(const std::string& path, SchemaPtr schema);

/// A new unique file name in `directory` with `prefix` ("sort-3-17.spill").
std::string NewSpillPath(const std::string& directory, const std::string& prefix);

}  // namespace floe::exec
