#pragma once

// The SQL catalog: namespaces and table pointers kept in two tables with exactly the layout
// of Iceberg's JDBC catalog (schema version V1, with `iceberg_type`) and pyiceberg's
// SqlCatalog, so that those tools open a warehouse floe writes and floe opens theirs:
//
//   iceberg_tables(catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL,
//                  table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000),
//                  previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),
//                  PRIMARY KEY (catalog_name, table_namespace, table_name))
//   iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,
//                  namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL,
//                  property_value VARCHAR(1000),
//                  PRIMARY KEY (catalog_name, namespace, property_key))
//
// Namespaces are stored as their dotted string. A namespace exists when it, or a namespace
// below it, has a property row or a table; CreateNamespace writes the reserved property
// `exists`=`true` (as the JDBC catalog does), which LoadNamespaceProperties does not return.
// Rows whose iceberg_type is NULL (written before the column existed) are tables; rows of
// type VIEW are not (but still occupy their name). Tables made by a JDBC catalog with its
// default schema version (V0) have no iceberg_type column: every row is a table then, and
// floe writes rows without the column and leaves the schema as it is.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/sql_backend.h"

namespace floe::catalog {

/// What a SqlCatalog is built from.
struct SqlCatalogOptions {
  /// The catalog's name (the `catalog_name` column): several catalogs can share a database.
  std::string name = "default";
  /// The connection URI, kept for ToString() (printed with secrets redacted).
  std::string uri;
  /// Where new tables go unless their namespace has a `location` property: a local path or
  /// a URI the FileIO resolves. A trailing '/' is dropped.
  std::string warehouse;
};

/// A Catalog over a SqlBackend. Thread-safe; holds no table state between calls.
class SqlCatalog final : public Catalog {
 public:
  /// Creates the two catalog tables when missing (V1: with `iceberg_type`), and works with
  /// an `iceberg_tables` made without that column (V0) as it is. kInvalidArgument for an
  /// empty name or warehouse.
  static Result<std::shared_ptr<SqlCatalog>> Make(SqlBackendPtr backend,
                                                  std::shared_ptr<const io::FileIO> io,
                                                  SqlCatalogOptions options);

  const std::string& name() const override { return options_.name; }
  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  std::string ToString() const override;
  const std::string& warehouse() const { return options_.warehouse; }

  Status CreateNamespace(const Namespace& ns,
                         const std::map<std::string, std::string>& properties = {}) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) const override;
  Result<bool> NamespaceExists(const Namespace& ns) const override;
  Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) const override;
  Status UpdateNamespaceProperties(const Namespace& ns, const std::set<std::string>& removals,
                                   const std::map<std::string, std::string>& updates) override;
  Status DropNamespace(const Namespace& ns) override;

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) const override;
  Result<bool> TableExists(const TableIdentifier& id) const override;
  Result<iceberg::Table> CreateTable(const TableIdentifier& id,
                                     const CreateTableRequest& request) override;
  Result<iceberg::Table> LoadTable(const TableIdentifier& id) const override;
  Result<iceberg::Table> RegisterTable(const TableIdentifier& id,
                                       const std::string& metadata_location) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Status DropTable(const TableIdentifier& id, bool purge = false) override;
  Result<iceberg::Table> CommitTable(const TableIdentifier& id,
                                     const std::vector<iceberg::TableRequirement>& requirements,
                                     const std::vector<iceberg::TableUpdate>& updates) override;

  /// The location a new table gets when its request names none: the namespace's `location`
  /// property joined with the table name, else `<warehouse>/<ns levels joined by '/'>/<name>`.
  Result<std::string> DefaultTableLocation(const TableIdentifier& id) const override;

  /// One transaction of the database checks every table's requirements and swaps every
  /// pointer (the metadata files are written before it).
  Status CommitTransaction(const std::vector<TableCommit>& commits) override;
  bool SupportsTransactions() const override { return true; }

 private:
  SqlCatalog(SqlBackendPtr backend, std::shared_ptr<const io::FileIO> io, SqlCatalogOptions options)
      : backend_(std::move(backend)), io_(std::move(io)), options_(std::move(options)) {}

  Status InitializeSchema();

  // A commit up to its compare-and-set: the base read, the requirements checked and the new
  // metadata file written. `next` is nullptr when there is nothing to write (no updates).
  struct PreparedCommit {
    TableIdentifier id;
    std::optional<std::string> base_location;  // nullopt: a create
    iceberg::TableMetadataPtr base;
    iceberg::TableMetadataPtr next;
    std::string next_location;
  };
  Result<PreparedCommit> PrepareCommit(const TableIdentifier& id,
                                       const std::vector<iceberg::TableRequirement>& requirements,
                                       const std::vector<iceberg::TableUpdate>& updates) const;
  // A table with its FileIO (io::TableFileIO: the table's S3 settings over the catalog's).
  Result<iceberg::Table> TableWithIo(std::string metadata_location,
                                     iceberg::TableMetadataPtr metadata) const;

  SqlBackendPtr backend_;
  std::shared_ptr<const io::FileIO> io_;
  SqlCatalogOptions options_;
  bool typed_ = true;  // iceberg_tables has the iceberg_type column (V1)
};

}  // namespace floe::catalog
