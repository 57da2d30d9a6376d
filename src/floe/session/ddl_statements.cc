#include "floe/session/ddl_statements.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "floe/connector/iceberg/declared_types.h"
#include "floe/expr/physical_expr.h"
#include "floe/iceberg/metadata_update.h"
#include "floe/iceberg/schema_update.h"
#include "floe/iceberg/spec_text.h"
#include "floe/io/file_io.h"
#include "floe/plan/binder.h"
#include "floe/sql/parser.h"

namespace floe::session {

namespace {

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += ".";
    out += part;
  }
  return out;
}

std::string Trimmed(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// A column's SQL type as declared (an Iceberg table stores it as connector::StoredColumnType
// says and records the declaration: declared_types.h).
// A type whose values need rules beyond their storage type (plan::HasTypeRules) is refused,
// but for char(n) and varchar(n), whose length the declaration keeps.
Result<TypePtr> ColumnType(const sql::TypeName& name, std::string_view text,
                           const std::shared_ptr<const plan::UserTypes>& user_types) {
  FLOE_ASSIGN_OR_RAISE(TypePtr type, plan::BindType(name, text, user_types));
  const bool character =
      (name.name == "bpchar" || name.name == "varchar") && name.array_bounds == 0;
  if (!character && plan::HasTypeRules(name, user_types.get())) {
    const bool domain = user_types && user_types->domains.count(name.name) > 0;
    std::string shown = name.name == "bpchar"    ? "character"
                        : name.name == "varchar" ? "character varying"
                                                 : name.name;
    if (!name.modifiers.empty()) shown += "(" + std::to_string(name.modifiers[0]) + ")";
    for (int i = 0; i < name.array_bounds; ++i) shown += "[]";
    std::string where = sql::DescribeLocation(text, name.location);
    return Status::NotSupported(
        "a table column of type {} is not supported ({}){}", shown,
        domain ? "domains live in the session, not with the table"
               : "the lengths or constraints of its elements or attributes would not be kept",
        where.empty() ? "" : " (" + where + ")");
  }
  return type;
}

// A column's type as DESCRIBE and SHOW CREATE TABLE print it: as declared, when Iceberg
// stores it otherwise.
std::string ColumnTypeName(const Field& field,
                           const std::optional<connector::DeclaredColumn>& declared) {
  return declared.has_value() ? declared->sql_name : plan::TypeNameOf(*field.type());
}

std::string NullableText(bool nullable) { return nullable ? "YES" : "NO"; }

// ---------------------------------------------------------------------------------------
// Table options: WITH (partitioning = '...', sorted_by = '...', format_version = 2, ...)

struct TableOptions {
  std::string partitioning;
  std::string sorted_by;
  std::string location;
  int format_version = 2;
  std::map<std::string, std::string> properties;
};

bool IsOption(std::string_view name, std::string_view a, std::string_view b = {}) {
  return name == a || (!b.empty() && name == b);
}

// WITH (format_version = N): the Iceberg format versions floe writes.
Result<int> ParseFormatVersion(const std::string& text) {
  const std::string v = Trimmed(text);
  if (v != "1" && v != "2" && v != "3") {
    return Status::Invalid("format_version must be 1, 2 or 3, not '{}'", text);
  }
  return v[0] - '0';
}

Result<TableOptions> ReadCreateOptions(const std::vector<sql::Option>& options) {
  TableOptions out;
  std::set<std::string> seen;
  for (const sql::Option& option : options) {
    if (!seen.insert(option.name).second) {
      return Status::Invalid("option \"{}\" is given more than once", option.name);
    }
    if (IsOption(option.name, "partitioning", "partitioned_by")) {
      out.partitioning = option.value;
    } else if (IsOption(option.name, "sorted_by")) {
      out.sorted_by = option.value;
    } else if (IsOption(option.name, "location")) {
      out.location = option.value;
    } else if (IsOption(option.name, "format_version", "format-version")) {
      FLOE_ASSIGN_OR_RAISE(out.format_version, ParseFormatVersion(option.value));
    } else {
      out.properties[option.name] = option.value;
    }
  }
  return out;
}

// A name as SQL needs it written: plain when it is a lower-case identifier, else quoted.
std::string QuoteName(const std::string& name) {
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    plain = plain && (std::islower(u) || std::isdigit(u) || c == '_');
  }
  if (plain && name != "default") return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteString(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// The CREATE TABLE statement that makes a table like this one (columns, NOT NULL, the
// default partitioning and sort order, the format version and the properties).
std::string CreateTableText(const catalog::TableIdentifier& id,
                            const iceberg::TableMetadata& metadata) {
  const iceberg::Schema& schema = *metadata.CurrentSchema();
  std::string out = "CREATE TABLE ";
  for (const std::string& level : id.ns) out += QuoteName(level) + ".";
  out += QuoteName(id.name) + " (";
  // Columns with their declared types (declared_types.h), so the property is not shown.
  const std::vector<std::optional<connector::DeclaredColumn>> declared =
      connector::DeclaredColumns(*schema.columns(), metadata.properties);
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.fields()[static_cast<size_t>(i)];
    if (i > 0) out += ", ";
    out += QuoteName(field.name()) + " " + ColumnTypeName(field, declared[static_cast<size_t>(i)]);
    if (!field.nullable()) out += " NOT NULL";
  }
  out += ")";
  std::vector<std::pair<std::string, std::string>> options;
  iceberg::PartitionSpecPtr spec = metadata.DefaultSpec();
  if (spec && !spec->is_unpartitioned()) {
    options.emplace_back("partitioning", iceberg::PartitionSpecText(*spec, schema));
  }
  iceberg::SortOrderPtr order = metadata.DefaultSortOrder();
  if (order && !order->is_unsorted()) {
    options.emplace_back("sorted_by", iceberg::SortOrderText(*order, schema));
  }
  options.emplace_back("format_version", std::to_string(metadata.format_version));
  // A secret a property holds (an S3 key given as a table property) is never shown.
  for (const auto& [key, value] : io::RedactProperties(metadata.properties)) {
    if (key == connector::kDeclaredTypesProperty) continue;
    options.emplace_back(key, value);
  }
  out += " WITH (";
  for (size_t i = 0; i < options.size(); ++i) {
    if (i > 0) out += ", ";
    const std::string& key = options[i].first;
    out += (key == "partitioning" || key == "sorted_by" || key == "format_version")
               ? key
               : "\"" + key + "\"";
    out += " = " + QuoteString(options[i].second);
  }
  return out + ")";
}

// ---------------------------------------------------------------------------------------
// Creating tables (CREATE TABLE and CREATE TABLE AS)

}  // namespace

