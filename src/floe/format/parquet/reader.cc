#include "floe/format/parquet/reader.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <numeric>
#include <optional>
#include <system_error>
#include <type_traits>
#include <utility>

#include "floe/format/parquet/column_reader_internal.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema_internal.h"
#include "floe/io/local_file.h"

namespace floe::parquet {

using internal::ColumnChunkReader;
using internal::FileSchema;
using internal::LeafBatch;
using internal::LeafInfo;
using internal::ReadNode;

namespace {

// ---------------------------------------------------------------------------------------
// Nested array assembly from definition and repetition levels.

class Assembler {
 public:
  Assembler(const FileSchema& schema, const std::vector<LeafBatch*>& batches, MemoryPool* pool)
      : schema_(schema), batches_(batches), pool_(pool) {}

  Result<ArrayPtr> Assemble(const ReadNode& node) {
    switch (node.kind) {
      case ReadNode::Kind::kLeaf:
        return AssembleLeaf(node);
      case ReadNode::Kind::kStruct:
        return AssembleStruct(node);
      case ReadNode::Kind::kList:
      case ReadNode::Kind::kMap:
        return AssembleList(node);
    }
    return Status::Internal("unknown node kind");
  }

 private:
  struct Levels {
    const LeafBatch* b;
    int16_t max_def;
    int16_t def(int64_t i) const { return b->def_materialized ? b->def[i] : max_def; }
    int16_t rep(int64_t i) const { return b->rep.empty() ? 0 : b->rep[i]; }
  };
  Levels LevelsOf(int leaf) const { return Levels{batches_[leaf], schema_.leaves[leaf].max_def}; }

  // Validity of the slots of `node`: slots are entries with def >= slot_def and
  // rep <= slot_rep; a slot is valid when def >= def_level.
  Result<std::pair<BufferPtr, int64_t>> Validity(const ReadNode& node, int64_t* num_slots) {
    Levels lv = LevelsOf(node.first_leaf);
    const int64_t n = lv.b->num_levels;
    int64_t slots = 0;
    bool any_null = false;
    for (int64_t i = 0; i < n; ++i) {
      if (lv.rep(i) <= node.slot_rep && lv.def(i) >= node.slot_def) {
        ++slots;
        any_null |= lv.def(i) < node.def_level;
      }
    }
    *num_slots = slots;
    if (!any_null) return std::make_pair(BufferPtr(), int64_t{0});
    FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
    int64_t s = 0;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (lv.rep(i) <= node.slot_rep && lv.def(i) >= node.slot_def) {
        if (lv.def(i) >= node.def_level) {
          bit_util::SetBit(bits->mutable_data(), s);
        } else {
          ++nulls;
        }
        ++s;
      }
    }
    return std::make_pair(BufferPtr(std::move(bits)), nulls);
  }

  Result<ArrayPtr> AssembleStruct(const ReadNode& node) {
    int64_t slots;
    FLOE_ASSIGN_OR_RAISE(auto validity, Validity(node, &slots));
    std::vector<ArrayPtr> children;
    for (const ReadNode& c : node.children) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr child, Assemble(c));
      if (child->length() != slots) {
        return Status::Corrupt("column '{}': field '{}' has {} values, the struct has {}",
                               node.field.name(), c.field.name(), child->length(), slots);
      }
      children.push_back(std::move(child));
    }
    return Array::Make(node.field.type(), slots, {validity.first}, std::move(children),
                       validity.second);
  }

  Result<ArrayPtr> AssembleList(const ReadNode& node) {
    Levels lv = LevelsOf(node.first_leaf);
    const int64_t n = lv.b->num_levels;
    BufferBuilder offsets(pool_);
    BufferBuilder bits(pool_);
    int64_t slots = 0;
    int64_t nulls = 0;
    int32_t elems = 0;
    FLOE_RETURN_NOT_OK(offsets.Reserve(4));
    for (int64_t i = 0; i < n; ++i) {
      int16_t d = lv.def(i);
      int16_t r = lv.rep(i);
      if (r <= node.slot_rep) {
        if (d < node.slot_def) continue;
        FLOE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(elems));
        if (bit_util::BytesForBits(slots + 1) > bits.size()) {
          FLOE_RETURN_NOT_OK(bits.AppendValue<uint8_t>(0));
        }
        if (d >= node.def_level) {
          bit_util::SetBit(bits.mutable_data(), slots);
        } else {
          ++nulls;
        }
        ++slots;
        if (d >= node.elem_def) ++elems;
      } else if (r == node.elem_rep && d >= node.elem_def) {
        if (elems == std::numeric_limits<int32_t>::max()) {
          return Status::NotSupported("column '{}': a batch holds more than 2^31 list elements",
                                      node.field.name());
        }
        ++elems;
      }
    }
    FLOE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(elems));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr child, Assemble(node.children[0]));
    if (child->length() != elems) {
      return Status::Corrupt("column '{}': levels give {} list elements, the element has {}",
                             node.field.name(), elems, child->length());
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr off, offsets.Finish());
    BufferPtr validity;
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(validity, bits.Finish());
    }
    return Array::Make(node.field.type(), slots, {validity, off}, {child}, nulls);
  }

  Result<ArrayPtr> AssembleLeaf(const ReadNode& node) {
    const LeafInfo& leaf = schema_.leaves[node.leaf];
    LeafBatch* b = batches_[node.leaf];
    Levels lv = LevelsOf(node.leaf);
    const int64_t n = b->num_levels;
    const bool all_slots = node.slot_def == 0 && leaf.max_rep == 0;
    int64_t slots = all_slots ? n : 0;
    if (!all_slots) {
      for (int64_t i = 0; i < n; ++i) slots += lv.def(i) >= node.slot_def;
    }
    const int64_t nulls = slots - b->num_values;
    if (nulls < 0) return Status::Internal("leaf '{}' has more values than slots", leaf.path);
    BufferPtr validity;
    if (nulls > 0) {
      FLOE_ASSIGN_OR_RAISE(auto bits, Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
      int64_t s = 0;
      for (int64_t i = 0; i < n; ++i) {
        int16_t d = lv.def(i);
        if (d < node.slot_def) continue;
        if (d == leaf.max_def) bit_util::SetBit(bits->mutable_data(), s);
        ++s;
      }
      validity = std::move(bits);
    }
    const uint8_t* valid = validity ? validity->data() : nullptr;
    BufferPtr values;
    if (leaf.out_width < 0) {
      if (b->offsets.size() == 0) FLOE_RETURN_NOT_OK(b->offsets.AppendValue<int32_t>(0));
      FLOE_ASSIGN_OR_RAISE(BufferPtr dense, b->offsets.Finish());
      FLOE_ASSIGN_OR_RAISE(BufferPtr data, b->data.Finish());
      BufferPtr offsets = dense;
      if (nulls > 0) {
        FLOE_ASSIGN_OR_RAISE(auto spread, Buffer::AllocateZeroed((slots + 1) * 4, pool_));
        int32_t* o = reinterpret_cast<int32_t*>(spread->mutable_data());
        const int32_t* src = dense->data_as<int32_t>();
        int64_t j = 0;
        o[0] = src[0];
        for (int64_t s = 0; s < slots; ++s) {
          if (bit_util::GetBit(valid, s)) ++j;
          o[s + 1] = src[j];
        }
        offsets = std::move(spread);
      }
      return Array::Make(node.field.type(), slots, {validity, offsets, data}, {}, nulls);
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr dense, b->values.Finish());
    if (nulls == 0) {
      values = dense;
    } else if (leaf.out_width == 0) {
      FLOE_ASSIGN_OR_RAISE(auto spread,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(slots), pool_));
      int64_t j = 0;
      for (int64_t s = 0; s < slots; ++s) {
        if (bit_util::GetBit(valid, s)) {
          if (bit_util::GetBit(dense->data(), j)) bit_util::SetBit(spread->mutable_data(), s);
          ++j;
        }
      }
      values = std::move(spread);
    } else {
      const int w = leaf.out_width;
      FLOE_ASSIGN_OR_RAISE(auto spread, Buffer::AllocateZeroed(slots * w, pool_));
      uint8_t* o = spread->mutable_data();
      const uint8_t* src = dense->data();
      for (int64_t s = 0; s < slots; ++s) {
        if (bit_util::GetBit(valid, s)) {
          std::memcpy(o + s * w, src, static_cast<size_t>(w));
          src += w;
        }
      }
      values = std::move(spread);
    }
    if (!values) {
      FLOE_ASSIGN_OR_RAISE(values, Buffer::AllocateZeroed(0, pool_));
    }
    return Array::Make(node.field.type(), slots, {validity, values}, {}, nulls);
  }

  const FileSchema& schema_;
  const std::vector<LeafBatch*>& batches_;
  MemoryPool* pool_;
};

