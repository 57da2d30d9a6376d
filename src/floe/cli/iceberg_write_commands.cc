#include "floe/cli/iceberg_write_commands.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "floe/batch/builder.h"
#include "floe/catalog/catalog_config.h"
#include "floe/cli/iceberg_commands.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/spec_text.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file.h"

namespace floe::cli {

namespace {

using catalog::CatalogPtr;
using catalog::TableIdentifier;
using iceberg::DataFile;
using iceberg::Table;

constexpr std::string_view kNameMappingProperty = "schema.name-mapping.default";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Status CheckStdout() {
  std::cout.flush();
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

struct LoadedTable {
  CatalogPtr catalog;
  TableIdentifier id;
  Table table;
  iceberg::TableOperationsPtr ops;
};

Result<LoadedTable> LoadTableFromCatalog(const CatalogOptions& options, const std::string& name) {
  LoadedTable out;
  FLOE_ASSIGN_OR_RAISE(out.catalog, OpenCatalogFromOptions(options));
  FLOE_ASSIGN_OR_RAISE(out.id, TableIdentifier::Parse(name));
  FLOE_ASSIGN_OR_RAISE(out.table, out.catalog->LoadTable(out.id));
  out.ops = out.catalog->TableOps(out.id);
  return out;
}

// Table operations that add updates to every commit (so that a property change lands
// atomically with the snapshot a producer commits).
class ExtraUpdatesOps final : public iceberg::TableOperations {
 public:
  ExtraUpdatesOps(iceberg::TableOperationsPtr inner, std::vector<iceberg::TableUpdate> extra)
      : inner_(std::move(inner)), extra_(std::move(extra)) {}

  Result<Table> Refresh() const override { return inner_->Refresh(); }
  Result<Table> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                       const std::vector<iceberg::TableUpdate>& updates) override {
    std::vector<iceberg::TableUpdate> all = updates;
    all.insert(all.end(), extra_.begin(), extra_.end());
    return inner_->Commit(requirements, all);
  }
  std::shared_ptr<const io::FileIO> io() const override { return inner_->io(); }
  std::string name() const override { return inner_->name(); }

 private:
  iceberg::TableOperationsPtr inner_;
  std::vector<iceberg::TableUpdate> extra_;
};

// ---------------------------------------------------------------------------------------
// append

// Widens int -> long and float -> double (Iceberg's type promotions) for input columns whose
// type is narrower than the table's; other arrays are returned as they are.
Result<ArrayPtr> WidenToTableType(const ArrayPtr& array, const TypePtr& to) {
  const TypeId from = array->type_id();
  if (from == TypeId::kInt32 && to->id() == TypeId::kInt64) {
    NumericBuilder<int64_t> builder(to);
    FLOE_RETURN_NOT_OK(builder.Reserve(array->length()));
    for (int64_t i = 0; i < array->length(); ++i) {
      if (array->IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      } else {
        builder.UnsafeAppend(array->Value<int32_t>(i));
      }
    }
    return builder.Finish();
  }
  if (from == TypeId::kFloat32 && to->id() == TypeId::kFloat64) {
    NumericBuilder<double> builder(to);
    FLOE_RETURN_NOT_OK(builder.Reserve(array->length()));
    for (int64_t i = 0; i < array->length(); ++i) {
      if (array->IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      } else {
        builder.UnsafeAppend(static_cast<double>(array->Value<float>(i)));
      }
    }
    return builder.Finish();
  }
  return array;
}

// How the columns of one input file map to the table's top-level columns.
struct InputMapping {
  // Per table column: the index into the read request's columns, or -1 (NULLs).
  std::vector<int> source;
  std::vector<int> read_columns;
};

Result<InputMapping> MapInputColumns(const std::string& file, const floe::Schema& file_schema,
                                     const iceberg::Schema& table_schema) {
  InputMapping mapping;
  std::map<std::string, int> by_lower_name;
  for (int i = 0; i < file_schema.num_fields(); ++i) {
    std::string key = Lower(file_schema.field(i).name());
    if (!by_lower_name.emplace(key, i).second) {
      return Status::Invalid("{}: columns '{}' and '{}' differ only in case", file,
                             file_schema.field(by_lower_name[key]).name(),
                             file_schema.field(i).name());
    }
  }
  std::vector<bool> used(static_cast<size_t>(file_schema.num_fields()), false);
  for (const Field& field : table_schema.fields()) {
    auto it = by_lower_name.find(Lower(field.name()));
    if (it == by_lower_name.end()) {
      if (!field.nullable()) {
        return Status::Invalid("{}: the file has no column '{}', which the table requires", file,
                               field.name());
      }
      mapping.source.push_back(-1);
      continue;
    }
    used[static_cast<size_t>(it->second)] = true;
    mapping.source.push_back(static_cast<int>(mapping.read_columns.size()));
    mapping.read_columns.push_back(it->second);
  }
  for (int i = 0; i < file_schema.num_fields(); ++i) {
    if (!used[static_cast<size_t>(i)]) {
      return Status::Invalid("{}: column '{}' is not a column of the table", file,
                             file_schema.field(i).name());
    }
  }
  return mapping;
}

// Reads one file's rows into `writer`; returns the number of rows.
Result<int64_t> WriteFileRows(const std::string& file, const iceberg::Schema& table_schema,
                              iceberg::PartitionedWriter* writer) {
  FLOE_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::OpenPath(file));
  FLOE_ASSIGN_OR_RAISE(InputMapping mapping,
                       MapInputColumns(file, *reader->schema(), table_schema));
  parquet::ReadRequest request;
  request.columns = mapping.read_columns;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  int64_t rows = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (batch == nullptr) break;
    std::vector<Field> fields;
    std::vector<ArrayPtr> columns;
    for (size_t c = 0; c < mapping.source.size(); ++c) {
      const Field& table_field = table_schema.fields()[c];
      ArrayPtr column;
      if (mapping.source[c] < 0) {
        FLOE_ASSIGN_OR_RAISE(column, Array::MakeNull(table_field.type(), batch->num_rows()));
      } else {
        FLOE_ASSIGN_OR_RAISE(
            column, WidenToTableType(batch->column(mapping.source[c]), table_field.type()));
      }
      fields.emplace_back(table_field.name(), column->type(), true);
      columns.push_back(std::move(column));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr conformed,
                         RecordBatch::Make(std::make_shared<floe::Schema>(std::move(fields)),
                                           batch->num_rows(), std::move(columns)));
    Status st = writer->Write(*conformed);
    if (!st.ok()) return st.WithPrefix(file + ": ");
    rows += batch->num_rows();
  }
  return rows;
}

