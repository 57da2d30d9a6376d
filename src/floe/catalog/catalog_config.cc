#include "floe/catalog/catalog_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "floe/catalog/hadoop_catalog.h"
#include "floe/catalog/postgres_backend.h"
#include "floe/catalog/rest/rest_catalog.h"
#include "floe/common/ascii.h"
#include "floe/io/file_io.h"

namespace floe::catalog {
namespace {

constexpr std::string_view kCatalogKey = "catalog";
constexpr std::string_view kDefaultCatalogKey = "default-catalog";

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Whether a uri names a database the SQL catalog keeps its tables in.
bool IsSqlCatalogUri(std::string_view uri) {
  return StartsWith(uri, "sqlite:") || StartsWith(uri, "jdbc:sqlite:") || IsPostgresUri(uri);
}

// What a node is, for errors. Never its value: a configuration holds secrets.
std::string NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a single value";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "undefined";
  }
}

// Where a quoted scalar that starts at `pos` ends (just past its closing quote), or npos when
// it is never closed.
size_t QuotedEnd(std::string_view text, size_t pos) {
  const char quote = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;  // an escape: the next character is taken as it is
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside single quotes
      } else {
        return i + 1;
      }
    }
  }
  return std::string_view::npos;
}

// yaml-cpp takes a quoted value that is never closed to run to the end of the file, which
// silently swallows every setting after it: every quoted key and value must be closed.
Status CheckQuotesClosed(const YAML::Node& node, std::string_view text, const std::string& path) {
  if (node.IsScalar()) {
    const YAML::Mark mark = node.Mark();
    if (!mark.is_null() && mark.pos >= 0 && static_cast<size_t>(mark.pos) < text.size()) {
      const auto pos = static_cast<size_t>(mark.pos);
      if ((text[pos] == '"' || text[pos] == '\'') &&
          QuotedEnd(text, pos) == std::string_view::npos) {
        return Status::Invalid("{}:{}:{}: not valid YAML: a quoted value is never closed", path,
                               mark.line + 1, mark.column + 1);
      }
    }
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      FLOE_RETURN_NOT_OK(CheckQuotesClosed(entry.first, text, path));
      FLOE_RETURN_NOT_OK(CheckQuotesClosed(entry.second, text, path));
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) FLOE_RETURN_NOT_OK(CheckQuotesClosed(item, text, path));
  }
  return Status::OK();
}

// The parsed document, or the parser's error with its position. yaml-cpp reports errors by
// exception; they are caught here and nowhere else. Its message is cut at a colon, after
// which some messages quote the file (which may hold secrets).
Result<YAML::Node> LoadYaml(std::string_view text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    const std::string message = e.msg.substr(0, e.msg.find(':'));
    if (e.mark.is_null()) return Status::Invalid("{}: not valid YAML: {}", path, message);
    return Status::Invalid("{}:{}:{}: not valid YAML: {}", path, e.mark.line + 1, e.mark.column + 1,
                           message);
  }
  FLOE_RETURN_NOT_OK(CheckQuotesClosed(root, text, path));
  return root;
}

Result<std::string> ScalarKey(const YAML::Node& key, const std::string& path,
                              std::string_view where) {
  if (!key.IsScalar() || key.Scalar().empty()) {
    return Status::Invalid("{}: {} has a key that is not a name ({})", path, where, NodeKind(key));
  }
  return key.Scalar();
}

Result<CatalogConfig> ParseCatalog(const std::string& name, const YAML::Node& node,
                                   const std::string& path) {
  const std::string where = fmt::format("{}.{}", kCatalogKey, name);
  if (name.find_first_of(":/.") != std::string::npos) {
    return Status::Invalid(
        "{}: catalog name '{}' (key {}) cannot hold ':', '/' or '.' (such a --catalog value is "
        "a URI, and SQL names split at '.')",
        path, name, where);
  }
  if (!node.IsMap()) {
    return Status::Invalid(
        "{}: {} must be a mapping of settings (type, uri, warehouse, ...), "
        "not {}",
        path, where, NodeKind(node));
  }
  CatalogConfig config;
  config.name = name;
  for (const auto& entry : node) {
    FLOE_ASSIGN_OR_RAISE(std::string key, ScalarKey(entry.first, path, where));
    if (!entry.second.IsScalar()) {
      return Status::Invalid("{}: {}.{} must be a single value, not {}", path, where, key,
                             NodeKind(entry.second));
    }
    std::string value = entry.second.Scalar();
    if (key == "type") {
      config.type = AsciiLower(std::move(value));
    } else if (key == "uri") {
      config.uri = std::move(value);
    } else if (key == "warehouse") {
      config.warehouse = std::move(value);
    } else {
      config.properties[key] = std::move(value);
    }
  }
  // pyiceberg infers a catalog's type from its uri when `type` is absent.
  if (config.type.empty() && IsSqlCatalogUri(config.uri)) config.type = "sql";
  if (config.type.empty() && IsRestCatalogUri(config.uri)) config.type = "rest";
  return config;
}

}  // namespace

