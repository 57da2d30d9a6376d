#include "floe/format/parquet/metadata.h"

#include <limits>
#include <type_traits>

namespace floe::parquet {

namespace {

using Reader = ThriftCompactReader;
using Writer = ThriftCompactWriter;

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// The Thrift type a C++ member is encoded as.
template <typename T>
constexpr ThriftType WireType() {
  if constexpr (std::is_same_v<T, bool>) {
    return ThriftType::kBool;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return ThriftType::kI8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return ThriftType::kI16;
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_enum_v<T>) {
    return ThriftType::kI32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return ThriftType::kI64;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return ThriftType::kBinary;
  } else if constexpr (IsVector<T>::value) {
    return ThriftType::kList;
  } else {
    return ThriftType::kStruct;
  }
}

// ---------------------------------------------------------------------------------------
// Reading values. Struct readers are declared here and defined below.

Status ReadValue(Reader& r, bool* out) {
  FLOE_ASSIGN_OR_RAISE(*out, r.ReadBool());
  return Status::OK();
}
Status ReadValue(Reader& r, int8_t* out) {
  FLOE_ASSIGN_OR_RAISE(*out, r.ReadI8());
  return Status::OK();
}
Status ReadValue(Reader& r, int16_t* out) {
  FLOE_ASSIGN_OR_RAISE(*out, r.ReadI16());
  return Status::OK();
}
Status ReadValue(Reader& r, int32_t* out) {
  FLOE_ASSIGN_OR_RAISE(*out, r.ReadI32());
  return Status::OK();
}
Status ReadValue(Reader& r, int64_t* out) {
  FLOE_ASSIGN_OR_RAISE(*out, r.ReadI64());
  return Status::OK();
}
Status ReadValue(Reader& r, std::string* out) {
  FLOE_ASSIGN_OR_RAISE(std::string_view value, r.ReadBinary());
  out->assign(value);
  return Status::OK();
}
template <typename E>
requires std::is_enum_v<E> Status ReadValue(Reader& r, E* out) {
  FLOE_ASSIGN_OR_RAISE(int32_t value, r.ReadI32());
  *out = static_cast<E>(value);
  return Status::OK();
}

#define FLOE_DECLARE_READ(T) Status ReadValue(Reader& r, T* out);
FLOE_PARQUET_THRIFT_STRUCTS(FLOE_DECLARE_READ)
#undef FLOE_DECLARE_READ

template <typename T>
Status ReadValue(Reader& r, std::vector<T>* out) {
  FLOE_ASSIGN_OR_RAISE(ThriftListHeader header, r.ReadListHeader());
  if (header.element_type != WireType<T>()) {
    return r.Corrupt(fmt::format("list elements have type {}, expected {}",
                                 ThriftTypeName(header.element_type),
                                 ThriftTypeName(WireType<T>())));
  }
  // ReadListHeader has checked the count against the bytes remaining.
  out->clear();
  out->reserve(header.size);
  for (uint32_t i = 0; i < header.size; ++i) {
    r.SetFieldIndex(i);
    if constexpr (std::is_same_v<T, bool>) {
      FLOE_ASSIGN_OR_RAISE(bool value, r.ReadBool());
      out->push_back(value);
    } else {
      FLOE_RETURN_NOT_OK(ReadValue(r, &out->emplace_back()));
    }
  }
  r.SetFieldIndex(-1);
  return Status::OK();
}

template <typename T>
Status ReadFieldValue(Reader& r, const ThriftFieldHeader& field, T* out) {
  constexpr ThriftType kExpected = WireType<T>();
  const bool list_as_set = kExpected == ThriftType::kList && field.type == ThriftType::kSet;
  if (field.type != kExpected && !list_as_set) {
    return r.Corrupt(fmt::format("field {} has type {}, expected {}", field.id,
                                 ThriftTypeName(field.type), ThriftTypeName(kExpected)));
  }
  return ReadValue(r, out);
}

template <typename T>
Status ReadFieldValue(Reader& r, const ThriftFieldHeader& field, std::optional<T>* out) {
  return ReadFieldValue(r, field, &out->emplace());
}

// Reads the value of `field` into `*out`, naming it `name` in errors.
template <typename T>
Status ReadField(Reader& r, const ThriftFieldHeader& field, const char* name, T* out) {
  r.PushField(name);
  Status st = ReadFieldValue(r, field, out);
  r.PopField();
  return st;
}

// Tracks which required fields of a struct were seen (field ids below 32).
class Seen {
 public:
  void Add(int16_t id) {
    if (id >= 0 && id < 32) bits_ |= 1u << id;
  }
  bool Has(int id) const { return (bits_ >> id) & 1u; }

 private:
  uint32_t bits_ = 0;
};

Status Require(const Reader& r, const Seen& seen, int id, const char* name) {
  if (seen.Has(id)) return Status::OK();
  return r.Corrupt(fmt::format("required field {} (id {}) is missing", name, id));
}

Status NonNegative(const Reader& r, int64_t value, const char* name) {
  if (value >= 0) return Status::OK();
  return r.Corrupt(fmt::format("{} is negative ({})", name, value));
}

template <typename T>
Status NonNegative(const Reader& r, const std::optional<T>& value, const char* name) {
  return value ? NonNegative(r, static_cast<int64_t>(*value), name) : Status::OK();
}

// Reads the fields of a struct, handing each to `on_field(field)`, which reads or skips
// the value; records the ids seen in `*seen`.
template <typename OnField>
Status ReadStruct(Reader& r, Seen* seen, OnField&& on_field) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    FLOE_RETURN_NOT_OK(on_field(field));
    seen->Add(field.id);
  }
  r.EndStruct();
  return Status::OK();
}

