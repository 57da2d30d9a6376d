#pragma once

// Reads the pages of one column chunk and hands out its levels and values record by
// record, decoded into floe's representation.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "floe/batch/buffer.h"
#include "floe/common/logging.h"
#include "floe/common/memory_pool.h"
#include "floe/common/pool_buffer.h"
#include "floe/common/result.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/encoding.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema_internal.h"

namespace floe::parquet::internal {

/// A byte area reused from page to page, so that steady-state decoding does not allocate
/// (PoolBuffer::Reserve), with slack past the end for word-at-a-time loops. The memory comes
/// from the default pool: a decompressed page or a page's string views can take megabytes
/// (writers put a whole column chunk in one page).
using Scratch = PoolBuffer<uint8_t, 16>;

/// Bytes past the end of a byte-array dictionary and of a batch's string data that a
/// gather may overwrite (short values are copied as whole 16-byte words).
inline constexpr int64_t kGatherSlack = 16;

/// The levels and dense (non-null) values of one leaf for one batch.
struct LeafBatch {
  explicit LeafBatch(MemoryPool* pool) : values(pool), offsets(pool), data(pool) {}

  /// Level entries in the batch (= rows for a flat column).
  int64_t num_levels = 0;
  /// Definition levels: always kept for nested leaves; for flat leaves only once a
  /// null has been seen (before that every entry is max_def).
  std::vector<int16_t> def;
  bool def_materialized = false;
  /// Repetition levels (max_rep > 0 only).
  std::vector<int16_t> rep;
  /// Values present (entries with def == max_def).
  int64_t num_values = 0;
  /// Fixed-width values, or boolean bits.
  BufferBuilder values;
  /// String/binary values: num_values + 1 offsets and the bytes.
  BufferBuilder offsets;
  BufferBuilder data;
  /// With ColumnChunkReader::SetStringFilter: per value, 1 when it passes the filter.
  std::vector<uint8_t> pass;

  void Reset() {
    num_levels = 0;
    def.clear();
    def_materialized = false;
    rep.clear();
    num_values = 0;
    values.Reset();
    offsets.Reset();
    data.Reset();
    pass.clear();
  }
};

/// Reads one column chunk whose bytes are in memory. One reader can read the chunks of
/// its leaf in one row group after another (Restart), keeping its buffers warm.
class ColumnChunkReader {
 public:
  /// `chunk` holds the chunk's bytes, which start at file offset `chunk_offset`.
  /// `context` ("file 'x', column 'a.b', row group 3") prefixes every error.
  static Result<std::unique_ptr<ColumnChunkReader>> Make(const LeafInfo& leaf,
                                                         const ColumnMetaData& meta,
                                                         BufferPtr chunk, int64_t chunk_offset,
                                                         int64_t num_rows, std::string context);

  /// Starts reading another chunk of the same leaf (as Make does), dropping any row
  /// selection and the previous chunk's dictionary but keeping the decoding buffers.
  Status Restart(const ColumnMetaData& meta, BufferPtr chunk, int64_t chunk_offset,
                 int64_t num_rows, std::string context);

  /// Reads only rows in `ranges` ([begin, end), ascending, disjoint, row numbers within
  /// the row group), visiting only the data pages of `pages` (the offset index) that
  /// overlap them. For flat columns only. Call before the first ReadRecords.
  void SetRowSelection(std::vector<std::pair<int64_t, int64_t>> ranges,
                       std::vector<PageLocation> pages);

  /// The data pages of a flat column's chunk as an offset index would list them, found by
  /// walking the page headers (nothing is decompressed): for files without an offset
  /// index. Call before the first ReadRecords. kCorrupt when a header is unreadable or
  /// the pages' rows do not add up to the row group's.
  Result<std::vector<PageLocation>> LocateDataPages() const;

  /// For a string or binary leaf: from now on (across Restart too) ReadRecords also
  /// fills LeafBatch::pass, 1 for a value equal to one string of each of `sets`. A
  /// dictionary's entries are tested once, when the dictionary is read.
  void SetStringFilter(std::vector<std::vector<std::string>> sets);

  /// Whether pages that carry a CRC are checked against it (the default), across Restart too.
  void SetVerifyChecksums(bool verify) { verify_checksums_ = verify; }

  /// Appends up to `max_records` records to `out` and returns how many it appended
  /// (fewer only at the end of the chunk).
  Result<int64_t> ReadRecords(int64_t max_records, LeafBatch* out);

  /// Consumes the next `rows` records of a flat column (max_rep == 0) but appends only
  /// those at positions `sel` (`count` of them, ascending, each in [0, rows), relative to
  /// the first record consumed), levels and values alike. With count == 0 it only skips;
  /// dictionary indices and values of records not kept are not gathered or converted.
  /// Returns how many records it consumed (fewer than `rows` only at the end of the chunk).
  Result<int64_t> ReadSelected(int64_t rows, const int32_t* sel, int64_t count, LeafBatch* out);

 private:
  explicit ColumnChunkReader(const LeafInfo& leaf) : leaf_(leaf) {}