Result<std::vector<std::string>> SplitTableName(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    std::string_view part =
        text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) return Status::Invalid("\"{}\" is not a table name (\"db.t\")", text);
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

Result<std::map<std::string, Scalar>> ProcedureArguments(const sql::ParsedExpr& call,
                                                         std::string_view text,
                                                         const std::vector<std::string>& params,
                                                         size_t required) {
  std::map<std::string, Scalar> out;
  const std::string procedure = call.names.empty() ? "" : call.names.back();
  for (size_t i = 0; i < call.args.size(); ++i) {
    std::string name = i < call.arg_names.size() ? call.arg_names[i] : "";
    if (name.empty()) {
      if (i >= params.size()) {
        return Status::Invalid("{} takes at most {} arguments", procedure, params.size());
      }
      name = params[i];
    } else if (std::find(params.begin(), params.end(), name) == params.end()) {
      return Status::Invalid("{} has no argument named \"{}\"", procedure, name);
    }
    if (out.count(name) > 0) {
      return Status::Invalid("{}: argument \"{}\" is given twice", procedure, name);
    }
    FLOE_ASSIGN_OR_RAISE(expr::ExprPtr bound, plan::BindConstantExpr(*call.args[i], text, {}));
    FLOE_ASSIGN_OR_RAISE(Scalar value, expr::EvaluateConstant(bound));
    if (value.is_null()) return Status::Invalid("{}: argument \"{}\" is NULL", procedure, name);
    out.emplace(name, std::move(value));
  }
  for (size_t i = 0; i < required; ++i) {
    if (out.count(params[i]) == 0) {
      return Status::Invalid("{}: argument \"{}\" is missing", procedure, params[i]);
    }
  }
  return out;
}

