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

/// Composite types by name (CREATE TYPE name AS (...)): a session's own, as structs whose
/// fields are the type's attributes. The binder resolves a type name that names no built-in
/// type here.
using CompositeTypes = std::map<std::string, TypePtr>;

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
  /// The session's composite types; null when it has none.
  std::shared_ptr<const CompositeTypes> composite_types;
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
/// type of `composite_types`, ...); kBind naming the type and its position in `text` for
/// unknown names or bad modifiers.
Result<TypePtr> BindType(const sql::TypeName& type, std::string_view text,
                         std::shared_ptr<const CompositeTypes> composite_types = nullptr);

/// PostgreSQL's name of a type ("integer", "text", "numeric(10,2)").
std::string TypeNameOf(const DataType& type);

}  // namespace floe::plan
