#include "floe/iceberg/data_file_writer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "floe/batch/scalar.h"
#include "floe/batch/utf8.h"
#include "floe/common/ascii.h"
#include "floe/format/parquet/metadata.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/type_json.h"
#include "floe/type/type_visit.h"

namespace floe::iceberg {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

template <typename T>
bool ParseInteger(std::string_view text, T* out) {
  text = Trim(text);
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// MetricsMode
// ---------------------------------------------------------------------------------------

Result<MetricsMode> MetricsMode::Parse(std::string_view text) {
  std::string s = AsciiLower(Trim(text));
  if (s == "none") return None();
  if (s == "counts") return Counts();
  if (s == "full") return Full();
  constexpr std::string_view kPrefix = "truncate(";
  if (s.size() > kPrefix.size() + 1 && s.compare(0, kPrefix.size(), kPrefix) == 0 &&
      s.back() == ')') {
    std::string_view digits(s.data() + kPrefix.size(), s.size() - kPrefix.size() - 1);
    int32_t n = 0;
    if (!digits.empty() && std::isdigit(static_cast<unsigned char>(digits.front())) &&
        ParseInteger(digits, &n) && n > 0) {
      return Truncate(n);
    }
  }
  return Status::Invalid(
      "metrics mode '{}' is not one of none, counts, full or truncate(N) with N > 0", text);
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kTruncate:
      return fmt::format("truncate({})", length);
    case Kind::kFull:
      return "full";
  }
  return "none";
}

// ---------------------------------------------------------------------------------------
// WriterProperties
// ---------------------------------------------------------------------------------------

Result<WriterProperties> WriterProperties::Make(
    const std::map<std::string, std::string>& properties, std::string_view table_location,
    const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> merged = properties;
  for (const auto& [k, v] : overrides) merged[k] = v;
  auto find = [&](std::string_view key) -> const std::string* {
    auto it = merged.find(std::string(key));
    return it == merged.end() ? nullptr : &it->second;
  };
  auto positive = [&](std::string_view key, int64_t* out) -> Status {
    const std::string* v = find(key);
    if (v == nullptr) return Status::OK();
    int64_t n = 0;
    if (!ParseInteger(*v, &n) || n <= 0) {
      return Status::Invalid("table property {}: '{}' is not a positive number of bytes", key, *v);
    }
    *out = n;
    return Status::OK();
  };

  WriterProperties p;
  if (const std::string* v = find(kParquetCompressionCodec)) {
    std::string codec = AsciiLower(Trim(*v));
    if (codec == "zstd" || codec == "gzip" || codec == "snappy" || codec == "brotli" ||
        codec == "uncompressed") {
      p.compression_codec = codec;
    } else if (codec == "lz4") {
      // Iceberg's "lz4" is written as LZ4_RAW, the Parquet codec every current reader knows.
      p.compression_codec = "lz4_raw";
    } else if (codec == "lzo") {
      return Status::NotSupported("table property {}: codec '{}' cannot be written",
                                  kParquetCompressionCodec, *v);
    } else {
      return Status::Invalid(
          "table property {}: '{}' is not one of zstd, gzip, snappy, lz4, brotli, uncompressed",
          kParquetCompressionCodec, *v);
    }
  }
  if (const std::string* v = find(kParquetCompressionLevel)) {
    int level = 0;
    if (!ParseInteger(*v, &level)) {
      return Status::Invalid("table property {}: '{}' is not an integer", kParquetCompressionLevel,
                             *v);
    }
    p.compression_level = level;
  }
  FLOE_RETURN_NOT_OK(positive(kParquetRowGroupSizeBytes, &p.row_group_size_bytes));
  FLOE_RETURN_NOT_OK(positive(kParquetPageSizeBytes, &p.page_size_bytes));
  FLOE_RETURN_NOT_OK(positive(kParquetDictSizeBytes, &p.dict_size_bytes));
  FLOE_RETURN_NOT_OK(positive(kTargetFileSizeBytes, &p.target_file_size_bytes));
  if (const std::string* v = find(kMetricsModeDefault)) {
    auto mode = MetricsMode::Parse(*v);
    if (!mode.ok())
      return mode.status().WithPrefix(fmt::format("table property {}: ", kMetricsModeDefault));
    p.default_metrics = *mode;
  }
  if (const std::string* v = find(kMetricsMaxInferredColumnDefaults)) {
    int32_t n = 0;
    if (!ParseInteger(*v, &n) || n < 0) {
      return Status::Invalid("table property {}: '{}' is not a non-negative integer",
                             kMetricsMaxInferredColumnDefaults, *v);
    }
    p.max_inferred_column_defaults = n;
  }
  for (const auto& [key, value] : merged) {
    if (key.size() <= kMetricsModeColumnPrefix.size() ||
        key.compare(0, kMetricsModeColumnPrefix.size(), kMetricsModeColumnPrefix) != 0) {
      continue;
    }
    auto mode = MetricsMode::Parse(value);
    if (!mode.ok()) return mode.status().WithPrefix(fmt::format("table property {}: ", key));
    p.column_metrics[key.substr(kMetricsModeColumnPrefix.size())] = *mode;
  }
  std::string location;
  if (const std::string* v = find(kWriteDataPath); v != nullptr && !v->empty()) {
    location = *v;
  } else if (const std::string* f = find(kWriteFolderStoragePath); f != nullptr && !f->empty()) {
    location = *f;
  } else {
    if (table_location.empty()) {
      return Status::Invalid("the table has no location and sets neither {} nor {}", kWriteDataPath,
                             kWriteFolderStoragePath);
    }
    std::string_view base = table_location;
    while (base.size() > 1 && base.back() == '/') base.remove_suffix(1);
    location = std::string(base) + "/data";
  }
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  p.data_location = std::move(location);
  return p;
}

parquet::WriterOptions WriterProperties::ToParquetOptions() const {
  parquet::WriterOptions o;
  o.compression = compression_codec;
  o.compression_level = compression_level;
  o.row_group_size_bytes = row_group_size_bytes;
  o.page_size_bytes = page_size_bytes;
  o.dictionary_page_size_limit = dict_size_bytes;
  return o;
}

// ---------------------------------------------------------------------------------------
// MetricsConfig
// ---------------------------------------------------------------------------------------

namespace {

void CollectIds(const Field& field, std::vector<int32_t>* out) {
  if (field.has_field_id()) out->push_back(field.field_id());
  for (const Field& child : field.type()->fields()) CollectIds(child, out);
}

}  // namespace

std::shared_ptr<const MetricsConfig> MetricsConfig::Make(const WriterProperties& properties,
                                                         const Schema& schema,
                                                         const SortOrder* sort_order) {
  std::shared_ptr<MetricsConfig> config(new MetricsConfig());
  const MetricsMode truncate16 = MetricsMode::Truncate(16);
  if (properties.default_metrics) {
    config->default_mode_ = *properties.default_metrics;
  } else if (schema.num_fields() > properties.max_inferred_column_defaults) {
    // Wide tables: only the first columns get metrics by default.
    config->default_mode_ = MetricsMode::None();
    for (int i = 0; i < properties.max_inferred_column_defaults; ++i) {
      std::vector<int32_t> ids;
      CollectIds(schema.fields()[static_cast<size_t>(i)], &ids);
      for (int32_t id : ids) config->modes_[id] = truncate16;
    }
  } else {
    config->default_mode_ = truncate16;
  }
  if (sort_order != nullptr) {
    // Sorted columns keep bounds even when the default would drop them: they are what
    // readers prune on.
    for (const SortField& f : sort_order->fields()) {
      if (!f.transform.PreservesOrder()) continue;
      MetricsMode mode = config->ModeFor(f.source_id);
      if (mode.kind == MetricsMode::Kind::kNone || mode.kind == MetricsMode::Kind::kCounts) {
        config->modes_[f.source_id] = truncate16;
      }
    }
  }
  for (const auto& [name, mode] : properties.column_metrics) {
    auto field = schema.FindFieldByName(name, /*case_sensitive=*/true);
    if (!field.ok() || *field == nullptr) continue;
    config->modes_[(*field)->field_id()] = mode;
  }
  return config;
}

MetricsMode MetricsConfig::ModeFor(int32_t field_id) const {
  auto it = modes_.find(field_id);
  return it == modes_.end() ? default_mode_ : it->second;
}

// ---------------------------------------------------------------------------------------
// ConformBatch
// ---------------------------------------------------------------------------------------

namespace {

// The same values typed as `type` (same shape), sharing buffers.
Result<ArrayPtr> Retype(const ArrayPtr& array, const TypePtr& type) {
  if (array->type() == type || array->type()->Equals(*type)) return array;
  std::vector<ArrayPtr> children;
  switch (type->id()) {
    case TypeId::kStruct:
      for (int i = 0; i < type->num_fields(); ++i) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr c, Retype(array->child(i), type->field(i).type()));
        children.push_back(std::move(c));
      }
      break;
    case TypeId::kList: {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr c, Retype(array->child(0), type->field(0).type()));
      children.push_back(std::move(c));
      break;
    }
    case TypeId::kMap: {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr c, Retype(array->child(0), type->map_entries_type()));
      children.push_back(std::move(c));
      break;
    }
    default:
      break;
  }
  return Array::Make(type, array->length(), array->buffers(), std::move(children),
                     array->null_count(), array->offset());
}

}  // namespace