// ---------------------------------------------------------------------------------------
// Statistics.

using Storage = Scalar::Storage;

// A statistics value (PLAIN, no length prefix) as the floe value of the leaf; nullopt
// when it cannot be compared.
std::optional<Storage> StatValue(const LeafInfo& leaf, const std::string& bytes) {
  using internal::Conversion;
  const TypePtr& t = leaf.type;
  if (leaf.physical == Type::kInt96 || leaf.physical == Type::kBoolean ||
      leaf.conversion == Conversion::kFloat16ToFloat32) {
    return std::nullopt;
  }
  if (t->is_binary_like() || t->id() == TypeId::kFixed || t->id() == TypeId::kUuid) {
    return Storage(bytes);
  }
  if (leaf.conversion == Conversion::kBytesToDecimal) {
    __int128 v;
    if (!internal::BigEndianToInt128(reinterpret_cast<const uint8_t*>(bytes.data()),
                                     static_cast<int64_t>(bytes.size()), &v)) {
      return std::nullopt;
    }
    return Storage(v);
  }
  if (static_cast<int>(bytes.size()) != leaf.physical_width) return std::nullopt;
  uint8_t out[16] = {};
  internal::ConvertFixed(leaf, reinterpret_cast<const uint8_t*>(bytes.data()), 1, out);
  switch (t->id()) {
    case TypeId::kInt8: {
      int8_t v;
      std::memcpy(&v, out, 1);
      return Storage(int32_t{v});
    }
    case TypeId::kInt16: {
      int16_t v;
      std::memcpy(&v, out, 2);
      return Storage(int32_t{v});
    }
    case TypeId::kInt32:
    case TypeId::kDate: {
      int32_t v;
      std::memcpy(&v, out, 4);
      return Storage(v);
    }
    case TypeId::kFloat32: {
      float v;
      std::memcpy(&v, out, 4);
      if (std::isnan(v)) return std::nullopt;
      return Storage(v);
    }
    case TypeId::kFloat64: {
      double v;
      std::memcpy(&v, out, 8);
      if (std::isnan(v)) return std::nullopt;
      return Storage(v);
    }
    case TypeId::kDecimal: {
      __int128 v;
      std::memcpy(&v, out, 16);
      return Storage(v);
    }
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      int64_t v;
      std::memcpy(&v, out, 8);
      return Storage(v);
    }
    default:
      return std::nullopt;
  }
}

// -1, 0, 1, or nullopt when the values are not comparable.
std::optional<int> Compare(const Storage& a, const Storage& b) {
  if (a.index() != b.index()) return std::nullopt;
  return std::visit(
      [&](const auto& x) -> std::optional<int> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return std::nullopt;
        } else {
          const T& y = std::get<T>(b);
          if constexpr (std::is_same_v<T, std::string>) {
            // Unsigned byte-wise order, as Parquet orders byte arrays.
            int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
            if (c == 0) return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
            return c < 0 ? -1 : 1;
          } else if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(x) || std::isnan(y)) return std::nullopt;
            return x < y ? -1 : x > y ? 1 : 0;
          } else {
            return x < y ? -1 : x > y ? 1 : 0;
          }
        }
      },
      a);
}

// A predicate value in the storage a statistics value of `leaf` has.
std::optional<Storage> NormalizeValue(const Scalar& s) {
  if (s.is_null()) return std::nullopt;
  return s.value();
}

// ---------------------------------------------------------------------------------------

class FileReader;

class BatchReader final : public RecordBatchReader {
 public:
  BatchReader(const FileReader* file, SchemaPtr schema, std::vector<int> columns,
              std::vector<int> row_groups, std::vector<ColumnPredicate> predicates,
              bool filter_rows);

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
  // A read of the next row group's column chunks, running while the current one decodes.
  struct ReadAhead {
    int row_group;
    std::future<Result<std::vector<BufferPtr>>> bytes;
  };

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
  // Narrows the rows read from the current row group with the page index.
  Status ApplyPageIndex(const RowGroup& rg);
  Result<OffsetIndex> ReadOffsetIndex(const ColumnChunk& cc, const LeafInfo& leaf);
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
  // kIn, equal to one of `ints`); or, with width 0, strings equal to one of `strings`.
  struct RowFilter {
    size_t batch;
    ColumnPredicate::Op op;
    int width;
    Int128 value;
    std::vector<std::string> strings;
    std::vector<Int128> ints;
  };
  // A leaf batch the row filters read, with the filters on it and how many rows they let
  // through so far (the leaves whose filters drop the most rows are read first).
  struct FilterLeaf {
    size_t batch;
    std::vector<size_t> filters;  // In row_filters_.
    int64_t rows_in = 0;
    int64_t rows_out = 0;
  };

  const FileReader* file_;
  SchemaPtr schema_;
  std::vector<int> columns_;
  std::vector<int> row_groups_;
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

class FileReader final : public ParquetFileReader {
 public:
  FileReader(std::shared_ptr<io::RandomAccessFile> file, ReaderOptions options)
      : file_(std::move(file)), options_(options) {}

  Status Init() {
    const int64_t size = file_->size();
    const std::string& path = file_->path();
    if (size < static_cast<int64_t>(4 + kFooterTrailerSize)) {
      return Status::Corrupt("'{}' is not a Parquet file: {} bytes is too small", path, size);
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr head, file_->ReadAt(0, 4));
    if (head->view() != kParquetMagic) {
      return Status::Corrupt("'{}' is not a Parquet file: bad magic at byte offset 0", path);
    }
    int64_t tail_size = std::min<int64_t>(size - 4, kDefaultFooterReadSize);
    FLOE_ASSIGN_OR_RAISE(BufferPtr tail, file_->ReadAt(size - tail_size, tail_size));
    auto footer_len = ReadFooterLength(tail->span(), static_cast<uint64_t>(size));
    if (!footer_len.ok()) return footer_len.status().WithPrefix(fmt::format("'{}': ", path));
    int64_t need = static_cast<int64_t>(*footer_len) + static_cast<int64_t>(kFooterTrailerSize);
    if (need > size - 4) {
      return Status::Corrupt("'{}': footer length {} does not fit the file of {} bytes", path,
                             *footer_len, size);
    }
    if (need > tail_size) {
      FLOE_ASSIGN_OR_RAISE(tail, file_->ReadAt(size - need, need));
    }
    auto md = DecodeFooter(tail->span(), static_cast<uint64_t>(size));
    if (!md.ok()) return md.status().WithPrefix(fmt::format("'{}': footer: ", path));
    metadata_ = std::move(*md);
    data_end_ = size - need;
    auto schema = internal::MapSchema(metadata_.schema);
    if (!schema.ok()) return schema.status().WithPrefix(fmt::format("'{}': ", path));
    schema_ = std::move(*schema);
    for (size_t i = 0; i < metadata_.row_groups.size(); ++i) {
      const RowGroup& rg = metadata_.row_groups[i];
      if (rg.columns.size() != schema_.leaves.size()) {
        return Status::Corrupt("'{}': row group {} has {} columns, the schema has {} leaves", path,
                               i, rg.columns.size(), schema_.leaves.size());
      }
      if (rg.num_rows < 0) {
        return Status::Corrupt("'{}': row group {} has {} rows", path, i, rg.num_rows);
      }
    }
    return Status::OK();
  }

