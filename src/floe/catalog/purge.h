#pragma once

// Purging a dropped table's files, one routine for every catalog.

#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::catalog {

/// Every file a table's metadata reaches: for each snapshot its manifest list, manifests
/// and their data and delete files (deleted entries included), the statistics and partition
/// statistics files, the metadata-log files and `metadata_location` itself. A manifest list or
/// manifest that is already gone is listed but not read (what it named cannot be found any
/// more). Sorted, without duplicates, paths as the metadata writes them; errors name the file
/// that could not be read. Lists and manifests are read in parallel on the default pool.
Result<std::vector<std::string>> ReachableFiles(const io::FileIO& io,
                                                const iceberg::TableMetadata& metadata,
                                                const std::string& metadata_location);

/// Deletes the files of table `id`, already dropped from its catalog, that `files` lists
/// (ReachableFiles of `metadata`, read from `metadata_location`, or those of them the catalog
/// does not remove otherwise): data and delete files, manifests and lists first, then the
/// metadata files, each round in parallel on the default pool, so an interrupted purge can be
/// resumed by hand from the metadata files that remain. When `files` is an error (a manifest
/// does not read), nothing is deleted, so the metadata still leads to every file. Errors:
/// the first failure, prefixed "table <id> was dropped, but purging its files failed" and,
/// when more than one file could not be deleted, their number.
Status DeleteDroppedTableFiles(const io::FileIO& io, const TableIdentifier& id,
                               const Result<std::vector<std::string>>& files,
                               const iceberg::TableMetadata& metadata,
                               const std::string& metadata_location);

}  // namespace floe::catalog