Result<std::optional<catalog::TableIdentifier>> CreateTableWithColumns(
    catalog::Catalog& catalog, const CatalogNames& names, const std::vector<std::string>& table,
    std::vector<Field> columns, const std::vector<sql::Option>& sql_options, bool if_not_exists,
    bool temporary, std::vector<std::optional<std::string>> declarations) {
  FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id,
                       temporary ? names.ForCreateTemporary(table) : names.ForCreate(table));
  if (columns.empty()) {
    return Status::Invalid("CREATE TABLE {} needs at least one column", id.ToString());
  }
  std::vector<Field> fields;
  std::set<std::string> seen;
  for (Field& column : columns) {
    if (!seen.insert(column.name()).second) {
      return Status::Bind("column \"{}\" specified more than once", column.name());
    }
    fields.emplace_back(column.name(), connector::StoredColumnType(column.type()),
                        column.nullable());
  }
  // Every field, nested ones too (a query's struct, list and map columns), gets a fresh id.
  FLOE_ASSIGN_OR_RAISE(iceberg::SchemaPtr schema,
                       iceberg::Schema::Make(0, iceberg::FreshFieldIds().Fields(fields)));
  FLOE_ASSIGN_OR_RAISE(TableOptions options, ReadCreateOptions(sql_options));
  catalog::CreateTableRequest request;
  request.schema = schema;
  if (!options.partitioning.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.spec,
                         iceberg::ParsePartitionSpecText(options.partitioning, *schema));
  }
  if (!options.sorted_by.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.sort_order,
                         iceberg::ParseSortOrderText(options.sorted_by, *schema));
  }
  request.location = options.location;
  request.format_version = options.format_version;
  request.properties = std::move(options.properties);
  if (declarations.empty()) {
    for (const Field& column : columns) {
      declarations.push_back(connector::DeclarationOf(column.type(), "", {}));
    }
  }
  if (std::optional<std::string> declared = connector::DeclaredTypesValue(declarations, *schema)) {
    request.properties[std::string(connector::kDeclaredTypesProperty)] = std::move(*declared);
  }

  FLOE_ASSIGN_OR_RAISE(bool ns_exists, catalog.NamespaceExists(id.ns));
  if (!ns_exists) {
    // The search path's "default" namespace exists on demand, like Spark's default
    // database; any other schema must be created first.
    if ((table.size() == 1 && id.ns == catalog::Namespace{"default"}) || temporary) {
      Status st = catalog.CreateNamespace(id.ns);
      if (!st.ok() && st.code() != StatusCode::kConstraint) return st;
    } else {
      return Status::NotFound("schema \"{}\" does not exist", catalog::NamespaceToString(id.ns));
    }
  }
  FLOE_ASSIGN_OR_RAISE(bool exists, catalog.TableExists(id));
  if (exists) {
    if (if_not_exists) return std::optional<catalog::TableIdentifier>();
    return Status::Constraint("table \"{}\" already exists", id.ToString());
  }
  auto created = catalog.CreateTable(id, request);
  if (!created.ok()) {
    if (if_not_exists && created.status().code() == StatusCode::kConstraint) {
      return std::optional<catalog::TableIdentifier>();
    }
    return created.status();
  }
  return std::optional<catalog::TableIdentifier>(std::move(id));
}

namespace {

// ---------------------------------------------------------------------------------------
// Statements

class Executor {
 public:
  Executor(catalog::Catalog& catalog, const sql::Statement& statement, std::string_view search_path,
           std::string temp_namespace, std::shared_ptr<const plan::UserTypes> user_types)
      : catalog_(catalog),
        statement_(statement),
        names_(&catalog, search_path, std::move(temp_namespace)),
        user_types_(std::move(user_types)) {}

  Result<CatalogStatementResult> Run() {
    const sql::StatementBody& body = statement_.body;
    if (const auto* s = std::get_if<sql::CreateSchemaStatement>(&body)) return CreateSchema(*s);
    if (const auto* s = std::get_if<sql::CreateTableStatement>(&body)) return CreateTable(*s);
    if (const auto* s = std::get_if<sql::DropStatement>(&body)) return Drop(*s);
    if (const auto* s = std::get_if<sql::AlterTableStatement>(&body)) return AlterTable(*s);
    if (const auto* s = std::get_if<sql::ShowObjectsStatement>(&body)) return Show(*s);
    if (const auto* s = std::get_if<sql::CallStatement>(&body)) return Call(*s);
    return Status::Invalid("not a catalog statement");
  }

 private:
  static CatalogStatementResult Tag(std::string tag) {
    CatalogStatementResult result;
    result.tag = std::move(tag);
    return result;
  }

  Result<CatalogStatementResult> CreateSchema(const sql::CreateSchemaStatement& s) {
    FLOE_ASSIGN_OR_RAISE(catalog::Namespace ns, names_.Schema(s.name));
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_.NamespaceExists(ns));
    if (exists) {
      if (s.if_not_exists) return Tag("CREATE SCHEMA");
      return Status::Constraint("schema \"{}\" already exists", catalog::NamespaceToString(ns));
    }
    Status st = catalog_.CreateNamespace(ns);
    // A concurrent CREATE SCHEMA IF NOT EXISTS may have won the race.
    if (!st.ok() && !(s.if_not_exists && st.code() == StatusCode::kConstraint)) return st;
    return Tag("CREATE SCHEMA");
  }

  Result<CatalogStatementResult> CreateTable(const sql::CreateTableStatement& s) {
    if (s.as_query) return Status::Internal("CREATE TABLE AS runs as a query, not here");
    std::vector<Field> fields;
    std::vector<std::optional<std::string>> declarations;
    std::set<std::string> names;
    for (const sql::ColumnDef& column : s.columns) {
      if (!names.insert(column.name).second) {
        return Status::Bind("column \"{}\" specified more than once", column.name);
      }
      if (column.default_value) {
        return Status::NotSupported("column \"{}\": DEFAULT values are not supported yet",
                                    column.name);
      }
      FLOE_ASSIGN_OR_RAISE(TypePtr type, ColumnType(column.type, statement_.text, user_types_));
      declarations.push_back(
          connector::DeclarationOf(type, column.type.name, column.type.modifiers));
      fields.emplace_back(column.name, std::move(type), !column.not_null);
    }
    FLOE_RETURN_NOT_OK(CreateTableWithColumns(catalog_, names_, s.table, std::move(fields),
                                              s.options, s.if_not_exists, s.temporary,
                                              std::move(declarations))
                           .status());
    return Tag("CREATE TABLE");
  }

