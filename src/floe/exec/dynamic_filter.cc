#include "floe/exec/dynamic_filter.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"

namespace floe::exec {

namespace {

template <typename T>
DynamicFilter FilterOf(const Array& keys, bool list) {
  DynamicFilter out;
  out.type = keys.type();
  const T* values = keys.values<T>();
  const int64_t n = keys.length();
  const bool nulls = keys.null_count() > 0;
  bool any = false;
  T lo{}, hi{};
  std::vector<T> distinct;
  bool listing = list;
  for (int64_t i = 0; i < n; ++i) {
    if (nulls && keys.IsNull(i)) continue;
    const T v = values[i];
    if (!any) {
      lo = hi = v;
      any = true;
    } else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (listing) {
      distinct.push_back(v);
      // Deduplicated whenever the list doubles past the cap, so that a build side of few
      // keys repeated many times stays listed.
      if (static_cast<int64_t>(distinct.size()) > 2 * DynamicFilter::kMaxValues) {
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        listing = static_cast<int64_t>(distinct.size()) <= DynamicFilter::kMaxValues;
        if (!listing) distinct = {};
      }
    }
  }
  if (!any) return out;
  using Storage = std::conditional_t<sizeof(T) <= 4, int32_t, int64_t>;
  out.min = Scalar::Make(out.type, static_cast<Storage>(lo));
  out.max = Scalar::Make(out.type, static_cast<Storage>(hi));
  const auto span = static_cast<uint64_t>(static_cast<int64_t>(hi)) -
                    static_cast<uint64_t>(static_cast<int64_t>(lo));
  const uint64_t words = span / 64 + 1;
  if (listing) {
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const auto keys = static_cast<int64_t>(distinct.size());
    if (keys <= DynamicFilter::kMaxValues) {
      // A list gets a bitmap too when its range is dense enough: the scans then test bits
      // instead of converting and searching the list per file. Only Iceberg's manifest
      // pruning reads such a list, up to kMaxIcebergValues keys: a longer dense one is a
      // bitmap alone (up to 65,536 Scalars would take megabytes of fresh memory).
      const bool dense = words <= DynamicFilter::kMaxBitmapWordsPerListedKey * distinct.size();
      if (!dense || keys <= DynamicFilter::kMaxIcebergValues) {
        out.listed = true;
        out.values.reserve(distinct.size());
        for (T v : distinct) out.values.push_back(Scalar::Make(out.type, static_cast<Storage>(v)));
      }
      if (!dense) return out;
    }
  }
  if (span < static_cast<uint64_t>(DynamicFilter::kMaxBitmapSpan)) {
    auto bitmap = std::make_shared<KeyBitmap>(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && keys.IsNull(i)) continue;
      bitmap->Add(static_cast<int64_t>(values[i]));
    }
    out.bitmap = std::move(bitmap);
  }
  return out;
}

}  // namespace

bool DynamicFilter::Supports(const DataType& type) {
  return type.is_integer() || type.id() == TypeId::kDate;
}

Result<DynamicFilter> DynamicFilter::Of(const Array& keys, std::optional<int64_t> max_distinct) {
  const bool list = !max_distinct || *max_distinct <= kMaxValues;
  switch (keys.type()->id()) {
    case TypeId::kInt8:
      return FilterOf<int8_t>(keys, list);
    case TypeId::kInt16:
      return FilterOf<int16_t>(keys, list);
    case TypeId::kInt32:
    case TypeId::kDate:
      return FilterOf<int32_t>(keys, list);
    case TypeId::kInt64:
      return FilterOf<int64_t>(keys, list);
    default:
      return Status::NotSupported("no dynamic filter over {}", keys.type()->ToString());
  }
}

std::string DynamicFilterUsesToString(const std::vector<DynamicFilterUse>& uses,
                                      const Schema& output) {
  if (uses.empty()) return "";
  std::string out = " dynamic_filters=[";
  for (size_t i = 0; i < uses.size(); ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("#{} on {}", uses[i].id, output.field(uses[i].column).name());
  }
  return out + "]";
}

std::string DynamicFilter::ToString() const {
  if (!min) return "none";
  if (listed) return fmt::format("IN ({} values)", values.size());
  if (bitmap) return "bitmap";
  return "range";
}

}  // namespace floe::exec
