#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/key_bitmap.h"
#include "floe/common/result.h"
#include "floe/io/file.h"

namespace floe::parquet {

struct FileMetaData;

/// How a file is read.
struct ReaderOptions {
  /// Rows per batch returned by the batch reader.
  int64_t batch_size = 8192;
  /// Skip pages with the column index / offset index when the file has them.
  bool use_page_index = true;
  /// Byte ranges of the projected column chunks that lie closer than this are read
  /// in one request.
  int64_t coalesce_gap_bytes = 1 << 20;
  /// At most this many bytes of column chunks are read ahead of decoding: while a row
  /// group decodes, the next one's chunks are read in the background when they fit, and
  /// no coalesced read spans more (a single larger chunk is read alone). 0 disables it.
  int64_t read_ahead_bytes = 64 << 20;
  /// Checks each page that carries a CRC (PageHeader.crc: CRC-32 of the page's bytes as
  /// stored) and fails with kCorrupt naming file, column, row group and page on a mismatch.
  bool verify_page_checksums = true;
  MemoryPool* pool = DefaultMemoryPool();
};

/// A predicate on one column, used to skip row groups and pages whose statistics
/// prove that no row can match. It never filters rows: the caller evaluates the
/// predicate on the rows it gets.
struct ColumnPredicate {
  enum class Op { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull, kIn };
  /// Index of the top-level column (of ParquetFileReader::schema()) the predicate is on.
  /// Only primitive columns prune.
  int column = -1;
  Op op = Op::kEq;
  /// One value for comparisons, any number for kIn, none for the null tests. Values
  /// have the column's floe type.
  std::vector<Scalar> values;
  /// kIn: the values are ascending and distinct, so that statistics are tested against the
  /// list by a binary search (long lists: a join's keys).
  bool sorted = false;
  /// kIn on an integer, date, time or timestamp column, in place of `values` (which are
  /// then empty): the set as a bitmap (a join's keys too many to list).
  std::shared_ptr<const KeyBitmap> key_bitmap = nullptr;
};

/// What to read from a file.
struct ReadRequest {
  /// Top-level column indices, in output order; nullopt reads every column.
  std::optional<std::vector<int>> columns;
  /// Row groups to read, ascending; nullopt reads all of them (after pruning).
  std::optional<std::vector<int>> row_groups;
  /// Rows [first, second) (numbered within the row group) of the row group at the same
  /// position in row_groups, or empty to read every row group whole: how scan partitions
  /// share a large row group. Needs row_groups, and flat columns only (a nested projected
  /// column is kInvalid). The pages outside a slice are skipped, found through the offset
  /// index or else through the page headers, and never decompressed.
  std::vector<std::pair<int64_t, int64_t>> row_group_rows;
  /// Conjunction of predicates used for row-group and page pruning.
  std::vector<ColumnPredicate> predicates;
  /// Also drops the rows of a batch that fail a predicate when that is cheap to tell:
  /// comparisons and IN on integer, date, time, timestamp and decimal columns, and
  /// equality or IN on string and binary columns (tested once per dictionary entry), in
  /// projections of flat columns only; a NULL fails them all. The columns those
  /// predicates read are decoded first, one after another (those that drop the most rows
  /// so far first), each after the first for the rows the earlier ones passed once at
  /// most three quarters of the batch pass; the other columns are then decoded for the
  /// passing rows only and the batch holds just those. When more than three quarters
  /// pass (and no filtered column holds a NULL), the batch comes back whole. The rows
  /// returned are a superset of the matches, in file order; a batch may then hold fewer
  /// rows (never none).
  bool filter_rows = false;
};

/// Reads one Parquet file: the footer once at Open, then any number of reads.
/// Thread-safe after Open: several Read() streams may run at once.
///
/// Type mapping (logical type first, else the legacy converted type, else physical):
///   BOOLEAN -> boolean; INT32 -> int32; INT64 -> int64; FLOAT/DOUBLE -> float32/64;
///   BYTE_ARRAY -> binary, or string under STRING/UTF8/JSON/ENUM (BSON stays binary);
///   FIXED_LEN_BYTE_ARRAY(n) -> fixed[n], uuid under UUID, float32 under FLOAT16,
///   fixed[12] under INTERVAL.
///   INTEGER(8/16, signed) -> int8/int16; unsigned 8 -> int16, 16 -> int32, 32 -> int64
///   (zero-extended); unsigned 64 -> decimal(20, 0), which holds every value exactly.
///   DECIMAL on INT32/INT64/FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY -> decimal (precision <= 38;
///   big-endian bytes are sign-extended into floe's 16-byte little-endian layout).
///   DATE -> date. TIME(MILLIS/MICROS) -> time (microseconds); TIME(NANOS) -> time,
///   truncated to microseconds (floe has no nanosecond time).
///   TIMESTAMP(MILLIS/MICROS) -> timestamp (microseconds), TIMESTAMP(NANOS) ->
///   timestamp_ns; isAdjustedToUTC picks the tz variant. The legacy TIMESTAMP_MILLIS/
///   MICROS converted types are adjusted to UTC (LogicalTypes.md).
///   INT96 (legacy Impala/Spark timestamps) -> timestamp_ns: (Julian day - 2440588) *
///   86400e9 + nanoseconds of the day, without time zone, with no range check (values
///   outside int64 nanoseconds, roughly years 1677..2262, wrap).
///   LIST/MAP groups (3-level and the legacy 2-level forms) -> list/map; other groups ->
///   struct; an unannotated repeated field -> a non-null list of non-null elements.
///   Field ids -> Field::field_id.
///
/// Batches hold at most batch_size rows and span page boundaries, but not row groups.
/// The reader does not validate that strings are UTF-8 (Array::ValidateFull does).
/// With predicates and use_page_index, flat columns read only the pages (and rows) the
/// column index cannot rule out; the rows returned then are a superset of the matches.
/// Errors name the file, and where it applies the column, row group and page offset.
class ParquetFileReader {
 public:
  /// Reads and validates the footer and maps the Parquet schema to a floe schema
  /// (field ids from the file's field_id). Errors name the file.
  static Result<std::unique_ptr<ParquetFileReader>> Open(std::shared_ptr<io::RandomAccessFile> file,
                                                         ReaderOptions options = {});
  /// Opens a local file (see Open).
  static Result<std::unique_ptr<ParquetFileReader>> OpenPath(const std::string& path,
                                                             ReaderOptions options = {});
  virtual ~ParquetFileReader() = default;