  Result<CatalogStatementResult> Drop(const sql::DropStatement& s) {
    switch (s.object) {
      case sql::DropStatement::ObjectKind::kView:
        return Status::NotSupported("views are not supported");
      case sql::DropStatement::ObjectKind::kSchema:
        for (const auto& name : s.names) FLOE_RETURN_NOT_OK(DropSchema(name, s));
        return Tag("DROP SCHEMA");
      case sql::DropStatement::ObjectKind::kType:
      case sql::DropStatement::ObjectKind::kDomain:
        return Status::Internal("DROP TYPE/DOMAIN is the session's, not a catalog statement");
      case sql::DropStatement::ObjectKind::kTable:
        break;
    }
    // Resolve every name first, so a missing table drops nothing (as in PostgreSQL).
    std::vector<catalog::TableIdentifier> ids;
    for (const auto& name : s.names) {
      auto id = names_.Existing(name);
      if (!id.ok()) {
        if (s.if_exists && id.status().code() == StatusCode::kNotFound) continue;
        return id.status();
      }
      ids.push_back(std::move(*id));
    }
    for (const catalog::TableIdentifier& id : ids) {
      // A temporary table's files go with it: nothing else can reach them.
      Status st = catalog_.DropTable(id, s.purge || names_.IsTemporary(id));
      if (!st.ok() && !(s.if_exists && st.code() == StatusCode::kNotFound)) return st;
    }
    return Tag("DROP TABLE");
  }

