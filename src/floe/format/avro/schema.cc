#include "floe/format/avro/schema.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace floe::avro {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull: return "null";
    case AvroType::kBoolean: return "boolean";
    case AvroType::kInt: return "int";
    case AvroType::kLong: return "long";
    case AvroType::kFloat: return "float";
    case AvroType::kDouble: return "double";
    case AvroType::kBytes: return "bytes";
    case AvroType::kString: return "string";
    case AvroType::kRecord: return "record";
    case AvroType::kEnum: return "enum";
    case AvroType::kArray: return "array";
    case AvroType::kMap: return "map";
    case AvroType::kUnion: return "union";
    case AvroType::kFixed: return "fixed";
  }
  return "?";
}

int AvroNode::NullBranch() const {
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i]->type == AvroType::kNull) return static_cast<int>(i);
  }
  return -1;
}

const AvroNode* AvroNode::NonNullBranch() const {
  if (type != AvroType::kUnion || branches.size() != 2) return nullptr;
  int n = NullBranch();
  if (n < 0) return nullptr;
  return branches[static_cast<size_t>(1 - n)].get();
}

int DecimalRequiredBytes(int precision) {
  // The smallest n with 2^(8n - 1) > 10^precision - 1.
  for (int n = 1; n <= 16; ++n) {
    long double max = 1;
    for (int i = 0; i < 8 * n - 1; ++i) max *= 2;
    long double need = 1;
    for (int i = 0; i < precision; ++i) need *= 10;
    if (max >= need) return n;
  }
  return 16;
}

namespace {

struct Parser {
  std::map<std::string, AvroNodePtr> named;
  std::set<std::string> in_progress;

  static bool IsPrimitive(std::string_view s, AvroType* out) {
    static const std::pair<std::string_view, AvroType> kPrims[] = {
        {"null", AvroType::kNull},     {"boolean", AvroType::kBoolean},
        {"int", AvroType::kInt},       {"long", AvroType::kLong},
        {"float", AvroType::kFloat},   {"double", AvroType::kDouble},
        {"bytes", AvroType::kBytes},   {"string", AvroType::kString}};
    for (const auto& [n, t] : kPrims) {
      if (s == n) {
        *out = t;
        return true;
      }
    }
    return false;
  }

  static std::string FullName(const std::string& name, const std::string& ns) {
    if (name.find('.') != std::string::npos || ns.empty()) return name;
    return ns + "." + name;
  }

  Result<AvroNodePtr> Lookup(const std::string& name, const std::string& ns) {
    for (const std::string& candidate : {FullName(name, ns), name}) {
      if (in_progress.count(candidate)) {
        return Status::NotSupported("Avro schema: recursive type '{}' is not supported", candidate);
      }
      auto it = named.find(candidate);
      if (it != named.end()) return it->second;
    }
    return Status::Invalid("Avro schema: unknown type '{}'", name);
  }

  static Result<int32_t> IdAttr(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end()) return kNoFieldId;
    if (it->is_number_integer()) {
      int64_t v = it->get<int64_t>();
      if (v < 0 || v > INT32_MAX) return Status::Invalid("Avro schema: {} {} out of range", key, v);
      return static_cast<int32_t>(v);
    }
    if (it->is_string()) {
      // Some writers store ids as strings.
      try {
        size_t pos = 0;
        long long v = std::stoll(it->get<std::string>(), &pos);
        if (pos == it->get<std::string>().size() && v >= 0 && v <= INT32_MAX) {
          return static_cast<int32_t>(v);
        }
      } catch (...) {
      }
    }
    return Status::Invalid("Avro schema: {} must be a non-negative integer, got {}", key, it->dump());
  }