Result<RecordBatchPtr> ConformBatch(const Schema& schema, const RecordBatch& batch) {
  const floe::SchemaPtr& columns = schema.columns();
  if (batch.schema() == columns) return batch.Slice(0, batch.num_rows());
  if (batch.num_columns() != columns->num_fields()) {
    return Status::Invalid("the batch has {} columns, the table has {} ({})", batch.num_columns(),
                           columns->num_fields(), columns->ToString());
  }
  std::vector<ArrayPtr> arrays;
  arrays.reserve(static_cast<size_t>(batch.num_columns()));
  for (int i = 0; i < batch.num_columns(); ++i) {
    const Field& field = columns->field(i);
    const ArrayPtr& input = batch.column(i);
    if (!SameShape(*input->type(), *field.type())) {
      return Status::Invalid("column {} ('{}'): the batch has type {}, the table column is {}", i,
                             field.name(), input->type()->ToString(), field.type()->ToString());
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, Retype(input, field.type()));
    arrays.push_back(std::move(a));
  }
  return RecordBatch::Make(columns, batch.num_rows(), std::move(arrays));
}

// ---------------------------------------------------------------------------------------
// DataFileWriter
// ---------------------------------------------------------------------------------------

namespace {

// How a leaf's bounds are tracked.
enum class BoundKind : uint8_t { kNone, kBool, kInt32, kInt64, kFloat, kDouble, kDecimal, kBytes };

BoundKind BoundKindOf(TypeId id) {
  return VisitPhysicalType(id, []<typename T>(TypeTag<T>) {
    if constexpr (std::is_same_v<T, bool>) return BoundKind::kBool;
    if constexpr (std::is_same_v<T, int32_t>) return BoundKind::kInt32;
    if constexpr (std::is_same_v<T, int64_t>) return BoundKind::kInt64;
    if constexpr (std::is_same_v<T, float>) return BoundKind::kFloat;
    if constexpr (std::is_same_v<T, double>) return BoundKind::kDouble;
    if constexpr (std::is_same_v<T, Int128>) return BoundKind::kDecimal;
    if constexpr (std::is_same_v<T, std::string_view>) return BoundKind::kBytes;
    // int8/int16 have no Iceberg type and so no single-value serialization; nested types
    // have no bounds.
    return BoundKind::kNone;
  });
}

struct LeafInfo {
  int32_t field_id = kNoFieldId;
  TypePtr type;
  MetricsMode mode;
  BoundKind kind = BoundKind::kNone;
  // Bounds are kept only for leaves reached through structs (not inside lists or maps).
  bool bounds_allowed = false;
  bool is_floating = false;
};

struct LeafStats {
  int64_t nan_count = 0;
  bool has_bounds = false;
  int64_t imin = 0, imax = 0;
  double dmin = 0, dmax = 0;
  Int128 qmin = 0, qmax = 0;
  std::string smin, smax;
};

// A node of the schema tree as the writer walks it.
struct Node {
  const Field* field = nullptr;
  std::string name;  // full dotted name
  int leaf = -1;     // for primitive nodes
  // Whether the node or a node below it is required (so that a check-only walk can skip it).
  bool has_required = false;
  std::vector<Node> children;
};

Node BuildNode(const Field& field, std::string name, bool under_repeated,
               const MetricsConfig& metrics, std::vector<LeafInfo>* leaves) {
  Node node;
  node.field = &field;
  node.name = std::move(name);
  node.has_required = !field.nullable();
  const DataType& type = *field.type();
  if (!type.is_nested()) {
    LeafInfo info;
    info.field_id = field.field_id();
    info.type = field.type();
    info.mode = metrics.ModeFor(field.field_id());
    info.kind = BoundKindOf(type.id());
    info.bounds_allowed = !under_repeated;
    info.is_floating = type.is_floating();
    node.leaf = static_cast<int>(leaves->size());
    leaves->push_back(std::move(info));
    return node;
  }
  bool repeated = under_repeated || type.id() != TypeId::kStruct;
  for (const Field& child : type.fields()) {
    node.children.push_back(
        BuildNode(child, node.name + "." + child.name(), repeated, metrics, leaves));
    node.has_required = node.has_required || node.children.back().has_required;
  }
  return node;
}

// The rows of an array a node visits: every row [0, n), or the listed ones.
struct Rows {
  const std::vector<int64_t>* idx = nullptr;
  int64_t n = 0;