std::string CatalogConfigFile::Names() const {
  if (catalogs.empty()) return "(none)";
  std::vector<std::string> names;
  for (const auto& [name, config] : catalogs) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

Result<std::optional<CatalogConfig>> CatalogConfigFile::DefaultCatalog() const {
  if (!default_catalog.empty()) {
    auto it = catalogs.find(default_catalog);
    if (it == catalogs.end()) {
      return Status::NotFound("{}: {} names catalog '{}', which is not configured (configured: {})",
                              path, kDefaultCatalogKey, default_catalog, Names());
    }
    return std::optional<CatalogConfig>(it->second);
  }
  auto it = catalogs.find("default");
  if (it == catalogs.end()) return std::optional<CatalogConfig>();
  return std::optional<CatalogConfig>(it->second);
}

std::string ConfigFilePath() {
  const char* explicit_path = std::getenv("FLOE_CONFIG");
  if (explicit_path != nullptr && explicit_path[0] != '\0') return explicit_path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] == '\0') return "";
  return (std::filesystem::path(home) / ".floe.yaml").string();
}

Result<CatalogConfigFile> ParseCatalogConfig(std::string_view text, const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(YAML::Node root, LoadYaml(text, path));
  CatalogConfigFile file;
  file.path = path;
  if (root.IsNull()) return file;
  if (!root.IsMap()) {
    return Status::Invalid("{}: the file must be a mapping with a '{}' key, not {}", path,
                           kCatalogKey, NodeKind(root));
  }
  for (const auto& entry : root) {
    FLOE_ASSIGN_OR_RAISE(std::string key, ScalarKey(entry.first, path, "the file"));
    if (key == kDefaultCatalogKey) {
      if (!entry.second.IsScalar()) {
        return Status::Invalid("{}: {} must be a catalog name, not {}", path, kDefaultCatalogKey,
                               NodeKind(entry.second));
      }
      file.default_catalog = entry.second.Scalar();
    } else if (key == kCatalogKey) {
      if (entry.second.IsNull()) continue;
      if (!entry.second.IsMap()) {
        return Status::Invalid("{}: {} must be a mapping of catalog names to settings, not {}",
                               path, kCatalogKey, NodeKind(entry.second));
      }
      for (const auto& catalog : entry.second) {
        FLOE_ASSIGN_OR_RAISE(std::string name, ScalarKey(catalog.first, path, kCatalogKey));
        FLOE_ASSIGN_OR_RAISE(CatalogConfig config, ParseCatalog(name, catalog.second, path));
        file.catalogs[name] = std::move(config);
      }
    }
    // Other top-level keys belong to other tools sharing the file's shape; they are ignored.
  }
  return file;
}

Result<CatalogConfigFile> LoadCatalogConfig() {
  const std::string path = ConfigFilePath();
  if (path.empty()) return CatalogConfigFile{};
  const char* explicit_path = std::getenv("FLOE_CONFIG");
  const bool is_explicit = explicit_path != nullptr && explicit_path[0] != '\0';
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (!is_explicit) return CatalogConfigFile{};
    return Status::NotFound("configuration file {} (named by FLOE_CONFIG) does not exist", path);
  }
  if (std::filesystem::is_directory(path, ec)) {
    return Status::Invalid("configuration file {} is a directory", path);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read configuration file {}", path);
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError("cannot read configuration file {}", path);
  return ParseCatalogConfig(text.str(), path);
}

