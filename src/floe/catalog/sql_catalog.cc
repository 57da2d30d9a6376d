#include "floe/catalog/sql_catalog.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "floe/catalog/metadata_files_internal.h"
#include "floe/catalog/purge.h"
#include "floe/common/thread_pool.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"

namespace floe::catalog {
namespace {

using internal::ReadMetadataFile;
using internal::StripTrailingSlashes;
using internal::WantsGzip;

constexpr std::string_view kExistsProperty = "exists";
constexpr std::string_view kLocationProperty = "location";
// Rows a V0 JDBC catalog or pyiceberg inserted have no type; they are tables.
// The rows that are tables: in V1 tables (with iceberg_type) those of type TABLE or NULL
// (written before the column existed); in V0 tables every row.
std::string_view TableCondition(bool typed) {
  return typed ? "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : "1 = 1";
}

// The statement inserting a new table's row (catalog, namespace, name, metadata location).
std::string InsertTableSql(bool typed) {
  return typed ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                 "metadata_location, previous_metadata_location, iceberg_type) "
                 "VALUES (?, ?, ?, ?, NULL, 'TABLE')"
               : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                 "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)";
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The levels of a namespace string as stored (no validation: other writers may have
// stored names floe would not create).
Namespace SplitNamespace(const std::string& text) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    ns.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return ns;
}

// A LIKE pattern (with ESCAPE '!') matching every namespace strictly below `ns`.
std::string ChildrenPattern(const std::string& ns) {
  std::string pattern;
  for (char c : ns) {
    if (c == '!' || c == '%' || c == '_') pattern.push_back('!');
    pattern.push_back(c);
  }
  pattern += ".%";
  return pattern;
}

bool IsSameOrBelow(const std::string& candidate, const std::string& ns) {
  return candidate == ns ||
         (candidate.size() > ns.size() && candidate.compare(0, ns.size(), ns) == 0 &&
          candidate[ns.size()] == '.');
}

// The namespace strings of one catalog at or below `ns` (every one when `ns` is empty),
// from both tables. LIKE only narrows the search (it ignores case in SQLite); the exact
// test is done here.
Result<std::set<std::string>> NamespacesAtOrBelow(SqlSession& session, const std::string& catalog,
                                                  const std::string& ns) {
  std::set<std::string> out;
  struct Source {
    const char* column;
    const char* table;
  };
  for (const Source& source : {Source{"table_namespace", "iceberg_tables"},
                               Source{"namespace", "iceberg_namespace_properties"}}) {
    std::vector<SqlRow> rows;
    if (ns.empty()) {
      FLOE_ASSIGN_OR_RAISE(
          rows, session.Query("list namespaces",
                              fmt::format("SELECT DISTINCT {0} FROM {1} WHERE catalog_name = ?",
                                          source.column, source.table),
                              {catalog}));
    } else {
      FLOE_ASSIGN_OR_RAISE(
          rows, session.Query("look up namespace " + ns,
                              fmt::format("SELECT DISTINCT {0} FROM {1} WHERE catalog_name = ? AND "
                                          "({0} = ? OR {0} LIKE ? ESCAPE '!')",
                                          source.column, source.table),
                              {catalog, ns, ChildrenPattern(ns)}));
    }
    for (const SqlRow& row : rows) {
      if (row.empty() || !row[0].has_value()) continue;
      if (ns.empty() || IsSameOrBelow(*row[0], ns)) out.insert(*row[0]);
    }
  }
  return out;
}

Result<bool> NamespaceExistsIn(SqlSession& session, const std::string& catalog,
                               const std::string& ns) {
  FLOE_ASSIGN_OR_RAISE(auto found, NamespacesAtOrBelow(session, catalog, ns));
  return !found.empty();
}

Status RequireNamespace(SqlSession& session, const std::string& catalog, const Namespace& ns) {
  FLOE_ASSIGN_OR_RAISE(bool exists, NamespaceExistsIn(session, catalog, NamespaceToString(ns)));
  if (!exists) return Status::NotFound("namespace {} does not exist", NamespaceToString(ns));
  return Status::OK();
}

// The catalog row of a name: its metadata location and whether it is a table.
struct TableRow {
  std::optional<std::string> metadata_location;
  bool is_table = true;
};

Result<std::optional<TableRow>> LookUpRow(SqlSession& session, const std::string& catalog,
                                          bool typed, const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RAISE(
      std::vector<SqlRow> rows,
      session.Query("look up table " + id.ToString(),
                    fmt::format("SELECT metadata_location, {} FROM iceberg_tables "
                                "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                                typed ? "iceberg_type" : "NULL"),
                    {catalog, NamespaceToString(id.ns), id.name}));
  if (rows.empty()) return std::optional<TableRow>();
  TableRow row;
  row.metadata_location = rows[0][0];
  row.is_table = !rows[0][1].has_value() || *rows[0][1] == "TABLE";
  return std::optional<TableRow>(std::move(row));
}

// The current metadata location of a table; kNotFound when there is no such table.
// Inserts the row naming a new table (its namespace must exist); a row of that name already
// there is kConstraint. `purpose` names the operation in database errors.
Status InsertTableRow(SqlSession& session, const std::string& catalog, bool typed,
                      const TableIdentifier& id, const std::string& metadata_location,
                      const std::string& purpose) {
  FLOE_RETURN_NOT_OK(RequireNamespace(session, catalog, id.ns));
  Status inserted = session
                        .Execute(purpose, InsertTableSql(typed),
                                 {catalog, NamespaceToString(id.ns), id.name, metadata_location})
                        .status();
  if (inserted.code() == StatusCode::kConstraint) {
    return Status::Constraint("table {} already exists", id.ToString());
  }
  return inserted;
}

Result<std::string> CurrentLocation(SqlSession& session, const std::string& catalog, bool typed,
                                    const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> row, LookUpRow(session, catalog, typed, id));
  if (!row.has_value() || !row->is_table) {
    return Status::NotFound("table {} does not exist", id.ToString());
  }
  if (!row->metadata_location.has_value() || row->metadata_location->empty()) {
    return Status::Corrupt("table {} has no metadata location in the catalog", id.ToString());
  }
  return *row->metadata_location;
}

// Writes a new metadata file; it must not exist yet. A partly written file is removed.
Status WriteMetadataFile(const io::FileIO& io, const iceberg::TableMetadata& metadata,
                         const std::string& path, bool gzip) {
  FLOE_ASSIGN_OR_RAISE(std::string bytes, internal::MetadataFileBytes(metadata, path, gzip));
  FLOE_ASSIGN_OR_RAISE(auto out, io.NewOutputFile(path, io::CreateMode::kExclusive));
  Status status = out->Write(bytes);
  if (status.ok()) status = out->Close();
  if (!status.ok()) {
    (void)io.Delete(path);
    return status.WithPrefix(fmt::format("writing metadata file {}: ", path));
  }
  return Status::OK();
}

std::string FileNameOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

template <typename T>
bool HasUpdate(const std::vector<iceberg::TableUpdate>& updates) {
  return std::any_of(updates.begin(), updates.end(),
                     [](const iceberg::TableUpdate& u) { return std::holds_alternative<T>(u); });
}

}  // namespace

Result<std::shared_ptr<SqlCatalog>> SqlCatalog::Make(SqlBackendPtr backend,
                                                     std::shared_ptr<const io::FileIO> io,
                                                     SqlCatalogOptions options) {
  if (backend == nullptr || io == nullptr) {
    return Status::Invalid("SqlCatalog needs a database backend and a FileIO");
  }
  if (options.name.empty()) return Status::Invalid("SqlCatalog: the catalog name is empty");
  if (options.warehouse.empty()) {
    return Status::Invalid("SqlCatalog {}: no warehouse location given", options.name);
  }
  options.warehouse = StripTrailingSlashes(std::move(options.warehouse));
  std::shared_ptr<SqlCatalog> catalog(
      new SqlCatalog(std::move(backend), std::move(io), std::move(options)));
  FLOE_RETURN_NOT_OK(catalog->InitializeSchema());
  return catalog;
}

Status SqlCatalog::InitializeSchema() {
  FLOE_RETURN_NOT_OK(backend_->Transact("create the catalog tables", [](SqlSession& session) {
    FLOE_RETURN_NOT_OK(session
                           .Execute("create table iceberg_tables",
                                    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
                                    "catalog_name VARCHAR(255) NOT NULL, "
                                    "table_namespace VARCHAR(255) NOT NULL, "
                                    "table_name VARCHAR(255) NOT NULL, "
                                    "metadata_location VARCHAR(1000), "
                                    "previous_metadata_location VARCHAR(1000), "
                                    "iceberg_type VARCHAR(5), "
                                    "PRIMARY KEY (catalog_name, table_namespace, table_name))")
                           .status());
    FLOE_RETURN_NOT_OK(session
                           .Execute("create table iceberg_namespace_properties",
                                    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
                                    "catalog_name VARCHAR(255) NOT NULL, "
                                    "namespace VARCHAR(255) NOT NULL, "
                                    "property_key VARCHAR(255) NOT NULL, "
                                    "property_value VARCHAR(1000), "
                                    "PRIMARY KEY (catalog_name, namespace, property_key))")
                           .status());
    return Status::OK();
  }));
  // Tables made by a JDBC catalog with its default schema version (V0) lack iceberg_type.
  // They are used as they are: the JDBC catalog and pyiceberg decide when to migrate a
  // shared database (jdbc.schema-version=V1, schema_version='v1'), not floe. The probe fails
  // on V0 tables, so it runs outside the transaction above: PostgreSQL aborts a
  // transaction at its first failed statement.
  return backend_->Run([this](SqlSession& session) {
    typed_ = session
                 .Query("check for column iceberg_type",
                        "SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0")
                 .ok();
    return Status::OK();
  });
}

std::string SqlCatalog::ToString() const {
  return fmt::format("SqlCatalog(name={}, uri={}, warehouse={}, database={})", options_.name,
                     io::RedactUri(options_.uri), io::RedactUri(options_.warehouse),
                     backend_->ToString());
}

// ---------------------------------------------------------------------------------------
// Namespaces
// ---------------------------------------------------------------------------------------

Status SqlCatalog::CreateNamespace(const Namespace& ns,
                                   const std::map<std::string, std::string>& properties) {
  FLOE_RETURN_NOT_OK(ValidateNewNamespace(ns));
  if (properties.count(std::string(kExistsProperty)) != 0) {
    return Status::Invalid("namespace {}: property '{}' is reserved", NamespaceToString(ns),
                           kExistsProperty);
  }
  const std::string name = NamespaceToString(ns);
  return backend_->Transact("create namespace " + name, [&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(bool exists, NamespaceExistsIn(session, options_.name, name));
    if (exists) return Status::Constraint("namespace {} already exists", name);
    std::map<std::string, std::string> rows = properties;
    rows.emplace(kExistsProperty, "true");
    for (const auto& [key, value] : rows) {
      FLOE_RETURN_NOT_OK(session
                             .Execute("create namespace " + name,
                                      "INSERT INTO iceberg_namespace_properties (catalog_name, "
                                      "namespace, property_key, property_value) "
                                      "VALUES (?, ?, ?, ?)",
                                      {options_.name, name, key, value})
                             .status());
    }
    return Status::OK();
  });
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(const Namespace& parent) const {
  if (!parent.empty()) FLOE_RETURN_NOT_OK(ValidateNamespace(parent));
  const std::string parent_name = NamespaceToString(parent);
  std::set<Namespace> children;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto found, NamespacesAtOrBelow(session, options_.name, parent_name));
    if (!parent.empty() && found.empty()) {
      return Status::NotFound("namespace {} does not exist", parent_name);
    }
    for (const std::string& text : found) {
      Namespace ns = SplitNamespace(text);
      if (ns.size() <= parent.size()) continue;
      ns.resize(parent.size() + 1);
      children.insert(std::move(ns));
    }
    return Status::OK();
  }));
  return std::vector<Namespace>(children.begin(), children.end());
}

Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  bool exists = false;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(exists, NamespaceExistsIn(session, options_.name, NamespaceToString(ns)));
    return Status::OK();
  }));
  return exists;
}

