#include "floe/catalog/catalog.h"

#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "floe/catalog/hadoop_catalog.h"
#include "floe/catalog/postgres_backend.h"
#include "floe/catalog/rest/rest_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/catalog/sqlite_backend.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"

namespace floe::catalog {

std::string NamespaceToString(const Namespace& ns) { return fmt::format("{}", fmt::join(ns, ".")); }

Result<Namespace> ParseNamespace(std::string_view text) {
  if (text.empty()) return Status::Invalid("empty namespace name");
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view level =
        text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (level.empty()) return Status::Invalid("namespace '{}' has an empty level", text);
    ns.emplace_back(level);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return ns;
}

Status ValidatePathSegment(std::string_view what, std::string_view name) {
  if (name.empty()) return Status::Invalid("{} is empty", what);
  // The name printed with its control characters escaped, so the error shows what it holds.
  auto printable = [&] {
    std::string out;
    for (char c : name) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) {
        out += fmt::format("\\x{:02x}", u);
      } else {
        out.push_back(c);
      }
    }
    return out;
  };
  if (name == "." || name == "..") {
    return Status::Invalid("{} '{}' is not allowed: it would name a directory above its own", what,
                           name);
  }
  if (name.size() > 255) {
    return Status::Invalid("{} '{}...' is {} bytes long; at most 255 are allowed", what,
                           name.substr(0, 32), name.size());
  }
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '/') {
      return Status::Invalid("{} '{}' contains a '/', which would split it into directories", what,
                             printable());
    }
    if (u < 0x20 || u == 0x7f) {
      return Status::Invalid("{} '{}' contains a control character", what, printable());
    }
  }
  return Status::OK();
}

Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return Status::Invalid("a namespace needs at least one level");
  for (const std::string& level : ns) {
    if (level.empty()) {
      return Status::Invalid("namespace '{}' has an empty level", fmt::join(ns, "."));
    }
    // Namespaces are stored as their dotted string, so a dot inside a level could not be
    // told apart from a level boundary.
    if (level.find('.') != std::string::npos) {
      return Status::Invalid("namespace level '{}' contains a '.'", level);
    }
  }
  return Status::OK();
}

Status ValidateIdentifier(const TableIdentifier& id) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(id.ns));
  if (id.name.empty()) {
    return Status::Invalid("table name in namespace {} is empty", NamespaceToString(id.ns));
  }
  return Status::OK();
}

// What a new namespace or table must be beyond what a lookup accepts: its levels and name
// become directories of the default location (<warehouse>/<levels>/<name>), so each must be
// one path segment that cannot climb out of the warehouse. Names that other writers stored
// are still found by lookups.
Status ValidateNewNamespace(const Namespace& ns) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  for (const std::string& level : ns) {
    FLOE_RETURN_NOT_OK(ValidatePathSegment("namespace level", level));
  }
  return Status::OK();
}

Status ValidateNewIdentifier(const TableIdentifier& id) {
  FLOE_RETURN_NOT_OK(ValidateNewNamespace(id.ns));
  return ValidatePathSegment("table name", id.name);
}

bool IsRestCatalogUri(std::string_view uri) {
  if (uri.substr(0, 5) == "rest:") uri.remove_prefix(5);
  return uri.substr(0, 7) == "http://" || uri.substr(0, 8) == "https://";
}

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : NamespaceToString(ns) + "." + name;
}

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) {
    return Status::Invalid("table name '{}' has no namespace (expected namespace.table)", text);
  }
  std::string_view name = text.substr(dot + 1);
  if (name.empty()) return Status::Invalid("table name '{}' ends with '.'", text);
  Result<Namespace> ns = ParseNamespace(text.substr(0, dot));
  if (!ns.ok()) {
    return ns.status().WithPrefix(fmt::format("table name '{}': ", text));
  }
  return TableIdentifier{std::move(*ns), std::string(name)};
}

namespace {

// TableOperations that go to the catalog on every call.
class CatalogTableOperations final : public iceberg::TableOperations {
 public:
  CatalogTableOperations(Catalog* catalog, TableIdentifier id)
      : catalog_(catalog), id_(std::move(id)) {}