  const FileMetaData& metadata() const override { return metadata_; }
  const SchemaPtr& schema() const override { return schema_.schema; }
  int num_row_groups() const override { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const override { return metadata_.num_rows; }

  Result<std::vector<int>> ColumnsByFieldId(const std::vector<int32_t>& ids) const override {
    std::vector<int> out;
    for (int32_t id : ids) {
      int i = schema_.schema->GetFieldIndexById(id);
      if (i < 0) return Status::NotFound("'{}' has no column with field id {}", path(), id);
      out.push_back(i);
    }
    return out;
  }

  Result<std::vector<int>> ColumnsByName(const std::vector<std::string>& names) const override {
    std::vector<int> out;
    for (const std::string& name : names) {
      int i = schema_.schema->GetFieldIndex(name);
      if (i < 0) return Status::NotFound("'{}' has no column named '{}'", path(), name);
      out.push_back(i);
    }
    return out;
  }

  Result<std::vector<int>> PruneRowGroups(
      const std::vector<ColumnPredicate>& predicates) const override {
    for (const ColumnPredicate& p : predicates) {
      if (p.column < 0 || p.column >= schema_.schema->num_fields()) {
        return Status::Invalid("predicate on column {}; '{}' has {} columns", p.column, path(),
                               schema_.schema->num_fields());
      }
    }
    std::vector<int> out;
    for (int rg = 0; rg < num_row_groups(); ++rg) {
      bool keep = true;
      for (const ColumnPredicate& p : predicates) {
        if (!MayMatch(rg, p)) {
          keep = false;
          break;
        }
      }
      if (keep) out.push_back(rg);
    }
    return out;
  }

  Result<std::unique_ptr<RecordBatchReader>> Read(const ReadRequest& request) const override {
    std::vector<int> columns;
    if (request.columns) {
      columns = *request.columns;
      for (int c : columns) {
        if (c < 0 || c >= schema_.schema->num_fields()) {
          return Status::Invalid("column {} does not exist in '{}' ({} columns)", c, path(),
                                 schema_.schema->num_fields());
        }
      }
    } else {
      for (int i = 0; i < schema_.schema->num_fields(); ++i) columns.push_back(i);
    }
    std::vector<int> row_groups;
    if (request.row_groups) {
      row_groups = *request.row_groups;
      for (size_t i = 0; i < row_groups.size(); ++i) {
        if (row_groups[i] < 0 || row_groups[i] >= num_row_groups() ||
            (i > 0 && row_groups[i] <= row_groups[i - 1])) {
          return Status::Invalid("row groups must be ascending indices below {}", num_row_groups());
        }
      }
      if (!request.predicates.empty()) {
        FLOE_ASSIGN_OR_RAISE(std::vector<int> kept, PruneRowGroups(request.predicates));
        std::vector<int> both;
        std::set_intersection(row_groups.begin(), row_groups.end(), kept.begin(), kept.end(),
                              std::back_inserter(both));
        row_groups = std::move(both);
      }
    } else {
      FLOE_ASSIGN_OR_RAISE(row_groups, PruneRowGroups(request.predicates));
    }
    std::vector<Field> fields;
    for (int c : columns) fields.push_back(schema_.schema->field(c));
    auto schema = std::make_shared<Schema>(std::move(fields), schema_.schema->metadata());
    return std::unique_ptr<RecordBatchReader>(
        new BatchReader(this, std::move(schema), std::move(columns), std::move(row_groups),
                        request.predicates, request.filter_rows));
  }

  const std::string& path() const { return file_->path(); }
  const FileSchema& file_schema() const { return schema_; }
  const ReaderOptions& options() const override { return options_; }
  const io::RandomAccessFile& file() const { return *file_; }
  int64_t data_end() const { return data_end_; }

 private:
  bool MayMatch(int rg, const ColumnPredicate& p) const {
    const ReadNode& node = schema_.top[static_cast<size_t>(p.column)];
    if (node.kind != ReadNode::Kind::kLeaf) return true;
    const LeafInfo& leaf = schema_.leaves[static_cast<size_t>(node.leaf)];
    const ColumnChunk& cc =
        metadata_.row_groups[static_cast<size_t>(rg)].columns[leaf.column_index];
    if (!cc.meta_data || !cc.meta_data->statistics) return true;
    if (!TypeDefinedOrder(leaf)) return true;
    const Statistics& st = *cc.meta_data->statistics;
    const int64_t num_values = cc.meta_data->num_values;
    bool all_null = st.null_count && *st.null_count == num_values && num_values > 0;
    std::optional<Storage> lo, hi;
    if (st.min_value && st.max_value) {
      lo = StatValue(leaf, *st.min_value);
      hi = StatValue(leaf, *st.max_value);
    } else if (st.min && st.max && SignedStatsUsable(leaf)) {
      lo = StatValue(leaf, *st.min);
      hi = StatValue(leaf, *st.max);
    }
    return StatsMayMatch(lo, hi, st.null_count, all_null, p);
  }

 public:
  bool TypeDefinedOrder(const LeafInfo& leaf) const {
    return !(metadata_.column_orders &&
             static_cast<size_t>(leaf.column_index) < metadata_.column_orders->size() &&
             (*metadata_.column_orders)[leaf.column_index].kind !=
                 ColumnOrder::Kind::kTypeDefinedOrder);
  }

  // Whether a row set with these bounds (nullopt: unknown) may satisfy `p`.
  static bool StatsMayMatch(const std::optional<Storage>& lo, const std::optional<Storage>& hi,
                            std::optional<int64_t> nulls, bool all_null, const ColumnPredicate& p) {
    switch (p.op) {
      case ColumnPredicate::Op::kIsNull:
        return !(nulls && *nulls == 0);
      case ColumnPredicate::Op::kIsNotNull:
        return !all_null;
      default:
        break;
    }
    if (all_null) return false;  // comparisons with NULL are never true
    if (!lo || !hi) return true;
    auto outside = [&](const Scalar& s, ColumnPredicate::Op op) -> bool {
      std::optional<Storage> v = NormalizeValue(s);
      if (!v) return false;
      std::optional<int> c_lo = Compare(*v, *lo);
      std::optional<int> c_hi = Compare(*v, *hi);
      if (!c_lo || !c_hi) return false;
      switch (op) {
        case ColumnPredicate::Op::kEq:
        case ColumnPredicate::Op::kIn:
          return *c_lo < 0 || *c_hi > 0;
        case ColumnPredicate::Op::kLt:
          return *c_lo <= 0;  // v <= min: no value is below v
        case ColumnPredicate::Op::kLe:
          return *c_lo < 0;
        case ColumnPredicate::Op::kGt:
          return *c_hi >= 0;
        case ColumnPredicate::Op::kGe:
          return *c_hi > 0;
        default:
          return false;
      }
    };
    if (p.op == ColumnPredicate::Op::kIn) {
      for (const Scalar& s : p.values) {
        if (!outside(s, p.op)) return true;
      }
      return false;
    }
    if (p.values.size() != 1) return true;
    return !outside(p.values[0], p.op);
  }

 private:
  // The deprecated min/max fields use signed order: usable for signed numbers only.
  static bool SignedStatsUsable(const LeafInfo& leaf) {
    using internal::Conversion;
    switch (leaf.conversion) {
      case Conversion::kUInt32ToInt64:
      case Conversion::kUInt64ToDecimal:
      case Conversion::kBytesToDecimal:
        return false;
      default:
        return leaf.physical != Type::kByteArray && leaf.physical != Type::kFixedLenByteArray;
    }
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  FileSchema schema_;
  int64_t data_end_ = 0;
};

BatchReader::BatchReader(const FileReader* file, SchemaPtr schema, std::vector<int> columns,
                         std::vector<int> row_groups, std::vector<ColumnPredicate> predicates,
                         bool filter_rows)
    : file_(file),
      schema_(std::move(schema)),
      columns_(std::move(columns)),
      row_groups_(std::move(row_groups)),
      predicates_(std::move(predicates)),
      filter_rows_(filter_rows) {
  const FileSchema& fs = file_->file_schema();
  std::vector<bool> used(fs.leaves.size(), false);
  for (int c : columns_) {
    auto [b, e] = fs.top_leaf_range[static_cast<size_t>(c)];
    for (int l = b; l < e; ++l) used[static_cast<size_t>(l)] = true;
  }
  by_leaf_.assign(fs.leaves.size(), nullptr);
  for (size_t l = 0; l < used.size(); ++l) {
    if (!used[l]) continue;
    leaves_.push_back(static_cast<int>(l));
    batches_.push_back(std::make_unique<LeafBatch>(file_->options().pool));
    by_leaf_[l] = batches_.back().get();
  }
  if (filter_rows_) SetUpRowFilters();
}

void BatchReader::SetUpRowFilters() {
  const FileSchema& fs = file_->file_schema();
  // Rows are only dropped from batches of flat columns.
  for (int c : columns_) {
    const ReadNode& node = fs.top[static_cast<size_t>(c)];
    if (node.kind != ReadNode::Kind::kLeaf) return;
    if (fs.leaves[static_cast<size_t>(node.leaf)].max_rep > 0) return;
  }
  filtered_leaf_.assign(leaves_.size(), false);
  for (const ColumnPredicate& p : predicates_) {
    if (p.column < 0 || static_cast<size_t>(p.column) >= fs.top.size()) continue;
    const ReadNode& node = fs.top[static_cast<size_t>(p.column)];
    if (node.kind != ReadNode::Kind::kLeaf || p.values.empty()) continue;
    auto at = std::find(leaves_.begin(), leaves_.end(), node.leaf);
    if (at == leaves_.end()) continue;
    const size_t batch = static_cast<size_t>(at - leaves_.begin());
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(node.leaf)];
    if (leaf.max_rep > 0) continue;
    // Strings (and binary) compare bytewise for equality with one or more constants.
    if ((leaf.type->id() == TypeId::kString || leaf.type->id() == TypeId::kBinary) &&
        leaf.out_width < 0 &&
        (p.op == ColumnPredicate::Op::kEq || p.op == ColumnPredicate::Op::kIn)) {
      std::vector<std::string> strings;
      bool usable = true;
      for (const Scalar& value : p.values) {
        const std::string* str =
            value.is_null() ? nullptr : std::get_if<std::string>(&value.value());
        if (str == nullptr) {
          usable = false;
          break;
        }
        strings.push_back(*str);
      }
      if (!usable) continue;
      row_filters_.push_back(
          RowFilter{batch, ColumnPredicate::Op::kIn, 0, 0, std::move(strings), {}});
      filtered_leaf_[batch] = true;
      continue;
    }
    switch (p.op) {
      case ColumnPredicate::Op::kEq:
      case ColumnPredicate::Op::kLt:
      case ColumnPredicate::Op::kLe:
      case ColumnPredicate::Op::kGt:
      case ColumnPredicate::Op::kGe:
        if (p.values.size() != 1) continue;
        break;
      case ColumnPredicate::Op::kIn:
        break;
      default:
        continue;
    }
    // Integers of every width, dates, times and timestamps compare as integers; decimals
    // of the column's own type as unscaled 128-bit integers.
    int width = 0;
    switch (leaf.type->id()) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kDate:
      case TypeId::kInt64:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
      case TypeId::kDecimal:
        width = leaf.out_width;
        break;
      default:
        continue;
    }
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) continue;
    if ((width == 16) != (leaf.type->id() == TypeId::kDecimal)) continue;
    // NULL in a comparison or an IN list matches no row (an IN list with a NULL and no
    // match is not true either), so a NULL constant is skipped here.
    std::vector<Int128> ints;
    bool usable = !p.values.empty();
    for (const Scalar& scalar : p.values) {
      if (scalar.is_null()) continue;
      const Scalar::Storage& v = scalar.value();
      if (const int32_t* i32 = std::get_if<int32_t>(&v)) {
        ints.push_back(*i32);
      } else if (const int64_t* i64 = std::get_if<int64_t>(&v)) {
        ints.push_back(*i64);
      } else if (const Int128* i128 = std::get_if<Int128>(&v)) {
        ints.push_back(*i128);
      } else {
        usable = false;
        break;
      }
    }
    if (!usable) continue;
    if (p.op != ColumnPredicate::Op::kIn) {
      if (ints.empty()) continue;
      row_filters_.push_back(RowFilter{batch, p.op, width, ints[0], {}, {}});
    } else {
      std::sort(ints.begin(), ints.end());
      ints.erase(std::unique(ints.begin(), ints.end()), ints.end());
      row_filters_.push_back(RowFilter{batch, p.op, width, 0, {}, std::move(ints)});
    }
    filtered_leaf_[batch] = true;
  }
  for (size_t i = 0; i < row_filters_.size(); ++i) {
    const size_t batch = row_filters_[i].batch;
    auto at = std::find_if(filter_leaves_.begin(), filter_leaves_.end(),
                           [&](const FilterLeaf& l) { return l.batch == batch; });
    if (at == filter_leaves_.end()) {
      filter_leaves_.push_back(FilterLeaf{batch, {}});
      at = filter_leaves_.end() - 1;
    }
    at->filters.push_back(i);
  }
  held_selected_.assign(leaves_.size(), false);
  held_rows_.resize(leaves_.size());
}