Result<std::map<std::string, std::string>> SqlCatalog::LoadNamespaceProperties(
    const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  const std::string name = NamespaceToString(ns);
  std::map<std::string, std::string> properties;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, ns));
    FLOE_ASSIGN_OR_RAISE(
        std::vector<SqlRow> rows,
        session.Query("load properties of namespace " + name,
                      "SELECT property_key, property_value FROM iceberg_namespace_properties "
                      "WHERE catalog_name = ? AND namespace = ?",
                      {options_.name, name}));
    for (const SqlRow& row : rows) {
      if (!row[0].has_value() || *row[0] == kExistsProperty) continue;
      properties[*row[0]] = row[1].value_or("");
    }
    return Status::OK();
  }));
  return properties;
}

Status SqlCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                             const std::set<std::string>& removals,
                                             const std::map<std::string, std::string>& updates) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  const std::string name = NamespaceToString(ns);
  for (const auto& [key, value] : updates) {
    if (removals.count(key) != 0) {
      return Status::Invalid("namespace {}: property '{}' is both updated and removed", name, key);
    }
  }
  if (removals.count(std::string(kExistsProperty)) != 0 ||
      updates.count(std::string(kExistsProperty)) != 0) {
    return Status::Invalid("namespace {}: property '{}' is reserved", name, kExistsProperty);
  }
  return backend_->Transact(
      "update properties of namespace " + name, [&](SqlSession& session) -> Status {
        FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, ns));
        const std::string purpose = "update properties of namespace " + name;
        const char* kDelete =
            "DELETE FROM iceberg_namespace_properties "
            "WHERE catalog_name = ? AND namespace = ? AND property_key = ?";
        for (const std::string& key : removals) {
          FLOE_RETURN_NOT_OK(
              session.Execute(purpose, kDelete, {options_.name, name, key}).status());
        }
        for (const auto& [key, value] : updates) {
          FLOE_RETURN_NOT_OK(
              session.Execute(purpose, kDelete, {options_.name, name, key}).status());
          FLOE_RETURN_NOT_OK(session
                                 .Execute(purpose,
                                          "INSERT INTO iceberg_namespace_properties (catalog_name, "
                                          "namespace, property_key, property_value) "
                                          "VALUES (?, ?, ?, ?)",
                                          {options_.name, name, key, value})
                                 .status());
        }
        return Status::OK();
      });
}