  Status NextPage(bool* eof);
  // With a row selection: positions pos_ at the next data page worth reading.
  Status SeekSelectedPage(bool* eof);
  Status ReadDictionary(const PageHeader& h, const uint8_t* data, int64_t size);
  Status ReadDataPage(const PageHeader& h, const uint8_t* body, int64_t body_size);
  // Decodes `n` levels into `*out`; when `all_value` is given and every level equals
  // it, sets *all_equal and leaves `*out` untouched.
  Status DecodeLevels(Encoding encoding, int bit_width, const uint8_t* data, int64_t size,
                      int64_t n, bool v2, std::vector<int16_t>* out, int64_t* consumed,
                      int16_t all_value = -1, bool* all_equal = nullptr);
  Status DecodeValues(Encoding encoding, const uint8_t* data, int64_t size, int64_t n);
  template <typename T>
  Status DecodeDelta(std::span<const uint8_t> bytes, int64_t n);
  Status FinishFixed(const uint8_t* physical, int64_t n);
  Status FinishViews(int64_t n);
  Status Decompress(const uint8_t* in, int64_t in_size, int64_t out_size, uint8_t* out);
  Status AppendValues(int64_t k, LeafBatch* out);
  // Consumes the next `present` values of the page, appending the `m` of them at offsets
  // `picks` (ascending, relative to value_pos_); rewrites `picks`.
  Status AppendPicked(int64_t present, int32_t* picks, int64_t m, LeafBatch* out);
  // Decodes the current dictionary page's next `k` indices (after those skipped by a row
  // selection) into index_scratch_.
  Result<const int32_t*> NextIndices(int64_t k);
  // Appends `k` strings gathered from the byte-array dictionary.
  Status AppendDictionaryStrings(const int32_t* indices, int64_t k, LeafBatch* out);
  // Reserves room for `n` views in views_scratch_ and points page_views_ at it.
  ByteView* ReserveViews(int64_t n);
  Status Error(const Status& st) const;
  bool PassesStringFilter(const uint8_t* data, int64_t size) const;
  // Appends the string filter's verdicts on the `k` values `views` to out->pass.
  void AppendPass(const ByteView* views, int64_t k, LeafBatch* out) const;

  const LeafInfo& leaf_;
  BufferPtr chunk_;
  int64_t chunk_offset_ = 0;
  int64_t num_rows_ = 0;
  std::string context_;
  std::unique_ptr<compression::Decompressor> decompressor_;
  compression::CodecKind codec_kind_ = compression::CodecKind::kUncompressed;

  // Position of the next page header in chunk_.
  int64_t pos_ = 0;
  // File offset of the current page, for messages.
  int64_t page_offset_ = 0;
  int64_t page_number_ = 0;  // of the page at page_offset_, from 0, within the chunk
  bool verify_checksums_ = true;
  int64_t rows_seen_ = 0;
  bool first_level_ = true;

  // Row selection (page index).
  bool selecting_ = false;
  std::vector<std::pair<int64_t, int64_t>> ranges_;
  size_t range_ = 0;
  std::vector<PageLocation> pages_;
  size_t next_page_ = 0;
  bool dictionary_checked_ = false;
  int64_t page_first_row_ = 0;

  // The dictionary, in floe's representation.
  bool has_dictionary_ = false;
  int64_t dict_size_ = 0;
  std::vector<uint8_t> dict_fixed_;
  // A byte-array dictionary: entry i is dict_bytes_[dict_offsets_[i], dict_offsets_[i + 1]).
  // dict_bytes_ has kGatherSlack bytes of slack past its end.
  std::vector<int32_t> dict_offsets_;
  std::vector<uint8_t> dict_bytes_;
  int64_t dict_max_length_ = 0;
  // The length of every byte-array dictionary entry when they all have the same one, else -1.
  int64_t dict_same_length_ = -1;
  // SetStringFilter's sets, and their verdict on each dictionary entry.
  std::vector<std::vector<std::string>> string_filter_;
  std::vector<uint8_t> dict_pass_;

  // The current data page.
  Scratch page_buf_;
  int64_t page_levels_ = 0;
  int64_t level_pos_ = 0;
  std::vector<int16_t> def_;
  std::vector<int16_t> rep_;
  bool page_all_defined_ = true;
  // Whether def_ holds the current page's definition levels (not when all are max_def).
  bool page_has_def_ = false;
  int64_t page_values_ = 0;
  int64_t value_pos_ = 0;
  // How the current page's fixed-width values are held until AppendValues copies them out.
  enum class ValuesForm {
    kFinal,              // page_fixed_: floe values (or boolean bits)
    kPhysical,           // page_fixed_: physical values, converted by ConvertFixed
    kDictionaryIndices,  // dict_decoder_: indices into dict_fixed_ or the byte dictionary
  };
  ValuesForm page_values_form_ = ValuesForm::kFinal;
  const uint8_t* page_fixed_ = nullptr;
  // Byte-array values of a PLAIN or delta page (in views_scratch_).
  ByteView* page_views_ = nullptr;
  Scratch views_scratch_;
  Scratch value_scratch_;
  Scratch convert_scratch_;
  // The current dictionary page's indices, decoded batch by batch into index_scratch_;
  // dict_decoded_ of them have been decoded or skipped.
  DictionaryIndexDecoder dict_decoder_;
  int64_t dict_decoded_ = 0;
  Scratch index_scratch_;
  // Value offsets of the records ReadSelected keeps from one page.
  Scratch pick_scratch_;
  std::vector<uint8_t> rebuilt_;
  // Kept across pages so that their buffers are reused.
  DeltaLengthByteArrayDecoder delta_length_decoder_;
  DeltaByteArrayDecoder delta_byte_array_decoder_;
};

/// Converts `n` fixed-width physical values (leaf.physical_width bytes each) to floe
/// values (leaf.out_width bytes each). `in` and `out` may not overlap.
void ConvertFixed(const LeafInfo& leaf, const uint8_t* in, int64_t n, uint8_t* out);

/// A big-endian two's complement integer of any length as Int128; false when it does
/// not fit.
bool BigEndianToInt128(const uint8_t* bytes, int64_t size, __int128* out);

}  // namespace floe::parquet::internal
