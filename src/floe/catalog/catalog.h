#pragma once

// The catalog interface, modelled on the Iceberg REST catalog spec: namespaces, tables and
// atomic table commits. Backends (the SQL catalog on SQLite and PostgreSQL, the Hadoop
// catalog, the REST catalog client) implement it; callers see only this interface.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/table_update.h"

namespace floe::io {
class FileIO;
}  // namespace floe::io

namespace floe::catalog {

/// A namespace: one or more levels ("db", or "a.b").
using Namespace = std::vector<std::string>;

/// "a.b" for {"a", "b"}.
std::string NamespaceToString(const Namespace& ns);
/// Splits at '.'; an empty string or an empty level is kInvalidArgument.
Result<Namespace> ParseNamespace(std::string_view text);

/// Checks that `name` can be one segment of a file path, as a namespace level or a table
/// name must be wherever a catalog derives a location from it: not empty, not "." or "..",
/// no '/', no NUL or other control character, at most 255 bytes. kInvalidArgument naming
/// `what` ("table name", "namespace level") and the name otherwise.
Status ValidatePathSegment(std::string_view what, std::string_view name);

/// A table's name inside a catalog.
struct TableIdentifier {
  Namespace ns;
  std::string name;

  /// "db.events".
  std::string ToString() const;
  /// "db.events" → {{"db"}, "events"}; the last dot separates the name. A name without a
  /// namespace, or with an empty part, is kInvalidArgument.
  static Result<TableIdentifier> Parse(std::string_view text);
  bool operator==(const TableIdentifier& other) const = default;
  bool operator<(const TableIdentifier& other) const {
    return ns != other.ns ? ns < other.ns : name < other.name;
  }
};

/// A namespace a lookup accepts: at least one level, none empty, none holding a '.'
/// (namespaces are stored and sent as their dotted string). kInvalidArgument naming it.
Status ValidateNamespace(const Namespace& ns);
/// ValidateNamespace of its namespace, and a name that is not empty.
Status ValidateIdentifier(const TableIdentifier& id);
/// What a new namespace or table must be beyond what a lookup accepts: every level and the
/// name one path segment (ValidatePathSegment), as they become directories of the default
/// location. Names that other writers stored are still found by lookups.
Status ValidateNewNamespace(const Namespace& ns);
Status ValidateNewIdentifier(const TableIdentifier& id);

/// What CreateTable is given (REST spec, `CreateTableRequest`).
struct CreateTableRequest {
  iceberg::SchemaPtr schema;
  /// nullptr: unpartitioned. Sources refer to `schema`'s field ids.
  iceberg::PartitionSpecPtr spec;
  /// nullptr: unsorted.
  iceberg::SortOrderPtr sort_order;
  /// Empty: `<warehouse>/<ns levels joined by '/'>/<name>` (namespaces may override with a
  /// `location` property).
  std::string location;
  std::map<std::string, std::string> properties;
  int format_version = 2;
};

/// One table's changes in a multi-table commit.
struct TableCommit {
  TableIdentifier id;
  std::vector<iceberg::TableRequirement> requirements;
  std::vector<iceberg::TableUpdate> updates;
};

/// A catalog. Implementations are thread-safe and hold no table state between calls:
/// every LoadTable reads the current metadata pointer from the backing store.
class Catalog {
 public:
  virtual ~Catalog() = default;

  /// The catalog's configured name ("default" for the embedded one).
  virtual const std::string& name() const = 0;
  /// The FileIO for metadata and data files of this catalog's tables.
  virtual std::shared_ptr<const io::FileIO> io() const = 0;
  /// The configuration, secrets redacted.
  virtual std::string ToString() const = 0;

