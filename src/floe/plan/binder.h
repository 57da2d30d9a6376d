#pragma once

// The binder: resolves names and types of a parsed query and builds its logical plan.
// Name resolution is query-scoped: every table named in a statement is resolved once
// through the resolver, and two references to one table in one statement share that
// resolution (same TableSource, same version).

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/plan/logical_plan.h"
#include "floe/sql/ast.h"

namespace floe::plan {

/// A named argument of a table function call: iceberg_scan('t', snapshot_id => 4).
struct TableFunctionArg {
  std::string name;  // "" for positional
  Scalar value;      // arguments must be constants
};

/// Where the binder finds relations. Implemented by the session (session/session_resolver.h).
class RelationResolver {
 public:
  virtual ~RelationResolver() = default;
  /// A table or view by its name parts as written (["t"], ["db", "t"], ["cat", "db", "t"]).
  /// kNotFound "table \"db.t\" does not exist" when absent.
  virtual Result<TableSourcePtr> ResolveTable(const std::vector<std::string>& name) = 0;
  /// A table function in FROM (read_parquet, generate_series, ...). kNotFound when the
  /// function is unknown; kInvalidArgument naming the argument when one is wrong.
  virtual Result<TableSourcePtr> ResolveTableFunction(
      const std::string& name, const std::vector<TableFunctionArg>& args) = 0;
};

/// A session's own types by name: composite types (CREATE TYPE name AS (...)), structs whose
/// fields are the type's attributes, and domains (CREATE DOMAIN), a base type with NOT NULL
/// and CHECK constraints. The binder resolves a type name that names no built-in type here.
struct UserTypes {
  struct Composite {
    TypePtr type;                            // a struct of the attributes
    std::vector<sql::TypeName> field_types;  // each attribute's type as declared
  };
  struct Domain {
    /// The base type's type. A domain over a composite type has a struct of its own (equal
    /// to the base's, not the same object) so that the binder tells a record of the domain
    /// from one of its base type (UserTypes::NameOf).
    TypePtr type;
    sql::TypeName base;  // as declared (another domain, char(n), ...)
    bool not_null = false;
    struct Check {
      std::string name;         // the constraint's name (<domain>_check by default)
      expr::ExprPtr predicate;  // bound over column 0, the value
    };
    std::vector<Check> checks;
  };
  std::map<std::string, Composite> composites;
  std::map<std::string, Domain> domains;

  /// The user type whose type is this very object (a composite's struct, a domain's own
  /// struct), or "".
  std::string NameOf(const DataType* type) const;
};

struct BindOptions {
  /// now(), current_timestamp and current_date are this instant for the whole statement
  /// (microseconds since the epoch, UTC).
  int64_t statement_time_micros = 0;
  /// The session's time zone for timestamptz text forms and date_trunc ("UTC").
  std::string time_zone = "UTC";
  /// INSERT ... VALUES: the target column of each VALUES position (nullptr where unknown).
  /// An untyped literal there takes its column's type before the VALUES list's common
  /// type is found, as in PostgreSQL (VALUES (0.5), ('NaN') into a double column).
  std::vector<TypePtr> insert_value_types;
  /// The session's composite types and domains; null when it has none.
  std::shared_ptr<const UserTypes> user_types;
};

/// Binds a query (SELECT, VALUES, set operations) into a logical plan whose output
/// schema has the query's column names. `text` is the statement's text, used to place
/// errors: kBind "column \"x\" does not exist (line 1, column 8)", kBind for type errors
/// ("operator does not exist: text + integer (line 1, column 10)"), kNotFound for
/// unknown tables and functions, kNotSupported for what floe does not handle yet.
Result<LogicalPlanPtr> BindQuery(const sql::SelectStmt& query, std::string_view text,
                                 RelationResolver& resolver, const BindOptions& options);

/// Binds a standalone constant expression (SET values, table-function arguments, LIMIT).
Result<expr::ExprPtr> BindConstantExpr(const sql::ParsedExpr& expr, std::string_view text,
                                       const BindOptions& options);

/// The type a SQL type name denotes (`integer`, `numeric(10, 2)`, `timestamptz`, a composite
/// type or domain of `user_types` (its base type), ...); kBind naming the type and its
/// position in `text` for unknown names or bad modifiers.
Result<TypePtr> BindType(const sql::TypeName& type, std::string_view text,
                         std::shared_ptr<const UserTypes> user_types = nullptr);

/// Whether values of the type `type` names need more than a cast to it: a length (char(n),
/// varchar(n), also as array elements), a domain's constraints, or a composite type with an
/// attribute that needs them. A table column of such a type is not supported (its rules
/// would not be kept with the table).
bool HasTypeRules(const sql::TypeName& type, const UserTypes* user_types);

/// A domain's CHECK expression bound with VALUE as column 0 of type `value_type`: a boolean
/// expression. kBind placing errors in `text` (the CREATE DOMAIN statement).
Result<expr::ExprPtr> BindDomainCheck(const sql::ParsedExpr& check, const TypePtr& value_type,
                                      std::string_view text, const BindOptions& options);

/// PostgreSQL's name of a type ("integer", "text", "numeric(10,2)").
std::string TypeNameOf(const DataType& type);

}  // namespace floe::plan
