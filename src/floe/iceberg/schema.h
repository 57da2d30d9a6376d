#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// A field's default values (Iceberg spec, "Default values"): `initial_default` is what
/// rows written before the field existed read as; `write_default` is what writers use when
/// a value is not supplied. Only primitive defaults are held as scalars; a struct default
/// is expressed through the defaults of its fields.
struct FieldDefaults {
  std::optional<Scalar> initial_default;
  std::optional<Scalar> write_default;
};

/// An Iceberg schema. Columns are floe fields whose field ids are Iceberg field ids;
/// nested ids sit on struct fields, list elements and map keys/values. Field
/// nullability is the inverse of Iceberg's `required`.
class Schema {
 public:
  /// Validates that every field (at every depth) has a positive, unique id, that
  /// identifier fields name required primitive fields reachable through structs only,
  /// and that defaults name existing primitive fields with matching scalar types.
  static Result<std::shared_ptr<const Schema>> Make(int32_t schema_id, std::vector<Field> fields,
                                                    std::vector<int32_t> identifier_field_ids = {},
                                                    std::map<int32_t, FieldDefaults> defaults = {});

  int32_t schema_id() const { return schema_id_; }
  const std::vector<Field>& fields() const { return columns_->fields(); }
  int num_fields() const { return columns_->num_fields(); }
  /// The same columns as an engine schema (what a scan of this schema produces).
  const floe::SchemaPtr& columns() const { return columns_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }
  /// Defaults by field id; a field without an entry has neither default.
  const std::map<int32_t, FieldDefaults>& defaults() const { return defaults_; }
  const FieldDefaults* FindDefaults(int32_t field_id) const;

  /// The field with this id at any depth, or nullptr.
  const Field* FindFieldById(int32_t field_id) const;
  /// The full dotted name of a field id ("location.lat", "tags.element"), or nullopt.
  std::optional<std::string> FindColumnName(int32_t field_id) const;
  /// The field a dotted name refers to (struct fields; list "element"; map "key"/"value"),
  /// matched exactly or, when !case_sensitive, ignoring ASCII case. A name that matches
  /// nothing returns nullptr; one that matches two fields case-insensitively is a kBind
  /// error naming both.
  Result<const Field*> FindFieldByName(std::string_view dotted_name, bool case_sensitive) const;
  /// The id of the parent struct/list/map of a field, or nullopt for a top-level field.
  std::optional<int32_t> FindParentId(int32_t field_id) const;

  /// The largest field id at any depth (0 for an empty schema).
  int32_t highest_field_id() const { return highest_field_id_; }

  /// The schema restricted to the given field ids, in this schema's order. Selecting a
  /// nested field keeps its ancestors (with only the selected children); selecting a
  /// struct, list or map keeps it whole. Unknown ids are a kInvalidArgument error.
  Result<std::shared_ptr<const Schema>> Select(const std::vector<int32_t>& field_ids) const;

  /// Same ids, names, types, nullability, identifier fields and defaults (the schema id is
  /// compared too).
  bool Equals(const Schema& other) const;
  /// "table {\n  1: id: required long\n  ...}" with Iceberg type names.
  std::string ToString() const;

 private:
  Schema() = default;

  int32_t schema_id_ = 0;
  floe::SchemaPtr columns_;
  std::vector<int32_t> identifier_field_ids_;
  std::map<int32_t, FieldDefaults> defaults_;
  int32_t highest_field_id_ = 0;
  // Every field by id, with its parent's id (0 for top level) and full dotted name.
  struct Entry {
    const Field* field;
    int32_t parent_id;
    std::string full_name;
  };
  std::map<int32_t, Entry> by_id_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

/// Gives fields fresh ids the way the reference implementation numbers them: a struct's
/// fields get consecutive ids first, then each field's nested type in order; a list's
/// element and a map's key and value get theirs before their own nested types. Ids continue
/// after `last_id`; the old id of each field that had one maps to its new id.
class FreshFieldIds {
 public:
  explicit FreshFieldIds(int32_t last_id = 0) : next_(last_id + 1) {}

  /// The fields (and everything nested in them) with fresh ids.
  std::vector<Field> Fields(const std::vector<Field>& fields);
  /// The nested fields of `type` with fresh ids (a primitive type as it is).
  TypePtr Type(const TypePtr& type);

  /// Old id -> new id (for identifier fields, defaults and partition / sort sources).
  const std::map<int32_t, int32_t>& mapping() const { return mapping_; }
  /// The highest id given so far.
  int32_t last_id() const { return next_ - 1; }

 private:
  int32_t Assign(int32_t old_id);

  int32_t next_;
  std::map<int32_t, int32_t> mapping_;
};

/// The Iceberg name of a floe type ("long", "decimal(9,2)", "fixed[16]", "timestamptz",
/// "timestamp_ns", "struct<...>", ...), or kNotSupported for types Iceberg lacks (int8, int16).
Result<std::string> IcebergTypeName(const DataType& type);

/// Whether a value of type `from` may be read as `to` under Iceberg's promotion rules:
/// int -> long, float -> double, decimal(P,S) -> decimal(P',S) with P' >= P, date ->
/// timestamp (v3 only; pass allow_v3), and identical types.
bool IsPromotionAllowed(const DataType& from, const DataType& to, bool allow_v3 = false);

}  // namespace floe::iceberg
