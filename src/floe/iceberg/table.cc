#include "floe/iceberg/table.h"

#include <utility>

#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

Result<Table> OpenTable(const std::string& path, std::shared_ptr<const io::FileIO> io) {
  Table table;
  if (!io::UriScheme(path).empty() && io::UriScheme(path) != "file") {
    // Object storage: found and read through the FileIO.
    FLOE_ASSIGN_OR_RAISE(table.metadata_location, FindCurrentMetadataFile(*io, path));
    FLOE_ASSIGN_OR_RAISE(auto file, io->NewInputFile(table.metadata_location));
    FLOE_ASSIGN_OR_RAISE(table.metadata, ReadTableMetadata(*file));
  } else {
    FLOE_ASSIGN_OR_RAISE(table.metadata, LoadTableFromDirectory(path, &table.metadata_location));
  }
  table.io = std::move(io);
  return table;
}

Result<std::unique_ptr<TaskReader>> MakeTaskReader(const Table& table, const TableScan& scan,
                                                   TaskReaderOptions options) {
  FLOE_ASSIGN_OR_RAISE(
      std::optional<NameMapping> mapping,
      NameMapping::FromTableProperties(table.metadata->properties, table.metadata_location));
  std::shared_ptr<const NameMapping> shared;
  if (mapping.has_value()) shared = std::make_shared<const NameMapping>(std::move(*mapping));
  auto cache = std::make_shared<DeleteFileCache>(table.io, options.pool);
  return TaskReader::Make(table.io, scan.projected_schema(), scan.schema(), std::move(shared),
                          options, std::move(cache));
}

}  // namespace floe::iceberg
