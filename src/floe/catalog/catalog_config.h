#pragma once

// Catalog configuration files, shaped like pyiceberg's `.pyiceberg.yaml`:
//
//   catalog:
//     lake:                       # the name --catalog and SQL (lake.db.t) use
//       type: sql                 # sql (the SQL catalog), rest or hadoop (directories)
//       uri: sqlite:////srv/lake/catalog.db
//       warehouse: /srv/lake      # sql: optional on SQLite (default: the file's directory)
//     shared:
//       type: sql                 # the SQL catalog on PostgreSQL (ParsePostgresUri)
//       uri: postgresql://floe@db.example.com:5432/lake?sslmode=verify-full
//       warehouse: /srv/shared    # required: the database holds no files
//     remote:
//       type: rest                # an Iceberg REST catalog (rest/rest_catalog.h)
//       uri: https://catalog.example.com/api
//       credential: id:secret     # or token: ...; scope, oauth2-server-uri, header.<name>
//     files:
//       type: hadoop
//       warehouse: /srv/files     # hadoop: required; the warehouse directory is the catalog
//   default-catalog: lake         # optional: the catalog used without --catalog
//
// The file is `$FLOE_CONFIG` when that variable is set, else `~/.floe.yaml`. Keys other than
// type, uri and warehouse are kept as the catalog's properties. A catalog without `type`
// whose uri is a SQLite or PostgreSQL one is a sql catalog, one whose uri is http(s):// a
// rest catalog (as pyiceberg infers them).
// Relative paths resolve against the working directory. A PostgreSQL password is best kept
// out of the file: without one in the uri, libpq takes PGPASSWORD, then ~/.pgpass.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"

namespace floe::catalog {

/// One configured catalog, as written in the file.
struct CatalogConfig {
  std::string name;
  /// "sql", "rest" or "hadoop" (validated when the catalog is opened).
  std::string type;
  std::string uri;
  std::string warehouse;
  /// Every other key of the catalog's section.
  std::map<std::string, std::string> properties;
};

/// A parsed configuration file.
struct CatalogConfigFile {
  /// The file read; empty when there was none.
  std::string path;
  /// The `default-catalog` key; empty when absent.
  std::string default_catalog;
  /// By name.
  std::map<std::string, CatalogConfig> catalogs;

  /// The configured names, sorted and joined with ", " ("(none)" when there are none).
  std::string Names() const;
  /// The catalog used when none is named: `default-catalog`, else a catalog named
  /// "default"; nullopt when neither is configured. kNotFound when `default-catalog` names
  /// a catalog the file does not configure.
  Result<std::optional<CatalogConfig>> DefaultCatalog() const;
};

/// The configuration file's path: `$FLOE_CONFIG` when set and non-empty, else
/// `$HOME/.floe.yaml` (empty when HOME is unset too).
std::string ConfigFilePath();

/// Parses configuration text; `path` names the file in errors. kInvalidArgument for text
/// that is not YAML (with line and column), or for a shape that is not the one above, naming
/// the key (`catalog.lake.uri`).
Result<CatalogConfigFile> ParseCatalogConfig(std::string_view text, const std::string& path);

/// Reads and parses ConfigFilePath(). A missing `~/.floe.yaml` is an empty configuration;
/// a missing `$FLOE_CONFIG` file is kNotFound naming it and the variable.
Result<CatalogConfigFile> LoadCatalogConfig();

/// Opens a configured catalog: type sql needs `uri` (a sqlite: URI with `warehouse`
/// optional, or a PostgreSQL URI with `warehouse` required), type rest needs `uri` (its
/// other keys are the REST client's properties), type hadoop needs `warehouse`. Errors
/// name the file and the key: kInvalidArgument for a missing key, kNotSupported for another type.
Result<CatalogPtr> OpenConfiguredCatalog(const CatalogConfig& config, const std::string& path);

/// Whether a --catalog value is a URI (it holds ':' or '/') rather than a configured name.
bool IsCatalogUri(std::string_view value);

/// What `--catalog VALUE [--warehouse DIR]` opens:
///  - a URI (IsCatalogUri): OpenCatalog(value, warehouse);
///  - a name: that catalog of the configuration file (kNotFound listing the configured
///    names when it has none of that name, or naming the file that would hold it when there
///    is no file); `warehouse` must then be empty;
///  - empty: nullopt, meaning the embedded default (the caller's `./warehouse`), unless the
///    configuration file has a default catalog (DefaultCatalog) and no warehouse was given.
Result<std::optional<CatalogPtr>> ResolveCatalog(const std::string& value,
                                                 const std::string& warehouse = "");

}  // namespace floe::catalog
