#pragma once

#include <memory>
#include <string>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_scan.h"
#include "floe/iceberg/task_reader.h"

namespace floe::io {
class FileIO;
}  // namespace floe::io

namespace floe::iceberg {

/// A table opened from one metadata file: what a query pins for its whole run.
struct Table {
  /// The metadata file read (as given or as found in the table directory).
  std::string metadata_location;
  TableMetadataPtr metadata;
  /// Resolves the paths the metadata names (manifest lists, manifests, data files).
  std::shared_ptr<const io::FileIO> io;
};

/// Opens a table the filesystem way: `path` is a table directory (its current metadata file
/// is found through metadata/version-hint.text or the highest version) or a metadata file,
/// on the local file system or, for a URI such as s3://bucket/table, through `io`. Errors
/// name the directory or file.
Result<Table> OpenTable(const std::string& path, std::shared_ptr<const io::FileIO> io);

/// A reader for a planned scan's tasks: the scan's projection, the table's name mapping
/// (`schema.name-mapping.default`) for files without field ids, and one delete-file cache
/// shared by every task of the scan.
Result<std::unique_ptr<TaskReader>> MakeTaskReader(const Table& table, const TableScan& scan,
                                                   TaskReaderOptions options = {});

}  // namespace floe::iceberg