#define REQUIRE(id, member) FLOE_RETURN_NOT_OK(Require(r, seen, id, #member))

Status ReadValue(Reader& r, Statistics* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "max", &out->max);
      case 2:
        return ReadField(r, field, "min", &out->min);
      case 3:
        return ReadField(r, field, "null_count", &out->null_count);
      case 4:
        return ReadField(r, field, "distinct_count", &out->distinct_count);
      case 5:
        return ReadField(r, field, "max_value", &out->max_value);
      case 6:
        return ReadField(r, field, "min_value", &out->min_value);
      case 7:
        return ReadField(r, field, "is_max_value_exact", &out->is_max_value_exact);
      case 8:
        return ReadField(r, field, "is_min_value_exact", &out->is_min_value_exact);
      case 9:
        return ReadField(r, field, "nan_count", &out->nan_count);
      default:
        return r.Skip(field.type);
    }
  }));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->null_count, "null_count"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->distinct_count, "distinct_count"));
  return NonNegative(r, out->nan_count, "nan_count");
}

// Copies the input bytes from `start` to the current position into `*raw`.
Status CaptureRaw(Reader& r, size_t start, std::string* raw) {
  const auto bytes = r.data().subspan(start, r.position() - start);
  raw->assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return Status::OK();
}

// TimeUnit union: sets *known to false for a member this model does not know.
Status ReadTimeUnit(Reader& r, TimeUnit* out, bool* known) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  int members = 0;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    ++members;
    switch (field.id) {
      case 1:
        *out = TimeUnit::kMillis;
        break;
      case 2:
        *out = TimeUnit::kMicros;
        break;
      case 3:
        *out = TimeUnit::kNanos;
        break;
      default:
        *known = false;
        break;
    }
    FLOE_RETURN_NOT_OK(r.Skip(field.type));
  }
  r.EndStruct();
  if (members != 1) {
    return r.Corrupt(fmt::format("TimeUnit union has {} members, expected 1", members));
  }
  return Status::OK();
}

// TimeType and TimestampType: {1: required bool isAdjustedToUTC, 2: required TimeUnit}.
Status ReadTimeLike(Reader& r, LogicalType* out, bool* known) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  Seen seen;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    if (field.id == 1) {
      FLOE_RETURN_NOT_OK(ReadField(r, field, "isAdjustedToUTC", &out->is_adjusted_to_utc));
    } else if (field.id == 2) {
      r.PushField("unit");
      Status st = field.type == ThriftType::kStruct
                      ? ReadTimeUnit(r, &out->unit, known)
                      : r.Corrupt(fmt::format("field 2 has type {}, expected struct",
                                              ThriftTypeName(field.type)));
      r.PopField();
      FLOE_RETURN_NOT_OK(st);
    } else {
      FLOE_RETURN_NOT_OK(r.Skip(field.type));
    }
    seen.Add(field.id);
  }
  r.EndStruct();
  FLOE_RETURN_NOT_OK(Require(r, seen, 1, "isAdjustedToUTC"));
  return Require(r, seen, 2, "unit");
}

Status ReadDecimal(Reader& r, LogicalType* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "scale", &out->scale);
      case 2:
        return ReadField(r, field, "precision", &out->precision);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, scale);
  REQUIRE(2, precision);
  return Status::OK();
}

Status ReadInteger(Reader& r, LogicalType* out) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  Seen seen;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    if (field.id == 1) {
      FLOE_RETURN_NOT_OK(ReadField(r, field, "bitWidth", &out->bit_width));
    } else if (field.id == 2) {
      FLOE_RETURN_NOT_OK(ReadField(r, field, "isSigned", &out->is_signed));
    } else {
      FLOE_RETURN_NOT_OK(r.Skip(field.type));
    }
    seen.Add(field.id);
  }
  r.EndStruct();
  FLOE_RETURN_NOT_OK(Require(r, seen, 1, "bitWidth"));
  return Require(r, seen, 2, "isSigned");
}

Status ReadValue(Reader& r, LogicalType* out) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  int members = 0;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    if (++members > 1) return r.Corrupt("LogicalType union has more than one member");
    if (field.type != ThriftType::kStruct) {
      return r.Corrupt(fmt::format("LogicalType member {} has type {}, expected struct", field.id,
                                   ThriftTypeName(field.type)));
    }
    using Kind = LogicalType::Kind;
    const size_t start = r.position();
    bool known = true;
    Status st;
    switch (field.id) {
      case 1:
        out->kind = Kind::kString;
        break;
      case 2:
        out->kind = Kind::kMap;
        break;
      case 3:
        out->kind = Kind::kList;
        break;
      case 4:
        out->kind = Kind::kEnum;
        break;
      case 5:
        out->kind = Kind::kDecimal;
        r.PushField("DECIMAL");
        st = ReadDecimal(r, out);
        r.PopField();
        break;
      case 6:
        out->kind = Kind::kDate;
        break;
      case 7:
      case 8:
        out->kind = field.id == 7 ? Kind::kTime : Kind::kTimestamp;
        r.PushField(field.id == 7 ? "TIME" : "TIMESTAMP");
        st = ReadTimeLike(r, out, &known);
        r.PopField();
        break;
      case 10:
        out->kind = Kind::kInteger;
        r.PushField("INTEGER");
        st = ReadInteger(r, out);
        r.PopField();
        break;
      case 11:
        out->kind = Kind::kNull;
        break;
      case 12:
        out->kind = Kind::kJson;
        break;
      case 13:
        out->kind = Kind::kBson;
        break;
      case 14:
        out->kind = Kind::kUuid;
        break;
      case 15:
        out->kind = Kind::kFloat16;
        break;
      default:
        known = false;
        break;
    }
    FLOE_RETURN_NOT_OK(st);
    // Members without fields are skipped whole, so that fields a newer format version
    // adds to them are ignored.
    if (r.position() == start) FLOE_RETURN_NOT_OK(r.Skip(ThriftType::kStruct));
    if (!known) {
      *out = LogicalType{};
      out->kind = Kind::kUnrecognized;
      out->raw_field_id = field.id;
      FLOE_RETURN_NOT_OK(CaptureRaw(r, start, &out->raw_value));
    }
  }
  r.EndStruct();
  if (members == 0) return r.Corrupt("LogicalType union has no member");
  return Status::OK();
}

