#include "floe/exec/session_resolver.h"

#include <memory>
#include <string_view>
#include <utility>

#include "floe/exec/catalog_statements.h"
#include "floe/exec/generate_series.h"
#include "floe/exec/iceberg_table.h"
#include "floe/exec/parquet_table.h"
#include "floe/io/file_io.h"

namespace floe::exec {

SessionResolver::SessionResolver(std::function<Result<catalog::Catalog*>()> catalog,
                                 std::string search_path, std::string path_map)
    : catalog_(std::move(catalog)),
      search_path_(std::move(search_path)),
      path_map_(std::move(path_map)) {}

Result<plan::TableSourcePtr> SessionResolver::ResolveTable(const std::vector<std::string>& name) {
  FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, catalog_());
  if (catalog == nullptr) {
    std::string joined;
    for (const std::string& part : name) joined += (joined.empty() ? "" : ".") + part;
    return Status::NotFound("table \"{}\" does not exist", joined);
  }
  CatalogNames names(catalog, search_path_);
  FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(name));
  FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog->LoadTable(id));
  if (!path_map_.empty()) {
    // The metadata's paths are rewritten for this session (tables registered from
    // elsewhere); the metadata file itself was found through the catalog.
    io::LocalFileIOOptions options;
    size_t start = 0;
    while (start <= path_map_.size()) {
      size_t end = path_map_.find(';', start);
      if (end == std::string::npos) end = path_map_.size();
      std::string_view rule = std::string_view(path_map_).substr(start, end - start);
      if (!rule.empty()) {
        FLOE_ASSIGN_OR_RAISE(io::PathMapRule parsed, io::ParsePathMapRule(rule));
        options.path_map.push_back(std::move(parsed));
      }
      start = end + 1;
    }
    table.io = std::make_shared<io::LocalFileIO>(std::move(options));
  }
  FLOE_ASSIGN_OR_RAISE(auto source, IcebergTable::Make(id.ToString(), std::move(table)));
  return plan::TableSourcePtr(std::move(source));
}

Result<plan::TableSourcePtr> SessionResolver::ResolveTableFunction(
    const std::string& name, const std::vector<plan::TableFunctionArg>& args) {
  if (name == "read_parquet") return MakeReadParquet(args);
  if (name == "generate_series") return MakeGenerateSeries(args);
  return Status::NotFound("table function \"{}\" does not exist", name);
}

}  // namespace floe::exec