Status SqlCatalog::DropNamespace(const Namespace& ns) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  const std::string name = NamespaceToString(ns);
  return backend_->Transact("drop namespace " + name, [&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto found, NamespacesAtOrBelow(session, options_.name, name));
    if (found.empty()) return Status::NotFound("namespace {} does not exist", name);
    FLOE_ASSIGN_OR_RAISE(std::vector<SqlRow> tables,
                         session.Query("list tables of namespace " + name,
                                       "SELECT table_name FROM iceberg_tables "
                                       "WHERE catalog_name = ? AND table_namespace = ?",
                                       {options_.name, name}));
    if (!tables.empty()) {
      return Status::Constraint("namespace {} is not empty: it holds {} table{}", name,
                                tables.size(), tables.size() == 1 ? "" : "s");
    }
    found.erase(name);
    if (!found.empty()) {
      return Status::Constraint("namespace {} is not empty: it holds namespace {}", name,
                                *found.begin());
    }
    return session
        .Execute(
            "drop namespace " + name,
            "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
            {options_.name, name})
        .status();
  });
}

// ---------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  const std::string name = NamespaceToString(ns);
  std::vector<TableIdentifier> tables;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, ns));
    FLOE_ASSIGN_OR_RAISE(
        std::vector<SqlRow> rows,
        session.Query("list tables of namespace " + name,
                      fmt::format("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? "
                                  "AND table_namespace = ? AND {}",
                                  TableCondition(typed_)),
                      {options_.name, name}));
    for (const SqlRow& row : rows) {
      if (row[0].has_value()) tables.push_back(TableIdentifier{ns, *row[0]});
    }
    return Status::OK();
  }));
  std::sort(tables.begin(), tables.end());
  return tables;
}