  Status ApplyLogical(const json& j, AvroNode* node) {
    auto lt = j.find("logicalType");
    if (lt == j.end() || !lt->is_string()) return Status::OK();
    node->logical_type = lt->get<std::string>();
    if (auto u = j.find("adjust-to-utc"); u != j.end()) {
      if (u->is_boolean()) node->adjust_to_utc = u->get<bool>();
      else if (u->is_string()) node->adjust_to_utc = u->get<std::string>() == "true";
    }
    if (node->logical_type == "decimal") {
      auto p = j.find("precision");
      auto s = j.find("scale");
      if (p == j.end() || !p->is_number_integer()) {
        return Status::Invalid("Avro schema: decimal without an integer precision");
      }
      int64_t precision = p->get<int64_t>();
      int64_t scale = 0;
      if (s != j.end()) {
        if (!s->is_number_integer()) return Status::Invalid("Avro schema: decimal scale not integer");
        scale = s->get<int64_t>();
      }
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        return Status::Invalid("Avro schema: decimal({}, {}) out of range", precision, scale);
      }
      if (node->type == AvroType::kFixed && DecimalRequiredBytes(static_cast<int>(precision)) >
                                                node->fixed_size &&
          node->fixed_size < 16) {
        return Status::Invalid("Avro schema: decimal({}, {}) does not fit fixed[{}]", precision,
                               scale, node->fixed_size);
      }
      node->precision = static_cast<int>(precision);
      node->scale = static_cast<int>(scale);
    }
    return Status::OK();
  }

  Result<AvroNodePtr> Parse(const json& j, const std::string& ns, int depth) {
    if (depth > 64) return Status::NotSupported("Avro schema: nested more than 64 levels");
    if (j.is_string()) {
      AvroType t;
      std::string s = j.get<std::string>();
      if (IsPrimitive(s, &t)) {
        auto node = std::make_shared<AvroNode>();
        node->type = t;
        return AvroNodePtr(node);
      }
      return Lookup(s, ns);
    }
    if (j.is_array()) {
      auto node = std::make_shared<AvroNode>();
      node->type = AvroType::kUnion;
      if (j.empty()) return Status::Invalid("Avro schema: empty union");
      for (const json& b : j) {
        FLOE_ASSIGN_OR_RAISE(AvroNodePtr branch, Parse(b, ns, depth + 1));
        if (branch->type == AvroType::kUnion) {
          return Status::Invalid("Avro schema: a union may not directly contain a union");
        }
        node->branches.push_back(std::move(branch));
      }
      return AvroNodePtr(node);
    }
    if (!j.is_object()) return Status::Invalid("Avro schema: unexpected JSON {}", j.dump());
    auto t = j.find("type");
    if (t == j.end()) return Status::Invalid("Avro schema: object without \"type\"");
    if (!t->is_string()) {
      // {"type": {...}} or {"type": [...]}: the nested schema.
      return Parse(*t, ns, depth + 1);
    }
    std::string type = t->get<std::string>();
    auto node = std::make_shared<AvroNode>();
    AvroType prim;
    if (IsPrimitive(type, &prim)) {
      node->type = prim;
      FLOE_RETURN_NOT_OK(ApplyLogical(j, node.get()));
      return AvroNodePtr(node);
    }
    if (type == "array") {
      node->type = AvroType::kArray;
      auto items = j.find("items");
      if (items == j.end()) return Status::Invalid("Avro schema: array without \"items\"");
      FLOE_ASSIGN_OR_RAISE(node->items, Parse(*items, ns, depth + 1));
      FLOE_ASSIGN_OR_RAISE(node->element_id, IdAttr(j, "element-id"));
      FLOE_RETURN_NOT_OK(ApplyLogical(j, node.get()));
      return AvroNodePtr(node);
    }
    if (type == "map") {
      node->type = AvroType::kMap;
      auto values = j.find("values");
      if (values == j.end()) return Status::Invalid("Avro schema: map without \"values\"");
      FLOE_ASSIGN_OR_RAISE(node->items, Parse(*values, ns, depth + 1));
      FLOE_ASSIGN_OR_RAISE(node->key_id, IdAttr(j, "key-id"));
      FLOE_ASSIGN_OR_RAISE(node->value_id, IdAttr(j, "value-id"));
      return AvroNodePtr(node);
    }
    if (type == "record" || type == "error" || type == "enum" || type == "fixed") {
      auto name = j.find("name");
      if (name == j.end() || !name->is_string()) {
        return Status::Invalid("Avro schema: {} without a name", type);
      }
      std::string own_ns = ns;
      if (auto n = j.find("namespace"); n != j.end() && n->is_string()) {
        own_ns = n->get<std::string>();
      }
      std::string full = FullName(name->get<std::string>(), own_ns);
      if (auto dot = full.rfind('.'); dot != std::string::npos) own_ns = full.substr(0, dot);
      if (named.count(full) || in_progress.count(full)) {
        return Status::Invalid("Avro schema: type '{}' defined twice", full);
      }
      node->name = full;
      if (type == "fixed") {
        node->type = AvroType::kFixed;
        auto size = j.find("size");
        if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
            size->get<int64_t>() > (1 << 20)) {
          return Status::Invalid("Avro schema: fixed '{}' needs a size in [0, 2^20]", full);
        }
        node->fixed_size = static_cast<int>(size->get<int64_t>());
        FLOE_RETURN_NOT_OK(ApplyLogical(j, node.get()));
      } else if (type == "enum") {
        node->type = AvroType::kEnum;
        auto symbols = j.find("symbols");
        if (symbols == j.end() || !symbols->is_array() || symbols->empty()) {
          return Status::Invalid("Avro schema: enum '{}' needs symbols", full);
        }
        for (const json& s : *symbols) {
          if (!s.is_string()) return Status::Invalid("Avro schema: enum '{}' symbol not a string", full);
          node->symbols.push_back(s.get<std::string>());
        }
      } else {
        node->type = AvroType::kRecord;
        auto fields = j.find("fields");
        if (fields == j.end() || !fields->is_array()) {
          return Status::Invalid("Avro schema: record '{}' without \"fields\"", full);
        }
        in_progress.insert(full);
        std::set<std::string> seen;
        for (const json& f : *fields) {
          if (!f.is_object()) return Status::Invalid("Avro schema: record '{}' field not an object", full);
          AvroField field;
          auto fname = f.find("name");
          auto ftype = f.find("type");
          if (fname == f.end() || !fname->is_string() || ftype == f.end()) {
            return Status::Invalid("Avro schema: record '{}' has a field without name or type", full);
          }
          field.name = fname->get<std::string>();
          if (!seen.insert(field.name).second) {
            return Status::Invalid("Avro schema: record '{}' has two fields named '{}'", full,
                                   field.name);
          }
          FLOE_ASSIGN_OR_RAISE(field.type, Parse(*ftype, own_ns, depth + 1));
          FLOE_ASSIGN_OR_RAISE(field.field_id, IdAttr(f, "field-id"));
          if (auto d = f.find("default"); d != f.end()) {
            field.has_default = true;
            field.default_json = d->dump();
          }
          node->fields.push_back(std::move(field));
        }
        in_progress.erase(full);
        FLOE_RETURN_NOT_OK(ApplyLogical(j, node.get()));
      }
      named[full] = node;
      return AvroNodePtr(node);
    }
    return Lookup(type, ns);
  }
};

}  // namespace

