#pragma once

#include <string>
#include <string_view>

#include "floe/type/type.h"

namespace floe {

// PostgreSQL's names of the types, in one table (sql_type_name.cc): the name its error
// messages print and every name SQL text may use for each type.

/// PostgreSQL's name of a type, as its error messages print it: "integer", "bigint",
/// "double precision", "numeric", "text", "bytea", "timestamp with time zone", ...
/// (int8, which PostgreSQL lacks, is "tinyint"; lists print as their innermost element's name
/// and "[]", as PostgreSQL's arrays of any dimensions do; structs and maps as ToString()).
std::string SqlTypeName(const DataType& type);
/// The same by type id, for the types that have one ("" for nested types).
std::string_view SqlTypeName(TypeId id);

/// The type a PostgreSQL type name stands for, as libpg_query reports it (int4, float8,
/// bpchar, timestamptz, ...) or as SQL spells it (integer, double precision, ...), for the
/// types without modifiers; nullptr for numeric/decimal (which take precision and scale)
/// and for names that are not types.
TypePtr TypeFromSqlName(std::string_view name);

}  // namespace floe