namespace {

// Refines `sel` (`n` row numbers, or all `rows` rows when `first`) to the rows whose
// value passes `cmp`; returns how many remain. Row i's value is at position i.
template <typename T, typename Cmp>
int64_t RefineSelection(const uint8_t* values, Cmp cmp, bool first, int64_t rows, int32_t* sel,
                        int64_t n) {
  int64_t count = 0;
  if (first) {
    for (int64_t i = 0; i < rows; ++i) {
      T v;
      std::memcpy(&v, values + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
      sel[count] = static_cast<int32_t>(i);
      count += cmp(v);
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t i = sel[j];
      T v;
      std::memcpy(&v, values + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
      sel[count] = i;
      count += cmp(v);
    }
  }
  return count;
}

// Clears mask[j] for each of the `c` values (at positions 0..c-1) that fails `cmp`.
template <typename T, typename Cmp>
void AndMaskBy(const uint8_t* values, Cmp cmp, int64_t c, uint8_t* mask) {
  for (int64_t j = 0; j < c; ++j) {
    T v;
    std::memcpy(&v, values + j * static_cast<int64_t>(sizeof(T)), sizeof(T));
    mask[j] &= static_cast<uint8_t>(cmp(v));
  }
}

// A constant outside T's range: every value is below it (1), above it (-1), or 0 when
// it is in range.
template <typename T>
int OutOfRange(Int128 c) {
  if (c > static_cast<Int128>(std::numeric_limits<T>::max())) return 1;
  if (c < static_cast<Int128>(std::numeric_limits<T>::min())) return -1;
  return 0;
}

// Calls fn(std::type_identity<T>(), cmp) with a predicate on T values that is true for
// the values passing an integer filter (`op` with `value`, or kIn with the ascending
// distinct `ints`) and returns its result.
template <typename T, typename Fn>
int64_t WithIntPredicate(ColumnPredicate::Op op, Int128 value, const std::vector<Int128>& ints,
                         Fn&& fn) {
  using Op = ColumnPredicate::Op;
  if (op == Op::kIn) {
    // The list's values T can hold, ascending and distinct.
    std::vector<T> list;
    for (Int128 x : ints) {
      if (OutOfRange<T>(x) == 0) list.push_back(static_cast<T>(x));
    }
    if (list.empty()) return fn(std::type_identity<T>(), [](T) { return false; });
    if (list.size() == 1) return fn(std::type_identity<T>(), [c = list[0]](T v) { return v == c; });
    const T lo = list.front();
    const T hi = list.back();
    if (list.size() <= 8) {
      return fn(std::type_identity<T>(), [&list, lo, hi](T v) {
        if (v < lo || v > hi) return false;
        bool hit = false;
        for (T x : list) hit |= v == x;
        return hit;
      });
    }
    return fn(std::type_identity<T>(), [&list, lo, hi](T v) {
      return v >= lo && v <= hi && std::binary_search(list.begin(), list.end(), v);
    });
  }
  if (int side = OutOfRange<T>(value); side != 0) {
    // Every value compares the same way with the constant.
    const bool pass =
        side > 0 ? (op == Op::kLt || op == Op::kLe) : (op == Op::kGt || op == Op::kGe);
    return fn(std::type_identity<T>(), [pass](T) { return pass; });
  }
  const T c = static_cast<T>(value);
  switch (op) {
    case Op::kEq:
      return fn(std::type_identity<T>(), [c](T v) { return v == c; });
    case Op::kLt:
      return fn(std::type_identity<T>(), [c](T v) { return v < c; });
    case Op::kLe:
      return fn(std::type_identity<T>(), [c](T v) { return v <= c; });
    case Op::kGt:
      return fn(std::type_identity<T>(), [c](T v) { return v > c; });
    case Op::kGe:
      return fn(std::type_identity<T>(), [c](T v) { return v >= c; });
    default:
      return fn(std::type_identity<T>(), [](T) { return true; });
  }
}

// Dispatches WithIntPredicate on the filter's value width.
template <typename Fn>
int64_t WithIntFilter(int width, ColumnPredicate::Op op, Int128 value,
                      const std::vector<Int128>& ints, Fn&& fn) {
  switch (width) {
    case 1:
      return WithIntPredicate<int8_t>(op, value, ints, fn);
    case 2:
      return WithIntPredicate<int16_t>(op, value, ints, fn);
    case 4:
      return WithIntPredicate<int32_t>(op, value, ints, fn);
    case 8:
      return WithIntPredicate<int64_t>(op, value, ints, fn);
    default:
      return WithIntPredicate<Int128>(op, value, ints, fn);
  }
}

// Refines `sel` as RefineSelection does to the rows whose `pass` byte is 1.
int64_t RefinePass(const uint8_t* pass, bool first, int64_t rows, int32_t* sel, int64_t n) {
  int64_t count = 0;
  if (first) {
    for (int64_t i = 0; i < rows; ++i) {
      sel[count] = static_cast<int32_t>(i);
      count += pass[i];
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t i = sel[j];
      sel[count] = i;
      count += pass[i];
    }
  }
  return count;
}

// Whether string i (from `offsets` and `data`) equals one of `strings`.
bool StringIn(const int32_t* offsets, const uint8_t* data, const std::vector<std::string>& strings,
              int64_t i) {
  const int32_t begin = offsets[i];
  const size_t length = static_cast<size_t>(offsets[i + 1] - begin);
  for (const std::string& s : strings) {
    if (s.size() == length && std::memcmp(data + begin, s.data(), length) == 0) return true;
  }
  return false;
}

// Refines `sel` as RefineSelection does to the rows whose string (from `offsets` and
// `data`) equals one of `strings`.
int64_t RefineStrings(const int32_t* offsets, const uint8_t* data,
                      const std::vector<std::string>& strings, bool first, int64_t rows,
                      int32_t* sel, int64_t n) {
  int64_t count = 0;
  if (first) {
    for (int64_t i = 0; i < rows; ++i) {
      sel[count] = static_cast<int32_t>(i);
      count += StringIn(offsets, data, strings, i);
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t i = sel[j];
      sel[count] = i;
      count += StringIn(offsets, data, strings, i);
    }
  }
  return count;
}

// The offsets of a string batch (an empty one has none yet).
const int32_t* StringOffsets(const LeafBatch& b) {
  static const int32_t kEmpty[1] = {0};
  return b.offsets.size() == 0 ? kEmpty : reinterpret_cast<const int32_t*>(b.offsets.data());
}

}  // namespace

Status BatchReader::ReadLeaf(size_t k, int64_t rows) {
  const LeafInfo& leaf = file_->file_schema().leaves[static_cast<size_t>(leaves_[k])];
  LeafBatch* b = batches_[k].get();
  b->Reset();
  if (leaf.max_rep == 0 && leaf.out_width > 0) {
    FLOE_RETURN_NOT_OK(b->values.Reserve(rows * leaf.out_width));
  }
  FLOE_ASSIGN_OR_RAISE(int64_t got, readers_[k]->ReadRecords(rows, b));
  if (got != rows) return RowCountError(k, got);
  return Status::OK();
}

Result<int64_t> BatchReader::FilterRows(int64_t rows) {
  // The leaves whose filters let the fewest rows through go first.
  auto pass_rate = [](const FilterLeaf& l) {
    return l.rows_in == 0 ? 1.0 : static_cast<double>(l.rows_out) / static_cast<double>(l.rows_in);
  };
  std::stable_sort(
      filter_leaves_.begin(), filter_leaves_.end(),
      [&](const FilterLeaf& a, const FilterLeaf& b) { return pass_rate(a) < pass_rate(b); });
  std::fill(held_selected_.begin(), held_selected_.end(), false);
  selection_.resize(static_cast<size_t>(rows));
  int32_t* sel = selection_.data();
  int64_t n = rows;
  bool first = true;
  bool selective = false;
  for (FilterLeaf& fl : filter_leaves_) {
    const size_t k = fl.batch;
    LeafBatch* b = batches_[k].get();
    // Decoding some rows only pays once a quarter of them are dropped.
    if (!first && n * 4 <= rows * 3) selective = true;
    const int64_t before = n;
    if (!selective) {
      FLOE_RETURN_NOT_OK(ReadLeaf(k, rows));
    } else {
      b->Reset();
      FLOE_ASSIGN_OR_RAISE(int64_t got, readers_[k]->ReadSelected(rows, sel, n, b));
      if (got != rows) return RowCountError(k, got);
    }
    const int64_t held_count = selective ? n : rows;
    if (!selective && b->num_values == rows) {
      // One value per row, at the row's position.
      for (size_t fi : fl.filters) {
        const RowFilter& f = row_filters_[fi];
        if (f.width == 0) {
          if (static_cast<int64_t>(b->pass.size()) == rows) {
            // The column reader's verdicts (every string filter on the column at once).
            n = RefinePass(b->pass.data(), first, rows, sel, n);
          } else {
            n = RefineStrings(StringOffsets(*b), b->data.data(), f.strings, first, rows, sel, n);
          }
        } else {
          const uint8_t* values = b->values.data();
          n = WithIntFilter(f.width, f.op, f.value, f.ints, [&](auto tag, auto cmp) {
            using T = typename decltype(tag)::type;
            return RefineSelection<T>(values, cmp, first, rows, sel, n);
          });
        }
        first = false;
        if (n == 0) break;
      }
      fl.rows_in += before;
      fl.rows_out += n;
      continue;
    }
    // The batch holds some rows only (those of `sel`, or those without a NULL): it keeps
    // the rows it holds in held_rows_ (NULLs fail every filter and are dropped) and is
    // compacted to the rows that pass in the end.
    held_selected_[k] = true;
    std::vector<int32_t>& held = held_rows_[k];
    if (selective) {
      held.assign(sel, sel + n);
    } else {
      held.resize(static_cast<size_t>(rows));
      std::iota(held.begin(), held.end(), 0);
    }
    int64_t c = held_count;
    if (b->num_values != c) {
      const LeafInfo& leaf = file_->file_schema().leaves[static_cast<size_t>(leaves_[k])];
      if (static_cast<int64_t>(b->def.size()) != c) {
        return Status::Internal("'{}', column '{}': {} levels for {} rows", file_->path(),
                                leaf.path, b->def.size(), c);
      }
      const int16_t max_def = leaf.max_def;
      int64_t m = 0;
      for (int64_t j = 0; j < c; ++j) {
        held[static_cast<size_t>(m)] = held[static_cast<size_t>(j)];
        m += b->def[static_cast<size_t>(j)] == max_def;
      }
      if (m != b->num_values) {
        return Status::Corrupt("'{}', column '{}', row group {}: {} values for {} defined rows",
                               file_->path(), leaf.path, current_rg_, b->num_values, m);
      }
      held.resize(static_cast<size_t>(m));
      c = m;
      b->def.clear();
      b->def_materialized = false;
      b->num_levels = m;
    }
    mask_.assign(static_cast<size_t>(c), 1);
    uint8_t* mask = mask_.data();
    for (size_t fi : fl.filters) {
      const RowFilter& f = row_filters_[fi];
      if (f.width == 0) {
        const int32_t* offsets = StringOffsets(*b);
        for (int64_t j = 0; j < c; ++j) {
          mask[j] &= static_cast<uint8_t>(StringIn(offsets, b->data.data(), f.strings, j));
        }
      } else {
        const uint8_t* values = b->values.data();
        WithIntFilter(f.width, f.op, f.value, f.ints, [&](auto tag, auto cmp) {
          using T = typename decltype(tag)::type;
          AndMaskBy<T>(values, cmp, c, mask);
          return int64_t{0};
        });
      }
    }
    if (first || selective) {
      // `held` is every row still selected (or all rows) less the NULLs.
      n = 0;
      for (int64_t j = 0; j < c; ++j) {
        sel[n] = held[static_cast<size_t>(j)];
        n += mask[j];
      }
    } else {
      // A full read after earlier filters: keep the selected rows held and passing.
      int64_t out = 0;
      size_t h = 0;
      const size_t hc = static_cast<size_t>(c);
      for (int64_t j = 0; j < n; ++j) {
        const int32_t r = sel[j];
        while (h < hc && held[h] < r) ++h;
        if (h == hc) break;
        sel[out] = r;
        out += held[h] == r && mask[h];
      }
      n = out;
    }
    first = false;
    fl.rows_in += before;
    fl.rows_out += n;
  }
  return n;
}

Status BatchReader::CompactFilteredBatches(int64_t count) {
  const FileSchema& fs = file_->file_schema();
  MemoryPool* pool = file_->options().pool;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    if (!filtered_leaf_[k]) continue;
    LeafBatch* b = batches_[k].get();
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    // `sel` holds the position in the batch of each row kept.
    const int32_t* sel = selection_.data();
    if (held_selected_[k]) {
      // The batch holds rows held_rows_[k], a superset of the rows kept.
      const std::vector<int32_t>& held = held_rows_[k];
      if (static_cast<int64_t>(held.size()) == count) continue;
      positions_.resize(static_cast<size_t>(count));
      size_t h = 0;
      for (int64_t j = 0; j < count; ++j) {
        while (held[h] != selection_[static_cast<size_t>(j)]) ++h;
        positions_[static_cast<size_t>(j)] = static_cast<int32_t>(h);
      }
      sel = positions_.data();
    }
    if (leaf.out_width > 0) {
      const int64_t w = leaf.out_width;
      BufferBuilder fresh(pool);
      FLOE_RETURN_NOT_OK(fresh.Reserve(count * w));
      const uint8_t* src = b->values.data();
      uint8_t* dst = fresh.mutable_data();
      for (int64_t j = 0; j < count; ++j) {
        std::memcpy(dst + j * w, src + sel[j] * w, static_cast<size_t>(w));
      }
      fresh.UnsafeAdvance(count * w);
      b->values = std::move(fresh);
    } else if (leaf.out_width == 0) {
      BufferBuilder fresh(pool);
      FLOE_RETURN_NOT_OK(fresh.Resize(bit_util::BytesForBits(count)));
      const uint8_t* src = b->values.data();
      uint8_t* dst = fresh.mutable_data();
      for (int64_t j = 0; j < count; ++j) {
        bit_util::SetBitTo(dst, j, bit_util::GetBit(src, sel[j]));
      }
      b->values = std::move(fresh);
    } else {
      const int32_t* offsets = reinterpret_cast<const int32_t*>(b->offsets.data());
      const uint8_t* data = b->data.data();
      int64_t total = 0;
      for (int64_t j = 0; j < count; ++j) total += offsets[sel[j] + 1] - offsets[sel[j]];
      BufferBuilder fresh_offsets(pool);
      BufferBuilder fresh_data(pool);
      FLOE_RETURN_NOT_OK(fresh_offsets.Reserve((count + 1) * 4));
      FLOE_RETURN_NOT_OK(fresh_data.Reserve(total));
      int32_t* out_offsets = reinterpret_cast<int32_t*>(fresh_offsets.mutable_data());
      uint8_t* out_data = fresh_data.mutable_data();
      out_offsets[0] = 0;
      int32_t off = 0;
      for (int64_t j = 0; j < count; ++j) {
        const int32_t begin = offsets[sel[j]];
        const int32_t length = offsets[sel[j] + 1] - begin;
        if (length == 1) {
          out_data[off] = data[begin];
        } else if (length > 0) {
          std::memcpy(out_data + off, data + begin, static_cast<size_t>(length));
        }
        off += length;
        out_offsets[j + 1] = off;
      }
      fresh_offsets.UnsafeAdvance((count + 1) * 4);
      fresh_data.UnsafeAdvance(off);
      b->offsets = std::move(fresh_offsets);
      b->data = std::move(fresh_data);
    }
    // Every level was max_def (no nulls): the levels need not be kept.
    b->def.clear();
    b->def_materialized = false;
    b->num_levels = count;
    b->num_values = count;
  }
  return Status::OK();
}

Status BatchReader::RowCountError(size_t k, int64_t got) const {
  return Status::Corrupt("'{}', column '{}', row group {}: {} rows where {} were expected",
                         file_->path(),
                         file_->file_schema().leaves[static_cast<size_t>(leaves_[k])].path,
                         current_rg_, rg_done_ + got, rg_rows_);
}

Status BatchReader::ReadLeaves(int64_t rows, bool filtered) {
  const FileSchema& fs = file_->file_schema();
  for (size_t k = 0; k < leaves_.size(); ++k) {
    const bool is_filtered = !filtered_leaf_.empty() && filtered_leaf_[k];
    if (is_filtered != filtered) continue;
    batches_[k]->Reset();
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    if (leaf.max_rep == 0 && leaf.out_width > 0) {
      FLOE_RETURN_NOT_OK(batches_[k]->values.Reserve(rows * leaf.out_width));
    }
    FLOE_ASSIGN_OR_RAISE(int64_t got, readers_[k]->ReadRecords(rows, batches_[k].get()));
    if (got != rows) return RowCountError(k, got);
  }
  return Status::OK();
}

Status BatchReader::ReadUnfilteredSelected(int64_t rows, int64_t count) {
  for (size_t k = 0; k < leaves_.size(); ++k) {
    if (filtered_leaf_[k]) continue;
    batches_[k]->Reset();
    FLOE_ASSIGN_OR_RAISE(
        int64_t got, readers_[k]->ReadSelected(rows, selection_.data(), count, batches_[k].get()));
    if (got != rows) return RowCountError(k, got);
  }
  return Status::OK();
}

BatchReader::~BatchReader() {
  if (read_ahead_) {
    cancelled_->store(true);
    read_ahead_->bytes.wait();
  }
}

Status BatchReader::PlanRowGroup(int rg_index, std::vector<ChunkRange>* ranges,
                                 std::vector<const ColumnMetaData*>* metas) const {
  const RowGroup& rg = file_->metadata().row_groups[static_cast<size_t>(rg_index)];
  const FileSchema& fs = file_->file_schema();
  const std::string& path = file_->path();
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[i])];
    const ColumnChunk& cc = rg.columns[static_cast<size_t>(leaf.column_index)];
    auto meta = cc.GetMetaData();
    if (!meta.ok()) {
      return meta.status().WithPrefix(
          fmt::format("'{}', column '{}', row group {}: ", path, leaf.path, rg_index));
    }
    if (cc.file_path) {
      return Status::NotSupported("'{}', column '{}', row group {}: column chunk in another file",
                                  path, leaf.path, rg_index);
    }
    const ColumnMetaData& m = **meta;
    int64_t start = m.data_page_offset;
    if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
        *m.dictionary_page_offset < start) {
      start = *m.dictionary_page_offset;
    }
    int64_t size = m.total_compressed_size;
    if (start < 4 || size < 0 || size > file_->data_end() - start) {
      return Status::Corrupt(
          "'{}', column '{}', row group {}: column chunk [{}, +{}) lies outside the data area "
          "[4, {})",
          path, leaf.path, rg_index, start, size, file_->data_end());
    }
    ranges->push_back(ChunkRange{start, size, i});
    metas->push_back(&m);
  }
  return Status::OK();
}