Status ReadValue(Reader& r, ColumnOrder* out) {
  FLOE_RETURN_NOT_OK(r.BeginStruct());
  int members = 0;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(ThriftFieldHeader field, r.ReadFieldHeader());
    if (field.type == ThriftType::kStop) break;
    if (++members > 1) return r.Corrupt("ColumnOrder union has more than one member");
    if (field.type != ThriftType::kStruct) {
      return r.Corrupt(fmt::format("ColumnOrder member {} has type {}, expected struct", field.id,
                                   ThriftTypeName(field.type)));
    }
    const size_t start = r.position();
    FLOE_RETURN_NOT_OK(r.Skip(ThriftType::kStruct));
    switch (field.id) {
      case 1:
        out->kind = ColumnOrder::Kind::kTypeDefinedOrder;
        break;
      case 2:
        out->kind = ColumnOrder::Kind::kIeee754TotalOrder;
        break;
      case 3:
        out->kind = ColumnOrder::Kind::kInt96TimestampOrder;
        break;
      default:
        out->kind = ColumnOrder::Kind::kUnrecognized;
        out->raw_field_id = field.id;
        FLOE_RETURN_NOT_OK(CaptureRaw(r, start, &out->raw_value));
        break;
    }
  }
  r.EndStruct();
  if (members == 0) return r.Corrupt("ColumnOrder union has no member");
  return Status::OK();
}

// Reads a struct-typed field whose bytes are kept raw.
Status ReadRawStruct(Reader& r, const ThriftFieldHeader& field, const char* name,
                     std::optional<std::string>* out) {
  r.PushField(name);
  Status st;
  if (field.type != ThriftType::kStruct) {
    st = r.Corrupt(
        fmt::format("field {} has type {}, expected struct", field.id, ThriftTypeName(field.type)));
  } else {
    const size_t start = r.position();
    st = r.Skip(ThriftType::kStruct);
    if (st.ok()) st = CaptureRaw(r, start, &out->emplace());
  }
  r.PopField();
  return st;
}

Status ReadValue(Reader& r, SchemaElement* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "type", &out->type);
      case 2:
        return ReadField(r, field, "type_length", &out->type_length);
      case 3:
        return ReadField(r, field, "repetition_type", &out->repetition_type);
      case 4:
        return ReadField(r, field, "name", &out->name);
      case 5:
        return ReadField(r, field, "num_children", &out->num_children);
      case 6:
        return ReadField(r, field, "converted_type", &out->converted_type);
      case 7:
        return ReadField(r, field, "scale", &out->scale);
      case 8:
        return ReadField(r, field, "precision", &out->precision);
      case 9:
        return ReadField(r, field, "field_id", &out->field_id);
      case 10:
        return ReadField(r, field, "logical_type", &out->logical_type);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(4, name);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_children, "num_children"));
  return NonNegative(r, out->type_length, "type_length");
}

Status ReadValue(Reader& r, PageEncodingStats* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "page_type", &out->page_type);
      case 2:
        return ReadField(r, field, "encoding", &out->encoding);
      case 3:
        return ReadField(r, field, "count", &out->count);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, page_type);
  REQUIRE(2, encoding);
  REQUIRE(3, count);
  return NonNegative(r, out->count, "count");
}

Status ReadValue(Reader& r, KeyValue* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "key", &out->key);
      case 2:
        return ReadField(r, field, "value", &out->value);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, key);
  return Status::OK();
}

Status ReadValue(Reader& r, SortingColumn* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "column_idx", &out->column_idx);
      case 2:
        return ReadField(r, field, "descending", &out->descending);
      case 3:
        return ReadField(r, field, "nulls_first", &out->nulls_first);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, column_idx);
  REQUIRE(2, descending);
  REQUIRE(3, nulls_first);
  return NonNegative(r, out->column_idx, "column_idx");
}

