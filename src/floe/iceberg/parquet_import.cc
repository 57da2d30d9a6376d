#include "floe/iceberg/parquet_import.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/single_value.h"
#include "floe/type/type_visit.h"

namespace floe::iceberg {
namespace {

// A statistics value in the domain of the table column's type: integers (int, long, date,
// time and timestamps in the table's unit), floating point, decimals (unscaled) and bytes.
using StatValue = std::variant<bool, int64_t, double, Int128, std::string>;

bool StatLess(const StatValue& a, const StatValue& b) {
  if (a.index() != b.index()) return a.index() < b.index();
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return x < std::get<T>(b);
      },
      a);
}

// One leaf column of a file, paired with the table field it is stored as.
struct LeafColumn {
  const parquet::SchemaElement* element = nullptr;
  TypePtr file_type;
  const Field* table_field = nullptr;
  std::string name;
  bool under_repeated = false;
};

struct FileCheck {
  std::string file;
  bool by_id = false;
  std::vector<LeafColumn> leaves;
  // Table field ids of the top-level and struct fields that must hold no NULLs although the
  // file declares them optional, with the leaves (indices) below them.
  std::vector<std::pair<std::string, std::vector<size_t>>> must_be_non_null;
};

const Field* FindChild(const std::vector<Field>& table_fields, const Field& file_field,
                       bool by_id) {
  for (const Field& f : table_fields) {
    if (by_id ? f.field_id() == file_field.field_id() : f.name() == file_field.name()) return &f;
  }
  return nullptr;
}

Status CheckFields(const std::vector<Field>& file_fields, const std::vector<Field>& table_fields,
                   const std::string& prefix, bool under_repeated, FileCheck* check);

// Checks one file field against the table field it matched and appends its leaves.
Status CheckField(const Field& file_field, const Field& table_field, const std::string& name,
                  bool under_repeated, FileCheck* check) {
  const DataType& ft = *file_field.type();
  const DataType& tt = *table_field.type();
  size_t first_leaf = check->leaves.size();
  if (tt.is_nested() || ft.is_nested()) {
    if (ft.id() != tt.id()) {
      return Status::Invalid("{}: column '{}' is {} in the file but {} in the table", check->file,
                             name, ft.ToString(), tt.ToString());
    }
    if (tt.id() == TypeId::kStruct) {
      FLOE_RETURN_NOT_OK(CheckFields(ft.fields(), tt.fields(), name + ".", under_repeated, check));
    } else if (tt.id() == TypeId::kList) {
      FLOE_RETURN_NOT_OK(CheckField(ft.field(0), tt.field(0), name + ".element", true, check));
    } else {
      FLOE_RETURN_NOT_OK(CheckField(ft.field(0), tt.field(0), name + ".key", true, check));
      FLOE_RETURN_NOT_OK(CheckField(ft.field(1), tt.field(1), name + ".value", true, check));
    }
  } else {
    if (!ft.Equals(tt) && !IsPromotionAllowed(ft, tt)) {
      return Status::Invalid("{}: column '{}' is {} in the file but {} in the table", check->file,
                             name, ft.ToString(), tt.ToString());
    }
    LeafColumn leaf;
    leaf.file_type = file_field.type();
    leaf.table_field = &table_field;
    leaf.name = name;
    leaf.under_repeated = under_repeated;
    check->leaves.push_back(std::move(leaf));
  }
  if (!table_field.nullable() && file_field.nullable()) {
    if (under_repeated) {
      return Status::Invalid("{}: column '{}' is optional in the file but required in the table",
                             check->file, name);
    }
    std::vector<size_t> leaves;
    for (size_t i = first_leaf; i < check->leaves.size(); ++i) leaves.push_back(i);
    check->must_be_non_null.emplace_back(name, std::move(leaves));
  }
  return Status::OK();
}

Status CheckFields(const std::vector<Field>& file_fields, const std::vector<Field>& table_fields,
                   const std::string& prefix, bool under_repeated, FileCheck* check) {
  std::vector<const Field*> matched;
  for (const Field& file_field : file_fields) {
    const Field* table_field = FindChild(table_fields, file_field, check->by_id);
    if (table_field == nullptr) {
      return Status::Invalid(
          "{}: column '{}{}'{} is not a column of the table", check->file, prefix,
          file_field.name(),
          check->by_id ? fmt::format(" (field id {})", file_field.field_id()) : std::string());
    }
    if (std::find(matched.begin(), matched.end(), table_field) != matched.end()) {
      return Status::Invalid("{}: two columns map to the table's column '{}{}'", check->file,
                             prefix, table_field->name());
    }
    matched.push_back(table_field);
    FLOE_RETURN_NOT_OK(
        CheckField(file_field, *table_field, prefix + file_field.name(), under_repeated, check));
  }
  for (const Field& table_field : table_fields) {
    if (table_field.nullable()) continue;
    if (std::find(matched.begin(), matched.end(), &table_field) == matched.end()) {
      return Status::Invalid("{}: the file has no column '{}{}', which the table requires",
                             check->file, prefix, table_field.name());
    }
  }
  return Status::OK();
}

