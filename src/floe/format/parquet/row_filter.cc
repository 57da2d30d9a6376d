// The row filter of ReadRequest::filter_rows: pushed comparisons on flat integer, date, time,
// decimal and string columns drop the rows of a batch that fail them.

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "floe/format/parquet/encoding.h"
#include "floe/format/parquet/reader_internal.h"
#include "floe/type/type_visit.h"

namespace floe::parquet::internal {

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
    if (node.kind != ReadNode::Kind::kLeaf || (p.values.empty() && !p.key_bitmap)) continue;
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
          RowFilter{batch, ColumnPredicate::Op::kIn, 0, 0, std::move(strings), {}, {}});
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
    const bool integer_like = VisitPhysicalType(leaf.type->id(), []<typename T>(TypeTag<T>) {
      return std::is_same_v<T, Int128> || (std::is_integral_v<T> && !std::is_same_v<T, bool>);
    });
    if (!integer_like) continue;
    const int width = leaf.out_width;
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) continue;
    if ((width == 16) != (leaf.type->id() == TypeId::kDecimal)) continue;
    if (p.key_bitmap) {
      // Its bits test the values as int64, whatever the column's width (WithIntPredicate):
      // a range reaching past what the column's type holds is fine.
      if (p.op != ColumnPredicate::Op::kIn || width > 8) continue;
      row_filters_.push_back(RowFilter{batch, p.op, width, 0, {}, {}, p.key_bitmap});
      filtered_leaf_[batch] = true;
      continue;
    }
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
      row_filters_.push_back(RowFilter{batch, p.op, width, ints[0], {}, {}, {}});
    } else {
      std::sort(ints.begin(), ints.end());
      ints.erase(std::unique(ints.begin(), ints.end()), ints.end());
      std::shared_ptr<KeyBitmap> members;
      if (width <= 8 && ints.size() > 8 && ints.back() - ints.front() < kMaxMemberBits) {
        members = std::make_shared<KeyBitmap>(static_cast<int64_t>(ints.front()),
                                              static_cast<int64_t>(ints.back()));
        for (Int128 v : ints) members->Add(static_cast<int64_t>(v));
      }
      row_filters_.push_back(
          RowFilter{batch, p.op, width, 0, {}, std::move(ints), std::move(members)});
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
// distinct `ints` or the set `members` when there is one) and returns its result.
template <typename T, typename Fn>
int64_t WithIntPredicate(ColumnPredicate::Op op, Int128 value, const std::vector<Int128>& ints,
                         const KeyBitmap* members, Fn&& fn) {
  using Op = ColumnPredicate::Op;
  if constexpr (!std::is_same_v<T, Int128>) {
    // Keys and values meet as int64 (both converted alike): a key T cannot hold matches
    // no value.
    if (op == Op::kIn && members != nullptr) {
      const int64_t lo = members->lo;
      const uint64_t span = members->span;
      const uint64_t* words = members->words.data();
      return fn(std::type_identity<T>(), [lo, span, words](T v) {
        return KeyBitmap::Contains(words, lo, span, static_cast<int64_t>(v));
      });
    }
  }
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
                      const std::vector<Int128>& ints, const KeyBitmap* members, Fn&& fn) {
  switch (width) {
    case 1:
      return WithIntPredicate<int8_t>(op, value, ints, members, fn);
    case 2:
      return WithIntPredicate<int16_t>(op, value, ints, members, fn);
    case 4:
      return WithIntPredicate<int32_t>(op, value, ints, members, fn);
    case 8:
      return WithIntPredicate<int64_t>(op, value, ints, members, fn);
    default:
      return WithIntPredicate<Int128>(op, value, ints, members, fn);
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
          n = WithIntFilter(f.width, f.op, f.value, f.ints, f.members.get(),
                            [&](auto tag, auto cmp) {
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
        if (static_cast<int64_t>(b->pass.size()) == c) {
          // The column reader's verdicts, one per value held (every string filter at once).
          const uint8_t* pass = b->pass.data();
          for (int64_t j = 0; j < c; ++j) mask[j] &= pass[j];
          continue;
        }
        const int32_t* offsets = StringOffsets(*b);
        for (int64_t j = 0; j < c; ++j) {
          mask[j] &= static_cast<uint8_t>(StringIn(offsets, b->data.data(), f.strings, j));
        }
      } else {
        const uint8_t* values = b->values.data();
        WithIntFilter(f.width, f.op, f.value, f.ints, f.members.get(), [&](auto tag, auto cmp) {
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
      GatherDictionary(b->values.data(), static_cast<int32_t>(w), sel, count, fresh.mutable_data());
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

}  // namespace floe::parquet::internal