Result<bool> SqlCatalog::TableExists(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  bool exists = false;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> row,
                         LookUpRow(session, options_.name, typed_, id));
    exists = row.has_value() && row->is_table;
    return Status::OK();
  }));
  return exists;
}

Result<std::string> SqlCatalog::DefaultTableLocation(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateNewIdentifier(id));
  const std::string ns = NamespaceToString(id.ns);
  std::optional<std::string> ns_location;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(
        std::vector<SqlRow> rows,
        session.Query("look up the location of namespace " + ns,
                      "SELECT property_value FROM iceberg_namespace_properties "
                      "WHERE catalog_name = ? AND namespace = ? AND property_key = ?",
                      {options_.name, ns, std::string(kLocationProperty)}));
    if (!rows.empty() && rows[0][0].has_value() && !rows[0][0]->empty()) ns_location = *rows[0][0];
    return Status::OK();
  }));
  if (ns_location.has_value()) {
    return fmt::format("{}/{}", StripTrailingSlashes(*ns_location), id.name);
  }
  return fmt::format("{}/{}/{}", options_.warehouse, fmt::join(id.ns, "/"), id.name);
}

Result<iceberg::Table> SqlCatalog::CreateTable(const TableIdentifier& id,
                                               const CreateTableRequest& request) {
  FLOE_RETURN_NOT_OK(ValidateNewIdentifier(id));
  if (request.schema == nullptr) {
    return Status::Invalid("create table {}: no schema given", id.ToString());
  }
  // Fail early, before any file is written; the insert below checks again atomically.
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, id.ns));
    FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> row,
                         LookUpRow(session, options_.name, typed_, id));
    if (row.has_value()) return Status::Constraint("table {} already exists", id.ToString());
    return Status::OK();
  }));
  std::string location;
  if (request.location.empty()) {
    FLOE_ASSIGN_OR_RAISE(location, DefaultTableLocation(id));
  } else {
    location = StripTrailingSlashes(request.location);
  }
  iceberg::NewTableOptions options;
  options.schema = request.schema;
  options.spec = request.spec;
  options.sort_order = request.sort_order;
  options.location = location;
  options.properties = request.properties;
  options.format_version = request.format_version;
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata,
                       iceberg::NewTableMetadata(options, NowMs()));
  const std::string metadata_location =
      location + "/metadata/" + iceberg::MetadataFileName(0, WantsGzip(metadata->properties));
  FLOE_RETURN_NOT_OK(
      WriteMetadataFile(*io_, *metadata, metadata_location, WantsGzip(metadata->properties)));

  const std::string purpose = "create table " + id.ToString();
  Status status = backend_->Transact(purpose, [&](SqlSession& session) {
    return InsertTableRow(session, options_.name, typed_, id, metadata_location, purpose);
  });
  if (!status.ok()) {
    // When the insert's outcome is unknown the row may point at the file: keep it.
    if (status.code() != StatusCode::kCommitStateUnknown) (void)io_->Delete(metadata_location);
    return status;
  }
  return TableWithIo(metadata_location, std::move(metadata));
}