bool AnyFieldId(const std::vector<Field>& fields) {
  for (const Field& f : fields) {
    if (f.has_field_id()) return true;
  }
  return false;
}

template <typename T>
T LoadLE(std::string_view bytes) {
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

Int128 BigEndianSigned(std::string_view bytes) {
  Int128 v = (!bytes.empty() && static_cast<unsigned char>(bytes[0]) >= 0x80) ? -1 : 0;
  for (unsigned char b : bytes)
    v = static_cast<Int128>((static_cast<unsigned __int128>(v) << 8) | b);
  return v;
}

// The unit multiplier from a TIME/TIMESTAMP column's Parquet unit to the floe type's unit
// (microseconds for time and timestamp, nanoseconds for the _ns types); 0 when the value
// would have to be divided (bounds would lose precision).
int64_t UnitScale(const parquet::SchemaElement& el, const DataType& file_type) {
  parquet::TimeUnit unit = parquet::TimeUnit::kMicros;
  if (el.logical_type && (el.logical_type->kind == parquet::LogicalType::Kind::kTime ||
                          el.logical_type->kind == parquet::LogicalType::Kind::kTimestamp)) {
    unit = el.logical_type->unit;
  } else if (el.converted_type == parquet::ConvertedType::kTimeMillis ||
             el.converted_type == parquet::ConvertedType::kTimestampMillis) {
    unit = parquet::TimeUnit::kMillis;
  }
  bool nanos_type =
      file_type.id() == TypeId::kTimestampNs || file_type.id() == TypeId::kTimestampTzNs;
  switch (unit) {
    case parquet::TimeUnit::kMillis:
      return nanos_type ? 1000000 : 1000;
    case parquet::TimeUnit::kMicros:
      return nanos_type ? 1000 : 1;
    case parquet::TimeUnit::kNanos:
      return nanos_type ? 1 : 0;
  }
  return 0;
}

// Decodes a PLAIN statistics value of a leaf into the value domain of `table_type`; nullopt
// when the value cannot serve as a bound (NaN, INT96, float16, unsigned 64-bit, a unit that
// would be rounded, a malformed length).
std::optional<StatValue> DecodeStat(const parquet::SchemaElement& el, const DataType& file_type,
                                    const DataType& table_type, std::string_view bytes) {
  if (!el.type) return std::nullopt;
  const bool is_unsigned =
      (el.logical_type && el.logical_type->kind == parquet::LogicalType::Kind::kInteger &&
       !el.logical_type->is_signed) ||
      (el.converted_type && (*el.converted_type == parquet::ConvertedType::kUint8 ||
                             *el.converted_type == parquet::ConvertedType::kUint16 ||
                             *el.converted_type == parquet::ConvertedType::kUint32));
  switch (*el.type) {
    case parquet::Type::kBoolean:
      if (bytes.size() != 1) return std::nullopt;
      return StatValue(bytes[0] != 0);
    case parquet::Type::kInt32: {
      if (bytes.size() != 4) return std::nullopt;
      int64_t v = is_unsigned ? int64_t{LoadLE<uint32_t>(bytes)} : int64_t{LoadLE<int32_t>(bytes)};
      if (file_type.id() == TypeId::kDecimal) return StatValue(Int128{v});
      if (file_type.id() == TypeId::kTime) {
        int64_t scale = UnitScale(el, file_type);
        if (scale == 0) return std::nullopt;
        return StatValue(v * scale);
      }
      return StatValue(v);
    }
    case parquet::Type::kInt64: {
      if (bytes.size() != 8) return std::nullopt;
      if (is_unsigned) return std::nullopt;
      int64_t v = LoadLE<int64_t>(bytes);
      if (file_type.id() == TypeId::kDecimal) return StatValue(Int128{v});
      if (file_type.id() == TypeId::kTime || file_type.is_timestamp()) {
        int64_t scale = UnitScale(el, file_type);
        if (scale == 0) return std::nullopt;
        return StatValue(v * scale);
      }
      return StatValue(v);
    }
    case parquet::Type::kFloat: {
      if (bytes.size() != 4 || file_type.id() != TypeId::kFloat32) return std::nullopt;
      float v = LoadLE<float>(bytes);
      if (std::isnan(v)) return std::nullopt;
      return StatValue(static_cast<double>(v));
    }
    case parquet::Type::kDouble: {
      if (bytes.size() != 8) return std::nullopt;
      double v = LoadLE<double>(bytes);
      if (std::isnan(v)) return std::nullopt;
      return StatValue(v);
    }
    case parquet::Type::kByteArray:
    case parquet::Type::kFixedLenByteArray:
      if (file_type.id() == TypeId::kDecimal) {
        if (bytes.empty() || bytes.size() > 16) return std::nullopt;
        return StatValue(BigEndianSigned(bytes));
      }
      if (file_type.id() == TypeId::kFloat32) return std::nullopt;  // float16
      if (table_type.id() == TypeId::kUuid && bytes.size() != 16) return std::nullopt;
      return StatValue(std::string(bytes));
    case parquet::Type::kInt96:
      return std::nullopt;
  }
  return std::nullopt;
}

// A statistics value as a scalar of the table column's type; nullopt when the decoded value
// is not of the form the type holds.
std::optional<Scalar> ToScalar(const StatValue& v, const TypePtr& type) {
  auto make = [&](auto value) -> std::optional<Scalar> {
    return Scalar::Make(type, Scalar::Storage(std::move(value)));
  };
  return VisitPhysicalType(type->id(), [&]<typename T>(TypeTag<T>) -> std::optional<Scalar> {
    if constexpr (std::is_same_v<T, bool>) {
      if (const bool* b = std::get_if<bool>(&v)) return make(*b);
    } else if constexpr (std::is_same_v<T, int32_t>) {
      const int64_t* integer = std::get_if<int64_t>(&v);
      if (integer != nullptr && *integer >= INT32_MIN && *integer <= INT32_MAX) {
        return make(static_cast<int32_t>(*integer));
      }
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (const int64_t* integer = std::get_if<int64_t>(&v)) return make(*integer);
    } else if constexpr (std::is_floating_point_v<T>) {
      if (const double* d = std::get_if<double>(&v)) return make(static_cast<T>(*d));
    } else if constexpr (std::is_same_v<T, Int128>) {
      if (const Int128* d = std::get_if<Int128>(&v)) return make(*d);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (const std::string* b = std::get_if<std::string>(&v)) return make(*b);
    }
    // int8 and int16 have no Iceberg type; nested types have no statistics.
    return std::nullopt;
  });
}

// A bound as `mode` records it (MetricsMode::LowerBound and UpperBound: the same truncation
// as the files floe writes); nullopt when the value cannot serve as a bound.
std::optional<std::string> BoundBytes(const StatValue& v, const TypePtr& type,
                                      const MetricsMode& mode, bool upper) {
  std::optional<Scalar> scalar = ToScalar(v, type);
  if (!scalar) return std::nullopt;
  Result<std::string> bytes = SerializeValue(*scalar);
  if (!bytes.ok()) return std::nullopt;
  if (upper) return mode.UpperBound(*bytes, type->id());
  return mode.LowerBound(*bytes, type->id());
}

struct LeafStats {
  int64_t values = 0;
  int64_t nulls = 0;
  bool nulls_known = true;
  std::optional<int64_t> nans;
  bool nans_known = true;
  int64_t size = 0;
  std::optional<StatValue> lower;
  std::optional<StatValue> upper;
  // False once a row group with values lacks a usable bound.
  bool lower_known = true;
  bool upper_known = true;
};

}  // namespace