  Status DropSchema(const std::vector<std::string>& name, const sql::DropStatement& s) {
    FLOE_ASSIGN_OR_RAISE(catalog::Namespace ns, names_.Schema(name));
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_.NamespaceExists(ns));
    if (!exists) {
      if (s.if_exists) return Status::OK();
      return Status::NotFound("schema \"{}\" does not exist", catalog::NamespaceToString(ns));
    }
    if (s.cascade) return DropNamespaceCascade(ns);
    FLOE_ASSIGN_OR_RAISE(auto tables, catalog_.ListTables(ns));
    FLOE_ASSIGN_OR_RAISE(auto children, catalog_.ListNamespaces(ns));
    if (!tables.empty() || !children.empty()) {
      return Status::Constraint(
          "cannot drop schema \"{}\" because it is not empty ({} tables, {} schemas); use "
          "DROP SCHEMA ... CASCADE",
          catalog::NamespaceToString(ns), tables.size(), children.size());
    }
    return catalog_.DropNamespace(ns);
  }

  // Drops the tables (their files stay: CASCADE is not PURGE) and child namespaces first.
  Status DropNamespaceCascade(const catalog::Namespace& ns) {
    FLOE_ASSIGN_OR_RAISE(auto children, catalog_.ListNamespaces(ns));
    for (const catalog::Namespace& child : children)
      FLOE_RETURN_NOT_OK(DropNamespaceCascade(child));
    FLOE_ASSIGN_OR_RAISE(auto tables, catalog_.ListTables(ns));
    for (const catalog::TableIdentifier& id : tables) {
      FLOE_RETURN_NOT_OK(catalog_.DropTable(id, /*purge=*/false));
    }
    return catalog_.DropNamespace(ns);
  }

  // ---- ALTER TABLE

  Result<CatalogStatementResult> AlterTable(const sql::AlterTableStatement& s) {
    auto resolved = names_.Existing(s.table);
    if (!resolved.ok()) {
      if (s.if_exists && resolved.status().code() == StatusCode::kNotFound) {
        return Tag("ALTER TABLE");
      }
      return resolved.status();
    }
    catalog::TableIdentifier id = std::move(*resolved);
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_.LoadTable(id));
    const iceberg::Schema& schema = *table.metadata->CurrentSchema();

    // Commands apply in four commits, in this order: columns, partitioning, sort order,
    // properties; a rename comes last.
    auto schema_update = iceberg::UpdateSchema::Make(catalog_.TableOps(id));
    schema_update->CaseSensitive(false);
    bool schema_changed = false;
    std::optional<std::string> partitioning;
    std::optional<std::string> sorted_by;
    std::map<std::string, std::string> set_properties;
    std::optional<int> format_version;
    std::set<std::string> removed_properties;
    std::optional<std::vector<std::string>> rename_to;
    // Columns added or retyped, with their SQL types (recorded as declared_types.h says).
    std::vector<std::pair<std::string, std::optional<std::string>>> declared;

    using Kind = sql::AlterTableCommand::Kind;
    for (const sql::AlterTableCommand& cmd : s.commands) {
      switch (cmd.kind) {
        case Kind::kAddColumn: {
          FLOE_ASSIGN_OR_RAISE(const Field* existing,
                               schema.FindFieldByName(cmd.column.name, false));
          if (existing != nullptr) {
            if (cmd.if_exists) break;  // ADD COLUMN IF NOT EXISTS
            return Status::Constraint("column \"{}\" of table \"{}\" already exists",
                                      cmd.column.name, id.ToString());
          }
          if (cmd.column.default_value) {
            return Status::NotSupported("column \"{}\": DEFAULT values are not supported yet",
                                        cmd.column.name);
          }
          FLOE_ASSIGN_OR_RAISE(TypePtr type,
                               ColumnType(cmd.column.type, statement_.text, user_types_));
          if (cmd.column.not_null) {
            if (table.metadata->current_snapshot_id.has_value()) {
              return Status::Constraint(
                  "cannot add NOT NULL column \"{}\" to table \"{}\": rows written before have "
                  "no value for it",
                  cmd.column.name, id.ToString());
            }
            schema_update->AllowIncompatibleChanges();
            schema_update->AddRequiredColumn(cmd.column.name, connector::StoredColumnType(type));
          } else {
            schema_update->AddColumn(cmd.column.name, connector::StoredColumnType(type));
          }
          declared.emplace_back(
              cmd.column.name,
              connector::DeclarationOf(type, cmd.column.type.name, cmd.column.type.modifiers));
          schema_changed = true;
          break;
        }
        case Kind::kDropColumn: {
          FLOE_ASSIGN_OR_RAISE(const Field* existing, schema.FindFieldByName(cmd.name, false));
          if (existing == nullptr && cmd.if_exists) break;
          schema_update->DeleteColumn(cmd.name);
          schema_changed = true;
          break;
        }
        case Kind::kRenameColumn:
          schema_update->RenameColumn(cmd.name, cmd.new_name);
          schema_changed = true;
          break;
        case Kind::kAlterColumnType: {
          FLOE_ASSIGN_OR_RAISE(TypePtr type,
                               ColumnType(cmd.column.type, statement_.text, user_types_));
          schema_update->UpdateColumn(cmd.column.name, connector::StoredColumnType(type));
          declared.emplace_back(
              cmd.column.name,
              connector::DeclarationOf(type, cmd.column.type.name, cmd.column.type.modifiers));
          schema_changed = true;
          break;
        }
        case Kind::kDropNotNull:
          schema_update->MakeColumnOptional(cmd.name);
          schema_changed = true;
          break;
        case Kind::kSetNotNull:
          return Status::NotSupported(
              "ALTER COLUMN \"{}\" SET NOT NULL: Iceberg cannot make an optional column required",
              cmd.name);
        case Kind::kSetOptions:
          for (const sql::Option& option : cmd.options) {
            if (IsOption(option.name, "partitioning", "partitioned_by")) {
              partitioning = option.value;
            } else if (IsOption(option.name, "sorted_by")) {
              sorted_by = option.value;
            } else if (IsOption(option.name, "format_version", "format-version")) {
              FLOE_ASSIGN_OR_RAISE(int version, ParseFormatVersion(option.value));
              format_version = version;
            } else if (IsOption(option.name, "location")) {
              return Status::NotSupported("ALTER TABLE cannot change \"{}\"", option.name);
            } else {
              set_properties[option.name] = option.value;
              removed_properties.erase(option.name);
            }
          }
          break;
        case Kind::kResetOptions:
          for (const sql::Option& option : cmd.options) {
            if (IsOption(option.name, "partitioning", "partitioned_by")) {
              partitioning = "";
            } else if (IsOption(option.name, "sorted_by")) {
              sorted_by = "";
            } else if (IsOption(option.name, "format_version", "format-version") ||
                       IsOption(option.name, "location")) {
              return Status::NotSupported("ALTER TABLE cannot reset \"{}\"", option.name);
            } else {
              removed_properties.insert(option.name);
              set_properties.erase(option.name);
            }
          }
          break;
        case Kind::kRenameTable:
          rename_to = cmd.new_table;
          break;
      }
    }

    if (schema_changed) FLOE_RETURN_NOT_OK(schema_update->Commit().status());
    if (!declared.empty()) {
      // The columns' field ids are known once the schema is committed.
      FLOE_ASSIGN_OR_RAISE(iceberg::Table updated, catalog_.LoadTable(id));
      std::map<std::string, std::string> properties = updated.metadata->properties;
      const std::string key(connector::kDeclaredTypesProperty);
      const std::optional<std::string> before =
          properties.count(key) > 0 ? std::optional<std::string>(properties[key]) : std::nullopt;
      for (const auto& [name, declaration] : declared) {
        FLOE_ASSIGN_OR_RAISE(const Field* field,
                             updated.metadata->CurrentSchema()->FindFieldByName(name, false));
        if (field != nullptr) {
          properties =
              connector::WithDeclaration(std::move(properties), field->field_id(), declaration);
        }
      }
      const std::optional<std::string> after =
          properties.count(key) > 0 ? std::optional<std::string>(properties[key]) : std::nullopt;
      if (after != before && set_properties.count(key) == 0 && removed_properties.count(key) == 0) {
        if (after.has_value()) {
          set_properties[key] = *after;
        } else {
          removed_properties.insert(key);
        }
      }
    }
    if (format_version.has_value() && *format_version != table.metadata->format_version) {
      if (*format_version < table.metadata->format_version) {
        return Status::Invalid("table {} is format version {}: it cannot go back to {}",
                               id.ToString(), table.metadata->format_version, *format_version);
      }
      FLOE_RETURN_NOT_OK(
          iceberg::UpgradeFormatVersion(catalog_.TableOps(id), *format_version).status());
    }
    if (partitioning.has_value()) FLOE_RETURN_NOT_OK(ReplacePartitioning(id, *partitioning));
    if (sorted_by.has_value()) FLOE_RETURN_NOT_OK(ReplaceSortOrder(id, *sorted_by));
    if (!set_properties.empty() || !removed_properties.empty()) {
      auto update = iceberg::UpdateProperties::Make(catalog_.TableOps(id));
      for (const auto& [key, value] : set_properties) update->Set(key, value);
      for (const std::string& key : removed_properties) {
        if (table.metadata->properties.count(key) > 0) update->Remove(key);
      }
      FLOE_RETURN_NOT_OK(update->Commit().status());
    }
    if (rename_to.has_value()) {
      // A one-part new name stays in the table's namespace (PostgreSQL's RENAME TO).
      catalog::TableIdentifier to;
      if (rename_to->size() == 1) {
        to = catalog::TableIdentifier{id.ns, (*rename_to)[0]};
      } else {
        FLOE_ASSIGN_OR_RAISE(to, names_.ForCreate(*rename_to));
      }
      FLOE_RETURN_NOT_OK(catalog_.RenameTable(id, to));
    }
    return Tag("ALTER TABLE");
  }

  // Evolves the default spec to the one `text` describes: fields that are no longer wanted
  // are removed, new ones added (a field coming back keeps its old id). A field the text does
  // not name with AS gets the name evolution gives it (UpdatePartitionSpec: `id_bucket_16`,
  // as the reference implementation names added fields), never a new table's `id_bucket`,
  // which an older spec's field may hold: readers index all specs' fields by name.
  Status ReplacePartitioning(const catalog::TableIdentifier& id, const std::string& text) {
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_.LoadTable(id));
    const iceberg::Schema& schema = *table.metadata->CurrentSchema();
    FLOE_ASSIGN_OR_RAISE(iceberg::PartitionSpecPtr wanted,
                         iceberg::ParsePartitionSpecText(text, schema));
    iceberg::PartitionSpecPtr current = table.metadata->DefaultSpec();
    auto same = [](const iceberg::PartitionField& a, const iceberg::PartitionField& b) {
      return a.source_id == b.source_id && a.transform == b.transform;
    };
    // The name `text` gives a field, or "" for the default one.
    auto chosen_name = [&](const iceberg::PartitionField& f) -> std::string {
      std::optional<std::string> column = schema.FindColumnName(f.source_id);
      if (column && f.name == iceberg::DefaultPartitionFieldName(
                                  f.transform, *column, iceberg::PartitionNaming::kNewTable)) {
        return "";
      }
      return f.name;
    };
    auto update = iceberg::UpdatePartitionSpec::Make(catalog_.TableOps(id));
    bool changed = false;
    for (const iceberg::PartitionField& field : current->fields()) {
      bool kept = std::any_of(wanted->fields().begin(), wanted->fields().end(),
                              [&](const auto& w) { return same(field, w); });
      if (!kept) {
        update->RemoveField(field.name);
        changed = true;
      }
    }
    for (const iceberg::PartitionField& field : wanted->fields()) {
      auto old = std::find_if(current->fields().begin(), current->fields().end(),
                              [&](const auto& c) { return same(field, c); });
      if (old != current->fields().end()) {
        const std::string name = chosen_name(field);
        if (!name.empty() && old->name != name) {
          update->RenameField(old->name, name);
          changed = true;
        }
        continue;
      }
      std::optional<std::string> source = schema.FindColumnName(field.source_id);
      if (!source.has_value())
        return Status::Internal("partition source {} vanished", field.source_id);
      update->AddField(*source, field.transform, chosen_name(field));
      changed = true;
    }
    if (!changed) return Status::OK();
    return update->Commit().status();
  }

  Status ReplaceSortOrder(const catalog::TableIdentifier& id, const std::string& text) {
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_.LoadTable(id));
    const iceberg::Schema& schema = *table.metadata->CurrentSchema();
    FLOE_ASSIGN_OR_RAISE(iceberg::SortOrderPtr wanted, iceberg::ParseSortOrderText(text, schema));
    auto update = iceberg::ReplaceSortOrder::Make(catalog_.TableOps(id));
    for (const iceberg::SortField& field : wanted->fields()) {
      std::optional<std::string> source = schema.FindColumnName(field.source_id);
      if (!source.has_value()) return Status::Internal("sort source {} vanished", field.source_id);
      if (field.direction == iceberg::SortDirection::kAsc) {
        update->Asc(*source, field.null_order, field.transform);
      } else {
        update->Desc(*source, field.null_order, field.transform);
      }
    }
    return update->Commit().status();
  }

  // ---- CALL procedures

  // The procedure's arguments by name: positional ones take the names in `params` order.
  Result<std::map<std::string, Scalar>> CallArguments(const sql::ParsedExpr& call,
                                                      const std::vector<std::string>& params,
                                                      size_t required) {
    return ProcedureArguments(call, statement_.text, params, required);
  }

  static Result<std::string> TextArgument(const std::map<std::string, Scalar>& args,
                                          const std::string& name) {
    const Scalar& value = args.at(name);
    if (value.type()->id() != TypeId::kString) {
      return Status::Invalid("argument \"{}\" must be text", name);
    }
    return value.get<std::string>();
  }

  Result<CatalogStatementResult> Call(const sql::CallStatement& s) {
    const sql::ParsedExpr& call = *s.call;
    const std::string procedure = call.names.empty() ? "" : call.names.back();
    if (procedure == "register_table") {
      // register_table(table, metadata_file) (named as in Spark): names an existing metadata file
      // under a new table name; nothing is written but the catalog entry.
      FLOE_ASSIGN_OR_RAISE(auto args, CallArguments(call, {"table", "metadata_file"}, 2));
      FLOE_ASSIGN_OR_RAISE(std::string table, TextArgument(args, "table"));
      FLOE_ASSIGN_OR_RAISE(std::string location, TextArgument(args, "metadata_file"));
      FLOE_ASSIGN_OR_RAISE(std::vector<std::string> parts, SplitTableName(table));
      FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names_.ForCreate(parts));
      FLOE_ASSIGN_OR_RAISE(bool ns_exists, catalog_.NamespaceExists(id.ns));
      if (!ns_exists) {
        return Status::NotFound("schema \"{}\" does not exist", catalog::NamespaceToString(id.ns));
      }
      FLOE_RETURN_NOT_OK(catalog_.RegisterTable(id, location).status());
      return Tag("CALL");
    }
    return Status::NotFound("procedure \"{}\" does not exist", procedure);
  }

  // ---- SHOW and DESCRIBE

  Result<CatalogStatementResult> Show(const sql::ShowObjectsStatement& s) {
    CatalogStatementResult result;
    switch (s.kind) {
      case sql::ShowObjectsStatement::Kind::kSchemas: {
        result.tag = "SHOW SCHEMAS";
        result.columns = {"schema_name"};
        std::vector<catalog::Namespace> all;
        FLOE_RETURN_NOT_OK(CollectNamespaces({}, &all));
        for (const auto& ns : all) result.rows.push_back({catalog::NamespaceToString(ns)});
        return result;
      }
      case sql::ShowObjectsStatement::Kind::kTables: {
        result.tag = "SHOW TABLES";
        result.columns = {"schema_name", "table_name"};
        std::vector<catalog::Namespace> spaces;
        if (s.name.empty()) {
          FLOE_RETURN_NOT_OK(CollectNamespaces({}, &spaces));
        } else {
          FLOE_ASSIGN_OR_RAISE(catalog::Namespace ns, names_.Schema(s.name));
          FLOE_ASSIGN_OR_RAISE(bool exists, catalog_.NamespaceExists(ns));
          if (!exists) {
            return Status::NotFound("schema \"{}\" does not exist", catalog::NamespaceToString(ns));
          }
          spaces.push_back(std::move(ns));
        }
        for (const auto& ns : spaces) {
          FLOE_ASSIGN_OR_RAISE(auto tables, catalog_.ListTables(ns));
          for (const auto& id : tables) {
            result.rows.push_back({catalog::NamespaceToString(id.ns), id.name});
          }
        }
        return result;
      }
      case sql::ShowObjectsStatement::Kind::kDescribe:
      case sql::ShowObjectsStatement::Kind::kCreateTable:
        break;
    }
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names_.Existing(s.name));
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_.LoadTable(id));
    const iceberg::Schema& schema = *table.metadata->CurrentSchema();
    if (s.kind == sql::ShowObjectsStatement::Kind::kCreateTable) {
      result.tag = "SHOW CREATE TABLE";
      result.columns = {"create_statement"};
      result.rows.push_back({CreateTableText(id, *table.metadata)});
      return result;
    }
    result.tag = "DESCRIBE";
    result.columns = {"column_name", "data_type", "nullable"};
    const std::vector<std::optional<connector::DeclaredColumn>> declared =
        connector::DeclaredColumns(*schema.columns(), table.metadata->properties);
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      const Field& field = schema.fields()[i];
      result.rows.push_back(
          {field.name(), ColumnTypeName(field, declared[i]), NullableText(field.nullable())});
    }
    return result;
  }

  // Every namespace under `parent`, depth first, sorted at each level.
  Status CollectNamespaces(const catalog::Namespace& parent, std::vector<catalog::Namespace>* out) {
    FLOE_ASSIGN_OR_RAISE(auto children, catalog_.ListNamespaces(parent));
    for (const catalog::Namespace& child : children) {
      out->push_back(child);
      FLOE_RETURN_NOT_OK(CollectNamespaces(child, out));
    }
    return Status::OK();
  }

  catalog::Catalog& catalog_;
  const sql::Statement& statement_;
  CatalogNames names_;
  std::shared_ptr<const plan::UserTypes> user_types_;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Names

