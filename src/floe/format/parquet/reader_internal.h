#pragma once

// The Parquet file reader and the batch stream it returns. Their parts live in reader.cc (the
// footer, the row groups' byte ranges and read-ahead, the batches), row_filter.cc (pushed
// comparisons that drop rows while decoding) and statistics_pruning.cc (row groups and pages
// skipped by their statistics). Private to floe/format/parquet.

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/format/parquet/column_reader_internal.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/schema_internal.h"
#include "floe/io/file.h"

namespace floe::parquet::internal {

class FileReader;

/// The batches of one FileReader::Read: the projected columns of the chosen row groups, decoded
/// a row group at a time while the next one is read ahead, less the rows the row filter drops.
class BatchReader final : public RecordBatchReader {
 public:
  BatchReader(const FileReader* file, SchemaPtr schema, std::vector<int> columns,
              std::vector<int> row_groups, std::map<int, std::pair<int64_t, int64_t>> slices,
              std::vector<ColumnPredicate> predicates, bool filter_rows);

  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override;
  // Waits for an outstanding read-ahead, asking it to stop first.
  ~BatchReader() override;

 private:
  // The byte range of one projected column chunk.
  struct ChunkRange {
    int64_t offset;
    int64_t size;
    size_t index;  // In leaves_.
  };
  // A read of the next row group's column chunks, queued on the I/O pool while the current
  // one decodes. Whoever sets `claimed` first does the read: a pool thread, or the reader
  // itself when it reaches that row group before any thread took the read up (it reads
  // inline, and the queued task returns without touching the file), or when it goes.
  struct ReadAhead {
    int row_group;
    std::shared_ptr<std::atomic<bool>> claimed;
    std::future<Result<std::vector<BufferPtr>>> bytes;
  };

  // Next, less the check of a mapped file's truncation on its errors.
  Result<RecordBatchPtr> ReadNext();
  Status StartRowGroup();
  // The checked byte ranges (by position in leaves_) and metadata of row group `rg`'s chunks.
  Status PlanRowGroup(int rg, std::vector<ChunkRange>* ranges,
                      std::vector<const ColumnMetaData*>* metas) const;
  // Reads `ranges` with coalesced requests; the chunks' bytes by position in leaves_. Stops
  // with kCancelled when `cancelled` becomes true.
  static Result<std::vector<BufferPtr>> ReadChunks(const io::RandomAccessFile& file,
                                                   std::vector<ChunkRange> ranges,
                                                   size_t num_leaves, int64_t coalesce_gap_bytes,
                                                   int64_t read_ahead_bytes,
                                                   const std::atomic<bool>& cancelled);
  // Starts reading the next row group's chunks in the background when they fit in
  // read_ahead_bytes. Errors of planning are left for that row group's start to report.
  void StartReadAhead();
  // Forgets the outstanding read-ahead, if any, once no thread reads for it.
  void DropReadAhead();
  // Reads only rows [slice.first, slice.second) of the current row group, narrowed further
  // by the page index when the options use it and predicates can: the column readers skip
  // the pages that hold none of them (found through the offset index, or without one
  // through the page headers).
  Status SelectRows(const RowGroup& rg, std::pair<int64_t, int64_t> slice);
  Result<OffsetIndex> ReadOffsetIndex(const ColumnChunk& cc, const LeafInfo& leaf);
  // Bytes [off, off + len) of a page index of row group `rg`: writers put a row group's
  // column and offset indexes side by side, so the first call reads that whole region
  // (when it is at most kMaxPageIndexRegion bytes) and later ones are slices of it; one
  // request instead of two per column (on object storage each is a round trip).
  Result<BufferPtr> ReadPageIndexBytes(const RowGroup& rg, int64_t off, int64_t len);
  static constexpr int64_t kMaxPageIndexRegion = int64_t{4} << 20;
  // The predicates that can drop rows (ReadRequest::filter_rows), set up once.
  void SetUpRowFilters();
  // Reads the next `rows` records of the leaves the row filters read, leaf by leaf in
  // filter_leaves_ order, and puts the rows that pass every filter into selection_ (a row
  // with a NULL in a filtered column fails). Once at most three quarters of the rows pass,
  // the later leaves are decoded for the passing rows only. Returns how many rows pass.
  Result<int64_t> FilterRows(int64_t rows);
  // Keeps only the `count` rows of selection_ in the leaf batches the row filters read.
  Status CompactFilteredBatches(int64_t count);
  // Reads the next `rows` records of leaf batch `k` in full.
  Status ReadLeaf(size_t k, int64_t rows);
  // Reads `rows` records of every leaf whose batch is (or is not) one the filters read.
  Status ReadLeaves(int64_t rows, bool filtered);
  // Reads only the `count` rows of selection_ out of the next `rows` records of every leaf
  // the filters do not read (none when count is 0).
  Status ReadUnfilteredSelected(int64_t rows, int64_t count);
  Status RowCountError(size_t k, int64_t got) const;

