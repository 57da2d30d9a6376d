#include "floe/cli/catalog_options.h"

#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <CLI/CLI.hpp>

#include "floe/catalog/catalog_config.h"

namespace floe::cli {

using catalog::CatalogPtr;

Result<CatalogPtr> OpenCatalogFromOptions(const CatalogOptions& options) {
  FLOE_ASSIGN_OR_RAISE(std::optional<CatalogPtr> resolved,
                       catalog::ResolveCatalog(options.catalog, options.warehouse));
  if (resolved.has_value()) return std::move(*resolved);
  if (options.warehouse.empty()) return catalog::OpenDefaultCatalog();
  std::error_code ec;
  std::filesystem::create_directories(options.warehouse, ec);
  if (ec) {
    return Status::IOError("cannot create the warehouse {}: {}", options.warehouse, ec.message());
  }
  return catalog::OpenCatalog(
      "sqlite:" + (std::filesystem::path(options.warehouse) / "catalog.db").string(),
      options.warehouse);
}

void AddCatalogOptions(CLI::App* cmd, CatalogOptions* o) {
  cmd->add_option("--catalog", o->catalog, kCatalogOptionHelp);
  cmd->add_option("--warehouse", o->warehouse,
                  "Directory new tables are created in (with a catalog URI, or for the embedded "
                  "catalog)");
}

}  // namespace floe::cli