Result<std::vector<BufferPtr>> BatchReader::ReadChunks(
    const io::RandomAccessFile& file, std::vector<ChunkRange> ranges, size_t num_leaves,
    int64_t coalesce_gap_bytes, int64_t read_ahead_bytes, const std::atomic<bool>& cancelled) {
  // Coalesced reads: ranges closer than the gap (and not past the read-ahead window)
  // are read with one request.
  std::vector<BufferPtr> chunk_bytes(num_leaves);
  std::sort(ranges.begin(), ranges.end(),
            [](const ChunkRange& a, const ChunkRange& b) { return a.offset < b.offset; });
  size_t i = 0;
  while (i < ranges.size()) {
    if (cancelled.load()) return Status::Cancelled("'{}': read-ahead cancelled", file.path());
    int64_t begin = ranges[i].offset;
    int64_t end = begin + ranges[i].size;
    size_t j = i + 1;
    while (j < ranges.size() && ranges[j].offset - end <= coalesce_gap_bytes &&
           std::max(end, ranges[j].offset + ranges[j].size) - begin <= read_ahead_bytes) {
      end = std::max(end, ranges[j].offset + ranges[j].size);
      ++j;
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file.ReadAt(begin, end - begin));
    for (size_t k = i; k < j; ++k) {
      chunk_bytes[ranges[k].index] = Buffer::Slice(bytes, ranges[k].offset - begin, ranges[k].size);
    }
    i = j;
  }
  return chunk_bytes;
}