  // A comparison a batch's values can be checked against: leaf batch `batch` (by
  // position in leaves_) holds values `width` bytes wide, compared with `value` (or, for
  // kIn, equal to one of `ints`); or, with width 0, strings equal to one of `strings`. A
  // long IN list of integers whose values span at most kMaxMemberBits also has `bits`: bit
  // v - ints.front() is set for each value v (one test per row instead of a search).
  struct RowFilter {
    size_t batch;
    ColumnPredicate::Op op;
    int width;
    Int128 value;
    std::vector<std::string> strings;
    std::vector<Int128> ints;
    // kIn: the set as a bitmap (a join's keys, or a dense list), tested instead of `ints`.
    std::shared_ptr<const KeyBitmap> members;
  };
  static constexpr int64_t kMaxMemberBits = int64_t{1} << 26;
  // A leaf batch the row filters read, with the filters on it and how many rows they let
  // through so far (the leaves whose filters drop the most rows are read first).
  struct FilterLeaf {
    size_t batch;
    std::vector<size_t> filters;  // In row_filters_.
    int64_t rows_in = 0;
    int64_t rows_out = 0;
  };

  const FileReader* file_;
  // The page-index region read for the current row group (ReadPageIndexBytes).
  int page_index_rg_ = -1;
  int64_t page_index_offset_ = 0;
  BufferPtr page_index_bytes_;
  SchemaPtr schema_;
  std::vector<int> columns_;
  std::vector<int> row_groups_;
  // The row groups read in part: rows [first, second).
  std::map<int, std::pair<int64_t, int64_t>> slices_;
  std::vector<ColumnPredicate> predicates_;
  bool filter_rows_;
  std::vector<RowFilter> row_filters_;
  // By position in leaves_: whether a row filter reads that leaf's batch.
  std::vector<bool> filtered_leaf_;
  std::vector<FilterLeaf> filter_leaves_;
  // By position in leaves_: whether FilterRows decoded that filtered leaf for some rows
  // only, and which (ascending row numbers of the batch, one per value held).
  std::vector<bool> held_selected_;
  std::vector<std::vector<int32_t>> held_rows_;
  std::vector<int32_t> selection_;
  std::vector<uint8_t> mask_;
  std::vector<int32_t> positions_;
  std::vector<int> leaves_;  // projected leaf indices, ascending
  size_t next_rg_ = 0;
  int current_rg_ = -1;
  int64_t rg_rows_ = 0;
  int64_t rg_done_ = 0;
  std::vector<std::unique_ptr<ColumnChunkReader>> readers_;  // by position in leaves_
  std::vector<std::unique_ptr<LeafBatch>> batches_;
  std::vector<LeafBatch*> by_leaf_;
  std::optional<ReadAhead> read_ahead_;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
};

/// A ParquetFileReader over one file: Init reads and checks the footer and maps its schema.
class FileReader final : public ParquetFileReader {
 public:
  FileReader(std::shared_ptr<io::RandomAccessFile> file, ReaderOptions options)
      : file_(std::move(file)), options_(options) {}

  Status Init();

  const FileMetaData& metadata() const override { return metadata_; }
  const SchemaPtr& schema() const override { return schema_.schema; }
  int num_row_groups() const override { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const override { return metadata_.num_rows; }

  Result<std::vector<int>> ColumnsByFieldId(const std::vector<int32_t>& ids) const override;
  Result<std::vector<int>> ColumnsByName(const std::vector<std::string>& names) const override;
  Result<std::vector<int>> PruneRowGroups(
      const std::vector<ColumnPredicate>& predicates) const override;
  Result<std::unique_ptr<RecordBatchReader>> Read(const ReadRequest& request) const override;

  const std::string& path() const { return file_->path(); }
  const FileSchema& file_schema() const { return schema_; }
  const ReaderOptions& options() const override { return options_; }
  const io::RandomAccessFile& file() const { return *file_; }
  int64_t data_end() const { return data_end_; }

 private:
  bool MayMatch(int rg, const ColumnPredicate& p) const;

 public:
  bool TypeDefinedOrder(const LeafInfo& leaf) const;

  // Whether a row set with these bounds (nullopt: unknown) may satisfy `p`.
  static bool StatsMayMatch(const std::optional<Scalar::Storage>& lo,
                            const std::optional<Scalar::Storage>& hi, std::optional<int64_t> nulls,
                            bool all_null, const ColumnPredicate& p);

 private:
  // The deprecated min/max fields use signed order: usable for signed numbers only.
  static bool SignedStatsUsable(const LeafInfo& leaf);

  std::shared_ptr<io::RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  FileSchema schema_;
  int64_t data_end_ = 0;
};

}  // namespace floe::parquet::internal
