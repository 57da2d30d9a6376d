#pragma once

// The Hadoop (file-system) catalog: the warehouse directory is the catalog, laid out as
// Iceberg's HadoopCatalog lays it out, so that Spark, Trino and the Java library open a
// warehouse floe writes and floe opens theirs:
//
//   <warehouse>/<ns level>/.../<ns level>/<table>/metadata/v<N>.metadata.json
//                                                          /version-hint.text   ("N")
//
// A namespace is a directory that is not a table; a table is a directory whose `metadata`
// directory holds a metadata file or a version hint. A commit writes v<N+1>.metadata.json
// exclusively (a temporary file hard-linked to its final name, so a reader never sees a
// partial file and exactly one of two concurrent committers wins; the loser gets
// kCommitConflict) and then rewrites version-hint.text. Readers start at the hint and step
// forward while the next version exists, so a stale hint is harmless.
//
// Differences from the SQL catalog, all as in the reference implementation:
//  - namespaces have no properties (CreateNamespace with properties and
//    UpdateNamespaceProperties with changes are kNotSupported); LoadNamespaceProperties
//    returns {"location": <directory>};
//  - a table lives at its path: CreateTable with another location, or a commit that moves
//    the location, is kInvalidArgument;
//  - RenameTable is kNotSupported;
//  - RegisterTable copies the given metadata file into the table's directory as v1;
//  - DropTable removes the table's directory (its metadata, and the data files inside it)
//    even without purge, since the directory is what makes it a table; with purge, files the
//    metadata reaches outside the directory are deleted too.
// Only local file systems are supported (the warehouse is a path or a file: URI).

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

/// What a HadoopCatalog is built from.
struct HadoopCatalogOptions {
  /// The catalog's name (for messages and ToString; nothing stores it).
  std::string name = "default";
  /// The warehouse directory: a local path (made absolute against the working directory) or
  /// a file: URI. Created when missing, unless `create` is false (then kNotFound).
  std::string warehouse;
  bool create = true;
};

/// A Catalog over a directory tree. Thread-safe and safe across processes; holds no table
/// state between calls.
class HadoopCatalog final : public Catalog {
 public:
  /// kInvalidArgument for an empty name or warehouse, kNotSupported for a warehouse on
  /// another file system (s3://...), kIOError when the directory cannot be created.
  /// `io` reads and deletes table files; nullptr: a LocalFileIO.
  static Result<std::shared_ptr<HadoopCatalog>> Make(
      HadoopCatalogOptions options, std::shared_ptr<const io::FileIO> io = nullptr);

  const std::string& name() const override { return options_.name; }
  std::shared_ptr<const io::FileIO> io() const override { return io_; }
  std::string ToString() const override;
  /// The absolute warehouse directory.
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

  /// `<warehouse>/<ns levels joined by '/'>/<name>`: where a table is (its only location).
  std::string TableLocation(const TableIdentifier& id) const;
  Result<std::string> DefaultTableLocation(const TableIdentifier& id) const override {
    FLOE_RETURN_NOT_OK(ValidateNewIdentifier(id));
    return TableLocation(id);
  }

 private:
  HadoopCatalog(HadoopCatalogOptions options, std::shared_ptr<const io::FileIO> io)
      : options_(std::move(options)), io_(std::move(io)) {}

  std::string NamespaceDir(const Namespace& ns) const;
  Result<bool> IsNamespaceDir(const Namespace& ns) const;
  Status RequireNamespace(const Namespace& ns) const;

  HadoopCatalogOptions options_;
  std::shared_ptr<const io::FileIO> io_;
};

}  // namespace floe::catalog