// ---------------------------------------------------------------------------------------
// add-files: schema checks and metrics from Parquet footers

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
    if (!ft.Equals(tt) && !iceberg::IsPromotionAllowed(ft, tt)) {
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
  const int64_t* integer = std::get_if<int64_t>(&v);
  switch (type->id()) {
    case TypeId::kBoolean:
      if (const bool* b = std::get_if<bool>(&v)) return make(*b);
      return std::nullopt;
    case TypeId::kInt32:
    case TypeId::kDate:
      if (integer == nullptr || *integer < INT32_MIN || *integer > INT32_MAX) return std::nullopt;
      return make(static_cast<int32_t>(*integer));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (integer == nullptr) return std::nullopt;
      return make(*integer);
    case TypeId::kFloat32:
      if (const double* d = std::get_if<double>(&v)) return make(static_cast<float>(*d));
      return std::nullopt;
    case TypeId::kFloat64:
      if (const double* d = std::get_if<double>(&v)) return make(*d);
      return std::nullopt;
    case TypeId::kDecimal:
      if (const Int128* d = std::get_if<Int128>(&v)) return make(*d);
      return std::nullopt;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      if (const std::string* b = std::get_if<std::string>(&v)) return make(*b);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// The number of bytes of the first `n` UTF-8 code points of `s` (all of `s` when shorter).
size_t CodePointPrefix(std::string_view s, int32_t n) {
  size_t pos = 0;
  for (int32_t k = 0; k < n && pos < s.size(); ++k) {
    ++pos;
    while (pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) ++pos;
  }
  return pos;
}

// A bound under a metrics mode: strings and binary are cut for truncate(N). A lower bound
// cut short is still a lower bound; an upper bound that would have to be cut is dropped
// (a missing bound never prunes wrongly).
std::optional<std::string> BoundBytes(const StatValue& v, const TypePtr& type,
                                      const iceberg::MetricsMode& mode, bool upper) {
  std::optional<Scalar> scalar = ToScalar(v, type);
  if (!scalar) return std::nullopt;
  Result<std::string> bytes = iceberg::SerializeValue(*scalar);
  if (!bytes.ok()) return std::nullopt;
  std::string out = std::move(*bytes);
  if (mode.kind != iceberg::MetricsMode::Kind::kTruncate) return out;
  size_t keep = out.size();
  if (type->id() == TypeId::kString) {
    keep = CodePointPrefix(out, mode.length);
  } else if (type->id() == TypeId::kBinary) {
    keep = std::min(out.size(), static_cast<size_t>(mode.length));
  }
  if (keep == out.size()) return out;
  if (upper) return std::nullopt;
  out.resize(keep);
  return out;
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

// Builds the DataFile of one existing Parquet file for `table`.
Result<DataFile> DataFileFromParquet(const std::string& path, const Table& table,
                                     bool* needs_name_mapping) {
  const iceberg::TableMetadata& md = *table.metadata;
  iceberg::SchemaPtr schema = md.CurrentSchema();
  iceberg::PartitionSpecPtr spec = md.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return Status::Invalid("table {} has no current schema or default spec",
                           table.metadata_location);
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> file, io::OpenLocalFile(path));
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
  out.content = iceberg::FileContent::kData;
  out.file_path = path;
  out.file_format = iceberg::FileFormat::kParquet;
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

  FLOE_ASSIGN_OR_RAISE(iceberg::WriterProperties properties,
                       iceberg::WriterProperties::Make(md.properties, md.location));
  std::shared_ptr<const iceberg::MetricsConfig> metrics =
      iceberg::MetricsConfig::Make(properties, *schema, md.DefaultSortOrder().get());
  for (size_t k = 0; k < check.leaves.size(); ++k) {
    const LeafColumn& leaf = check.leaves[k];
    const LeafStats& s = stats[k];
    const int32_t id = leaf.table_field->field_id();
    out.column_sizes[id] = s.size;
    iceberg::MetricsMode mode = metrics->ModeFor(id);
    if (mode.kind == iceberg::MetricsMode::Kind::kNone) continue;
    out.value_counts[id] = s.values;
    if (s.nulls_known) out.null_value_counts[id] = s.nulls;
    if (leaf.file_type->is_floating() && s.nans_known && s.nans) out.nan_value_counts[id] = *s.nans;
    if (mode.kind == iceberg::MetricsMode::Kind::kCounts || leaf.under_repeated) continue;
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
  for (const iceberg::PartitionField& pf : spec->fields()) {
    const Field* source = schema->FindFieldById(pf.source_id);
    if (source == nullptr) {
      return Status::Invalid(
          "{}: partition field '{}' has no source column (id {}) in the "
          "current schema",
          path, pf.name, pf.source_id);
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr result_type, pf.transform.ResultType(source->type()));
    if (pf.transform.kind() == iceberg::TransformKind::kVoid) {
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

}  // namespace

Result<CatalogPtr> OpenCatalogFromOptions(const CatalogOptions& options) {
  FLOE_ASSIGN_OR_RAISE(std::optional<CatalogPtr> resolved,
                       catalog::ResolveCatalog(options.catalog, options.warehouse));
  if (resolved.has_value()) return std::move(*resolved);
  if (options.warehouse.empty()) return catalog::OpenDefaultCatalog();
  std::error_code ec;
  std::filesystem::create_directories(options.warehouse, ec);
  if (ec) {
    return Status::IOError("cannot create the warehouse {}: {}", options.warehouse, ec.message());
  }
  return catalog::OpenCatalog(
      "sqlite:" + (std::filesystem::path(options.warehouse) / "catalog.db").string(),
      options.warehouse);
}

Result<std::map<std::string, std::string>> ParseProperties(const std::vector<std::string>& items,
                                                           std::string_view option) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("{} '{}' is not key=value", option, item);
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

Status RunCreateNamespace(const CreateNamespaceOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(catalog::Namespace ns, catalog::ParseNamespace(options.ns));
  FLOE_ASSIGN_OR_RAISE(auto properties, ParseProperties(options.properties, "--property"));
  FLOE_RETURN_NOT_OK(catalog->CreateNamespace(ns, properties));
  std::cout << "created namespace " << catalog::NamespaceToString(ns) << '\n';
  return CheckStdout();
}

Status RunList(const ListOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  catalog::Namespace parent;
  if (!options.ns.empty()) {
    FLOE_ASSIGN_OR_RAISE(parent, catalog::ParseNamespace(options.ns));
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog->NamespaceExists(parent));
    if (!exists) return Status::NotFound("namespace '{}' does not exist", options.ns);
  }
  FLOE_ASSIGN_OR_RAISE(std::vector<catalog::Namespace> children, catalog->ListNamespaces(parent));
  for (const catalog::Namespace& ns : children) {
    std::cout << catalog::NamespaceToString(ns) << '\n';
  }
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RAISE(std::vector<TableIdentifier> tables, catalog->ListTables(parent));
    for (const TableIdentifier& id : tables) std::cout << id.ToString() << '\n';
  }
  return CheckStdout();
}

Status RunCreateTable(const CreateTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(options.table));
  catalog::CreateTableRequest request;
  FLOE_ASSIGN_OR_RAISE(request.schema, iceberg::ParseSchemaText(options.schema));
  if (!options.partition.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.spec,
                         iceberg::ParsePartitionSpecText(options.partition, *request.schema));
  }
  if (!options.sort.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.sort_order,
                         iceberg::ParseSortOrderText(options.sort, *request.schema));
  }
  FLOE_ASSIGN_OR_RAISE(request.properties, ParseProperties(options.properties, "--property"));
  if (!options.location.empty()) {
    std::error_code ec;
    std::filesystem::path location = std::filesystem::absolute(options.location, ec);
    if (ec) return Status::IOError("--location '{}': {}", options.location, ec.message());
    request.location = location.lexically_normal().string();
    while (request.location.size() > 1 && request.location.back() == '/') {
      request.location.pop_back();
    }
  }
  request.format_version = options.format_version;
  FLOE_ASSIGN_OR_RAISE(Table table, catalog->CreateTable(id, request));
  std::cout << "created " << id.ToString() << " at " << io::RedactUri(table.metadata->location)
            << '\n';
  return CheckStdout();
}