  Result<iceberg::Table> Refresh() const override { return Remember(catalog_->LoadTable(id_)); }
  Result<iceberg::Table> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                const std::vector<iceberg::TableUpdate>& updates) override {
    return Remember(catalog_->CommitTable(id_, requirements, updates));
  }
  // The FileIO of the table as last loaded or committed: a table's files may need settings
  // of its own (its S3 properties, credentials a REST catalog vends for it) that the
  // catalog's FileIO lacks. The catalog's before the first load.
  std::shared_ptr<const io::FileIO> io() const override {
    std::lock_guard lock(mutex_);
    return table_io_ != nullptr ? table_io_ : catalog_->io();
  }
  std::string name() const override { return id_.ToString(); }

 private:
  Result<iceberg::Table> Remember(Result<iceberg::Table> table) const {
    if (table.ok() && table->io != nullptr) {
      std::lock_guard lock(mutex_);
      table_io_ = table->io;
    }
    return table;
  }

  Catalog* catalog_;
  TableIdentifier id_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const io::FileIO> table_io_;
};

// The database file a `sqlite:` URI names ("" when it names none).
std::string SqlitePath(std::string_view rest) {
  // "sqlite://<path>": an authority-style form. "sqlite:///abs" and "sqlite:////abs" are
  // absolute, "sqlite://relative" is relative.
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    if (rest.substr(0, 2) == "//") rest.remove_prefix(1);
  }
  return std::string(rest);
}

// A warehouse as written into the catalog: a relative path made absolute, so that the
// locations written into the catalog mean the same to every process and tool that reads
// them; a URI as it is.
Result<std::string> AbsoluteWarehouse(const std::string& warehouse) {
  if (!io::UriScheme(warehouse).empty()) return warehouse;
  std::error_code ec;
  std::filesystem::path w = std::filesystem::absolute(warehouse, ec);
  if (ec) return Status::IOError("warehouse '{}': {}", warehouse, ec.message());
  return w.lexically_normal().string();
}

Result<CatalogPtr> MakeSqlCatalog(SqlBackendPtr backend, const std::string& shown_uri,
                                  const std::string& warehouse, const std::string& name,
                                  const std::map<std::string, std::string>& properties) {
  SqlCatalogOptions options;
  options.name = name;
  options.uri = shown_uri;
  options.warehouse = warehouse;
  // Local files, and S3 objects with the settings the properties, the environment or the
  // AWS shared files give.
  FLOE_ASSIGN_OR_RAISE(auto io, io::MakeResolvingFileIO(io::LocalFileIOOptions{}, properties));
  FLOE_ASSIGN_OR_RAISE(auto catalog, SqlCatalog::Make(std::move(backend), std::move(io), options));
  return CatalogPtr(std::move(catalog));
}

}  // namespace

Status Catalog::CommitTransaction(const std::vector<TableCommit>& commits) {
  (void)commits;
  return Status::NotSupported("catalog {} cannot commit to several tables atomically", name());
}

Result<std::string> Catalog::DefaultTableLocation(const TableIdentifier& id) const {
  return Status::NotSupported("catalog {} does not say where table {} would go", name(),
                              id.ToString());
}

iceberg::TableOperationsPtr Catalog::TableOps(const TableIdentifier& id) {
  return std::make_shared<CatalogTableOperations>(this, id);
}

