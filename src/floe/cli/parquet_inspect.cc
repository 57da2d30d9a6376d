#include "floe/cli/parquet_inspect.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "floe/batch/value_format.h"
#include "floe/common/ascii.h"

namespace floe::cli {

namespace {

using Json = nlohmann::ordered_json;
using parquet::ConvertedType;
using parquet::FieldRepetitionType;
using parquet::LogicalType;
using parquet::SchemaElement;
using parquet::TimeUnit;

std::string Unknown(int32_t v) { return fmt::format("UNKNOWN({})", v); }

std::string TypeName(parquet::Type t) {
  switch (t) {
    case parquet::Type::kBoolean:
      return "BOOLEAN";
    case parquet::Type::kInt32:
      return "INT32";
    case parquet::Type::kInt64:
      return "INT64";
    case parquet::Type::kInt96:
      return "INT96";
    case parquet::Type::kFloat:
      return "FLOAT";
    case parquet::Type::kDouble:
      return "DOUBLE";
    case parquet::Type::kByteArray:
      return "BYTE_ARRAY";
    case parquet::Type::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return Unknown(static_cast<int32_t>(t));
}

std::string EncodingName(parquet::Encoding e) {
  switch (e) {
    case parquet::Encoding::kPlain:
      return "PLAIN";
    case parquet::Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case parquet::Encoding::kRle:
      return "RLE";
    case parquet::Encoding::kBitPacked:
      return "BIT_PACKED";
    case parquet::Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case parquet::Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case parquet::Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case parquet::Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case parquet::Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return Unknown(static_cast<int32_t>(e));
}

std::string CodecName(parquet::CompressionCodec c) {
  switch (c) {
    case parquet::CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case parquet::CompressionCodec::kSnappy:
      return "SNAPPY";
    case parquet::CompressionCodec::kGzip:
      return "GZIP";
    case parquet::CompressionCodec::kLzo:
      return "LZO";
    case parquet::CompressionCodec::kBrotli:
      return "BROTLI";
    case parquet::CompressionCodec::kLz4:
      return "LZ4";
    case parquet::CompressionCodec::kZstd:
      return "ZSTD";
    case parquet::CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
  }
  return Unknown(static_cast<int32_t>(c));
}

std::string PageTypeName(parquet::PageType t) {
  switch (t) {
    case parquet::PageType::kDataPage:
      return "DATA_PAGE";
    case parquet::PageType::kIndexPage:
      return "INDEX_PAGE";
    case parquet::PageType::kDictionaryPage:
      return "DICTIONARY_PAGE";
    case parquet::PageType::kDataPageV2:
      return "DATA_PAGE_V2";
  }
  return Unknown(static_cast<int32_t>(t));
}

std::string RepetitionName(FieldRepetitionType r) {
  switch (r) {
    case FieldRepetitionType::kRequired:
      return "required";
    case FieldRepetitionType::kOptional:
      return "optional";
    case FieldRepetitionType::kRepeated:
      return "repeated";
  }
  return Unknown(static_cast<int32_t>(r));
}

std::string ConvertedTypeName(ConvertedType c) {
  static constexpr std::string_view kNames[] = {"UTF8",
                                                "MAP",
                                                "MAP_KEY_VALUE",
                                                "LIST",
                                                "ENUM",
                                                "DECIMAL",
                                                "DATE",
                                                "TIME_MILLIS",
                                                "TIME_MICROS",
                                                "TIMESTAMP_MILLIS",
                                                "TIMESTAMP_MICROS",
                                                "UINT_8",
                                                "UINT_16",
                                                "UINT_32",
                                                "UINT_64",
                                                "INT_8",
                                                "INT_16",
                                                "INT_32",
                                                "INT_64",
                                                "JSON",
                                                "BSON",
                                                "INTERVAL"};
  auto i = static_cast<int32_t>(c);
  if (i >= 0 && i < static_cast<int32_t>(std::size(kNames))) return std::string(kNames[i]);
  return Unknown(i);
}

std::string_view UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMillis:
      return "MILLIS";
    case TimeUnit::kMicros:
      return "MICROS";
    case TimeUnit::kNanos:
      return "NANOS";
  }
  return "UNKNOWN";
}

std::string LogicalTypeName(const LogicalType& t) {
  switch (t.kind) {
    case LogicalType::Kind::kString:
      return "STRING";
    case LogicalType::Kind::kMap:
      return "MAP";
    case LogicalType::Kind::kList:
      return "LIST";
    case LogicalType::Kind::kEnum:
      return "ENUM";
    case LogicalType::Kind::kDecimal:
      return fmt::format("DECIMAL({},{})", t.precision, t.scale);
    case LogicalType::Kind::kDate:
      return "DATE";
    case LogicalType::Kind::kTime:
      return fmt::format("TIME({},{})", UnitName(t.unit), t.is_adjusted_to_utc);
    case LogicalType::Kind::kTimestamp:
      return fmt::format("TIMESTAMP({},{})", UnitName(t.unit), t.is_adjusted_to_utc);
    case LogicalType::Kind::kInteger:
      return fmt::format("INTEGER({},{})", static_cast<int>(t.bit_width), t.is_signed);
    case LogicalType::Kind::kNull:
      return "UNKNOWN";
    case LogicalType::Kind::kJson:
      return "JSON";
    case LogicalType::Kind::kBson:
      return "BSON";
    case LogicalType::Kind::kUuid:
      return "UUID";
    case LogicalType::Kind::kFloat16:
      return "FLOAT16";
    case LogicalType::Kind::kUnrecognized:
      return fmt::format("UNRECOGNIZED(field {})", t.raw_field_id);
  }
  return "UNRECOGNIZED";
}

/// A schema node annotation: the logical type, else the converted type, else "".
std::string Annotation(const SchemaElement& e) {
  if (e.logical_type) return LogicalTypeName(*e.logical_type);
  if (e.converted_type) {
    if (*e.converted_type == ConvertedType::kDecimal) {
      return fmt::format("DECIMAL({},{})", e.precision.value_or(0), e.scale.value_or(0));
    }
    return ConvertedTypeName(*e.converted_type);
  }
  return "";
}

/// One leaf of the schema tree with its path and element.
struct Leaf {
  std::vector<std::string> path;
  const SchemaElement* element;
};

/// Walks the depth-first schema list; calls `visit(element, depth, path)` for every
/// node below the root and collects the leaves.
template <typename Visit>
Status WalkSchema(const parquet::FileMetaData& md, Visit&& visit, std::vector<Leaf>* leaves) {
  if (md.schema.empty()) return Status::Corrupt("the footer has an empty schema");
  size_t next = 1;
  std::vector<std::string> path;
  // Recursion depth is bounded by the number of elements, which the footer bounds.
  std::function<Status(int32_t, int)> children = [&](int32_t count, int depth) -> Status {
    if (count < 0) return Status::Corrupt("schema element has {} children", count);
    if (depth > 1000) return Status::Corrupt("schema nesting deeper than 1000 levels");
    for (int32_t c = 0; c < count; ++c) {
      if (next >= md.schema.size()) {
        return Status::Corrupt("schema tree needs more than the {} elements the footer has",
                               md.schema.size());
      }
      const SchemaElement& e = md.schema[next++];
      path.push_back(e.name);
      visit(e, depth, path);
      if (e.num_children.has_value() && !e.type.has_value()) {
        FLOE_RETURN_NOT_OK(children(*e.num_children, depth + 1));
        visit(e, -depth - 1, path);  // closes a group
      } else {
        leaves->push_back(Leaf{path, &e});
      }
      path.pop_back();
    }
    return Status::OK();
  };
  FLOE_RETURN_NOT_OK(children(md.schema[0].num_children.value_or(0), 0));
  if (next != md.schema.size()) {
    return Status::Corrupt("schema tree uses {} of the footer's {} elements", next,
                           md.schema.size());
  }
  return Status::OK();
}

std::string Hex(std::string_view bytes) {
  std::string out;
  AppendByteaText(bytes, &out);
  return out;
}

template <typename T>
T LoadLE(std::string_view b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

Int128 BigEndianToInt128(std::string_view b) {
  Int128 v = (!b.empty() && (static_cast<uint8_t>(b[0]) & 0x80)) ? -1 : 0;
  for (char c : b)
    v = static_cast<Int128>(static_cast<unsigned __int128>(v) << 8) | static_cast<uint8_t>(c);
  return v;
}

/// The text form of a PLAIN-encoded statistics value of leaf `e`; hex when the bytes
/// do not fit the type.
Json StatValue(const SchemaElement& e, std::string_view b) {
  const std::optional<LogicalType>& lt = e.logical_type;
  auto kind = [&](LogicalType::Kind k) { return lt && lt->kind == k; };
  auto converted = [&](ConvertedType c) { return e.converted_type && *e.converted_type == c; };
  const int scale = lt && lt->kind == LogicalType::Kind::kDecimal ? lt->scale : e.scale.value_or(0);
  const bool is_decimal = kind(LogicalType::Kind::kDecimal) || converted(ConvertedType::kDecimal);
  std::string out;
  switch (e.type.value_or(parquet::Type::kByteArray)) {
    case parquet::Type::kBoolean:
      if (b.size() != 1) break;
      return Json(b[0] != 0);
    case parquet::Type::kInt32: {
      if (b.size() != 4) break;
      auto v = LoadLE<int32_t>(b);
      if (is_decimal) {
        AppendDecimalText(v, scale, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kDate) || converted(ConvertedType::kDate)) {
        AppendDateText(v, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kTime) || converted(ConvertedType::kTimeMillis)) {
        AppendTimeText(int64_t{v} * 1000, &out);
        return Json(out);
      }
      if ((kind(LogicalType::Kind::kInteger) && !lt->is_signed) ||
          converted(ConvertedType::kUint8) || converted(ConvertedType::kUint16) ||
          converted(ConvertedType::kUint32)) {
        return Json(static_cast<uint32_t>(v));
      }
      return Json(v);
    }
    case parquet::Type::kInt64: {
      if (b.size() != 8) break;
      auto v = LoadLE<int64_t>(b);
      if (is_decimal) {
        AppendDecimalText(v, scale, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kTimestamp) || converted(ConvertedType::kTimestampMillis) ||
          converted(ConvertedType::kTimestampMicros)) {
        TimeUnit unit = lt ? lt->unit
                           : (converted(ConvertedType::kTimestampMillis) ? TimeUnit::kMillis
                                                                         : TimeUnit::kMicros);
        bool utc = lt ? lt->is_adjusted_to_utc : true;
        if (unit == TimeUnit::kMillis) {
          if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000) break;
          v *= 1000;
        }
        AppendTimestampText(v, unit == TimeUnit::kNanos, utc, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kTime) || converted(ConvertedType::kTimeMicros)) {
        AppendTimeText(lt && lt->unit == TimeUnit::kNanos ? v / 1000 : v, &out);
        return Json(out);
      }
      if ((kind(LogicalType::Kind::kInteger) && !lt->is_signed) ||
          converted(ConvertedType::kUint64)) {
        return Json(static_cast<uint64_t>(v));
      }
      return Json(v);
    }
    case parquet::Type::kInt96: {
      if (b.size() != 12) break;
      // Nanoseconds of the day, then the Julian day number (2440588 is 1970-01-01).
      auto nanos = LoadLE<int64_t>(b);
      auto julian = LoadLE<int32_t>(b.substr(8));
      __int128 total = (static_cast<__int128>(julian) - 2440588) * 86400000000000LL + nanos;
      if (total > INT64_MAX || total < INT64_MIN) break;
      AppendTimestampText(static_cast<int64_t>(total), true, false, &out);
      return Json(out);
    }
    case parquet::Type::kFloat:
      if (b.size() != 4) break;
      AppendFloat32Text(LoadLE<float>(b), &out);
      return Json(out);
    case parquet::Type::kDouble:
      if (b.size() != 8) break;
      AppendFloat64Text(LoadLE<double>(b), &out);
      return Json(out);
    case parquet::Type::kByteArray:
    case parquet::Type::kFixedLenByteArray:
      if (is_decimal && !b.empty() && b.size() <= 16) {
        AppendDecimalText(BigEndianToInt128(b), scale, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kUuid) && b.size() == 16) {
        AppendUuidText(b, &out);
        return Json(out);
      }
      if (kind(LogicalType::Kind::kString) || kind(LogicalType::Kind::kEnum) ||
          kind(LogicalType::Kind::kJson) || converted(ConvertedType::kUtf8) ||
          converted(ConvertedType::kEnum) || converted(ConvertedType::kJson)) {
        return Json(std::string(b));
      }
      break;
  }
  return Json(Hex(b));
}

Json StatisticsJson(const SchemaElement& e, const parquet::Statistics& s) {
  Json j = Json::object();
  if (s.null_count) j["null_count"] = *s.null_count;
  if (s.distinct_count) j["distinct_count"] = *s.distinct_count;
  if (s.nan_count) j["nan_count"] = *s.nan_count;
  if (s.min_value || s.max_value) {
    if (s.min_value) j["min"] = StatValue(e, *s.min_value);
    if (s.max_value) j["max"] = StatValue(e, *s.max_value);
  } else if (s.min || s.max) {
    // The deprecated fields use signed byte order for strings; say so.
    j["deprecated_min_max"] = true;
    if (s.min) j["min"] = StatValue(e, *s.min);
    if (s.max) j["max"] = StatValue(e, *s.max);
  }
  if (s.is_min_value_exact) j["is_min_value_exact"] = *s.is_min_value_exact;
  if (s.is_max_value_exact) j["is_max_value_exact"] = *s.is_max_value_exact;
  return j;
}

Json KeyValuesJson(const std::vector<parquet::KeyValue>& kvs) {
  Json j = Json::array();
  for (const auto& kv : kvs) {
    Json e = Json::object();
    e["key"] = kv.key;
    e["value"] = kv.value ? Json(*kv.value) : Json(nullptr);
    j.push_back(std::move(e));
  }
  return j;
}

template <typename T>
void SetIf(Json* j, const char* key, const std::optional<T>& v) {
  if (v) (*j)[key] = *v;
}

}  // namespace

Result<std::string> FooterToJson(const std::string& path, const parquet::FileMetaData& md) {
  Json schema = Json::array();
  std::vector<Leaf> leaves;
  auto visit = [&](const SchemaElement& e, int depth, const std::vector<std::string>& p) {
    if (depth < 0) return;
    Json n = Json::object();
    n["name"] = e.name;
    n["path"] = fmt::format("{}", fmt::join(p, "."));
    n["depth"] = depth;
    if (e.repetition_type) n["repetition"] = RepetitionName(*e.repetition_type);
    if (e.type) n["type"] = TypeName(*e.type);
    SetIf(&n, "type_length", e.type_length);
    if (e.num_children && !e.type) n["num_children"] = *e.num_children;
    if (e.logical_type) n["logical_type"] = LogicalTypeName(*e.logical_type);
    if (e.converted_type) n["converted_type"] = ConvertedTypeName(*e.converted_type);
    SetIf(&n, "precision", e.precision);
    SetIf(&n, "scale", e.scale);
    SetIf(&n, "field_id", e.field_id);
    schema.push_back(std::move(n));
  };
  FLOE_RETURN_NOT_OK(WalkSchema(md, visit, &leaves));

  Json root = Json::object();
  root["file"] = path;
  root["version"] = md.version;
  root["num_rows"] = md.num_rows;
  root["num_row_groups"] = md.row_groups.size();
  root["num_columns"] = leaves.size();
  SetIf(&root, "created_by", md.created_by);
  root["key_value_metadata"] =
      md.key_value_metadata ? KeyValuesJson(*md.key_value_metadata) : Json::array();
  root["schema_root"] = md.schema[0].name;
  root["schema"] = std::move(schema);

  Json groups = Json::array();
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = md.row_groups[g];
    Json jg = Json::object();
    jg["index"] = g;
    jg["num_rows"] = rg.num_rows;
    jg["total_byte_size"] = rg.total_byte_size;
    SetIf(&jg, "total_compressed_size", rg.total_compressed_size);
    SetIf(&jg, "file_offset", rg.file_offset);
    SetIf(&jg, "ordinal", rg.ordinal);
    if (rg.sorting_columns) {
      Json sc = Json::array();
      for (const auto& s : *rg.sorting_columns) {
        sc.push_back(Json{{"column_idx", s.column_idx},
                          {"descending", s.descending},
                          {"nulls_first", s.nulls_first}});
      }
      jg["sorting_columns"] = std::move(sc);
    }
    if (rg.columns.size() != leaves.size()) {
      return Status::Corrupt("'{}': row group {} has {} column chunks, the schema {} leaves", path,
                             g, rg.columns.size(), leaves.size());
    }
    Json cols = Json::array();
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const parquet::ColumnChunk& cc = rg.columns[c];
      const SchemaElement& e = *leaves[c].element;
      Json jc = Json::object();
      jc["path"] = fmt::format("{}", fmt::join(leaves[c].path, "."));
      jc["field_id"] = e.field_id ? Json(*e.field_id) : Json(nullptr);
      if (e.type) jc["physical_type"] = TypeName(*e.type);
      std::string annotation = Annotation(e);
      if (!annotation.empty()) jc["logical_type"] = annotation;
      SetIf(&jc, "file_path", cc.file_path);
      jc["file_offset"] = cc.file_offset;
      Result<const parquet::ColumnMetaData*> meta = cc.GetMetaData();
      if (!meta.ok()) {
        jc["error"] = meta.status().ToString();
      } else {
        const parquet::ColumnMetaData& m = **meta;
        jc["codec"] = CodecName(m.codec);
        Json encodings = Json::array();
        for (parquet::Encoding enc : m.encodings) encodings.push_back(EncodingName(enc));
        jc["encodings"] = std::move(encodings);
        jc["num_values"] = m.num_values;
        jc["total_compressed_size"] = m.total_compressed_size;
        jc["total_uncompressed_size"] = m.total_uncompressed_size;
        jc["data_page_offset"] = m.data_page_offset;
        SetIf(&jc, "dictionary_page_offset", m.dictionary_page_offset);
        SetIf(&jc, "index_page_offset", m.index_page_offset);
        SetIf(&jc, "bloom_filter_offset", m.bloom_filter_offset);
        SetIf(&jc, "bloom_filter_length", m.bloom_filter_length);
        if (m.encoding_stats) {
          Json es = Json::array();
          for (const auto& s : *m.encoding_stats) {
            es.push_back(Json{{"page_type", PageTypeName(s.page_type)},
                              {"encoding", EncodingName(s.encoding)},
                              {"count", s.count}});
          }
          jc["encoding_stats"] = std::move(es);
        }
        if (m.statistics) jc["statistics"] = StatisticsJson(e, *m.statistics);
        if (m.key_value_metadata) jc["key_value_metadata"] = KeyValuesJson(*m.key_value_metadata);
      }
      SetIf(&jc, "column_index_offset", cc.column_index_offset);
      SetIf(&jc, "column_index_length", cc.column_index_length);
      SetIf(&jc, "offset_index_offset", cc.offset_index_offset);
      SetIf(&jc, "offset_index_length", cc.offset_index_length);
      if (cc.crypto_metadata) jc["encrypted"] = true;
      cols.push_back(std::move(jc));
    }
    jg["columns"] = std::move(cols);
    groups.push_back(std::move(jg));
  }
  root["row_groups"] = std::move(groups);
  // Strings from the file need not be UTF-8; `replace` keeps dump() from throwing.
  return root.dump(2, ' ', false, Json::error_handler_t::replace);
}