Result<DataFile> DataFileFromParquet(const std::string& path,
                                     const std::shared_ptr<io::RandomAccessFile>& file,
                                     const TableMetadata& md, bool* needs_name_mapping) {
  SchemaPtr schema = md.CurrentSchema();
  PartitionSpecPtr spec = md.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return Status::Invalid("table at {} has no current schema or default spec", md.location);
  }
  const int64_t file_size = file->size();
  FLOE_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::Open(file));
  const parquet::FileMetaData& footer = reader->metadata();

  FileCheck check;
  check.file = path;
  check.by_id = AnyFieldId(reader->schema()->fields());
  if (!check.by_id) *needs_name_mapping = true;
  FLOE_RETURN_NOT_OK(CheckFields(reader->schema()->fields(), schema->fields(), "", false, &check));

  std::vector<const parquet::SchemaElement*> leaf_elements;
  for (size_t i = 1; i < footer.schema.size(); ++i) {
    if (footer.schema[i].num_children.value_or(0) == 0 && footer.schema[i].type) {
      leaf_elements.push_back(&footer.schema[i]);
    }
  }
  if (leaf_elements.size() != check.leaves.size()) {
    return Status::Invalid("{}: the footer has {} leaf columns, its schema maps to {}", path,
                           leaf_elements.size(), check.leaves.size());
  }
  for (size_t k = 0; k < check.leaves.size(); ++k) check.leaves[k].element = leaf_elements[k];

  // Column orders other than the type-defined one (or unknown ones) make bounds unusable.
  auto type_defined_order = [&](size_t k) {
    return !(footer.column_orders && k < footer.column_orders->size() &&
             (*footer.column_orders)[k].kind != parquet::ColumnOrder::Kind::kTypeDefinedOrder);
  };

  DataFile out;
  out.content = FileContent::kData;
  out.file_path = path;
  out.file_format = FileFormat::kParquet;
  out.spec_id = spec->spec_id();
  out.record_count = footer.num_rows;
  out.file_size_in_bytes = file_size;
  std::vector<LeafStats> stats(check.leaves.size());
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = footer.row_groups[g];
    if (rg.columns.size() != check.leaves.size()) {
      return Status::Invalid("{}: row group {} has {} column chunks, the schema has {} leaves",
                             path, g, rg.columns.size(), check.leaves.size());
    }
    int64_t offset = rg.file_offset.value_or(0);
    if ((!rg.file_offset || offset <= 0) && !rg.columns.empty() && rg.columns[0].meta_data) {
      const parquet::ColumnMetaData& m = *rg.columns[0].meta_data;
      offset = m.dictionary_page_offset.value_or(m.data_page_offset);
    }
    if (rg.num_rows > 0) out.split_offsets.push_back(offset);
    for (size_t k = 0; k < check.leaves.size(); ++k) {
      const LeafColumn& leaf = check.leaves[k];
      Result<const parquet::ColumnMetaData*> meta = rg.columns[k].GetMetaData();
      if (!meta.ok()) {
        return Status::Invalid("{}: row group {}, column '{}': {}", path, g, leaf.name,
                               meta.status().message());
      }
      const parquet::ColumnMetaData& m = **meta;
      LeafStats& s = stats[k];
      s.size += m.total_compressed_size;
      s.values += m.num_values;
      const std::optional<parquet::Statistics>& st = m.statistics;
      if (st && st->null_count) {
        s.nulls += *st->null_count;
      } else {
        s.nulls_known = false;
      }
      if (st && st->nan_count) {
        s.nans = s.nans.value_or(0) + *st->nan_count;
      } else {
        s.nans_known = false;
      }
      int64_t nulls = st && st->null_count ? *st->null_count : -1;
      if (nulls == m.num_values) continue;  // only NULLs: no bound to merge
      std::optional<StatValue> lo, hi;
      if (st && type_defined_order(k) && st->min_value && st->max_value) {
        lo = DecodeStat(*leaf.element, *leaf.file_type, *leaf.table_field->type(), *st->min_value);
        if (st->is_max_value_exact.value_or(true)) {
          hi =
              DecodeStat(*leaf.element, *leaf.file_type, *leaf.table_field->type(), *st->max_value);
        }
      }
      if (lo && std::holds_alternative<double>(*lo) && std::get<double>(*lo) == 0.0) {
        lo = StatValue(-0.0);
      }
      if (hi && std::holds_alternative<double>(*hi) && std::get<double>(*hi) == 0.0) {
        hi = StatValue(0.0);
      }
      if (!lo) s.lower_known = false;
      if (!hi) s.upper_known = false;
      if (lo && (!s.lower || StatLess(*lo, *s.lower))) s.lower = lo;
      if (hi && (!s.upper || StatLess(*s.upper, *hi))) s.upper = hi;
    }
  }
  std::sort(out.split_offsets.begin(), out.split_offsets.end());

  for (const auto& [name, leaves] : check.must_be_non_null) {
    for (size_t k : leaves) {
      if (!stats[k].nulls_known || stats[k].nulls > 0) {
        return Status::Invalid(
            "{}: column '{}' is required in the table, but the file declares it optional and "
            "{}",
            path, name,
            stats[k].nulls_known ? fmt::format("holds {} NULLs", stats[k].nulls)
                                 : std::string("its footer has no null counts"));
      }
    }
  }

  FLOE_ASSIGN_OR_RAISE(WriterProperties properties,
                       WriterProperties::Make(md.properties, md.location));
  std::shared_ptr<const MetricsConfig> metrics =
      MetricsConfig::Make(properties, *schema, md.DefaultSortOrder().get());
  for (size_t k = 0; k < check.leaves.size(); ++k) {
    const LeafColumn& leaf = check.leaves[k];
    const LeafStats& s = stats[k];
    const int32_t id = leaf.table_field->field_id();
    out.column_sizes[id] = s.size;
    MetricsMode mode = metrics->ModeFor(id);
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    out.value_counts[id] = s.values;
    if (s.nulls_known) out.null_value_counts[id] = s.nulls;
    if (leaf.file_type->is_floating() && s.nans_known && s.nans) out.nan_value_counts[id] = *s.nans;
    if (mode.kind == MetricsMode::Kind::kCounts || leaf.under_repeated) continue;
    // A float column with NaNs the footer does not count gets no bounds: readers may take a
    // missing NaN count for "no NaNs" when bounds are present.
    if (leaf.file_type->is_floating() && !s.nans_known) continue;
    if (s.lower && s.lower_known) {
      if (auto b = BoundBytes(*s.lower, leaf.table_field->type(), mode, false)) {
        out.lower_bounds[id] = std::move(*b);
      }
    }
    if (s.upper && s.upper_known) {
      if (auto b = BoundBytes(*s.upper, leaf.table_field->type(), mode, true)) {
        out.upper_bounds[id] = std::move(*b);
      }
    }
  }

  // Partition values: each source column's bounds must map to one value.
  for (const PartitionField& pf : spec->fields()) {
    const Field* source = schema->FindFieldById(pf.source_id);
    if (source == nullptr) {
      return Status::Invalid(
          "{}: partition field '{}' has no source column (id {}) in the "
          "current schema",
          path, pf.name, pf.source_id);
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr result_type, pf.transform.ResultType(source->type()));
    if (pf.transform.kind() == TransformKind::kVoid) {
      out.partition.push_back(Scalar::Null(result_type));
      continue;
    }
    const LeafColumn* leaf = nullptr;
    const LeafStats* s = nullptr;
    for (size_t k = 0; k < check.leaves.size(); ++k) {
      if (check.leaves[k].table_field->field_id() == pf.source_id) {
        leaf = &check.leaves[k];
        s = &stats[k];
      }
    }
    if (leaf == nullptr) {
      // The file lacks the (optional) source column: every row has a NULL source value.
      out.partition.push_back(Scalar::Null(result_type));
      continue;
    }
    if (leaf->under_repeated) {
      return Status::Invalid("{}: partition field '{}' has a source inside a list or map", path,
                             pf.name);
    }
    if (!s->nulls_known) {
      return Status::Invalid(
          "{}: cannot derive partition field '{}': the footer has no null count for column '{}'",
          path, pf.name, leaf->name);
    }
    if (s->nulls == s->values) {
      out.partition.push_back(Scalar::Null(result_type));
      continue;
    }
    if (s->nulls > 0) {
      return Status::Invalid(
          "{}: column '{}' holds NULLs and values, so the file spans more than one value of "
          "partition field '{}'",
          path, leaf->name, pf.name);
    }
    if (!s->lower || !s->upper || !s->lower_known || !s->upper_known) {
      return Status::Invalid(
          "{}: cannot derive partition field '{}': the footer has no exact bounds for column "
          "'{}'",
          path, pf.name, leaf->name);
    }
    const TypePtr& source_type = leaf->table_field->type();
    std::optional<Scalar> lower = ToScalar(*s->lower, source_type);
    std::optional<Scalar> upper = ToScalar(*s->upper, source_type);
    if (!lower || !upper) {
      return Status::Invalid(
          "{}: cannot derive partition field '{}': the footer bounds of column '{}' do not "
          "decode as {}",
          path, pf.name, leaf->name, source_type->ToString());
    }
    FLOE_ASSIGN_OR_RAISE(Scalar lo, pf.transform.Apply(*lower));
    FLOE_ASSIGN_OR_RAISE(Scalar hi, pf.transform.Apply(*upper));
    if (lo.value() != hi.value()) {
      return Status::Invalid(
          "{}: column '{}' spans partition values {} and {} of partition field '{}'; a file "
          "must lie in one partition",
          path, leaf->name, pf.transform.ToHumanString(lo), pf.transform.ToHumanString(hi),
          pf.name);
    }
    out.partition.push_back(std::move(lo));
  }
  return out;
}

}  // namespace floe::iceberg