Status RunDropTable(const DropTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(options.table));
  FLOE_RETURN_NOT_OK(catalog->DropTable(id, options.purge));
  std::cout << (options.purge ? "dropped and purged " : "dropped ") << id.ToString() << '\n';
  return CheckStdout();
}

Status RunAddFiles(const AddFilesOptions& options) {
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  std::vector<iceberg::DataFilePtr> files;
  std::set<std::string> seen;
  bool needs_name_mapping = false;
  for (const std::string& name : options.files) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(name, ec);
    if (ec) return Status::IOError("{}: {}", name, ec.message());
    std::string path = absolute.lexically_normal().string();
    if (!seen.insert(path).second) return Status::Invalid("{} is named twice", path);
    FLOE_ASSIGN_OR_RAISE(DataFile file,
                         DataFileFromParquet(path, loaded.table, &needs_name_mapping));
    files.push_back(std::make_shared<const DataFile>(std::move(file)));
  }
  // Files already in the table would be read twice.
  {
    iceberg::ScanOptions scan_options;
    FLOE_ASSIGN_OR_RAISE(
        auto scan, iceberg::TableScan::Make(loaded.table.metadata, loaded.table.io, scan_options));
    FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    for (const iceberg::FileScanTask& task : tasks) {
      if (seen.count(task.data_file->file_path) > 0) {
        return Status::Invalid("{} is already a data file of {}", task.data_file->file_path,
                               loaded.id.ToString());
      }
    }
  }
  const iceberg::TableMetadata& md = *loaded.table.metadata;
  iceberg::TableOperationsPtr ops = loaded.ops;
  if (needs_name_mapping && md.properties.count(std::string(kNameMappingProperty)) == 0) {
    // Files without field ids are read through the table's name mapping (spec, "Column
    // Projection"); the table gets one for its current schema in the same commit.
    iceberg::update::SetProperties set;
    set.updates[std::string(kNameMappingProperty)] =
        iceberg::NameMapping::FromSchema(*md.CurrentSchema()).ToJsonString();
    ops = std::make_shared<ExtraUpdatesOps>(loaded.ops, std::vector<iceberg::TableUpdate>{set});
  }
  auto append = iceberg::FastAppend::Make(ops);
  int64_t rows = 0;
  for (const iceberg::DataFilePtr& file : files) {
    rows += file->record_count;
    append->AppendFile(file);
  }
  FLOE_ASSIGN_OR_RAISE(Table committed, append->Commit());
  (void)committed;
  std::cout << fmt::format("added {} files with {} rows (snapshot {})\n", files.size(), rows,
                           append->snapshot_id());
  return CheckStdout();
}

