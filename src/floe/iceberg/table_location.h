#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"

namespace floe::io {
class FileIO;
}  // namespace floe::io

namespace floe::iceberg {

/// The version number in a metadata file name: N for "vN.metadata.json",
/// "vN.gz.metadata.json" or "vN.metadata.json.gz"; N for "NNNNN-<uuid>.metadata.json"
/// (and its gzip forms); nullopt for any other name.
std::optional<int64_t> MetadataFileVersion(std::string_view file_name);

/// Whether a file name looks like a table metadata file ("*.metadata.json",
/// "*.gz.metadata.json" or "*.metadata.json.gz").
bool IsMetadataFileName(std::string_view file_name);

/// Finds a table's current metadata file on the local filesystem, the way Hadoop tables
/// are laid out:
///   - a path that is itself a file is returned as is;
///   - otherwise `<table_path>/metadata/version-hint.text`, when present, names the version:
///     a number N means "vN.metadata.json" (or "vN.gz.metadata.json", "vN.metadata.json.gz"),
///     anything else is a metadata file name, with or without the ".metadata.json" suffix;
///   - without a usable hint, the metadata file in `<table_path>/metadata/` with the highest
///     version number (MetadataFileVersion) is current.
/// kNotFound naming the directory when there is no metadata file.
Result<std::string> FindCurrentMetadataFile(const std::string& table_path);

/// FindCurrentMetadataFile for a table whose location is not on the local file system
/// (S3): the same rules (a metadata file as it is; else metadata/version-hint.text, else
/// the highest numbered metadata file), through `io`.
Result<std::string> FindCurrentMetadataFile(const io::FileIO& io, const std::string& table_path);

/// Reads and parses a metadata file (gzip-compressed or not; detected by its bytes).
/// Errors name the file.
Result<TableMetadataPtr> ReadTableMetadata(const io::RandomAccessFile& file);
/// Opens `path` (a local file) and reads it as table metadata.
Result<TableMetadataPtr> ReadTableMetadata(const std::string& path);
/// FindCurrentMetadataFile then ReadTableMetadata; `metadata_path`, when non-null, receives
/// the file that was read.
Result<TableMetadataPtr> LoadTableFromDirectory(const std::string& table_path,
                                                std::string* metadata_path = nullptr);

/// Writes metadata JSON to a local file (gzip-compressed when the name ends in
/// ".gz.metadata.json" or ".metadata.json.gz").
Status WriteTableMetadata(const TableMetadata& metadata, const std::string& path);

}  // namespace floe::iceberg
