#pragma once

// --catalog and --warehouse, as every command that opens a catalog takes them.

#include <string>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace floe::cli {

/// The help text of every --catalog option.
inline constexpr const char* kCatalogOptionHelp =
    "Catalog: a NAME configured in ~/.floe.yaml (or the file $FLOE_CONFIG names), or a URI when "
    "the value holds ':' or '/' (sqlite:///abs/catalog.db, sqlite:rel.db, "
    "postgresql://user@host:port/db with --warehouse, hadoop:/warehouse/dir). "
    "Default: the configuration's default catalog (default-catalog, or one named 'default'), "
    "else the embedded SQLite catalog in ./warehouse";

/// --catalog NAME|URI and --warehouse DIR.
struct CatalogOptions {
  /// A configured catalog name, or a URI (catalog::IsCatalogUri: sqlite:..., hadoop:...);
  /// empty selects the configuration's default catalog, else the embedded default
  /// (./warehouse/catalog.db, or <warehouse>/catalog.db when a warehouse is given).
  std::string catalog;
  /// Where new tables go; empty: the catalog's default. Not with a configured name.
  std::string warehouse;
};

/// Opens the catalog the options name (catalog::ResolveCatalog, then the embedded default).
/// Errors as catalog::ResolveCatalog and catalog::OpenCatalog.
Result<catalog::CatalogPtr> OpenCatalogFromOptions(const CatalogOptions& options);

/// Adds --catalog and --warehouse to `cmd`, filling `o`.
void AddCatalogOptions(CLI::App* cmd, CatalogOptions* o);

}  // namespace floe::cli
