#pragma once

// Registering an existing Parquet file in a table without rewriting it (`floe iceberg
// add-files`, and the add_files procedure of other engines): the file's schema is checked
// against the table's, its metrics come from the footer and its partition tuple from the
// footer's bounds.

#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"

namespace floe::iceberg {

/// The DataFile of the Parquet file `file` (at `path`) for a table with metadata `md`, in the
/// table's current schema and default spec.
/// - Columns match the table's by field id, or by name when the file has no field ids (then
///   `*needs_name_mapping` is set: the table needs a name mapping to read it). Every file
///   column must match a table column of the same type or one it promotes to; a required
///   table column stored as optional must hold no NULLs.
/// - Metrics come from the footer under the table's metrics config (the same modes and bound
///   truncation as files floe writes); bounds that the footer does not state exactly, that a
///   column order other than the type's makes unusable, or that need a rounding unit change
///   are left out.
/// - Each partition value is the transform of the source column's bounds, which must map to
///   one value (a file lies in one partition); a column of NULLs gives NULL.
/// Errors: kInvalidArgument naming the file and the column for each of the above.
Result<DataFile> DataFileFromParquet(const std::string& path,
                                     const std::shared_ptr<io::RandomAccessFile>& file,
                                     const TableMetadata& md, bool* needs_name_mapping);

}  // namespace floe::iceberg