// Metadata files are read and written through the catalog's FileIO; the table's other
// files through one with the table's own S3 settings over the catalog's.
Result<iceberg::Table> SqlCatalog::TableWithIo(std::string metadata_location,
                                               iceberg::TableMetadataPtr metadata) const {
  FLOE_ASSIGN_OR_RAISE(auto table_io, io::TableFileIO(io_, metadata->properties));
  return iceberg::Table{std::move(metadata_location), std::move(metadata), std::move(table_io)};
}

Result<iceberg::Table> SqlCatalog::LoadTable(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  std::string location;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(location, CurrentLocation(session, options_.name, typed_, id));
    return Status::OK();
  }));
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata, ReadMetadataFile(*io_, location));
  return TableWithIo(std::move(location), std::move(metadata));
}

Result<iceberg::Table> SqlCatalog::RegisterTable(const TableIdentifier& id,
                                                 const std::string& metadata_location) {
  FLOE_RETURN_NOT_OK(ValidateNewIdentifier(id));
  if (metadata_location.empty()) {
    return Status::Invalid("register table {}: no metadata file given", id.ToString());
  }
  // The file must be readable metadata before a name points at it.
  FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata,
                       ReadMetadataFile(*io_, metadata_location));
  const std::string purpose = "register table " + id.ToString();
  FLOE_RETURN_NOT_OK(backend_->Transact(purpose, [&](SqlSession& session) {
    return InsertTableRow(session, options_.name, typed_, id, metadata_location, purpose);
  }));
  return TableWithIo(metadata_location, std::move(metadata));
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(from));
  FLOE_RETURN_NOT_OK(ValidateNewIdentifier(to));
  const std::string purpose = fmt::format("rename table {} to {}", from.ToString(), to.ToString());
  return backend_->Transact(purpose, [&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> source,
                         LookUpRow(session, options_.name, typed_, from));
    if (!source.has_value() || !source->is_table) {
      return Status::NotFound("table {} does not exist", from.ToString());
    }
    if (from == to) return Status::OK();
    FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, to.ns));
    FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> target,
                         LookUpRow(session, options_.name, typed_, to));
    if (target.has_value()) {
      return Status::Constraint("{} {} already exists", target->is_table ? "table" : "view",
                                to.ToString());
    }
    FLOE_ASSIGN_OR_RAISE(
        int64_t changed,
        session.Execute(purpose,
                        "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? "
                        "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                        {NamespaceToString(to.ns), to.name, options_.name,
                         NamespaceToString(from.ns), from.name}));
    if (changed != 1) {
      return Status::Internal("{}: {} rows changed, expected 1", purpose, changed);
    }
    return Status::OK();
  });
}