Result<AvroNodePtr> ParseAvroSchema(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    return Status::Invalid("Avro schema: invalid JSON: {}", e.what());
  }
  Parser parser;
  return parser.Parse(j, "", 0);
}

Result<TypePtr> AvroToFloeType(const AvroNode& node, bool* nullable) {
  *nullable = false;
  const std::string& lt = node.logical_type;
  switch (node.type) {
    case AvroType::kNull:
      return Status::NotSupported("Avro type null outside a union has no floe type");
    case AvroType::kBoolean: return Boolean();
    case AvroType::kInt:
      if (lt == "date") return Date();
      return Int32();
    case AvroType::kLong:
      if (lt == "time-micros") return Time();
      if (lt == "timestamp-micros") return node.adjust_to_utc ? TimestampTz() : Timestamp();
      if (lt == "timestamp-nanos") return node.adjust_to_utc ? TimestampTzNs() : TimestampNs();
      if (lt == "local-timestamp-micros") return Timestamp();
      if (lt == "local-timestamp-nanos") return TimestampNs();
      return Int64();
    case AvroType::kFloat: return Float32();
    case AvroType::kDouble: return Float64();
    case AvroType::kBytes:
      if (lt == "decimal") return MakeDecimal(node.precision, node.scale);
      return Binary();
    case AvroType::kString: return String();
    case AvroType::kEnum: return String();
    case AvroType::kFixed:
      if (lt == "decimal" && node.fixed_size <= 16) return MakeDecimal(node.precision, node.scale);
      if (lt == "uuid" && node.fixed_size == 16) return Uuid();
      return MakeFixed(node.fixed_size);
    case AvroType::kUnion: {
      const AvroNode* inner = node.NonNullBranch();
      if (inner == nullptr) {
        return Status::NotSupported("Avro union of {} branches has no floe type",
                                    node.branches.size());
      }
      bool unused;
      FLOE_ASSIGN_OR_RAISE(TypePtr t, AvroToFloeType(*inner, &unused));
      *nullable = true;
      return t;
    }
    case AvroType::kRecord: {
      std::vector<Field> fields;
      for (const AvroField& f : node.fields) {
        bool n;
        FLOE_ASSIGN_OR_RAISE(TypePtr t, AvroToFloeType(*f.type, &n));
        fields.emplace_back(f.name, std::move(t), n, f.field_id);
      }
      return Struct(std::move(fields));
    }
    case AvroType::kArray: {
      const AvroNode& items = *node.items;
      if (lt == "map" && items.type == AvroType::kRecord && items.fields.size() == 2) {
        bool kn, vn;
        FLOE_ASSIGN_OR_RAISE(TypePtr kt, AvroToFloeType(*items.fields[0].type, &kn));
        FLOE_ASSIGN_OR_RAISE(TypePtr vt, AvroToFloeType(*items.fields[1].type, &vn));
        return Map(Field("key", std::move(kt), false, items.fields[0].field_id),
                   Field("value", std::move(vt), vn, items.fields[1].field_id));
      }
      bool en;
      FLOE_ASSIGN_OR_RAISE(TypePtr et, AvroToFloeType(items, &en));
      return List(Field("element", std::move(et), en, node.element_id));
    }
    case AvroType::kMap: {
      bool vn;
      FLOE_ASSIGN_OR_RAISE(TypePtr vt, AvroToFloeType(*node.items, &vn));
      return Map(Field("key", String(), false, node.key_id),
                 Field("value", std::move(vt), vn, node.value_id));
    }
  }
  return Status::Internal("unreachable Avro type");
}

