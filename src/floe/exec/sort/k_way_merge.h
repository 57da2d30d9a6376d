#pragma once

// Merging sorted streams: cursors over sorted batches, a k-way merge of them, and the
// interleaver that builds output batches from the rows picked.

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/exec/execution_plan.h"
#include "floe/exec/sort/row_keys.h"

namespace floe::exec {

/// Builds batches from rows picked out of other batches (of one schema): Add(batch, row)
/// appends one row; consecutive rows of one batch are copied as slices.
class RowInterleaver {
 public:
  explicit RowInterleaver(SchemaPtr schema, MemoryPool* pool = DefaultMemoryPool());
  void Add(const RecordBatchPtr& batch, int64_t row);
  int64_t num_rows() const { return rows_; }
  /// The rows added so far as one batch; empties the interleaver.
  Result<RecordBatchPtr> Finish();

 private:
  struct Run {
    RecordBatchPtr batch;
    int64_t begin, end;
  };
  SchemaPtr schema_;
  MemoryPool* pool_;
  std::vector<Run> runs_;
  int64_t rows_ = 0;
};

/// A sorted stream of batches with its current row, for k-way merges.
class MergeCursor {
 public:
  MergeCursor(BatchStreamPtr stream, Ordering keys)
      : stream_(std::move(stream)), keys_(std::move(keys)), options_(SortOptionsOf(keys_)) {}
  /// Keys are the columns `key_columns` of the batches themselves.
  MergeCursor(BatchStreamPtr stream, std::vector<int> key_columns, std::vector<SortOptions> options)
      : stream_(std::move(stream)),
        key_columns_(std::move(key_columns)),
        options_(std::move(options)) {}
  /// Loads the first batch; false when the stream is empty.
  Result<bool> Init() { return LoadNext(); }
  bool done() const { return batch_ == nullptr; }
  const RecordBatchPtr& batch() const { return batch_; }
  int64_t row() const { return row_; }
  std::string_view key() const { return keys_rows_.Key(row_); }
  /// Moves to the next row; false at the end of the stream.
  Result<bool> Advance();

 private:
  Result<bool> LoadNext();
  BatchStreamPtr stream_;
  Ordering keys_;
  std::vector<int> key_columns_;
  std::vector<SortOptions> options_;
  RecordBatchPtr batch_;
  RowKeys keys_rows_;
  int64_t row_ = 0;
};

/// Merges sorted cursors (a loser-tree-free binary heap; ties go to the lower cursor
/// index, so the merge is stable across inputs in index order).
class KWayMerger {
 public:
  /// Takes cursors that have been Init()ed (empty ones are dropped).
  explicit KWayMerger(std::vector<std::unique_ptr<MergeCursor>> cursors);
  bool done() const { return heap_.empty(); }
  /// The cursor holding the smallest row.
  MergeCursor* top() const { return cursors_[heap_[0]].get(); }
  /// Advances the top cursor and restores the heap.
  Status Pop();

 private:
  bool Less(int a, int b) const;
  void SiftDown(size_t i);
  std::vector<std::unique_ptr<MergeCursor>> cursors_;
  std::vector<int> heap_;
};

/// A stream that merges `cursors` into batches of `batch_size` rows, stopping after
/// `limit` rows (< 0: no limit). `owned` is kept alive with the stream (spill files).
BatchStreamPtr MakeMergeStream(SchemaPtr schema, std::vector<std::unique_ptr<MergeCursor>> cursors,
                               int64_t batch_size, int64_t limit,
                               std::shared_ptr<void> owned = nullptr);

}  // namespace floe::exec
