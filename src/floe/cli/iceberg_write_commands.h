#pragma once

// `floe iceberg` commands that go through a catalog and change tables: create-namespace,
// list, create, add-files, append and expire-snapshots.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/cli/catalog_options.h"
#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace floe::cli {

/// Options of `floe iceberg create-namespace`.
struct CreateNamespaceOptions {
  CatalogOptions catalog;
  std::string ns;
  /// key=value items.
  std::vector<std::string> properties;
};

/// Options of `floe iceberg list`.
struct ListOptions {
  CatalogOptions catalog;
  /// Empty: the top-level namespaces.
  std::string ns;
};

/// Options of `floe iceberg create`.
struct CreateTableOptions {
  CatalogOptions catalog;
  std::string table;
  /// The column list (spec_text.h, ParseSchemaText).
  std::string schema;
  std::string partition;
  std::string sort;
  std::vector<std::string> properties;
  std::string location;
  int format_version = 2;
};

/// Options of `floe iceberg add-files`.
struct AddFilesOptions {
  CatalogOptions catalog;
  std::string table;
  std::vector<std::string> files;
};

/// Options of `floe iceberg append`.
struct AppendOptions {
  CatalogOptions catalog;
  std::string table;
  std::vector<std::string> files;
  /// Fanout writer (input in any order) or clustered writer (input grouped by partition).
  bool fanout = true;
};

/// Options of `floe iceberg drop`.
struct DropTableOptions {
  CatalogOptions catalog;
  std::string table;
  /// Also delete every file the table's metadata reaches.
  bool purge = false;
};

/// Options of `floe iceberg expire-snapshots`.
struct ExpireSnapshotsOptions {
  CatalogOptions catalog;
  std::string table;
  /// As --as-of (ParseAsOf).
  std::string older_than;
  std::optional<int> retain_last;
};

/// Splits "key=value" items into a map; an item without '=' or with an empty key is
/// kInvalidArgument naming `option` and the item.
Result<std::map<std::string, std::string>> ParseProperties(const std::vector<std::string>& items,
                                                           std::string_view option);

/// Creates a namespace with properties.
Status RunCreateNamespace(const CreateNamespaceOptions& options);
/// Prints the namespaces under NAMESPACE (top-level ones without it), then its tables, one
/// per line, each as its full dotted name.
Status RunList(const ListOptions& options);
/// Creates a table from the schema, partition and sort text forms and prints its location.
Status RunCreateTable(const CreateTableOptions& options);
/// Removes a table from the catalog (with `purge`, also its files).
Status RunDropTable(const DropTableOptions& options);
/// Registers existing Parquet files as data files of a table in one append commit, after
/// checking their schemas against the table's (by field id when the files carry ids, else
/// by name, then the table gets a name mapping when it has none). Metrics come from the
/// footers under the table's metrics config; partition values come from the footer bounds
/// of each partition source column, which must map to one partition value per file.
/// kInvalidArgument naming the file and the column (or partition field) for any mismatch;
/// nothing is committed then.
Status RunAddFiles(const AddFilesOptions& options);
/// Reads the rows of Parquet files (columns matched to the table's by name, ignoring case;
/// missing optional columns read as NULL), writes them through the table's partitioned
/// writer and commits them in one append. On any error the written data files are deleted
/// and nothing is committed. Prints "appended N rows in F files (snapshot S)".
Status RunAppend(const AppendOptions& options);
/// Expires snapshots older than a time, keeping the newest --retain-last ones, and deletes
/// the files only they reached. Prints what was expired and deleted.
Status RunExpireSnapshots(const ExpireSnapshotsOptions& options);

/// Adds the catalog commands to the `floe iceberg` subcommand.
void AddIcebergWriteCommands(CLI::App* iceberg, CommandAction* action);

}  // namespace floe::cli