Result<CatalogPtr> OpenConfiguredCatalog(const CatalogConfig& config, const std::string& path) {
  const std::string where = fmt::format("{}.{}", kCatalogKey, config.name);
  if (config.type.empty()) {
    return Status::Invalid("{}: {}.type is missing (sql, rest or hadoop)", path, where);
  }
  if (config.type == "sql") {
    if (config.uri.empty()) {
      return Status::Invalid(
          "{}: {}.uri is missing (type sql needs a database URI such as "
          "sqlite:////path/to/catalog.db or postgresql://user@host/database)",
          path, where);
    }
    if (!IsSqlCatalogUri(config.uri)) {
      return Status::NotSupported(
          "{}: {}.uri '{}': only SQLite (sqlite:...) and PostgreSQL (postgresql://..., "
          "jdbc:postgresql:...) databases are supported",
          path, where, io::RedactUri(config.uri));
    }
    if (IsPostgresUri(config.uri) && config.warehouse.empty()) {
      return Status::Invalid(
          "{}: {}.warehouse is missing (a PostgreSQL catalog needs the directory or URI where "
          "its tables go)",
          path, where);
    }
    // A configured catalog is opened, never created: a mistyped path must not look like a
    // new, empty catalog.
    Result<CatalogPtr> catalog = OpenCatalog(config.uri, config.warehouse, config.name,
                                             /*create=*/false, config.properties);
    if (!catalog.ok()) return catalog.status().WithPrefix(fmt::format("{}: {}: ", path, where));
    return catalog;
  }
  if (config.type == "hadoop") {
    if (config.warehouse.empty()) {
      return Status::Invalid(
          "{}: {}.warehouse is missing (type hadoop needs the warehouse directory)", path, where);
    }
    HadoopCatalogOptions options;
    options.name = config.name;
    options.warehouse = config.warehouse;
    options.create = false;
    Result<std::shared_ptr<HadoopCatalog>> catalog = HadoopCatalog::Make(options);
    if (!catalog.ok()) return catalog.status().WithPrefix(fmt::format("{}: {}: ", path, where));
    return CatalogPtr(std::move(*catalog));
  }
  if (config.type == "rest") {
    if (config.uri.empty()) {
      return Status::Invalid("{}: {}.uri is missing (type rest needs the catalog's http(s):// URI)",
                             path, where);
    }
    RestCatalogOptions options;
    options.name = config.name;
    options.uri = config.uri;
    if (options.uri.rfind("rest:", 0) == 0) options.uri = options.uri.substr(5);
    options.warehouse = config.warehouse;
    options.properties = config.properties;
    Result<std::shared_ptr<RestCatalog>> catalog = RestCatalog::Make(std::move(options));
    if (!catalog.ok()) return catalog.status().WithPrefix(fmt::format("{}: {}: ", path, where));
    return CatalogPtr(std::move(*catalog));
  }
  return Status::NotSupported("{}: {}.type '{}' is not supported (supported: sql, rest, hadoop)",
                              path, where, config.type);
}

bool IsCatalogUri(std::string_view value) {
  return value.find(':') != std::string_view::npos || value.find('/') != std::string_view::npos;
}

Result<std::optional<CatalogPtr>> ResolveCatalog(const std::string& value,
                                                 const std::string& warehouse) {
  if (!value.empty() && IsCatalogUri(value)) {
    FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalog(value, warehouse));
    return std::optional<CatalogPtr>(std::move(catalog));
  }
  if (value.empty() && !warehouse.empty()) return std::optional<CatalogPtr>();
  FLOE_ASSIGN_OR_RAISE(CatalogConfigFile file, LoadCatalogConfig());
  if (value.empty()) {
    FLOE_ASSIGN_OR_RAISE(std::optional<CatalogConfig> config, file.DefaultCatalog());
    if (!config.has_value()) return std::optional<CatalogPtr>();
    FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenConfiguredCatalog(*config, file.path));
    return std::optional<CatalogPtr>(std::move(catalog));
  }
  if (!warehouse.empty()) {
    return Status::Invalid(
        "--warehouse cannot be combined with the configured catalog '{}' (its warehouse is "
        "set in {})",
        value, file.path.empty() ? "the configuration file" : file.path);
  }
  if (file.path.empty()) {
    const std::string expected = ConfigFilePath();
    if (expected.empty()) {
      return Status::NotFound(
          "catalog '{}' is not configured: there is no configuration file (neither FLOE_CONFIG "
          "nor HOME is set)",
          value);
    }
    return Status::NotFound("catalog '{}' is not configured: configuration file {} does not exist",
                            value, expected);
  }
  auto it = file.catalogs.find(value);
  if (it == file.catalogs.end()) {
    return Status::NotFound("catalog '{}' is not configured in {} (configured: {})", value,
                            file.path, file.Names());
  }
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenConfiguredCatalog(it->second, file.path));
  return std::optional<CatalogPtr>(std::move(catalog));
}

}  // namespace floe::catalog
