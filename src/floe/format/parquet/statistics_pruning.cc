// Row groups and pages skipped by their statistics: a chunk's min/max and null count, and
// the page index (PageIndex.md), checked against the read's predicates.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include "floe/format/parquet/reader_internal.h"
#include "floe/type/type_visit.h"

namespace floe::parquet::internal {

namespace {

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
  return VisitPhysicalType(t->id(), [&]<typename T>(TypeTag<T>) -> std::optional<Storage> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view> ||
                  std::is_void_v<T>) {
      return std::nullopt;
    } else {
      T v;
      std::memcpy(&v, out, sizeof(T));
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v)) return std::nullopt;
      }
      // int8 and int16 values are held as int32 (ScalarStorageOf).
      return Storage(ScalarStorageOf<T>{v});
    }
  });
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

}  // namespace

Result<std::vector<int>> FileReader::PruneRowGroups(
    const std::vector<ColumnPredicate>& predicates) const {
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

bool FileReader::MayMatch(int rg, const ColumnPredicate& p) const {
  const ReadNode& node = schema_.top[static_cast<size_t>(p.column)];
  if (node.kind != ReadNode::Kind::kLeaf) return true;
  const LeafInfo& leaf = schema_.leaves[static_cast<size_t>(node.leaf)];
  const ColumnChunk& cc = metadata_.row_groups[static_cast<size_t>(rg)].columns[leaf.column_index];
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

bool FileReader::TypeDefinedOrder(const LeafInfo& leaf) const {
  return !(metadata_.column_orders &&
           static_cast<size_t>(leaf.column_index) < metadata_.column_orders->size() &&
           (*metadata_.column_orders)[leaf.column_index].kind !=
               ColumnOrder::Kind::kTypeDefinedOrder);
}

bool FileReader::StatsMayMatch(const std::optional<Storage>& lo, const std::optional<Storage>& hi,
                               std::optional<int64_t> nulls, bool all_null,
                               const ColumnPredicate& p) {
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
  if (p.key_bitmap) {
    // A key within [lo, hi] (integer statistics only; others cannot rule it out).
    auto as_int = [](const Storage& s) -> std::optional<int64_t> {
      if (const auto* v = std::get_if<int32_t>(&s)) return *v;
      if (const auto* v = std::get_if<int64_t>(&s)) return *v;
      return std::nullopt;
    };
    std::optional<int64_t> a = as_int(*lo);
    std::optional<int64_t> b = as_int(*hi);
    return !a || !b || p.key_bitmap->AnyIn(*a, *b);
  }
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
  if (p.op == ColumnPredicate::Op::kIn && p.sorted) {
    // The first value not below the range's minimum must not be above its maximum.
    auto below = [&](const Scalar& s) {
      std::optional<Storage> v = NormalizeValue(s);
      if (!v) return false;
      std::optional<int> c = Compare(*v, *lo);
      return c && *c < 0;
    };
    auto first = std::partition_point(p.values.begin(), p.values.end(), below);
    return first != p.values.end() && !outside(*first, p.op);
  }
  if (p.op == ColumnPredicate::Op::kIn) {
    for (const Scalar& s : p.values) {
      if (!outside(s, p.op)) return true;
    }
    return false;
  }
  if (p.values.size() != 1) return true;
  return !outside(p.values[0], p.op);
}

bool FileReader::SignedStatsUsable(const LeafInfo& leaf) {
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

Result<BufferPtr> BatchReader::ReadPageIndexBytes(const RowGroup& rg, int64_t off, int64_t len) {
  if (page_index_rg_ != current_rg_) {
    page_index_rg_ = current_rg_;
    page_index_bytes_.reset();
    int64_t lo = INT64_MAX, hi = 0;
    for (const ColumnChunk& cc : rg.columns) {
      for (auto [o, l] : {std::pair(cc.column_index_offset, cc.column_index_length),
                          std::pair(cc.offset_index_offset, cc.offset_index_length)}) {
        if (!o || !l || *o < 4 || *l < 0 || *l > file_->data_end() - *o) continue;
        lo = std::min(lo, *o);
        hi = std::max(hi, *o + *l);
      }
    }
    if (lo < hi && hi - lo <= kMaxPageIndexRegion) {
      FLOE_ASSIGN_OR_RAISE(page_index_bytes_, file_->file().ReadAt(lo, hi - lo));
      page_index_offset_ = lo;
    }
  }
  if (page_index_bytes_ && off >= page_index_offset_ &&
      off + len <= page_index_offset_ + page_index_bytes_->size()) {
    return Buffer::Wrap(page_index_bytes_->data() + (off - page_index_offset_), len,
                        page_index_bytes_);
  }
  return file_->file().ReadAt(off, len);
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
  FLOE_ASSIGN_OR_RAISE(BufferPtr bytes,
                       ReadPageIndexBytes(file_->metadata().row_groups[current_rg_], off, len));
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

Status BatchReader::SelectRows(const RowGroup& rg, std::pair<int64_t, int64_t> slice) {
  const FileSchema& fs = file_->file_schema();
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  auto has_index = [&](const LeafInfo& leaf) {
    const ColumnChunk& cc = rg.columns[static_cast<size_t>(leaf.column_index)];
    return leaf.max_rep == 0 && cc.offset_index_offset && cc.offset_index_length;
  };
  bool indexed = file_->options().use_page_index;
  for (int l : leaves_) {
    if (!has_index(fs.leaves[static_cast<size_t>(l)])) indexed = false;
  }
  const bool whole = slice == std::make_pair(int64_t{0}, rg_rows_);
  if (!indexed && whole) return Status::OK();
  Ranges selected = {slice};
  const std::vector<ColumnPredicate> none;
  for (const ColumnPredicate& p : indexed ? predicates_ : none) {
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
    FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, ReadPageIndexBytes(rg, off, len));
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
    std::vector<PageLocation> pages;
    if (indexed) {
      FLOE_ASSIGN_OR_RAISE(
          OffsetIndex oi,
          ReadOffsetIndex(rg.columns[static_cast<size_t>(leaf.column_index)], leaf));
      pages = std::move(oi.page_locations);
    } else {
      FLOE_ASSIGN_OR_RAISE(pages, readers_[k]->LocateDataPages());
    }
    readers_[k]->SetRowSelection(selected, std::move(pages));
  }
  rg_rows_ = rows;
  return Status::OK();
}

}  // namespace floe::parquet::internal