Status RunAppend(const AppendOptions& options) {
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  const iceberg::TableMetadata& md = *loaded.table.metadata;
  iceberg::SchemaPtr schema = md.CurrentSchema();
  if (schema == nullptr) return Status::Invalid("{} has no current schema", loaded.id.ToString());
  FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions writer_options,
                       iceberg::WriterOptionsForTable(md, loaded.ops->io()));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::PartitionedWriter> writer,
                       iceberg::MakePartitionedWriter(std::move(writer_options), options.fanout));
  auto fail = [&](Status st) {
    (void)writer->Abort();
    return st;
  };
  int64_t rows = 0;
  for (const std::string& file : options.files) {
    Result<int64_t> n = WriteFileRows(file, *schema, writer.get());
    if (!n.ok()) return fail(n.status());
    rows += *n;
  }
  Result<std::vector<DataFile>> files = writer->Close();
  if (!files.ok()) return fail(files.status());
  auto append = iceberg::MergeAppend::Make(loaded.ops);
  for (DataFile& file : *files) append->AppendFile(std::make_shared<const DataFile>(file));
  Result<Table> committed = append->Commit();
  if (!committed.ok()) {
    // The commit did not happen: the data files belong to nothing and are removed.
    for (const DataFile& file : *files) (void)loaded.ops->io()->Delete(file.file_path);
    return fail(committed.status());
  }
  std::cout << fmt::format("appended {} rows in {} files (snapshot {})\n", rows, files->size(),
                           append->snapshot_id());
  return CheckStdout();
}

