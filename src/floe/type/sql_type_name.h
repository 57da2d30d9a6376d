#pragma once

#include <string>

#include "floe/type/type.h"

namespace floe {

/// PostgreSQL's name of a type, as its error messages print it: "integer", "bigint",
/// "double precision", "numeric", "text", "bytea", "timestamp with time zone", ...
/// (int8, which PostgreSQL lacks, is "tinyint"; nested types print as ToString()).
std::string SqlTypeName(const DataType& type);

}  // namespace floe
