#pragma once

#include <string>

#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"

namespace floe::cli {

/// The footer of a Parquet file as pretty-printed JSON (`floe parquet meta`): file
/// properties, the schema elements with their field ids, and every row group with its
/// column chunks (path, field id, physical and logical type, codec, encodings, sizes,
/// offsets, page encoding stats and statistics; min/max rendered by the column's
/// logical type, raw bytes as hex when they have no text form). Strings that are not
/// valid UTF-8 are printed with replacement characters. Corrupt when the schema tree
/// is malformed.
Result<std::string> FooterToJson(const std::string& path, const parquet::FileMetaData& metadata);

/// The schema of a Parquet file in the Parquet "message" notation, one node per line,
/// with repetition, physical type, logical or converted type and field id:
///
///     message duckdb_schema {
///       optional int32 id (INTEGER(32,true)) = 1;
///       optional group tags (LIST) {
///         repeated group list {
///           optional binary element (STRING);
///         }
///       }
///     }
///
/// Corrupt when the schema tree is malformed.
Result<std::string> ParquetSchemaToText(const parquet::FileMetaData& metadata);

}  // namespace floe::cli