Result<std::string> ParquetSchemaToText(const parquet::FileMetaData& md) {
  std::string out;
  std::vector<Leaf> leaves;
  auto indent = [&](int depth) { out.append(static_cast<size_t>(2 * (depth + 1)), ' '); };
  auto visit = [&](const SchemaElement& e, int depth, const std::vector<std::string>&) {
    if (depth < 0) {
      indent(-depth - 1);
      out += "}\n";
      return;
    }
    indent(depth);
    out += e.repetition_type ? RepetitionName(*e.repetition_type) : "required";
    out += ' ';
    const bool group = e.num_children.has_value() && !e.type.has_value();
    if (group) {
      out += "group";
    } else {
      std::string t = AsciiLower(TypeName(e.type.value_or(parquet::Type::kByteArray)));
      if (t == "byte_array") t = "binary";
      if (t == "fixed_len_byte_array")
        t = fmt::format("fixed_len_byte_array({})", e.type_length.value_or(0));
      out += t;
    }
    out += ' ';
    out += e.name;
    std::string annotation = Annotation(e);
    if (!annotation.empty()) out += fmt::format(" ({})", annotation);
    if (e.field_id) out += fmt::format(" = {}", *e.field_id);
    out += group ? " {\n" : ";\n";
  };
  if (md.schema.empty()) return Status::Corrupt("the footer has an empty schema");
  out += fmt::format("message {} {{\n", md.schema[0].name);
  FLOE_RETURN_NOT_OK(WalkSchema(md, visit, &leaves));
  out += "}\n";
  return out;
}

}  // namespace floe::cli