void BatchReader::StartReadAhead() {
  const ReaderOptions& opt = file_->options();
  if (next_rg_ >= row_groups_.size() || opt.read_ahead_bytes <= 0) return;
  // Reads of a mapped file are views: a thread would only add its own start-up cost.
  if (io::IsMemoryMapped(file_->file())) return;
  const int rg = row_groups_[next_rg_];
  std::vector<ChunkRange> ranges;
  std::vector<const ColumnMetaData*> metas;
  if (!PlanRowGroup(rg, &ranges, &metas).ok()) return;
  int64_t total = 0;
  for (const ChunkRange& r : ranges) total += r.size;
  if (total > opt.read_ahead_bytes) return;
  const io::RandomAccessFile* file = &file_->file();
  // The task owns everything it uses but the file, which outlives this stream (whose
  // destructor waits for the task).
  auto task = [file, ranges = std::move(ranges), n = leaves_.size(), gap = opt.coalesce_gap_bytes,
               window = opt.read_ahead_bytes, cancelled = cancelled_]() mutable {
    return ReadChunks(*file, std::move(ranges), n, gap, window, *cancelled);
  };
  try {
    read_ahead_ = ReadAhead{rg, std::async(std::launch::async, std::move(task))};
  } catch (const std::system_error&) {
    // No thread to be had: that row group is read when it starts.
    read_ahead_.reset();
  }
}