Status SqlCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  const std::string purpose = "drop table " + id.ToString();
  if (!purge) {
    return backend_->Run([&](SqlSession& session) -> Status {
      FLOE_ASSIGN_OR_RAISE(
          int64_t changed,
          session.Execute(purpose,
                          fmt::format("DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
                                      "table_namespace = ? AND table_name = ? AND {}",
                                      TableCondition(typed_)),
                          {options_.name, NamespaceToString(id.ns), id.name}));
      if (changed == 0) return Status::NotFound("table {} does not exist", id.ToString());
      return Status::OK();
    });
  }
  // Purging needs the metadata that was current when the row was removed: remove the row
  // only while it still points at the metadata read (a commit in between makes this read
  // again), so no file of a newer version is missed.
  while (true) {
    std::string location;
    FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
      FLOE_ASSIGN_OR_RAISE(location, CurrentLocation(session, options_.name, typed_, id));
      return Status::OK();
    }));
    Result<iceberg::TableMetadataPtr> metadata = ReadMetadataFile(*io_, location);
    if (!metadata.ok()) {
      return metadata.status().WithPrefix(fmt::format(
          "cannot purge table {} (nothing was dropped; drop it without purge): ", id.ToString()));
    }
    int64_t changed = 0;
    FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
      FLOE_ASSIGN_OR_RAISE(
          changed,
          session.Execute(purpose,
                          "DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
                          "table_namespace = ? AND table_name = ? AND metadata_location = ?",
                          {options_.name, NamespaceToString(id.ns), id.name, location}));
      return Status::OK();
    }));
    if (changed == 0) continue;
    // The table is gone from the catalog; from here on a failure leaves unreferenced files,
    // never a listed table with missing ones.
    FLOE_ASSIGN_OR_RAISE(auto table_io, io::TableFileIO(io_, (*metadata)->properties));
    return DeleteDroppedTableFiles(*table_io, id, ReachableFiles(*table_io, **metadata, location),
                                   **metadata, location);
  }
}