Status ReadValue(Reader& r, ColumnMetaData* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "type", &out->type);
      case 2:
        return ReadField(r, field, "encodings", &out->encodings);
      case 3:
        return ReadField(r, field, "path_in_schema", &out->path_in_schema);
      case 4:
        return ReadField(r, field, "codec", &out->codec);
      case 5:
        return ReadField(r, field, "num_values", &out->num_values);
      case 6:
        return ReadField(r, field, "total_uncompressed_size", &out->total_uncompressed_size);
      case 7:
        return ReadField(r, field, "total_compressed_size", &out->total_compressed_size);
      case 8:
        return ReadField(r, field, "key_value_metadata", &out->key_value_metadata);
      case 9:
        return ReadField(r, field, "data_page_offset", &out->data_page_offset);
      case 10:
        return ReadField(r, field, "index_page_offset", &out->index_page_offset);
      case 11:
        return ReadField(r, field, "dictionary_page_offset", &out->dictionary_page_offset);
      case 12:
        return ReadField(r, field, "statistics", &out->statistics);
      case 13:
        return ReadField(r, field, "encoding_stats", &out->encoding_stats);
      case 14:
        return ReadField(r, field, "bloom_filter_offset", &out->bloom_filter_offset);
      case 15:
        return ReadField(r, field, "bloom_filter_length", &out->bloom_filter_length);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, type);
  REQUIRE(2, encodings);
  REQUIRE(3, path_in_schema);
  REQUIRE(4, codec);
  REQUIRE(5, num_values);
  REQUIRE(6, total_uncompressed_size);
  REQUIRE(7, total_compressed_size);
  REQUIRE(9, data_page_offset);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_values, "num_values"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->total_uncompressed_size, "total_uncompressed_size"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->total_compressed_size, "total_compressed_size"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->data_page_offset, "data_page_offset"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->index_page_offset, "index_page_offset"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->dictionary_page_offset, "dictionary_page_offset"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->bloom_filter_offset, "bloom_filter_offset"));
  return NonNegative(r, out->bloom_filter_length, "bloom_filter_length");
}

Status ReadValue(Reader& r, ColumnChunk* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "file_path", &out->file_path);
      case 2:
        return ReadField(r, field, "file_offset", &out->file_offset);
      case 3:
        return ReadField(r, field, "meta_data", &out->meta_data);
      case 4:
        return ReadField(r, field, "offset_index_offset", &out->offset_index_offset);
      case 5:
        return ReadField(r, field, "offset_index_length", &out->offset_index_length);
      case 6:
        return ReadField(r, field, "column_index_offset", &out->column_index_offset);
      case 7:
        return ReadField(r, field, "column_index_length", &out->column_index_length);
      case 8:
        return ReadRawStruct(r, field, "crypto_metadata", &out->crypto_metadata);
      case 9:
        return ReadField(r, field, "encrypted_column_metadata", &out->encrypted_column_metadata);
      default:
        return r.Skip(field.type);
    }
  }));
  // file_offset is required by the format but deprecated and unused; absent reads as 0.
  FLOE_RETURN_NOT_OK(NonNegative(r, out->offset_index_offset, "offset_index_offset"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->offset_index_length, "offset_index_length"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->column_index_offset, "column_index_offset"));
  return NonNegative(r, out->column_index_length, "column_index_length");
}

Status ReadValue(Reader& r, RowGroup* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "columns", &out->columns);
      case 2:
        return ReadField(r, field, "total_byte_size", &out->total_byte_size);
      case 3:
        return ReadField(r, field, "num_rows", &out->num_rows);
      case 4:
        return ReadField(r, field, "sorting_columns", &out->sorting_columns);
      case 5:
        return ReadField(r, field, "file_offset", &out->file_offset);
      case 6:
        return ReadField(r, field, "total_compressed_size", &out->total_compressed_size);
      case 7:
        return ReadField(r, field, "ordinal", &out->ordinal);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, columns);
  REQUIRE(2, total_byte_size);
  REQUIRE(3, num_rows);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_rows, "num_rows"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->total_byte_size, "total_byte_size"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->file_offset, "file_offset"));
  return NonNegative(r, out->total_compressed_size, "total_compressed_size");
}

Status ReadValue(Reader& r, FileMetaData* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "version", &out->version);
      case 2:
        return ReadField(r, field, "schema", &out->schema);
      case 3:
        return ReadField(r, field, "num_rows", &out->num_rows);
      case 4:
        return ReadField(r, field, "row_groups", &out->row_groups);
      case 5:
        return ReadField(r, field, "key_value_metadata", &out->key_value_metadata);
      case 6:
        return ReadField(r, field, "created_by", &out->created_by);
      case 7:
        return ReadField(r, field, "column_orders", &out->column_orders);
      case 8:
        return ReadRawStruct(r, field, "encryption_algorithm", &out->encryption_algorithm);
      case 9:
        return ReadField(r, field, "footer_signing_key_metadata",
                         &out->footer_signing_key_metadata);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, version);
  REQUIRE(2, schema);
  REQUIRE(3, num_rows);
  REQUIRE(4, row_groups);
  if (out->schema.empty()) return r.Corrupt("schema has no elements (the root is missing)");
  return NonNegative(r, out->num_rows, "num_rows");
}

Status ReadValue(Reader& r, DataPageHeader* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "num_values", &out->num_values);
      case 2:
        return ReadField(r, field, "encoding", &out->encoding);
      case 3:
        return ReadField(r, field, "definition_level_encoding", &out->definition_level_encoding);
      case 4:
        return ReadField(r, field, "repetition_level_encoding", &out->repetition_level_encoding);
      case 5:
        return ReadField(r, field, "statistics", &out->statistics);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, num_values);
  REQUIRE(2, encoding);
  REQUIRE(3, definition_level_encoding);
  REQUIRE(4, repetition_level_encoding);
  return NonNegative(r, out->num_values, "num_values");
}

