#pragma once

// What the SQL and Hadoop catalogs share about table metadata files and locations.

#include <map>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::catalog::internal {

/// `location` without trailing '/' (a lone "/" stays).
std::string StripTrailingSlashes(std::string location);

/// The table metadata in the file at `path` (plain or gzip JSON).
Result<iceberg::TableMetadataPtr> ReadMetadataFile(const io::FileIO& io, const std::string& path);

/// Whether the table properties ask for gzip metadata files
/// (write.metadata.compression-codec = gzip, any case).
bool WantsGzip(const std::map<std::string, std::string>& properties);

/// The bytes of a new metadata file at `path`: the JSON, checked to read back (so that no
/// file becomes current that no reader, floe included, accepts: the table could not be
/// loaded again, not even to repair it), gzip-compressed when `gzip`. kInvalidArgument when
/// the JSON would not read back.
Result<std::string> MetadataFileBytes(const iceberg::TableMetadata& metadata,
                                      const std::string& path, bool gzip);

/// After a commit, removes the metadata files that fell off the metadata log (table property
/// write.metadata.delete-after-commit.enabled): the base file and its log entries that the
/// next metadata no longer lists. A file that cannot be removed is only garbage (the commit
/// has happened), so errors are ignored.
void DeleteObsoleteMetadata(const io::FileIO& io, const iceberg::TableMetadata& base,
                            const std::string& base_location, const iceberg::TableMetadata& next,
                            const std::string& next_location);

}  // namespace floe::catalog::internal
