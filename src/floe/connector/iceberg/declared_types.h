#pragma once

// SQL column types an Iceberg table cannot hold, kept in a table property.
//
// Iceberg has no 8- or 16-bit integers, no json type and no string lengths: a smallint
// column is stored as an int, a json or jsonb column as a string (as Spark stores its
// ShortType and JSON text), and varchar(n) and char(n) as strings. So that such a column
// reads back as the type it was created with (PostgreSQL's smallint arithmetic overflows at
// 32767; a jsonb column takes the jsonb operators) and is written as PostgreSQL assigns to
// it (a value too long for varchar(4) is an error), the table property `floe.sql-types`
// maps the top-level columns' field ids to the SQL type they were declared with:
// {"1": "smallint", "4": "jsonb", "5": "character varying(4)"}. Other engines ignore the
// property and see the stored type.
//
// Intervals, which Iceberg has no type for either, are stored as their 16 bytes (fixed[16]:
// months, days and microseconds, little-endian) and declared "interval".
//
// A declaration applies only while it fits the stored type (smallint and tinyint over int,
// json, jsonb, varchar(n), char(n) and bpchar over string, interval over fixed[16]): after
// another engine changes a column's type, or when the property is not valid JSON, the
// stored type is used. Reading gives stored values the declared type (a value another
// engine wrote out of smallint's range fails the scan, naming the column); writing checks
// values against it (INSERT of 100000 into a smallint column is PostgreSQL's "out of range"
// error, 'abcde' into varchar(4) its "value too long") and pads char(n) values to n
// characters, as PostgreSQL stores them. varchar(n) reads as text.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/schema.h"
#include "floe/type/type.h"

namespace floe::connector {

/// The table property holding the declared types.
inline constexpr std::string_view kDeclaredTypesProperty = "floe.sql-types";

/// What a column's declaration says.
struct DeclaredColumn {
  /// The type the column reads as.
  TypePtr type;
  /// The declared type as PostgreSQL names it ("smallint", "character varying(4)").
  std::string sql_name;
  /// varchar(n) and char(n): the most characters a value may have; -1 for other types.
  int32_t max_length = -1;
  /// char(n) (its over-long values are PostgreSQL's "character(n)" error).
  bool blank_padded = false;
};

/// The type Iceberg stores for a column declared `type` (smallint and tinyint widen to
/// integer, json, jsonb and bpchar are strings, an interval fixed[16], nested types element
/// by element); `type` itself when Iceberg holds it.
TypePtr StoredColumnType(const TypePtr& type);

/// The declaration a column of SQL type `type` needs, written as the SQL type name
/// `type_name` and its modifiers (for varchar(n) and char(n), which bind as text); nullopt
/// when Iceberg stores the type as it is.
std::optional<std::string> DeclarationOf(const TypePtr& type, std::string_view type_name,
                                         const std::vector<int64_t>& modifiers);

/// The property value recording `declarations` (one per top-level field of `schema`, in
/// order; nullopt for a column stored as declared); nullopt when there is none.
std::optional<std::string> DeclaredTypesValue(
    const std::vector<std::optional<std::string>>& declarations, const iceberg::Schema& schema);

/// `properties` with the declaration of column `field_id` set to `declaration` (removed
/// when nullopt). The property is removed when it becomes empty.
std::map<std::string, std::string> WithDeclaration(std::map<std::string, std::string> properties,
                                                   int32_t field_id,
                                                   const std::optional<std::string>& declaration);

/// Per top-level field of `columns` (fields with ids, as Iceberg stores them), its
/// declaration in `properties` when there is one that fits the stored type.
std::vector<std::optional<DeclaredColumn>> DeclaredColumns(
    const Schema& columns, const std::map<std::string, std::string>& properties);

/// `columns` with the types their declarations give them (DeclaredColumns).
SchemaPtr ApplyDeclaredTypes(const SchemaPtr& columns,
                             const std::map<std::string, std::string>& properties);

}  // namespace floe::connector