Status ReadValue(Reader& r, DictionaryPageHeader* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "num_values", &out->num_values);
      case 2:
        return ReadField(r, field, "encoding", &out->encoding);
      case 3:
        return ReadField(r, field, "is_sorted", &out->is_sorted);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, num_values);
  REQUIRE(2, encoding);
  return NonNegative(r, out->num_values, "num_values");
}

Status ReadValue(Reader& r, DataPageHeaderV2* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "num_values", &out->num_values);
      case 2:
        return ReadField(r, field, "num_nulls", &out->num_nulls);
      case 3:
        return ReadField(r, field, "num_rows", &out->num_rows);
      case 4:
        return ReadField(r, field, "encoding", &out->encoding);
      case 5:
        return ReadField(r, field, "definition_levels_byte_length",
                         &out->definition_levels_byte_length);
      case 6:
        return ReadField(r, field, "repetition_levels_byte_length",
                         &out->repetition_levels_byte_length);
      case 7:
        return ReadField(r, field, "is_compressed", &out->is_compressed);
      case 8:
        return ReadField(r, field, "statistics", &out->statistics);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, num_values);
  REQUIRE(2, num_nulls);
  REQUIRE(3, num_rows);
  REQUIRE(4, encoding);
  REQUIRE(5, definition_levels_byte_length);
  REQUIRE(6, repetition_levels_byte_length);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_values, "num_values"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_nulls, "num_nulls"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->num_rows, "num_rows"));
  FLOE_RETURN_NOT_OK(
      NonNegative(r, out->definition_levels_byte_length, "definition_levels_byte_length"));
  FLOE_RETURN_NOT_OK(
      NonNegative(r, out->repetition_levels_byte_length, "repetition_levels_byte_length"));
  if (out->num_nulls > out->num_values) {
    return r.Corrupt(
        fmt::format("num_nulls {} exceeds num_values {}", out->num_nulls, out->num_values));
  }
  return Status::OK();
}

Status ReadValue(Reader& r, PageHeader* out) {
  // Field 6, IndexPageHeader, has no fields: only its presence is kept.
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "type", &out->type);
      case 2:
        return ReadField(r, field, "uncompressed_page_size", &out->uncompressed_page_size);
      case 3:
        return ReadField(r, field, "compressed_page_size", &out->compressed_page_size);
      case 4:
        return ReadField(r, field, "crc", &out->crc);
      case 5:
        return ReadField(r, field, "data_page_header", &out->data_page_header);
      case 6:
        out->has_index_page_header = true;
        return r.Skip(field.type);
      case 7:
        return ReadField(r, field, "dictionary_page_header", &out->dictionary_page_header);
      case 8:
        return ReadField(r, field, "data_page_header_v2", &out->data_page_header_v2);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, type);
  REQUIRE(2, uncompressed_page_size);
  REQUIRE(3, compressed_page_size);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->uncompressed_page_size, "uncompressed_page_size"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->compressed_page_size, "compressed_page_size"));
  switch (out->type) {
    case PageType::kDataPage:
      if (!out->data_page_header) {
        return r.Corrupt("a DATA_PAGE header lacks data_page_header (id 5)");
      }
      break;
    case PageType::kDictionaryPage:
      if (!out->dictionary_page_header) {
        return r.Corrupt("a DICTIONARY_PAGE header lacks dictionary_page_header (id 7)");
      }
      break;
    case PageType::kDataPageV2: {
      if (!out->data_page_header_v2) {
        return r.Corrupt("a DATA_PAGE_V2 header lacks data_page_header_v2 (id 8)");
      }
      const int64_t levels =
          static_cast<int64_t>(out->data_page_header_v2->definition_levels_byte_length) +
          out->data_page_header_v2->repetition_levels_byte_length;
      if (levels > out->compressed_page_size) {
        return r.Corrupt(fmt::format("level bytes {} exceed compressed_page_size {}", levels,
                                     out->compressed_page_size));
      }
      break;
    }
    default:
      break;
  }
  return Status::OK();
}

Status ReadValue(Reader& r, ColumnIndex* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "null_pages", &out->null_pages);
      case 2:
        return ReadField(r, field, "min_values", &out->min_values);
      case 3:
        return ReadField(r, field, "max_values", &out->max_values);
      case 4:
        return ReadField(r, field, "boundary_order", &out->boundary_order);
      case 5:
        return ReadField(r, field, "null_counts", &out->null_counts);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, null_pages);
  REQUIRE(2, min_values);
  REQUIRE(3, max_values);
  REQUIRE(4, boundary_order);
  const size_t pages = out->null_pages.size();
  if (out->min_values.size() != pages || out->max_values.size() != pages ||
      (out->null_counts && out->null_counts->size() != pages)) {
    return r.Corrupt(fmt::format(
        "list lengths differ: null_pages {}, min_values {}, max_values {}, null_counts {}", pages,
        out->min_values.size(), out->max_values.size(),
        out->null_counts ? static_cast<int64_t>(out->null_counts->size()) : -1));
  }
  return Status::OK();
}

Status ReadValue(Reader& r, PageLocation* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "offset", &out->offset);
      case 2:
        return ReadField(r, field, "compressed_page_size", &out->compressed_page_size);
      case 3:
        return ReadField(r, field, "first_row_index", &out->first_row_index);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, offset);
  REQUIRE(2, compressed_page_size);
  REQUIRE(3, first_row_index);
  FLOE_RETURN_NOT_OK(NonNegative(r, out->offset, "offset"));
  FLOE_RETURN_NOT_OK(NonNegative(r, out->compressed_page_size, "compressed_page_size"));
  return NonNegative(r, out->first_row_index, "first_row_index");
}

