#pragma once

// Record batches as bytes, and spill files made of them.
//
// The batch block format is floe's own, shared by spill files (batches written to local
// disk and read back in order) and by the distributed exchange (batches sent between
// ranks). An encoded batch is a u64 block length L (a multiple of 8) followed by the L
// bytes of the block: u64 row count, then each column (recursively): u8 type id, u64
// length, u64 null count, padding to 8 bytes, the validity bitmap when the null count is
// > 0, the value buffers (bitmaps and offsets rebased to start at 0), then the children.
// Every buffer is preceded by its u64 byte length and padded to 8 bytes so that values
// read back are aligned. Integers are little-endian (the host order of every platform
// floe builds on). Decoding checks every length against the bytes that remain and the
// schema it is given, so damaged bytes are kCorrupt, never a crash or an allocation sized
// by an unchecked length field.
//
// A spill file is "FLOESPL1", then encoded batches, then a u64 0. Files live in the
// query's spill directory and are removed by their owner.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/buffer.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"

namespace floe::exec {

/// Appends `batch` as one encoded batch (length-prefixed block) to `out`. Every type the
/// engine has is encoded, sliced arrays included (only the sliced values are written).
/// kInvalidArgument for an array whose buffers do not hold its values.
Status AppendEncodedBatch(const RecordBatch& batch, std::string* out);
/// As above, into a buffer being built (memory from its pool, so that a reply or block
/// built batch after batch reuses the pool's recycled blocks; nothing is zeroed first).
/// `encoded_size` is EncodedBatchSize(batch) when the caller has it already, else -1.
Status AppendEncodedBatch(const RecordBatch& batch, BufferBuilder* out, int64_t encoded_size = -1);
/// The bytes AppendEncodedBatch appends for `batch` (it allocates exactly once). Errors as
/// AppendEncodedBatch.
Result<int64_t> EncodedBatchSize(const RecordBatch& batch);

/// Decodes `bytes`, which must hold exactly one encoded batch, into a batch of `schema`.
/// The batch's buffers are a copy of `bytes`. kCorrupt "<where>: <what> at offset N" when
/// the bytes do not parse against `schema` (N counts from the start of `bytes`).
Result<RecordBatchPtr> DecodeBatch(std::string_view bytes, const SchemaPtr& schema,
                                   const std::string& where);

/// Decodes consecutive encoded batches filling all of `bytes` (none when it is empty).
/// Errors as DecodeBatch.
Result<std::vector<RecordBatchPtr>> DecodeBatches(std::string_view bytes, const SchemaPtr& schema,
                                                  const std::string& where);

/// As above without copying: the batches' buffers are slices of `bytes` (which is
/// copied only when its memory is not 8-byte aligned).
Result<std::vector<RecordBatchPtr>> DecodeBatches(const BufferPtr& bytes, const SchemaPtr& schema,
                                                  const std::string& where);

class SpillWriter {
 public:
  /// Creates (truncates) `path`. kIOError naming the path.
  static Result<std::unique_ptr<SpillWriter>> Make(std::string path, SchemaPtr schema);
  ~SpillWriter();

  /// Appends `batch`; returns the bytes it took in the file.
  Result<int64_t> Write(const RecordBatch& batch);
  /// Flushes and closes; returns the bytes written.
  Result<int64_t> Finish();
  /// The bytes written so far.
  int64_t bytes() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  SpillWriter(std::string path, SchemaPtr schema, int fd)
      : path_(std::move(path)), schema_(std::move(schema)), fd_(fd) {}
  std::string path_;
  SchemaPtr schema_;
  int fd_;
  int64_t bytes_ = 0;
  BufferBuilder scratch_;
};

/// What a k-way merge of spilled runs holds per run it reads, in bytes, for runs written
/// in chunks like one that took `encoded_bytes` in its file (SpillWriter::Write's result)
/// and whose merge keys take `key_bytes`: the block the reader reads a chunk into (as the
/// pool rounds it) and the chunk's keys, and as much again for the chunk before, which rows
/// of the merge's output may still refer to.
int64_t MergeCursorBytes(int64_t encoded_bytes, int64_t key_bytes);

/// Reads a finished spill file back, batch by batch. kCorrupt naming the file and
/// offset when it does not parse.
Result<BatchStreamPtr> OpenSpillFile(const std::string& path, SchemaPtr schema);

/// A new unique file name in `directory` with `prefix` ("sort-3-17.spill").
std::string NewSpillPath(const std::string& directory, const std::string& prefix);

/// A query's spill directory, `<base>/floe-spill-<pid>-<tag>` (`base` empty: the system's
/// temporary directory). It is removed with everything in it when the object goes, and by
/// RemoveSpillDirectories when the process is terminated. A process that is killed cannot
/// remove its own, so the directory's lock file stays locked (flock) while its process
/// lives, and the first Make of a process in a base removes the directories there whose
/// lock is free: what a killed process left goes with the next query.
class SpillDirectory {
 public:
  /// Creates the directory; kIOError naming it when it cannot be created, kCancelled once
  /// RemoveSpillDirectories ran.
  static Result<std::unique_ptr<SpillDirectory>> Make(const std::string& base,
                                                      const std::string& tag);
  ~SpillDirectory();
  SpillDirectory(const SpillDirectory&) = delete;
  SpillDirectory& operator=(const SpillDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  SpillDirectory(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  std::string path_;
  int lock_fd_;  // holds the directory's lock file locked
};

/// Removes every spill directory of the process that is still there and refuses new ones:
/// what a process that is being terminated does before it exits. Returns how many it
/// removed.
int RemoveSpillDirectories();

}  // namespace floe::exec