Status RunExpireSnapshots(const ExpireSnapshotsOptions& options) {
  FLOE_ASSIGN_OR_RAISE(int64_t older_than, ParseAsOf(options.older_than));
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  auto expire = iceberg::ExpireSnapshots::Make(loaded.ops);
  expire->ExpireOlderThan(older_than);
  if (options.retain_last) expire->RetainLast(*options.retain_last);
  FLOE_ASSIGN_OR_RAISE(iceberg::ExpireSnapshotsResult result, expire->Commit());
  std::cout << fmt::format(
      "expired {} snapshots; deleted {} data files, {} manifests, {} manifest lists\n",
      result.expired_snapshot_ids.size(), result.deleted_files.size(),
      result.deleted_manifests.size(), result.deleted_manifest_lists.size());
  if (!result.cleanup_status.ok()) {
    std::cout << "cleanup skipped: " << result.cleanup_status.ToString() << '\n';
  }
  return CheckStdout();
}

namespace {

void AddCatalogOptions(CLI::App* cmd, CatalogOptions* o) {
  cmd->add_option("--catalog", o->catalog, kCatalogOptionHelp);
  cmd->add_option("--warehouse", o->warehouse,
                  "Directory new tables are created in (with a catalog URI, or for the embedded "
                  "catalog)");
}

}  // namespace