Status ReadValue(Reader& r, OffsetIndex* out) {
  Seen seen;
  FLOE_RETURN_NOT_OK(ReadStruct(r, &seen, [&](const ThriftFieldHeader& field) {
    switch (field.id) {
      case 1:
        return ReadField(r, field, "page_locations", &out->page_locations);
      case 2:
        return ReadField(r, field, "unencoded_byte_array_data_bytes",
                         &out->unencoded_byte_array_data_bytes);
      default:
        return r.Skip(field.type);
    }
  }));
  REQUIRE(1, page_locations);
  return Status::OK();
}

#undef REQUIRE

// ---------------------------------------------------------------------------------------
// Writing values.

void WriteValue(Writer& w, int8_t v) { w.WriteI8(v); }
void WriteValue(Writer& w, int16_t v) { w.WriteI16(v); }
void WriteValue(Writer& w, int32_t v) { w.WriteI32(v); }
void WriteValue(Writer& w, int64_t v) { w.WriteI64(v); }
void WriteValue(Writer& w, const std::string& v) { w.WriteBinary(v); }
template <typename E>
requires std::is_enum_v<E>
void WriteValue(Writer& w, E v) { w.WriteI32(static_cast<int32_t>(v)); }

#define FLOE_DECLARE_WRITE(T) void WriteValue(Writer& w, const T& v);
FLOE_PARQUET_THRIFT_STRUCTS(FLOE_DECLARE_WRITE)
#undef FLOE_DECLARE_WRITE

template <typename T>
void WriteValue(Writer& w, const std::vector<T>& v) {
  w.WriteListHeader(WireType<T>(), v.size());
  for (const auto& element : v) {
    if constexpr (std::is_same_v<T, bool>) {
      w.WriteBool(element);
    } else {
      WriteValue(w, element);
    }
  }
}

template <typename T>
void WriteField(Writer& w, int16_t id, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    w.WriteFieldBool(id, v);
  } else {
    w.WriteFieldHeader(WireType<T>(), id);
    WriteValue(w, v);
  }
}

template <typename T>
void WriteField(Writer& w, int16_t id, const std::optional<T>& v) {
  if (v) WriteField(w, id, *v);
}

// A struct-typed member kept as raw compact bytes; empty bytes write an empty struct.
void WriteRawStructField(Writer& w, int16_t id, const std::string& raw) {
  w.WriteFieldHeader(ThriftType::kStruct, id);
  if (raw.empty()) {
    w.BeginStruct();
    w.EndStruct();
  } else {
    w.WriteRaw(raw);
  }
}

void WriteEmptyStructField(Writer& w, int16_t id) {
  w.WriteFieldHeader(ThriftType::kStruct, id);
  w.BeginStruct();
  w.EndStruct();
}

void WriteValue(Writer& w, const Statistics& v) {
  w.BeginStruct();
  WriteField(w, 1, v.max);
  WriteField(w, 2, v.min);
  WriteField(w, 3, v.null_count);
  WriteField(w, 4, v.distinct_count);
  WriteField(w, 5, v.max_value);
  WriteField(w, 6, v.min_value);
  WriteField(w, 7, v.is_max_value_exact);
  WriteField(w, 8, v.is_min_value_exact);
  WriteField(w, 9, v.nan_count);
  w.EndStruct();
}

void WriteTimeLike(Writer& w, const LogicalType& v) {
  w.BeginStruct();
  w.WriteFieldBool(1, v.is_adjusted_to_utc);
  w.WriteFieldHeader(ThriftType::kStruct, 2);
  w.BeginStruct();
  switch (v.unit) {
    case TimeUnit::kMillis:
      WriteEmptyStructField(w, 1);
      break;
    case TimeUnit::kMicros:
      WriteEmptyStructField(w, 2);
      break;
    case TimeUnit::kNanos:
      WriteEmptyStructField(w, 3);
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void WriteValue(Writer& w, const LogicalType& v) {
  using Kind = LogicalType::Kind;
  w.BeginStruct();
  switch (v.kind) {
    case Kind::kString:
      WriteEmptyStructField(w, 1);
      break;
    case Kind::kMap:
      WriteEmptyStructField(w, 2);
      break;
    case Kind::kList:
      WriteEmptyStructField(w, 3);
      break;
    case Kind::kEnum:
      WriteEmptyStructField(w, 4);
      break;
    case Kind::kDecimal:
      w.WriteFieldHeader(ThriftType::kStruct, 5);
      w.BeginStruct();
      WriteField(w, 1, v.scale);
      WriteField(w, 2, v.precision);
      w.EndStruct();
      break;
    case Kind::kDate:
      WriteEmptyStructField(w, 6);
      break;
    case Kind::kTime:
      w.WriteFieldHeader(ThriftType::kStruct, 7);
      WriteTimeLike(w, v);
      break;
    case Kind::kTimestamp:
      w.WriteFieldHeader(ThriftType::kStruct, 8);
      WriteTimeLike(w, v);
      break;
    case Kind::kInteger:
      w.WriteFieldHeader(ThriftType::kStruct, 10);
      w.BeginStruct();
      WriteField(w, 1, v.bit_width);
      WriteField(w, 2, v.is_signed);
      w.EndStruct();
      break;
    case Kind::kNull:
      WriteEmptyStructField(w, 11);
      break;
    case Kind::kJson:
      WriteEmptyStructField(w, 12);
      break;
    case Kind::kBson:
      WriteEmptyStructField(w, 13);
      break;
    case Kind::kUuid:
      WriteEmptyStructField(w, 14);
      break;
    case Kind::kFloat16:
      WriteEmptyStructField(w, 15);
      break;
    case Kind::kUnrecognized:
      WriteRawStructField(w, v.raw_field_id, v.raw_value);
      break;
  }
  w.EndStruct();
}

void WriteValue(Writer& w, const ColumnOrder& v) {
  w.BeginStruct();
  switch (v.kind) {
    case ColumnOrder::Kind::kTypeDefinedOrder:
      WriteEmptyStructField(w, 1);
      break;
    case ColumnOrder::Kind::kIeee754TotalOrder:
      WriteEmptyStructField(w, 2);
      break;
    case ColumnOrder::Kind::kInt96TimestampOrder:
      WriteEmptyStructField(w, 3);
      break;
    case ColumnOrder::Kind::kUnrecognized:
      WriteRawStructField(w, v.raw_field_id, v.raw_value);
      break;
  }
  w.EndStruct();
}

void WriteValue(Writer& w, const SchemaElement& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.type_length);
  WriteField(w, 3, v.repetition_type);
  WriteField(w, 4, v.name);
  WriteField(w, 5, v.num_children);
  WriteField(w, 6, v.converted_type);
  WriteField(w, 7, v.scale);
  WriteField(w, 8, v.precision);
  WriteField(w, 9, v.field_id);
  WriteField(w, 10, v.logical_type);
  w.EndStruct();
}

void WriteValue(Writer& w, const PageEncodingStats& v) {
  w.BeginStruct();
  WriteField(w, 1, v.page_type);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.count);
  w.EndStruct();
}