Result<CatalogPtr> OpenCatalog(const std::string& uri, const std::string& warehouse,
                               const std::string& name, bool create,
                               const std::map<std::string, std::string>& properties) {
  std::string_view rest = uri;
  if (IsPostgresUri(uri)) {
    FLOE_ASSIGN_OR_RAISE(PostgresConnection connection, ParsePostgresUri(uri));
    const std::string shown = connection.Redacted();
    // The database holds no files: where tables go must be said.
    if (warehouse.empty()) {
      return Status::Invalid(
          "catalog URI '{}': a PostgreSQL catalog needs a warehouse (--warehouse, or "
          "warehouse: in the configuration file)",
          shown);
    }
    FLOE_ASSIGN_OR_RAISE(std::string warehouse_location, AbsoluteWarehouse(warehouse));
    FLOE_ASSIGN_OR_RAISE(SqlBackendPtr backend, OpenPostgresBackend(std::move(connection)));
    return MakeSqlCatalog(std::move(backend), shown, warehouse_location, name, properties);
  }
  for (std::string_view prefix : {"jdbc:sqlite:", "sqlite:"}) {
    if (rest.substr(0, prefix.size()) == prefix) {
      rest.remove_prefix(prefix.size());
      std::string path = SqlitePath(rest);
      if (path.empty())
        return Status::Invalid("catalog URI '{}' names no database file", io::RedactUri(uri));
      if (path == ":memory:" || path.find("mode=memory") != std::string::npos) {
        return Status::NotSupported(
            "catalog URI '{}': an in-memory SQLite catalog is not supported (its connections "
            "would not share it); name a file",
            io::RedactUri(uri));
      }
      std::error_code ec;
      std::filesystem::path absolute = std::filesystem::absolute(path, ec);
      if (ec) return Status::IOError("catalog URI '{}': {}", io::RedactUri(uri), ec.message());
      absolute = absolute.lexically_normal();
      if (!std::filesystem::exists(absolute, ec)) {
        if (!create) {
          return Status::NotFound("catalog database {} does not exist", absolute.string());
        }
        if (!std::filesystem::is_directory(absolute.parent_path(), ec)) {
          return Status::NotFound(
              "catalog database {} cannot be created: directory {} does not exist",
              absolute.string(), absolute.parent_path().string());
        }
      }
      std::string warehouse_location = absolute.parent_path().string();
      if (!warehouse.empty()) {
        FLOE_ASSIGN_OR_RAISE(warehouse_location, AbsoluteWarehouse(warehouse));
      }
      FLOE_ASSIGN_OR_RAISE(SqlBackendPtr backend, OpenSqliteBackend(absolute.string()));
      return MakeSqlCatalog(std::move(backend), uri, warehouse_location, name, properties);
    }
  }
  if (IsRestCatalogUri(uri)) {
    RestCatalogOptions options;
    options.name = name;
    options.uri = uri.rfind("rest:", 0) == 0 ? uri.substr(5) : uri;
    options.warehouse = warehouse;
    options.properties = properties;
    FLOE_ASSIGN_OR_RAISE(auto catalog, RestCatalog::Make(std::move(options)));
    return CatalogPtr(std::move(catalog));
  }
  constexpr std::string_view kHadoop = "hadoop:";
  if (rest.substr(0, kHadoop.size()) == kHadoop) {
    std::string directory(rest.substr(kHadoop.size()));
    if (directory.empty()) directory = warehouse;
    if (directory.empty()) {
      return Status::Invalid("catalog URI '{}' names no warehouse directory (hadoop:<directory>)",
                             io::RedactUri(uri));
    }
    if (!warehouse.empty() && warehouse != directory) {
      return Status::Invalid(
          "catalog URI '{}' names warehouse {} but warehouse {} was given too; a hadoop catalog's "
          "warehouse is the catalog",
          io::RedactUri(uri), directory, warehouse);
    }
    HadoopCatalogOptions options;
    options.name = name;
    options.warehouse = directory;
    options.create = create;
    FLOE_ASSIGN_OR_RAISE(auto catalog, HadoopCatalog::Make(std::move(options)));
    return CatalogPtr(std::move(catalog));
  }
  std::string_view scheme = rest.substr(0, rest.find(':'));
  if (scheme.size() == rest.size() || scheme.empty()) {
    return Status::NotSupported(
        "catalog URI '{}' has no scheme (expected sqlite:<file>, postgresql://<host>/<database>, "
        "http(s)://<rest catalog> or hadoop:<directory>)",
        io::RedactUri(uri));
  }
  return Status::NotSupported(
      "catalog URI scheme '{}' is not supported (in '{}'; supported: sqlite, postgresql, http, "
      "https, rest:http(s), hadoop)",
      scheme, io::RedactUri(uri));
}

Result<CatalogPtr> OpenDefaultCatalog() {
  std::error_code ec;
  std::filesystem::path warehouse = std::filesystem::absolute("warehouse", ec);
  if (ec) return Status::IOError("default warehouse: {}", ec.message());
  std::filesystem::create_directories(warehouse, ec);
  if (ec) {
    return Status::IOError("cannot create the default warehouse {}: {}", warehouse.string(),
                           ec.message());
  }
  return OpenCatalog("sqlite:" + (warehouse / "catalog.db").string(), warehouse.string(),
                     "default");
}

}  // namespace floe::catalog