Result<Schema> AvroToFloeSchema(const AvroNode& record) {
  if (record.type != AvroType::kRecord) {
    return Status::NotSupported("Avro file schema is a {}, not a record",
                                AvroTypeName(record.type));
  }
  bool unused;
  FLOE_ASSIGN_OR_RAISE(TypePtr t, AvroToFloeType(record, &unused));
  return Schema(t->fields());
}

namespace {

std::string SanitizeName(const std::string& name) {
  auto valid_first = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto valid = [&](char c) { return valid_first(c) || std::isdigit(static_cast<unsigned char>(c)); };
  bool ok = !name.empty() && valid_first(name[0]);
  for (char c : name) ok = ok && valid(c);
  if (ok) return name;
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (i == 0 && std::isdigit(static_cast<unsigned char>(c))) {
      out += '_';
      out += c;
    } else if (valid(c)) {
      out += c;
    } else {
      out += fmt::format("_x{:X}", static_cast<unsigned char>(c));
    }
  }
  return out.empty() ? "_" : out;
}

struct JsonBuilder {
  std::set<std::string> defined;

  // A named type (fixed) defined once and referenced by name afterwards.
  ordered_json Named(const std::string& name, ordered_json def) {
    if (!defined.insert(name).second) return name;
    return def;
  }