Result<SqlCatalog::PreparedCommit> SqlCatalog::PrepareCommit(
    const TableIdentifier& id, const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) const {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  const bool create = std::any_of(requirements.begin(), requirements.end(), [](const auto& r) {
    return r.kind == iceberg::TableRequirement::Kind::kAssertCreate;
  });

  // The base: the metadata current now (nullptr when the table does not exist).
  std::optional<std::string> base_location;
  FLOE_RETURN_NOT_OK(backend_->Run([&](SqlSession& session) -> Status {
    FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> row,
                         LookUpRow(session, options_.name, typed_, id));
    if (row.has_value() && row->is_table) {
      if (!row->metadata_location.has_value() || row->metadata_location->empty()) {
        return Status::Corrupt("table {} has no metadata location in the catalog", id.ToString());
      }
      base_location = row->metadata_location;
    } else if (row.has_value()) {
      return Status::Constraint("cannot commit to table {}: a view has that name", id.ToString());
    } else if (create) {
      FLOE_RETURN_NOT_OK(RequireNamespace(session, options_.name, id.ns));
    }
    return Status::OK();
  }));
  iceberg::TableMetadataPtr base;
  if (base_location.has_value()) {
    FLOE_ASSIGN_OR_RAISE(base, ReadMetadataFile(*io_, *base_location));
  } else if (!create) {
    return Status::NotFound("table {} does not exist", id.ToString());
  }
  FLOE_RETURN_NOT_OK(iceberg::CheckRequirements(base.get(), requirements)
                         .WithPrefix(fmt::format("commit to table {}: ", id.ToString())));
  if (base != nullptr && updates.empty()) {
    PreparedCommit unchanged;
    unchanged.id = id;
    unchanged.base_location = base_location;
    unchanged.base = base;
    return unchanged;
  }

  // The new metadata.
  iceberg::TableMetadataPtr next;
  int64_t version = 0;
  if (base != nullptr) {
    FLOE_ASSIGN_OR_RAISE(
        next, iceberg::ApplyUpdates(*base, updates, std::max(NowMs(), base->last_updated_ms),
                                    *base_location));
    std::optional<int64_t> base_version = iceberg::MetadataFileVersion(FileNameOf(*base_location));
    version = base_version.has_value() ? *base_version + 1
                                       : static_cast<int64_t>(base->metadata_log.size()) + 1;
  } else {
    // A table built from nothing by its updates. The empty base starts at the format version
    // the updates ask for (so that asking for v1 is no downgrade), and at the default
    // location when the updates set none.
    iceberg::TableMetadata empty;
    std::vector<iceberg::TableUpdate> create_updates;
    for (const auto& update : updates) {
      if (const auto* upgrade = std::get_if<iceberg::update::UpgradeFormatVersion>(&update)) {
        empty.format_version = upgrade->format_version;
      }
    }
    if (!HasUpdate<iceberg::update::SetLocation>(updates)) {
      FLOE_ASSIGN_OR_RAISE(std::string location, DefaultTableLocation(id));
      create_updates.push_back(iceberg::update::SetLocation{std::move(location)});
    }
    create_updates.insert(create_updates.end(), updates.begin(), updates.end());
    FLOE_ASSIGN_OR_RAISE(next, iceberg::ApplyUpdates(empty, create_updates, NowMs()));
  }
  if (next->location.empty()) {
    return Status::Invalid("commit to table {}: the new metadata has no location", id.ToString());
  }
  const bool gzip = WantsGzip(next->properties);
  const std::string next_location = StripTrailingSlashes(next->location) + "/metadata/" +
                                    iceberg::MetadataFileName(version, gzip);
  FLOE_RETURN_NOT_OK(WriteMetadataFile(*io_, *next, next_location, gzip));

  PreparedCommit prepared;
  prepared.id = id;
  prepared.base_location = std::move(base_location);
  prepared.base = std::move(base);
  prepared.next = std::move(next);
  prepared.next_location = next_location;
  return prepared;
}

Result<iceberg::Table> SqlCatalog::CommitTable(
    const TableIdentifier& id, const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_ASSIGN_OR_RAISE(PreparedCommit prepared, PrepareCommit(id, requirements, updates));
  if (prepared.next == nullptr) return TableWithIo(*prepared.base_location, prepared.base);
  const std::optional<std::string>& base_location = prepared.base_location;
  const iceberg::TableMetadataPtr& base = prepared.base;
  iceberg::TableMetadataPtr next = prepared.next;
  const std::string& next_location = prepared.next_location;

  // The compare-and-set: the pointer moves only if it still points at the base.
  const std::string ns = NamespaceToString(id.ns);
  int64_t changed = 0;
  Status swapped = backend_->Run([&](SqlSession& session) -> Status {
    if (base == nullptr) {
      Status inserted = session
                            .Execute("create table " + id.ToString(), InsertTableSql(typed_),
                                     {options_.name, ns, id.name, next_location})
                            .status();
      if (inserted.code() == StatusCode::kConstraint) {
        return Status::CommitConflict("commit to table {}: the table was created concurrently",
                                      id.ToString());
      }
      changed = 1;
      return inserted;
    }
    FLOE_ASSIGN_OR_RAISE(
        changed, session.Execute(
                     "swap the metadata pointer of table " + id.ToString(),
                     "UPDATE iceberg_tables SET metadata_location = ?, "
                     "previous_metadata_location = ? WHERE catalog_name = ? AND "
                     "table_namespace = ? AND table_name = ? AND metadata_location = ?",
                     {next_location, *base_location, options_.name, ns, id.name, *base_location}));
    return Status::OK();
  });
  if (swapped.code() == StatusCode::kCommitStateUnknown) {
    // The backend could not learn whether the swap committed: the file may be current.
    return swapped.WithPrefix(
        fmt::format("commit to table {} (metadata file {} kept): ", id.ToString(), next_location));
  }
  if (!swapped.ok() || changed != 1) {
    // Find out what the catalog holds now: the new file may be deleted only when it is
    // certainly not current. (A backend returns another error than kCommitStateUnknown only
    // when the swap's transaction is over, so what this reads is final.)
    std::optional<TableRow> now;
    Status checked = backend_->Run([&](SqlSession& session) -> Status {
      FLOE_ASSIGN_OR_RAISE(now, LookUpRow(session, options_.name, typed_, id));
      return Status::OK();
    });
    if (!checked.ok()) {
      return Status::CommitStateUnknown(
          "commit to table {}: the state of the commit is unknown (metadata file {} kept): {}",
          id.ToString(), next_location, swapped.ok() ? checked.ToString() : swapped.ToString());
    }
    const bool landed = now.has_value() && now->metadata_location == next_location;
    if (!landed) {
      (void)io_->Delete(next_location);
      if (!swapped.ok()) return swapped;
      if (!now.has_value()) {
        return Status::NotFound("table {} was dropped during the commit", id.ToString());
      }
      return Status::CommitConflict(
          "commit to table {} lost to a concurrent commit: its metadata moved from {} to {}",
          id.ToString(), *base_location, now->metadata_location.value_or("(none)"));
    }
  }
  if (base != nullptr) {
    internal::DeleteObsoleteMetadata(*io_, *base, *base_location, *next, next_location);
  }
  return TableWithIo(next_location, std::move(next));
}