CatalogNames::CatalogNames(catalog::Catalog* catalog, std::string_view search_path,
                           std::string temp_namespace)
    : catalog_(catalog), temp_namespace_(std::move(temp_namespace)) {
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t comma = search_path.find(',', start);
    if (comma == std::string_view::npos) comma = search_path.size();
    std::string entry = Trimmed(search_path.substr(start, comma - start));
    if (entry.size() >= 2 && entry.front() == '"' && entry.back() == '"') {
      entry = entry.substr(1, entry.size() - 2);
    }
    if (!entry.empty()) search_path_.push_back(std::move(entry));
    start = comma + 1;
  }
}

Result<std::vector<std::string>> CatalogNames::StripCatalog(const std::vector<std::string>& parts,
                                                            size_t max_unqualified) const {
  if (parts.empty()) return Status::Invalid("empty name");
  if (parts.size() <= max_unqualified) return parts;
  if (parts.size() == max_unqualified + 1) {
    if (parts[0] != catalog_->name()) {
      return Status::NotFound("catalog \"{}\" does not exist (this session's catalog is \"{}\")",
                              parts[0], catalog_->name());
    }
    return std::vector<std::string>(parts.begin() + 1, parts.end());
  }
  return Status::Invalid("improper qualified name (too many dotted names): {}", Joined(parts));
}