  template <typename F>
  void ForEach(F&& f) const {
    if (idx != nullptr) {
      for (int64_t i : *idx) f(i);
    } else {
      for (int64_t i = 0; i < n; ++i) f(i);
    }
  }
};

template <typename F>
void ForEachValid(const Array& a, const Rows& rows, F&& f) {
  if (a.null_count() == 0) {
    rows.ForEach(f);
  } else if (a.null_count() != a.length()) {
    rows.ForEach([&](int64_t i) {
      if (a.IsValid(i)) f(i);
    });
  }
}

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

template <typename T>
void UpdateIntBounds(const Array& a, const Rows& rows, LeafStats* s) {
  const T* v = a.values<T>();
  bool has = s->has_bounds;
  int64_t lo = s->imin, hi = s->imax;
  ForEachValid(a, rows, [&](int64_t i) {
    int64_t x = v[i];
    if (!has) {
      lo = hi = x;
      has = true;
    } else {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  });
  s->has_bounds = has;
  s->imin = lo;
  s->imax = hi;
}

template <typename T>
void UpdateFloat(const Array& a, const Rows& rows, bool bounds, LeafStats* s) {
  const T* v = a.values<T>();
  bool has = s->has_bounds;
  double lo = s->dmin, hi = s->dmax;
  int64_t nans = 0;
  ForEachValid(a, rows, [&](int64_t i) {
    double x = v[i];
    if (std::isnan(x)) {
      ++nans;
      return;
    }
    if (!bounds) return;
    if (!has) {
      lo = hi = x;
      has = true;
    } else {
      // -0.0 and +0.0 compare equal here; Encode widens a zero bound to cover both.
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  });
  s->nan_count += nans;
  s->has_bounds = has;
  s->dmin = lo;
  s->dmax = hi;
}

void UpdateStats(const LeafInfo& leaf, const Array& a, const Rows& rows, LeafStats* s) {
  if (leaf.mode.kind == MetricsMode::Kind::kNone) return;
  const bool bounds = leaf.bounds_allowed && leaf.mode.kind != MetricsMode::Kind::kCounts;
  if (leaf.kind == BoundKind::kFloat) return UpdateFloat<float>(a, rows, bounds, s);
  if (leaf.kind == BoundKind::kDouble) return UpdateFloat<double>(a, rows, bounds, s);
  if (!bounds) return;
  switch (leaf.kind) {
    case BoundKind::kBool: {
      bool has = s->has_bounds;
      int64_t lo = s->imin, hi = s->imax;
      ForEachValid(a, rows, [&](int64_t i) {
        int64_t x = a.BoolValue(i) ? 1 : 0;
        if (!has) {
          lo = hi = x;
          has = true;
        } else {
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
      });
      s->has_bounds = has;
      s->imin = lo;
      s->imax = hi;
      return;
    }
    case BoundKind::kInt32:
      return UpdateIntBounds<int32_t>(a, rows, s);
    case BoundKind::kInt64:
      return UpdateIntBounds<int64_t>(a, rows, s);
    case BoundKind::kDecimal: {
      ForEachValid(a, rows, [&](int64_t i) {
        Int128 x = a.DecimalValue(i);
        if (!s->has_bounds) {
          s->qmin = s->qmax = x;
          s->has_bounds = true;
        } else {
          if (x < s->qmin) s->qmin = x;
          if (x > s->qmax) s->qmax = x;
        }
      });
      return;
    }
    case BoundKind::kBytes: {
      ForEachValid(a, rows, [&](int64_t i) {
        std::string_view x = a.BytesValue(i);
        if (!s->has_bounds) {
          s->smin.assign(x);
          s->smax.assign(x);
          s->has_bounds = true;
        } else {
          if (CompareBytes(x, s->smin) < 0) s->smin.assign(x);
          if (CompareBytes(x, s->smax) > 0) s->smax.assign(x);
        }
      });
      return;
    }
    default:
      return;
  }
}

// Length of the UTF-8 sequence that starts with byte `b` (1 for a stray continuation byte,
// so that malformed input still advances).
size_t Utf8SequenceLength(unsigned char b) {
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;
}

// Byte offsets of the first `max_code_points + 1` code points of `s`.
std::vector<size_t> CodePointStarts(std::string_view s, size_t max_code_points) {
  std::vector<size_t> starts;
  size_t pos = 0;
  while (pos < s.size() && starts.size() <= max_code_points) {
    starts.push_back(pos);
    pos += Utf8SequenceLength(static_cast<unsigned char>(s[pos]));
  }
  return starts;
}

// The spec's truncated string bounds: the lower bound is the first `n` code points; the upper
// bound is the first `n` code points with the last one that can be incremented incremented (the
// ones after it dropped), or nullopt when none can be.
std::string TruncateStringLower(std::string_view s, size_t n) {
  std::vector<size_t> starts = CodePointStarts(s, n);
  if (starts.size() <= n) return std::string(s);
  return std::string(s.substr(0, starts[n]));
}

std::optional<std::string> TruncateStringUpper(std::string_view s, size_t n) {
  std::vector<size_t> starts = CodePointStarts(s, n);
  if (starts.size() <= n) return std::string(s);
  starts.push_back(starts[n]);  // the end of code point n - 1
  for (size_t k = n; k-- > 0;) {
    std::string_view seq = s.substr(starts[k], starts[k + 1] - starts[k]);
    uint32_t next = DecodeCodePoint(seq) + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // surrogates are not characters
    if (next > 0x10FFFF) continue;
    std::string out(s.substr(0, starts[k]));
    AppendCodePoint(next, &out);
    return out;
  }
  return std::nullopt;
}

std::optional<std::string> TruncateBinaryUpper(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  std::string out(s.substr(0, n));
  while (!out.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(out.back());
    if (last != 0xFF) {
      ++last;
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

}  // namespace

std::string MetricsMode::LowerBound(std::string_view bound, TypeId type) const {
  if (kind != Kind::kTruncate) return std::string(bound);
  const size_t n = static_cast<size_t>(length);
  if (type == TypeId::kString) return TruncateStringLower(bound, n);
  if (type == TypeId::kBinary) return std::string(bound.substr(0, std::min(n, bound.size())));
  return std::string(bound);
}

std::optional<std::string> MetricsMode::UpperBound(std::string_view bound, TypeId type) const {
  if (kind != Kind::kTruncate) return std::string(bound);
  const size_t n = static_cast<size_t>(length);
  if (type == TypeId::kString) return TruncateStringUpper(bound, n);
  if (type == TypeId::kBinary) return TruncateBinaryUpper(bound, n);
  return std::string(bound);
}

namespace {

// Walks the columns of a batch along the schema tree: checks required fields and, when `stats`
// is set, updates the leaves' statistics.
struct Walker {
  const std::vector<LeafInfo>* leaves = nullptr;
  std::vector<LeafStats>* stats = nullptr;
  // Row index lists, one per nesting depth, reused across batches (held by pointer so that
  // growing the list does not move a list a caller is iterating).
  std::vector<std::unique_ptr<std::vector<int64_t>>> scratch;

  std::vector<int64_t>* Scratch(size_t depth) {
    while (scratch.size() <= depth) scratch.push_back(std::make_unique<std::vector<int64_t>>());
    scratch[depth]->clear();
    return scratch[depth].get();
  }

  // Checks required fields and updates the statistics for the rows `rows` of `a`. While
  // `by_row` (no list or map above), indices of `a` are rows of the batch.
  Status Visit(const Node& node, const Array& a, const Rows& rows, size_t depth, bool by_row) {
    if (stats == nullptr && !node.has_required) return Status::OK();
    if (!node.field->nullable() && a.null_count() > 0) {
      std::optional<int64_t> bad;
      rows.ForEach([&](int64_t i) {
        if (!bad && a.IsNull(i)) bad = i;
      });
      if (bad) {
        if (by_row) {
          return Status::Constraint("NULL value in required column '{}' at row {} of the batch",
                                    node.name, *bad);
        }
        return Status::Constraint("NULL value in required column '{}'", node.name);
      }
    }
    switch (a.type_id()) {
      case TypeId::kStruct: {
        Rows child_rows = rows;
        if (a.null_count() > 0) {
          std::vector<int64_t>* present = Scratch(depth);
          ForEachValid(a, rows, [&](int64_t i) { present->push_back(i); });
          child_rows = Rows{present, 0};
        }
        for (size_t j = 0; j < node.children.size(); ++j) {
          ArrayPtr child = a.field(static_cast<int>(j));
          FLOE_RETURN_NOT_OK(Visit(node.children[j], *child, child_rows, depth + 1, by_row));
        }
        return Status::OK();
      }
      case TypeId::kList:
      case TypeId::kMap: {
        std::vector<int64_t>* elems = Scratch(depth);
        ForEachValid(a, rows, [&](int64_t i) {
          for (int64_t k = a.ListBegin(i); k < a.ListEnd(i); ++k) elems->push_back(k);
        });
        Rows child_rows{elems, 0};
        if (a.type_id() == TypeId::kList) {
          return Visit(node.children[0], *a.child(0), child_rows, depth + 1, false);
        }
        const Array& entries = *a.child(0);
        FLOE_RETURN_NOT_OK(
            Visit(node.children[0], *entries.field(0), child_rows, depth + 1, false));
        return Visit(node.children[1], *entries.field(1), child_rows, depth + 1, false);
      }
      default:
        if (stats != nullptr) {
          UpdateStats((*leaves)[static_cast<size_t>(node.leaf)], a, rows,
                      &(*stats)[static_cast<size_t>(node.leaf)]);
        }
        return Status::OK();
    }
  }

  Status WalkBatch(const std::vector<Node>& roots, const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    for (size_t c = 0; c < roots.size(); ++c) {
      FLOE_RETURN_NOT_OK(
          Visit(roots[c], *batch.column(static_cast<int>(c)), Rows{nullptr, n}, 0, true));
    }
    return Status::OK();
  }
};

}  // namespace

struct DataFileWriter::Impl {
  std::shared_ptr<const io::FileIO> io;
  SchemaPtr schema;
  DataFileWriterOptions options;
  std::unique_ptr<parquet::ParquetFileWriter> writer;
  // The output stream, owned by `writer`.
  io::OutputStream* stream = nullptr;
  std::vector<Node> roots;
  std::vector<LeafInfo> leaves;
  std::vector<LeafStats> stats;
  Walker walker;
  int64_t rows_written = 0;
  Status failed;
  bool closed = false;
  bool aborted = false;

  Status WriteConformed(const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    if (n == 0) return Status::OK();
    FLOE_RETURN_NOT_OK(walker.WalkBatch(roots, batch));
    FLOE_RETURN_NOT_OK(writer->Write(batch));
    rows_written += n;
    return Status::OK();
  }

  // The lower and upper bound of a leaf per its mode; nullopt parts are not recorded.
  Result<std::pair<std::optional<std::string>, std::optional<std::string>>> Bounds(
      const LeafInfo& leaf, const LeafStats& s) const {
    std::pair<std::optional<std::string>, std::optional<std::string>> out;
    if (!s.has_bounds) return out;
    auto serialize = [&](Scalar::Storage lo, Scalar::Storage hi) -> Status {
      FLOE_ASSIGN_OR_RAISE(out.first, SerializeValue(Scalar::Make(leaf.type, std::move(lo))));
      FLOE_ASSIGN_OR_RAISE(out.second, SerializeValue(Scalar::Make(leaf.type, std::move(hi))));
      return Status::OK();
    };
    switch (leaf.kind) {
      case BoundKind::kBool:
        FLOE_RETURN_NOT_OK(serialize(s.imin != 0, s.imax != 0));
        break;
      case BoundKind::kInt32:
        FLOE_RETURN_NOT_OK(serialize(static_cast<int32_t>(s.imin), static_cast<int32_t>(s.imax)));
        break;
      case BoundKind::kInt64:
        FLOE_RETURN_NOT_OK(serialize(s.imin, s.imax));
        break;
      case BoundKind::kFloat:
      case BoundKind::kDouble: {
        // A zero bound covers both zeros: -0.0 below, +0.0 above.
        double lo = s.dmin == 0 ? -0.0 : s.dmin;
        double hi = s.dmax == 0 ? 0.0 : s.dmax;
        if (leaf.kind == BoundKind::kFloat) {
          FLOE_RETURN_NOT_OK(serialize(static_cast<float>(lo), static_cast<float>(hi)));
        } else {
          FLOE_RETURN_NOT_OK(serialize(lo, hi));
        }
        break;
      }
      case BoundKind::kDecimal:
        FLOE_RETURN_NOT_OK(serialize(s.qmin, s.qmax));
        break;
      case BoundKind::kBytes: {
        out.first = leaf.mode.LowerBound(s.smin, leaf.type->id());
        out.second = leaf.mode.UpperBound(s.smax, leaf.type->id());
        break;
      }
      case BoundKind::kNone:
        break;
    }
    return out;
  }

  Result<DataFile> Finish(const parquet::FileMetaData& md, const std::string& path) const {
    DataFile file;
    file.content = FileContent::kData;
    file.file_path = path;
    file.file_format = FileFormat::kParquet;
    file.spec_id = options.spec_id;
    file.partition = options.partition;
    file.record_count = md.num_rows;
    file.file_size_in_bytes = stream->position();
    file.sort_order_id = options.sort_order_id;
    for (const parquet::RowGroup& rg : md.row_groups) {
      if (rg.columns.size() != leaves.size()) {
        return Status::Internal("{}: a row group has {} column chunks, the schema has {} leaves",
                                path, rg.columns.size(), leaves.size());
      }
      int64_t offset = rg.file_offset.value_or(0);
      if (!rg.file_offset && !rg.columns.empty() && rg.columns[0].meta_data) {
        const parquet::ColumnMetaData& m = *rg.columns[0].meta_data;
        offset = m.dictionary_page_offset.value_or(m.data_page_offset);
      }
      file.split_offsets.push_back(offset);
      for (size_t k = 0; k < leaves.size(); ++k) {
        const LeafInfo& leaf = leaves[k];
        FLOE_ASSIGN_OR_RAISE(const parquet::ColumnMetaData* m, rg.columns[k].GetMetaData());
        file.column_sizes[leaf.field_id] += m->total_compressed_size;
        if (leaf.mode.kind == MetricsMode::Kind::kNone) continue;
        file.value_counts[leaf.field_id] += m->num_values;
        int64_t nulls = m->statistics && m->statistics->null_count ? *m->statistics->null_count : 0;
        file.null_value_counts[leaf.field_id] += nulls;
      }
    }
    std::sort(file.split_offsets.begin(), file.split_offsets.end());
    for (size_t k = 0; k < leaves.size(); ++k) {
      const LeafInfo& leaf = leaves[k];
      if (leaf.mode.kind == MetricsMode::Kind::kNone) continue;
      if (leaf.is_floating) file.nan_value_counts[leaf.field_id] = stats[k].nan_count;
      if (leaf.mode.kind == MetricsMode::Kind::kCounts || !leaf.bounds_allowed) continue;
      FLOE_ASSIGN_OR_RAISE(auto bounds, Bounds(leaf, stats[k]));
      if (bounds.first) file.lower_bounds[leaf.field_id] = std::move(*bounds.first);
      if (bounds.second) file.upper_bounds[leaf.field_id] = std::move(*bounds.second);
    }
    return file;
  }
};

Status CheckRequiredFields(const Schema& schema, const RecordBatch& batch) {
  if (batch.num_columns() != schema.num_fields()) {
    return Status::Invalid("the batch has {} columns, the table has {}", batch.num_columns(),
                           schema.num_fields());
  }
  // Leaves are numbered but carry no metrics here.
  WriterProperties none;
  none.default_metrics = MetricsMode::None();
  auto metrics = MetricsConfig::Make(none, schema);
  std::vector<LeafInfo> leaves;
  std::vector<Node> roots;
  for (const Field& f : schema.fields()) {
    roots.push_back(BuildNode(f, f.name(), false, *metrics, &leaves));
  }
  Walker walker;
  return walker.WalkBatch(roots, batch);
}

DataFileWriter::DataFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DataFileWriter::~DataFileWriter() {
  // A writer dropped without Close or Abort leaves no partial file behind.
  if (impl_ && !impl_->closed && !impl_->aborted) (void)Abort();
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(
    std::shared_ptr<const io::FileIO> io, std::string path, SchemaPtr schema,
    std::shared_ptr<const MetricsConfig> metrics, DataFileWriterOptions options) {
  if (!io || !schema || !metrics) {
    return Status::Invalid("data file writer for {}: null FileIO, schema or metrics config", path);
  }
  auto impl = std::make_unique<Impl>();
  impl->io = std::move(io);
  impl->schema = std::move(schema);
  impl->options = std::move(options);
  for (const Field& f : impl->schema->fields()) {
    impl->roots.push_back(BuildNode(f, f.name(), false, *metrics, &impl->leaves));
  }
  impl->stats.resize(impl->leaves.size());
  impl->walker.leaves = &impl->leaves;
  impl->walker.stats = &impl->stats;
  parquet::WriterOptions popts = impl->options.parquet;
  // Value and null counts come from the column chunk statistics.
  popts.write_statistics = true;
  FLOE_ASSIGN_OR_RAISE(std::string schema_json, SchemaToJsonString(*impl->schema));
  popts.key_value_metadata.emplace_back("iceberg.schema", std::move(schema_json));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::OutputStream> out,
                       impl->io->NewOutputFile(path, io::CreateMode::kExclusive));
  impl->stream = out.get();
  auto writer = parquet::ParquetFileWriter::Open(std::move(out), impl->schema->columns(), popts);
  if (!writer.ok()) {
    impl->stream = nullptr;
    (void)impl->io->Delete(path);
    return writer.status();
  }
  impl->writer = std::move(*writer);
  std::unique_ptr<DataFileWriter> result(new DataFileWriter(std::move(impl)));
  result->path_ = std::move(path);
  return result;
}

Status DataFileWriter::Write(const RecordBatch& batch) {
  if (!impl_->failed.ok()) return impl_->failed;
  if (impl_->closed || impl_->aborted) {
    return Status::Invalid("{}: the data file writer is closed", path_);
  }
  Status st;
  auto conformed = ConformBatch(*impl_->schema, batch);
  if (conformed.ok()) {
    st = impl_->WriteConformed(**conformed);
  } else {
    st = conformed.status();
  }
  if (!st.ok()) {
    (void)Abort();
    impl_->failed = st;
  }
  return st;
}

Result<DataFile> DataFileWriter::Close() {
  if (!impl_->failed.ok()) return impl_->failed;
  if (impl_->closed || impl_->aborted) {
    return Status::Invalid("{}: the data file writer is closed", path_);
  }
  auto md = impl_->writer->Close();
  Result<DataFile> file = md.ok() ? impl_->Finish(**md, path_) : Result<DataFile>(md.status());
  if (!file.ok()) {
    (void)Abort();
    impl_->failed = file.status();
    return file;
  }
  impl_->closed = true;
  return file;
}

Status DataFileWriter::Abort() {
  if (impl_->closed || impl_->aborted) return Status::OK();
  impl_->aborted = true;
  // Dropping the Parquet writer closes its stream; then the partial file goes.
  impl_->writer.reset();
  impl_->stream = nullptr;
  return impl_->io->Delete(path_);
}

int64_t DataFileWriter::num_rows() const { return impl_->rows_written; }

int64_t DataFileWriter::EstimatedFileSize() const {
  return impl_->writer ? impl_->writer->EstimatedFileSize() : 0;
}

int64_t DataFileWriter::MemoryBytes() const {
  if (!impl_->writer || impl_->closed) return 0;
  return impl_->writer->MemoryBytes();
}

}  // namespace floe::iceberg