  /// The decoded footer.
  virtual const FileMetaData& metadata() const = 0;
  /// The options the file was opened with.
  virtual const ReaderOptions& options() const = 0;
  /// The floe schema of the file; nested columns are struct/list/map fields.
  virtual const SchemaPtr& schema() const = 0;
  virtual int num_row_groups() const = 0;
  /// The footer's row count.
  virtual int64_t num_rows() const = 0;

  /// The row groups whose column-chunk statistics do not rule out any predicate (a
  /// conjunction). Predicates on nested columns, or without usable statistics, prune
  /// nothing. Invalid for a column index out of range.
  virtual Result<std::vector<int>> PruneRowGroups(
      const std::vector<ColumnPredicate>& predicates) const = 0;

  /// Top-level column indices for the given Parquet field ids, in order; a field id
  /// the file does not have is kNotFound.
  virtual Result<std::vector<int>> ColumnsByFieldId(const std::vector<int32_t>& ids) const = 0;
  /// Top-level column indices for the given names.
  virtual Result<std::vector<int>> ColumnsByName(const std::vector<std::string>& names) const = 0;

  /// A stream of batches of at most batch_size rows with the projected schema. Reads
  /// only the byte ranges of projected column chunks, coalescing nearby ranges.
  virtual Result<std::unique_ptr<RecordBatchReader>> Read(const ReadRequest& request) const = 0;
};

}  // namespace floe::parquet