void WriteValue(Writer& w, const KeyValue& v) {
  w.BeginStruct();
  WriteField(w, 1, v.key);
  WriteField(w, 2, v.value);
  w.EndStruct();
}

void WriteValue(Writer& w, const SortingColumn& v) {
  w.BeginStruct();
  WriteField(w, 1, v.column_idx);
  WriteField(w, 2, v.descending);
  WriteField(w, 3, v.nulls_first);
  w.EndStruct();
}

void WriteValue(Writer& w, const ColumnMetaData& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.encodings);
  WriteField(w, 3, v.path_in_schema);
  WriteField(w, 4, v.codec);
  WriteField(w, 5, v.num_values);
  WriteField(w, 6, v.total_uncompressed_size);
  WriteField(w, 7, v.total_compressed_size);
  WriteField(w, 8, v.key_value_metadata);
  WriteField(w, 9, v.data_page_offset);
  WriteField(w, 10, v.index_page_offset);
  WriteField(w, 11, v.dictionary_page_offset);
  WriteField(w, 12, v.statistics);
  WriteField(w, 13, v.encoding_stats);
  WriteField(w, 14, v.bloom_filter_offset);
  WriteField(w, 15, v.bloom_filter_length);
  w.EndStruct();
}

void WriteValue(Writer& w, const ColumnChunk& v) {
  w.BeginStruct();
  WriteField(w, 1, v.file_path);
  WriteField(w, 2, v.file_offset);
  WriteField(w, 3, v.meta_data);
  WriteField(w, 4, v.offset_index_offset);
  WriteField(w, 5, v.offset_index_length);
  WriteField(w, 6, v.column_index_offset);
  WriteField(w, 7, v.column_index_length);
  if (v.crypto_metadata) WriteRawStructField(w, 8, *v.crypto_metadata);
  WriteField(w, 9, v.encrypted_column_metadata);
  w.EndStruct();
}

void WriteValue(Writer& w, const RowGroup& v) {
  w.BeginStruct();
  WriteField(w, 1, v.columns);
  WriteField(w, 2, v.total_byte_size);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.sorting_columns);
  WriteField(w, 5, v.file_offset);
  WriteField(w, 6, v.total_compressed_size);
  WriteField(w, 7, v.ordinal);
  w.EndStruct();
}

void WriteValue(Writer& w, const FileMetaData& v) {
  w.BeginStruct();
  WriteField(w, 1, v.version);
  WriteField(w, 2, v.schema);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.row_groups);
  WriteField(w, 5, v.key_value_metadata);
  WriteField(w, 6, v.created_by);
  WriteField(w, 7, v.column_orders);
  if (v.encryption_algorithm) WriteRawStructField(w, 8, *v.encryption_algorithm);
  WriteField(w, 9, v.footer_signing_key_metadata);
  w.EndStruct();
}

void WriteValue(Writer& w, const DataPageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.definition_level_encoding);
  WriteField(w, 4, v.repetition_level_encoding);
  WriteField(w, 5, v.statistics);
  w.EndStruct();
}

void WriteValue(Writer& w, const DictionaryPageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.is_sorted);
  w.EndStruct();
}

void WriteValue(Writer& w, const DataPageHeaderV2& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.num_nulls);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.encoding);
  WriteField(w, 5, v.definition_levels_byte_length);
  WriteField(w, 6, v.repetition_levels_byte_length);
  WriteField(w, 7, v.is_compressed);
  WriteField(w, 8, v.statistics);
  w.EndStruct();
}

