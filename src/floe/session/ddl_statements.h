#pragma once

// SQL statements that act on a catalog rather than on rows: CREATE/DROP SCHEMA,
// CREATE/DROP TABLE, ALTER TABLE, SHOW SCHEMAS/TABLES, DESCRIBE; and how SQL names map to
// a catalog's namespaces and tables. The session (session.cc) calls these; each
// statement reads the catalog fresh and commits through it, on the calling thread.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/plan/binder.h"
#include "floe/sql/ast.h"

namespace floe::session {

/// What a catalog statement returns: PostgreSQL's command tag, and for SHOW and DESCRIBE
/// text rows under `columns`.
struct CatalogStatementResult {
  std::string tag;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

/// How SQL names map onto one catalog: `table`, `namespace.table` or
/// `catalog.namespace.table`; an unqualified name looks in the search path's namespaces in
/// order (a new table goes to the first). A session's temporary tables live in a namespace
/// of its own (`temp_namespace`, empty when it has none), searched before the search path
/// as PostgreSQL searches pg_temp, and also named `pg_temp`.
class CatalogNames {
 public:
  /// `search_path` is the session setting's text ("default", "a, b").
  CatalogNames(catalog::Catalog* catalog, std::string_view search_path,
               std::string temp_namespace = {});

  /// The table a name denotes for reading or altering: for an unqualified name, the first
  /// search-path namespace that holds it (kNotFound naming the table when none does).
  Result<catalog::TableIdentifier> Existing(const std::vector<std::string>& parts) const;
  /// The identifier a new table of this name gets (unqualified: the first search-path
  /// namespace; kInvalidArgument when the search path is empty).
  Result<catalog::TableIdentifier> ForCreate(const std::vector<std::string>& parts) const;
  /// The identifier a new temporary table gets: `t` or `pg_temp.t` in the temporary
  /// namespace (kInvalidArgument for another schema, as PostgreSQL).
  Result<catalog::TableIdentifier> ForCreateTemporary(const std::vector<std::string>& parts) const;
  /// A schema (namespace) name: `ns` or `catalog.ns`.
  Result<catalog::Namespace> Schema(const std::vector<std::string>& parts) const;
  /// Whether `id` is one of the session's temporary tables.
  bool IsTemporary(const catalog::TableIdentifier& id) const;

  const std::vector<std::string>& search_path() const { return search_path_; }

 private:
  Result<std::vector<std::string>> StripCatalog(const std::vector<std::string>& parts,
                                                size_t max_unqualified) const;

  // `pg_temp` as the session's temporary namespace (kNotFound naming it when there is none).
  Result<std::string> SchemaName(const std::string& name) const;

  catalog::Catalog* catalog_;
  std::vector<std::string> search_path_;
  std::string temp_namespace_;
};

/// The parts of a dotted table name given as text ("db.t" -> {"db", "t"}; "t"; "cat.db.t").
/// kInvalidArgument quoting the text when a part is empty ("db..t", ".t").
Result<std::vector<std::string>> SplitTableName(std::string_view text);

/// The arguments of a CALL of `procedure(params...)` by name: positional arguments take
/// `params` in order, named ones (`name => value`) their name; the first `required` must be
/// given. Every argument is a constant (bound and evaluated; `text` is the statement's text
/// for error positions). kInvalidArgument naming the procedure and the argument otherwise
/// (too many, unknown name, given twice, NULL, missing).
Result<std::map<std::string, Scalar>> ProcedureArguments(const sql::ParsedExpr& call,
                                                         std::string_view text,
                                                         const std::vector<std::string>& params,
                                                         size_t required);

/// Creates table `table` (a SQL name) with `columns` (field ids assigned in order; 8- and
/// 16-bit integers widen to integer) and CREATE TABLE's WITH options (partitioning,
/// sorted_by, format_version, location, table properties). The search path's "default"
/// schema and the temporary namespace are created on demand; with `temporary` the table
/// goes to the temporary namespace. Returns the new table, or nullopt when it exists and
/// `if_not_exists` (kConstraint otherwise). `declarations` are the columns' declared types
/// Iceberg cannot hold (connector/iceberg/declared_types.h; empty: from the columns' types).
Result<std::optional<catalog::TableIdentifier>> CreateTableWithColumns(
    catalog::Catalog& catalog, const CatalogNames& names, const std::vector<std::string>& table,
    std::vector<Field> columns, const std::vector<sql::Option>& options, bool if_not_exists,
    bool temporary = false, std::vector<std::optional<std::string>> declarations = {});

/// Runs one catalog statement (CreateSchemaStatement, CreateTableStatement without AS,
/// DropStatement, AlterTableStatement, ShowObjectsStatement, and CallStatement for the
/// procedure register_table(table, metadata_file)). `text` is the statement's
/// text, for error positions. Errors name the object: kNotFound for a missing schema or
/// table, kConstraint for one that already exists or a schema that is not empty,
/// kInvalidArgument for bad options, kNotSupported for what Iceberg cannot do.
/// `temp_namespace` is the session's temporary namespace (CatalogNames); DROP TABLE of a
/// temporary table removes its files too. Column types may name the session's
/// `user_types` (struct columns).
Result<CatalogStatementResult> ExecuteCatalogStatement(
    catalog::Catalog& catalog, const sql::Statement& statement, std::string_view search_path,
    std::string temp_namespace = {}, std::shared_ptr<const plan::UserTypes> user_types = nullptr);

}  // namespace floe::session