Result<catalog::TableIdentifier> CatalogNames::ForCreate(
    const std::vector<std::string>& parts) const {
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> name, StripCatalog(parts, 2));
  if (name.size() == 2) return catalog::TableIdentifier{{name[0]}, name[1]};
  if (search_path_.empty()) {
    return Status::Invalid("no schema has been selected to create \"{}\" in (SET search_path)",
                           name[0]);
  }
  return catalog::TableIdentifier{{search_path_[0]}, name[0]};
}

Result<catalog::TableIdentifier> CatalogNames::ForCreateTemporary(
    const std::vector<std::string>& parts) const {
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> name, StripCatalog(parts, 2));
  if (temp_namespace_.empty()) return Status::Internal("the session has no temporary namespace");
  if (name.size() == 2 && name[0] != "pg_temp" && name[0] != temp_namespace_) {
    return Status::Invalid("cannot create temporary relation in non-temporary schema");
  }
  return catalog::TableIdentifier{{temp_namespace_}, name.back()};
}

Result<std::string> CatalogNames::SchemaName(const std::string& name) const {
  if (name != "pg_temp") return name;
  if (temp_namespace_.empty()) return Status::NotFound("schema \"pg_temp\" does not exist");
  return temp_namespace_;
}

bool CatalogNames::IsTemporary(const catalog::TableIdentifier& id) const {
  return !temp_namespace_.empty() && id.ns == catalog::Namespace{temp_namespace_};
}