  Result<ordered_json> Type(const DataType& type, int32_t field_id) {
    switch (type.id()) {
      case TypeId::kBoolean: return "boolean";
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32: return "int";
      case TypeId::kInt64: return "long";
      case TypeId::kFloat32: return "float";
      case TypeId::kFloat64: return "double";
      case TypeId::kString: return "string";
      case TypeId::kBinary: return "bytes";
      case TypeId::kDate: return ordered_json{{"type", "int"}, {"logicalType", "date"}};
      case TypeId::kTime: return ordered_json{{"type", "long"}, {"logicalType", "time-micros"}};
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        return ordered_json{{"type", "long"},
                            {"logicalType", "timestamp-micros"},
                            {"adjust-to-utc", type.id() == TypeId::kTimestampTz}};
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        return ordered_json{{"type", "long"},
                            {"logicalType", "timestamp-nanos"},
                            {"adjust-to-utc", type.id() == TypeId::kTimestampTzNs}};
      case TypeId::kDecimal: {
        std::string name = fmt::format("decimal_{}_{}", type.precision(), type.scale());
        return Named(name, ordered_json{{"type", "fixed"},
                                        {"name", name},
                                        {"size", DecimalRequiredBytes(type.precision())},
                                        {"logicalType", "decimal"},
                                        {"precision", type.precision()},
                                        {"scale", type.scale()}});
      }
      case TypeId::kUuid:
        return Named("uuid_fixed", ordered_json{{"type", "fixed"},
                                                {"name", "uuid_fixed"},
                                                {"size", 16},
                                                {"logicalType", "uuid"}});
      case TypeId::kFixed: {
        std::string name = fmt::format("fixed_{}", type.byte_width());
        return Named(name, ordered_json{{"type", "fixed"}, {"name", name}, {"size", type.byte_width()}});
      }
      case TypeId::kStruct: {
        std::string name = fmt::format("r{}", field_id);
        if (field_id == kNoFieldId || defined.count(name)) {
          name = fmt::format("r_{}", defined.size());
        }
        return Record(type.fields(), name);
      }
      case TypeId::kList: {
        const Field& e = type.field(0);
        FLOE_ASSIGN_OR_RAISE(ordered_json items, Optional(e));
        ordered_json out{{"type", "array"}, {"items", std::move(items)}};
        if (e.has_field_id()) out["element-id"] = e.field_id();
        return out;
      }
      case TypeId::kMap: {
        const Field& k = type.field(0);
        const Field& v = type.field(1);
        if (k.type()->id() == TypeId::kString) {
          FLOE_ASSIGN_OR_RAISE(ordered_json values, Optional(v));
          ordered_json out{{"type", "map"}, {"values", std::move(values)}};
          if (k.has_field_id()) out["key-id"] = k.field_id();
          if (v.has_field_id()) out["value-id"] = v.field_id();
          return out;
        }
        std::string name = fmt::format("k{}_v{}", k.field_id(), v.field_id());
        if (defined.count(name)) name = fmt::format("{}_{}", name, defined.size());
        FLOE_ASSIGN_OR_RAISE(
            ordered_json rec,
            Record({Field("key", k.type(), false, k.field_id()),
                    Field("value", v.type(), v.nullable(), v.field_id())},
                   name));
        return ordered_json{{"type", "array"}, {"items", std::move(rec)}, {"logicalType", "map"}};
      }
    }
    return Status::Invalid("type {} has no Avro form", type.ToString());
  }

  Result<ordered_json> Optional(const Field& f) {
    FLOE_ASSIGN_OR_RAISE(ordered_json t, Type(*f.type(), f.field_id()));
    if (!f.nullable()) return t;
    return ordered_json::array({"null", std::move(t)});
  }

  Result<ordered_json> Record(const std::vector<Field>& fields, const std::string& name) {
    defined.insert(name);
    ordered_json out_fields = ordered_json::array();
    for (const Field& f : fields) {
      FLOE_ASSIGN_OR_RAISE(ordered_json t, Optional(f));
      ordered_json jf{{"name", SanitizeName(f.name())}, {"type", std::move(t)}};
      if (f.nullable()) jf["default"] = nullptr;
      if (f.has_field_id()) jf["field-id"] = f.field_id();
      out_fields.push_back(std::move(jf));
    }
    return ordered_json{{"type", "record"}, {"name", name}, {"fields", std::move(out_fields)}};
  }
};

}  // namespace

Result<std::string> ToAvroSchemaJson(const Schema& schema, std::string_view record_name) {
  JsonBuilder b;
  FLOE_ASSIGN_OR_RAISE(ordered_json j, b.Record(schema.fields(), std::string(record_name)));
  return j.dump();
}

}  // namespace floe::avro