Status BatchReader::StartRowGroup() {
  current_rg_ = row_groups_[next_rg_++];
  const RowGroup& rg = file_->metadata().row_groups[static_cast<size_t>(current_rg_)];
  rg_rows_ = rg.num_rows;
  rg_done_ = 0;
  const FileSchema& fs = file_->file_schema();
  const std::string& path = file_->path();
  const ReaderOptions& opt = file_->options();

  std::vector<ChunkRange> ranges;
  std::vector<const ColumnMetaData*> metas;
  FLOE_RETURN_NOT_OK(PlanRowGroup(current_rg_, &ranges, &metas));
  std::vector<BufferPtr> chunk_bytes;
  if (read_ahead_ && read_ahead_->row_group == current_rg_) {
    // Read ahead while the previous row group decoded; its error, if any, is this one's.
    Result<std::vector<BufferPtr>> bytes = read_ahead_->bytes.get();
    read_ahead_.reset();
    if (!bytes.ok()) {
      return bytes.status().WithPrefix(fmt::format("'{}', row group {}: ", path, current_rg_));
    }
    chunk_bytes = std::move(*bytes);
  } else {
    read_ahead_.reset();
    auto bytes = ReadChunks(file_->file(), ranges, leaves_.size(), opt.coalesce_gap_bytes,
                            opt.read_ahead_bytes, *cancelled_);
    if (!bytes.ok()) {
      return bytes.status().WithPrefix(fmt::format("'{}', row group {}: ", path, current_rg_));
    }
    chunk_bytes = std::move(*bytes);
  }
  StartReadAhead();
  for (size_t k = 0; k < leaves_.size(); ++k) {
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    std::string context =
        fmt::format("'{}', column '{}', row group {}", path, leaf.path, current_rg_);
    // Readers carry over from row group to row group, with their buffers.
    if (k < readers_.size()) {
      FLOE_RETURN_NOT_OK(readers_[k]->Restart(*metas[k], chunk_bytes[k], ranges[k].offset, rg_rows_,
                                              std::move(context)));
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(auto reader,
                         ColumnChunkReader::Make(leaf, *metas[k], chunk_bytes[k], ranges[k].offset,
                                                 rg_rows_, std::move(context)));
    std::vector<std::vector<std::string>> string_sets;
    for (const RowFilter& f : row_filters_) {
      if (f.width == 0 && f.batch == k) string_sets.push_back(f.strings);
    }
    if (!string_sets.empty()) reader->SetStringFilter(std::move(string_sets));
    reader->SetVerifyChecksums(opt.verify_page_checksums);
    readers_.push_back(std::move(reader));
  }
  if (opt.use_page_index && !predicates_.empty()) FLOE_RETURN_NOT_OK(ApplyPageIndex(rg));
  return Status::OK();
}

Result<OffsetIndex> BatchReader::ReadOffsetIndex(const ColumnChunk& cc, const LeafInfo& leaf) {
  OffsetIndex index;
  int64_t off = *cc.offset_index_offset;
  int64_t len = *cc.offset_index_length;
  if (off < 4 || len < 0 || len > file_->data_end() - off) {
    return Status::Corrupt(
        "'{}', column '{}', row group {}: offset index [{}, +{}) is outside the file",
        file_->path(), leaf.path, current_rg_, off, len);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file_->file().ReadAt(off, len));
  auto used = DecodeThrift(bytes->span(), &index, static_cast<uint64_t>(off));
  if (!used.ok()) {
    return used.status().WithPrefix(fmt::format(
        "'{}', column '{}', row group {}: offset index: ", file_->path(), leaf.path, current_rg_));
  }
  // Pages must start at ascending rows inside the row group.
  int64_t prev = -1;
  for (const PageLocation& loc : index.page_locations) {
    if (loc.first_row_index <= prev || loc.first_row_index >= rg_rows_ ||
        (prev < 0 && loc.first_row_index != 0)) {
      return Status::Corrupt("'{}', column '{}', row group {}: offset index has page at row {}",
                             file_->path(), leaf.path, current_rg_, loc.first_row_index);
    }
    prev = loc.first_row_index;
  }
  return index;
}

Status BatchReader::ApplyPageIndex(const RowGroup& rg) {
  const FileSchema& fs = file_->file_schema();
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  auto has_index = [&](const LeafInfo& leaf) {
    const ColumnChunk& cc = rg.columns[static_cast<size_t>(leaf.column_index)];
    return leaf.max_rep == 0 && cc.offset_index_offset && cc.offset_index_length;
  };
  for (int l : leaves_) {
    if (!has_index(fs.leaves[static_cast<size_t>(l)])) return Status::OK();
  }
  Ranges selected = {{0, rg_rows_}};
  for (const ColumnPredicate& p : predicates_) {
    const ReadNode& node = fs.top[static_cast<size_t>(p.column)];
    if (node.kind != ReadNode::Kind::kLeaf) continue;
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(node.leaf)];
    const ColumnChunk& cc = rg.columns[static_cast<size_t>(leaf.column_index)];
    if (!has_index(leaf) || !cc.column_index_offset || !cc.column_index_length ||
        !file_->TypeDefinedOrder(leaf)) {
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(OffsetIndex oi, ReadOffsetIndex(cc, leaf));
    int64_t off = *cc.column_index_offset;
    int64_t len = *cc.column_index_length;
    if (off < 4 || len < 0 || len > file_->data_end() - off) {
      return Status::Corrupt("'{}', column '{}', row group {}: column index is outside the file",
                             file_->path(), leaf.path, current_rg_);
    }
    FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, file_->file().ReadAt(off, len));
    ColumnIndex ci;
    auto used = DecodeThrift(bytes->span(), &ci, static_cast<uint64_t>(off));
    if (!used.ok()) {
      return used.status().WithPrefix(fmt::format("'{}', column '{}', row group {}: column index: ",
                                                  file_->path(), leaf.path, current_rg_));
    }
    const size_t pages = oi.page_locations.size();
    if (ci.null_pages.size() != pages) {
      return Status::Corrupt(
          "'{}', column '{}', row group {}: column index has {} pages, the "
          "offset index {}",
          file_->path(), leaf.path, current_rg_, ci.null_pages.size(), pages);
    }
    Ranges keep;
    for (size_t i = 0; i < pages; ++i) {
      std::optional<int64_t> nulls;
      if (ci.null_counts) nulls = (*ci.null_counts)[i];
      std::optional<Storage> lo, hi;
      if (!ci.null_pages[i]) {
        lo = StatValue(leaf, ci.min_values[i]);
        hi = StatValue(leaf, ci.max_values[i]);
      }
      if (!FileReader::StatsMayMatch(lo, hi, nulls, ci.null_pages[i], p)) continue;
      int64_t begin = oi.page_locations[i].first_row_index;
      int64_t end = i + 1 < pages ? oi.page_locations[i + 1].first_row_index : rg_rows_;
      if (!keep.empty() && keep.back().second == begin) {
        keep.back().second = end;
      } else {
        keep.emplace_back(begin, end);
      }
    }
    Ranges both;
    size_t a = 0, b = 0;
    while (a < selected.size() && b < keep.size()) {
      int64_t lo = std::max(selected[a].first, keep[b].first);
      int64_t hi = std::min(selected[a].second, keep[b].second);
      if (lo < hi) both.emplace_back(lo, hi);
      if (selected[a].second < keep[b].second) {
        ++a;
      } else {
        ++b;
      }
    }
    selected = std::move(both);
  }
  if (selected.size() == 1 && selected[0] == std::make_pair(int64_t{0}, rg_rows_)) {
    return Status::OK();
  }
  int64_t rows = 0;
  for (const auto& r : selected) rows += r.second - r.first;
  for (size_t k = 0; k < leaves_.size(); ++k) {
    const LeafInfo& leaf = fs.leaves[static_cast<size_t>(leaves_[k])];
    FLOE_ASSIGN_OR_RAISE(OffsetIndex oi,
                         ReadOffsetIndex(rg.columns[static_cast<size_t>(leaf.column_index)], leaf));
    readers_[k]->SetRowSelection(selected, std::move(oi.page_locations));
  }
  rg_rows_ = rows;
  return Status::OK();
}