  // Namespaces. Errors: kNotFound (missing namespace), kConstraint (already exists, or
  // dropping a namespace that still holds tables or child namespaces).
  virtual Status CreateNamespace(const Namespace& ns,
                                 const std::map<std::string, std::string>& properties = {}) = 0;
  /// The namespaces directly under `parent` (top-level ones for an empty parent), sorted.
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) const = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) const = 0;
  virtual Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) const = 0;
  /// Removes `removals` and sets `updates`; a key in both is kInvalidArgument.
  virtual Status UpdateNamespaceProperties(const Namespace& ns,
                                           const std::set<std::string>& removals,
                                           const std::map<std::string, std::string>& updates) = 0;
  virtual Status DropNamespace(const Namespace& ns) = 0;

  // Tables. Errors: kNotFound (missing table or namespace), kConstraint (already exists).
  /// The tables of a namespace, sorted by name.
  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) const = 0;
  virtual Result<bool> TableExists(const TableIdentifier& id) const = 0;
  /// Writes the first metadata file (`<location>/metadata/00000-<uuid>.metadata.json`) and
  /// registers it atomically; a concurrent create of the same name makes exactly one win.
  virtual Result<iceberg::Table> CreateTable(const TableIdentifier& id,
                                             const CreateTableRequest& request) = 0;
  /// The current metadata, read fresh from the backing store.
  virtual Result<iceberg::Table> LoadTable(const TableIdentifier& id) const = 0;
  /// Registers an existing metadata file under a new name (no files are written).
  virtual Result<iceberg::Table> RegisterTable(const TableIdentifier& id,
                                               const std::string& metadata_location) = 0;
  /// Renames within the catalog (the target namespace must exist). Files do not move.
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
  /// Removes the table from the catalog; with `purge`, also deletes every file reachable
  /// from its metadata (data, delete, manifest, manifest-list, metadata and statistics files).
  virtual Status DropTable(const TableIdentifier& id, bool purge = false) = 0;

  /// The commit protocol (REST spec, `CommitTableRequest`): checks `requirements` against
  /// the current metadata, applies `updates`, writes `<location>/metadata/NNNNN-<uuid>
  /// .metadata.json` and swaps the pointer with a compare-and-set. With an assert-create
  /// requirement the table must not exist and the updates build it from nothing. A failed
  /// requirement or a lost swap is kCommitConflict and the written file is deleted; a
  /// missing table is kNotFound. When the outcome of the swap cannot be learned (the
  /// database connection was lost and no new one could tell) it is kCommitStateUnknown and
  /// the written file is kept: it may be current. Applies
  /// `write.metadata.delete-after-commit.enabled` / `write.metadata.previous-versions-max` after a
  /// successful swap.
  virtual Result<iceberg::Table> CommitTable(
      const TableIdentifier& id, const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates) = 0;

  /// Commits changes to several tables atomically: every table's requirements are checked
  /// and its metadata swapped in one transaction of the backing store, so either all
  /// commits land or none does. Errors as CommitTable's; kNotSupported where the store
  /// cannot (SupportsTransactions()).
  virtual Status CommitTransaction(const std::vector<TableCommit>& commits);
  virtual bool SupportsTransactions() const { return false; }

  /// Where CreateTable puts table `id` when no location is given (a staged create reports
  /// it before anything is written). kNotSupported where the catalog decides it remotely.
  virtual Result<std::string> DefaultTableLocation(const TableIdentifier& id) const;

  /// TableOperations for one table of this catalog (what transactions commit through).
  /// The catalog must outlive it.
  iceberg::TableOperationsPtr TableOps(const TableIdentifier& id);
};

using CatalogPtr = std::shared_ptr<Catalog>;

/// Whether `uri` names a REST catalog: http://..., https://..., or the same after "rest:".
bool IsRestCatalogUri(std::string_view uri);

/// Opens a catalog from a URI: `sqlite:///abs/path/catalog.db` or `sqlite:relative.db` (the
/// SQL catalog; `warehouse` is where new tables go, empty meaning the catalog file's
/// directory), a PostgreSQL URI (`postgresql://user:password@host:port/db`,
/// `postgresql+psycopg2://...` or `jdbc:postgresql://host:port/db?user=..&password=..`; see
/// ParsePostgresUri: the SQL catalog in that database, which must exist; `warehouse` is
/// required), an Iceberg REST catalog (`http(s)://host[:port][/path]`, also written
/// `rest:http(s)://...`; `warehouse` is sent to its config endpoint and `properties` hold
/// token, credential, scope, header.* ...; see rest/rest_catalog.h), or `hadoop:<directory>` (the
/// Hadoop catalog of that warehouse directory; `warehouse`, when given, must be the same
/// directory). Other schemes are kNotSupported naming the scheme. With `create`, a missing database
/// file (in a directory that exists) or warehouse directory is created; without, it is kNotFound
/// naming it, so that a mistyped path is never taken for a new, empty catalog. The catalog tables
/// are created in a database (SQLite or PostgreSQL) that lacks them. No error shows a password.
///
/// A SQL catalog's files are local or on S3 (io/resolving_file_io.h): `properties` (the
/// catalog's settings in Iceberg's names, `s3.endpoint`, `s3.access-key-id`, ...) say how
/// to reach S3, then the AWS environment and shared files do.
Result<CatalogPtr> OpenCatalog(const std::string& uri, const std::string& warehouse = "",
                               const std::string& name = "default", bool create = true,
                               const std::map<std::string, std::string>& properties = {});

/// The embedded default: `./warehouse`, with `catalog.db` inside it (both created when
/// missing).
Result<CatalogPtr> OpenDefaultCatalog();

}  // namespace floe::catalog