Result<catalog::TableIdentifier> CatalogNames::Existing(
    const std::vector<std::string>& parts) const {
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> name, StripCatalog(parts, 2));
  if (name.size() == 2) {
    if (name[0] == "pg_temp" && temp_namespace_.empty()) {
      return Status::NotFound("table \"{}\" does not exist", Joined(parts));
    }
    FLOE_ASSIGN_OR_RAISE(std::string schema, SchemaName(name[0]));
    catalog::TableIdentifier id{{std::move(schema)}, name[1]};
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(id));
    if (!exists) return Status::NotFound("table \"{}\" does not exist", Joined(parts));
    return id;
  }
  // The temporary namespace comes first, as pg_temp does in PostgreSQL's search path.
  if (!temp_namespace_.empty()) {
    catalog::TableIdentifier id{{temp_namespace_}, name[0]};
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(id));
    if (exists) return id;
  }
  for (const std::string& ns : search_path_) {
    catalog::TableIdentifier id{{ns}, name[0]};
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(id));
    if (exists) return id;
  }
  return Status::NotFound("table \"{}\" does not exist", name[0]);
}

Result<catalog::Namespace> CatalogNames::Schema(const std::vector<std::string>& parts) const {
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> name, StripCatalog(parts, 1));
  return catalog::Namespace{name[0]};
}

Result<CatalogStatementResult> ExecuteCatalogStatement(
    catalog::Catalog& catalog, const sql::Statement& statement, std::string_view search_path,
    std::string temp_namespace, std::shared_ptr<const plan::UserTypes> user_types) {
  return Executor(catalog, statement, search_path, std::move(temp_namespace), std::move(user_types))
      .Run();
}

}  // namespace floe::session