void AddIcebergWriteCommands(CLI::App* iceberg, CommandAction* action) {
  {
    auto o = std::make_shared<CreateNamespaceOptions>();
    CLI::App* cmd = iceberg->add_subcommand("create-namespace", "Create a namespace");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("NAMESPACE", o->ns, "Namespace (a or a.b)")->required();
    cmd->add_option("--property", o->properties, "Namespace property key=value (repeatable)");
    cmd->callback([action, o] { *action = [o] { return RunCreateNamespace(*o); }; });
  }
  {
    auto o = std::make_shared<ListOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "list", "List the namespaces under NAMESPACE (or the top-level ones) and its tables");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("NAMESPACE", o->ns, "Namespace");
    cmd->callback([action, o] { *action = [o] { return RunList(*o); }; });
  }
  {
    auto o = std::make_shared<CreateTableOptions>();
    CLI::App* cmd = iceberg->add_subcommand("create", "Create a table");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("--schema", o->schema,
                    "Columns: 'id bigint not null, ts timestamptz, name string'")
        ->required();
    cmd->add_option("--partition", o->partition, "Partitioning: 'day(ts), bucket(16, id)'");
    cmd->add_option("--sort", o->sort, "Sort order: 'id DESC NULLS LAST'");
    cmd->add_option("--property", o->properties, "Table property key=value (repeatable)");
    cmd->add_option("--location", o->location, "Table location (default: in the warehouse)");
    cmd->add_option("--format-version", o->format_version, "Iceberg format version")
        ->check(CLI::IsMember({1, 2}))
        ->capture_default_str();
    cmd->callback([action, o] { *action = [o] { return RunCreateTable(*o); }; });
  }
  {
    auto o = std::make_shared<DropTableOptions>();
    CLI::App* cmd = iceberg->add_subcommand("drop", "Remove a table from the catalog");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_flag("--purge", o->purge, "Also delete the table's data and metadata files");
    cmd->callback([action, o] { *action = [o] { return RunDropTable(*o); }; });
  }
  {
    auto o = std::make_shared<AddFilesOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "add-files", "Register existing Parquet files as data files of TABLE (one commit)");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("FILES", o->files, "Parquet files")->required();
    cmd->callback([action, o] { *action = [o] { return RunAddFiles(*o); }; });
  }
  {
    auto o = std::make_shared<AppendOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "append", "Write the rows of Parquet files into TABLE's data files (one commit)");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("FILES", o->files, "Parquet files")->required();
    cmd->add_flag("--fanout,!--no-fanout", o->fanout,
                  "Fanout writer (default; any input order) or clustered writer (input grouped "
                  "by partition)");
    cmd->callback([action, o] { *action = [o] { return RunAppend(*o); }; });
  }
  {
    auto o = std::make_shared<ExpireSnapshotsOptions>();
    auto retain_last = std::make_shared<int>(0);
    CLI::App* cmd = iceberg->add_subcommand(
        "expire-snapshots", "Expire old snapshots of TABLE and delete the files only they used");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("--older-than", o->older_than,
                    "Expire snapshots older than this (ms since the epoch, or "
                    "'YYYY-MM-DD HH:MM:SS' UTC)")
        ->required();
    cmd->add_option("--retain-last", *retain_last, "Keep at least this many newest snapshots")
        ->check(CLI::PositiveNumber);
    cmd->callback([action, o, retain_last, cmd] {
      if (cmd->count("--retain-last") > 0) o->retain_last = *retain_last;
      *action = [o] { return RunExpireSnapshots(*o); };
    });
  }
}

}  // namespace floe::cli