Status SqlCatalog::CommitTransaction(const std::vector<TableCommit>& commits) {
  std::set<TableIdentifier> seen;
  std::vector<std::string> names;
  for (const TableCommit& commit : commits) {
    if (!seen.insert(commit.id).second) {
      return Status::Invalid("a multi-table commit names table {} twice", commit.id.ToString());
    }
    names.push_back(commit.id.ToString());
  }
  const std::string what = fmt::format("commit to tables {}", fmt::join(names, ", "));

  // Every new metadata file is written first; until the transaction commits, none is current.
  std::vector<PreparedCommit> prepared;
  auto discard = [&] {
    for (const PreparedCommit& p : prepared) {
      if (p.next != nullptr) (void)io_->Delete(p.next_location);
    }
  };
  for (const TableCommit& commit : commits) {
    Result<PreparedCommit> p = PrepareCommit(commit.id, commit.requirements, commit.updates);
    if (!p.ok()) {
      discard();
      return p.status();
    }
    prepared.push_back(std::move(*p));
  }

  // One transaction holds the write lock while it checks that every table is still at its
  // base (a table without changes too: its requirements were checked against that base)
  // and moves every pointer; a table that moved rolls all of them back.
  Status swapped = backend_->Transact(what, [&](SqlSession& session) -> Status {
    for (const PreparedCommit& p : prepared) {
      const std::string ns = NamespaceToString(p.id.ns);
      if (!p.base_location.has_value()) {
        Status inserted = session
                              .Execute("create table " + p.id.ToString(), InsertTableSql(typed_),
                                       {options_.name, ns, p.id.name, p.next_location})
                              .status();
        if (inserted.code() == StatusCode::kConstraint) {
          return Status::CommitConflict("{}: table {} was created concurrently", what,
                                        p.id.ToString());
        }
        FLOE_RETURN_NOT_OK(inserted);
        continue;
      }
      if (p.next == nullptr) {
        FLOE_ASSIGN_OR_RAISE(std::optional<TableRow> row,
                             LookUpRow(session, options_.name, typed_, p.id));
        if (!row.has_value() || row->metadata_location != p.base_location) {
          return Status::CommitConflict("{}: table {} changed concurrently", what, p.id.ToString());
        }
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(
          int64_t changed,
          session.Execute(
              "swap the metadata pointer of table " + p.id.ToString(),
              "UPDATE iceberg_tables SET metadata_location = ?, "
              "previous_metadata_location = ? WHERE catalog_name = ? AND "
              "table_namespace = ? AND table_name = ? AND metadata_location = ?",
              {p.next_location, *p.base_location, options_.name, ns, p.id.name, *p.base_location}));
      if (changed != 1) {
        return Status::CommitConflict("{}: table {} lost to a concurrent commit", what,
                                      p.id.ToString());
      }
    }
    return Status::OK();
  });
  if (swapped.code() == StatusCode::kCommitStateUnknown) {
    return swapped.WithPrefix(what + " (metadata files kept): ");
  }
  if (!swapped.ok()) {
    discard();
    return swapped;
  }
  for (const PreparedCommit& p : prepared) {
    if (p.base != nullptr && p.next != nullptr) {
      internal::DeleteObsoleteMetadata(*io_, *p.base, *p.base_location, *p.next, p.next_location);
    }
  }
  return Status::OK();
}

}  // namespace floe::catalog