Result<RecordBatchPtr> BatchReader::Next() {
  const FileSchema& fs = file_->file_schema();
  while (true) {
    while (current_rg_ < 0 || rg_done_ >= rg_rows_) {
      if (next_rg_ >= row_groups_.size()) return RecordBatchPtr();
      FLOE_RETURN_NOT_OK(StartRowGroup());
    }
    const int64_t want =
        std::min(std::max<int64_t>(file_->options().batch_size, 1), rg_rows_ - rg_done_);
    int64_t rows = want;
    bool unfiltered_read = false;
    if (!row_filters_.empty()) {
      // The columns the filters read come first; the others are then read for the rows
      // that pass only.
      FLOE_ASSIGN_OR_RAISE(const int64_t count, FilterRows(want));
      {
        // Compacting costs a copy of the passing rows of the filtered columns and saves
        // decoding the failing rows of the others (and the caller's filtering of them). A
        // filtered batch that holds some rows only must be compacted.
        const bool must =
            std::find(held_selected_.begin(), held_selected_.end(), true) != held_selected_.end();
        if (count == 0 || count * 4 <= want * 3 || must) {
          FLOE_RETURN_NOT_OK(ReadUnfilteredSelected(want, count));
          rg_done_ += want;
          if (count == 0) continue;
          FLOE_RETURN_NOT_OK(CompactFilteredBatches(count));
          rows = count;
          unfiltered_read = true;
        }
      }
    }
    if (!unfiltered_read) {
      FLOE_RETURN_NOT_OK(ReadLeaves(want, false));
      rg_done_ += want;
    }
    std::vector<ArrayPtr> arrays;
    Assembler assembler(fs, by_leaf_, file_->options().pool);
    for (int c : columns_) {
      auto array = assembler.Assemble(fs.top[static_cast<size_t>(c)]);
      if (!array.ok()) {
        return array.status().WithPrefix(
            fmt::format("'{}', row group {}: ", file_->path(), current_rg_));
      }
      arrays.push_back(std::move(*array));
    }
    return RecordBatch::Make(schema_, rows, std::move(arrays));
  }
}

}  // namespace

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<io::RandomAccessFile> file, ReaderOptions options) {
  auto reader = std::make_unique<FileReader>(std::move(file), options);
  FLOE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<ParquetFileReader>(std::move(reader));
}

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::OpenPath(const std::string& path,
                                                                       ReaderOptions options) {
  FLOE_ASSIGN_OR_RAISE(auto file, io::OpenLocalFile(path));
  return Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)), options);
}

}  // namespace floe::parquet