void WriteValue(Writer& w, const PageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.uncompressed_page_size);
  WriteField(w, 3, v.compressed_page_size);
  WriteField(w, 4, v.crc);
  WriteField(w, 5, v.data_page_header);
  if (v.has_index_page_header) WriteEmptyStructField(w, 6);
  WriteField(w, 7, v.dictionary_page_header);
  WriteField(w, 8, v.data_page_header_v2);
  w.EndStruct();
}

void WriteValue(Writer& w, const ColumnIndex& v) {
  w.BeginStruct();
  WriteField(w, 1, v.null_pages);
  WriteField(w, 2, v.min_values);
  WriteField(w, 3, v.max_values);
  WriteField(w, 4, v.boundary_order);
  WriteField(w, 5, v.null_counts);
  w.EndStruct();
}

void WriteValue(Writer& w, const PageLocation& v) {
  w.BeginStruct();
  WriteField(w, 1, v.offset);
  WriteField(w, 2, v.compressed_page_size);
  WriteField(w, 3, v.first_row_index);
  w.EndStruct();
}

void WriteValue(Writer& w, const OffsetIndex& v) {
  w.BeginStruct();
  WriteField(w, 1, v.page_locations);
  WriteField(w, 2, v.unencoded_byte_array_data_bytes);
  w.EndStruct();
}

template <typename T>
Result<size_t> DecodeStruct(std::span<const uint8_t> data, T* out, uint64_t base_offset,
                            const char* type_name) {
  Reader r(data, base_offset);
  *out = T{};
  r.PushField(type_name);
  FLOE_RETURN_NOT_OK(ReadValue(r, out));
  return r.position();
}

uint32_t LoadLittleEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

#define FLOE_DEFINE_THRIFT(T)                                                                \
  Result<size_t> DecodeThrift(std::span<const uint8_t> data, T* out, uint64_t base_offset) { \
    return DecodeStruct(data, out, base_offset, #T);                                         \
  }                                                                                          \
  Status EncodeThrift(const T& value, ThriftCompactWriter* out) {                            \
    WriteValue(*out, value);                                                                 \
    return out->status();                                                                    \
  }
FLOE_PARQUET_THRIFT_STRUCTS(FLOE_DEFINE_THRIFT)
#undef FLOE_DEFINE_THRIFT

Result<const ColumnMetaData*> ColumnChunk::GetMetaData() const {
  if (crypto_metadata || encrypted_column_metadata) {
    return Status::NotSupported("Parquet column encryption is not supported (column chunk{}{})",
                                file_path ? " in " : "", file_path.value_or(""));
  }
  if (!meta_data) return Status::Corrupt("Parquet column chunk has no meta_data");
  return &*meta_data;
}

Result<uint32_t> ReadFooterLength(std::span<const uint8_t> tail, uint64_t file_size) {
  constexpr uint64_t kMinFileSize = kParquetMagic.size() + kFooterTrailerSize;
  if (file_size < kMinFileSize) {
    return Status::Corrupt("a Parquet file has at least {} bytes; this one has {}", kMinFileSize,
                           file_size);
  }
  if (tail.size() < kFooterTrailerSize || tail.size() > file_size) {
    return Status::Invalid("the tail of a Parquet file must hold 8 to {} bytes, got {}", file_size,
                           tail.size());
  }
  const uint8_t* trailer = tail.data() + tail.size() - kFooterTrailerSize;
  const std::string_view magic(reinterpret_cast<const char*>(trailer + 4), 4);
  if (magic == kParquetEncryptedMagic) {
    return Status::NotSupported("Parquet files with an encrypted footer are not supported");
  }
  if (magic != kParquetMagic) {
    return Status::Corrupt(
        "not a Parquet file: the last 4 bytes are {:02x} {:02x} {:02x} {:02x}, expected 'PAR1'",
        trailer[4], trailer[5], trailer[6], trailer[7]);
  }
  const uint32_t length = LoadLittleEndian32(trailer);
  if (static_cast<uint64_t>(length) + kMinFileSize > file_size) {
    return Status::Corrupt(
        "Parquet footer length {} does not fit in a file of {} bytes (at most {} bytes)", length,
        file_size, file_size - kMinFileSize);
  }
  return length;
}

Result<FileMetaData> DecodeFooter(std::span<const uint8_t> tail, uint64_t file_size) {
  FLOE_ASSIGN_OR_RAISE(uint32_t length, ReadFooterLength(tail, file_size));
  const uint64_t needed = static_cast<uint64_t>(length) + kFooterTrailerSize;
  if (tail.size() < needed) {
    return Status::Invalid(
        "the Parquet footer of {} bytes is not within the {} bytes read: read the last {} bytes",
        length, tail.size(), needed);
  }
  const uint64_t footer_offset = file_size - needed;
  FileMetaData metadata;
  FLOE_RETURN_NOT_OK(
      DecodeThrift(tail.subspan(tail.size() - needed, length), &metadata, footer_offset));
  return metadata;
}

Status EncodeFooter(const FileMetaData& metadata, std::string* out) {
  const size_t start = out->size();
  ThriftCompactWriter writer(out);
  FLOE_RETURN_NOT_OK(EncodeThrift(metadata, &writer));
  const size_t length = out->size() - start;
  if (length > std::numeric_limits<uint32_t>::max()) {
    return Status::Invalid("Parquet footer of {} bytes exceeds 4 GiB", length);
  }
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out->append(kParquetMagic);
  return Status::OK();
}

}  // namespace floe::parquet
