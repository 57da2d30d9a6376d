#pragma once

// floe's SQL syntax tree: what the parser adapter (parser.h) builds from libpg_query's
// parse tree and what the binder (plan/binder.h) reads. Nothing here knows pg_query's
// types. Names are as written after PostgreSQL's case folding (unquoted identifiers are
// lower-cased by the grammar; quoted ones keep their case). Every node carries the byte
// offset of its first character in the statement text (-1 when unknown), so that errors
// can point at it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace floe::sql {

struct ParsedExpr;
struct SelectStmt;
struct TableRef;
using ParsedExprPtr = std::shared_ptr<ParsedExpr>;
using SelectStmtPtr = std::shared_ptr<SelectStmt>;
using TableRefPtr = std::shared_ptr<TableRef>;

/// A type as written: `name` is PostgreSQL's internal spelling with any "pg_catalog."
/// prefix removed ("int4", "int8", "numeric", "varchar", "bpchar", "text", "bool",
/// "float4", "float8", "date", "time", "timestamp", "timestamptz", "interval", "bytea",
/// "uuid", ...); `modifiers` are the typmods (numeric(15, 2) -> {15, 2}; for interval the
/// field mask pg_query reports); `array_bounds` counts trailing [].
struct TypeName {
  std::string name;
  std::vector<int64_t> modifiers;
  int array_bounds = 0;
  int location = -1;
};

/// A literal constant. Integers that fit int64 are kInteger; every other numeric
/// literal (1.5, 1e10, 99999999999999999999) is kNumeric with its text as written.
struct Constant {
  enum class Kind { kNull, kInteger, kNumeric, kString, kBoolean };
  Kind kind = Kind::kNull;
  int64_t integer = 0;
  std::string text;  // kNumeric and kString
  bool boolean = false;
};

/// One ORDER BY item (also used inside window definitions and aggregate calls).
struct SortItem {
  ParsedExprPtr expr;
  bool descending = false;
  /// Unset when not written: PostgreSQL's default is NULLS LAST for ASC, FIRST for DESC.
  std::optional<bool> nulls_first;
  int location = -1;
};

/// A window frame bound.
struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kUnboundedPreceding;
  ParsedExprPtr offset;  // kPreceding / kFollowing
};

struct WindowFrame {
  enum class Mode { kRange, kRows, kGroups };
  Mode mode = Mode::kRange;
  FrameBound start{FrameBound::Kind::kUnboundedPreceding, nullptr};
  FrameBound end{FrameBound::Kind::kCurrentRow, nullptr};
  /// False when the query wrote no frame clause (the default frame applies).
  bool explicit_frame = false;
};

/// OVER (...) or WINDOW name AS (...).
struct WindowDef {
  std::string name;      // for WINDOW w AS (...), and OVER w (no other member set); empty inline
  std::string ref_name;  // OVER w, or OVER (w ORDER BY ...)
  std::vector<ParsedExprPtr> partition_by;
  std::vector<SortItem> order_by;
  WindowFrame frame;
  int location = -1;
};

enum class ExprKind {
  kColumnRef,       // names: ["a"], ["t", "a"], ["db", "t", "a"]
  kStar,            // names: qualifier parts ([] for *, ["t"] for t.*); or, with args[0],
                    // (args[0]).*: every field of a composite value
  kConstant,        // constant
  kParam,           // $N (param_index)
  kCast,            // args[0]::type, CAST(args[0] AS type), and typed literals (DATE '...')
  kUnaryOp,         // op ("-", "+", "~") args[0]
  kBinaryOp,        // args[0] op args[1]: arithmetic, comparison, "||", "~" (regex), ...
  kAnd,             // args (two or more)
  kOr,              // args (two or more)
  kNot,             // args[0]
  kIsNull,          // args[0] IS NULL (negated: IS NOT NULL)
  kIsBool,          // args[0] IS [NOT] TRUE/FALSE/UNKNOWN: bool_test = "true"|"false"|"unknown"
  kIsDistinctFrom,  // args[0] IS DISTINCT FROM args[1] (negated: IS NOT DISTINCT FROM)
  kBetween,         // args[0] [NOT] BETWEEN [SYMMETRIC] args[1] AND args[2]
  kInList,          // args[0] [NOT] IN (args[1..])
  kLike,            // args[0] [NOT] LIKE|ILIKE args[1] [ESCAPE args[2]]; case_insensitive
  kSimilar,         // args[0] [NOT] SIMILAR TO args[1] [ESCAPE args[2]]
  kCase,      // [args[0] = operand or null] WHEN when_then[i].first THEN .second ELSE else_expr
  kCoalesce,  // COALESCE(args...)
  kNullIf,    // NULLIF(args[0], args[1])
  kGreatest,  // GREATEST(args...)
  kLeast,     // LEAST(args...)
  kFunction,  // names(args...) with the aggregate / window decorations below
  kScalarSubquery,  // (subquery)
  kExists,          // [NOT] EXISTS (subquery)
  kInSubquery,      // args[0] [NOT] IN (subquery)
  kQuantified,      // args[0] op ANY|ALL (subquery): op, all; without a subquery,
                    // args[0] op ANY|ALL (args[1]) over an array expression
  kArray,           // ARRAY[args...], or ARRAY(subquery) when subquery is set
  kSubscript,       // args[0][args[1]], or with `slice` args[0][args[1]:args[2]] (a bound
                    // left out is a null arg)
  kFieldSelect,     // (args[0]).names[0]: a field of a composite value
  kRow,             // ROW(args...) or (a, b)
  kCurrentValue,    // CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, ...: value_function
  kTypedInterval,   // never produced; intervals arrive as kCast to "interval"
};

/// An expression as written. One struct for every kind; each kind uses the members its
/// comment in ExprKind names.
struct ParsedExpr {
  ExprKind kind = ExprKind::kConstant;
  int location = -1;

  std::vector<std::string> names;  // kColumnRef, kStar, kFunction (schema-qualified parts)
  Constant constant;               // kConstant
  int param_index = 0;             // kParam
  TypeName type;                   // kCast
  std::string op;                  // kUnaryOp, kBinaryOp, kQuantified: "=", "<>", "+", ...
  std::vector<ParsedExprPtr> args;
  bool negated = false;           // IS NOT NULL, NOT BETWEEN, NOT IN, NOT LIKE, NOT EXISTS,
                                  // IS NOT DISTINCT FROM, IS NOT TRUE
  bool symmetric = false;         // BETWEEN SYMMETRIC
  bool case_insensitive = false;  // ILIKE
  bool all = false;               // kQuantified: ALL (false: ANY/SOME)
  bool slice = false;             // kSubscript: a[lower:upper]
  std::string bool_test;          // kIsBool
  std::string value_function;     // kCurrentValue: "current_date", "current_timestamp",
                                  // "current_time", "localtimestamp", "localtime"

  // kCase
  std::vector<std::pair<ParsedExprPtr, ParsedExprPtr>> when_then;
  ParsedExprPtr else_expr;

  // kFunction
  std::vector<std::string> arg_names;  // parallel to args; "" for positional (name => value)
  bool agg_star = false;               // count(*)
  bool agg_distinct = false;           // count(DISTINCT x)
  std::vector<SortItem> agg_order_by;  // string_agg(x, ',' ORDER BY y)
  bool agg_within_group = false;       // percentile_cont(0.5) WITHIN GROUP (ORDER BY x): the
                                       // ORDER BY is in agg_order_by
  ParsedExprPtr agg_filter;            // FILTER (WHERE ...)
  std::shared_ptr<WindowDef> over;     // OVER (...) / OVER w
  bool func_variadic = false;          // f(..., VARIADIC array): the last argument

  // kScalarSubquery, kExists, kInSubquery, kQuantified, kArray (ARRAY(subquery))
  SelectStmtPtr subquery;
};

/// One item of a SELECT list: an expression with an optional alias.
struct SelectItem {
  ParsedExprPtr expr;
  std::string alias;  // empty when none was written
  int location = -1;
};

struct CommonTableExpr {
  std::string name;
  std::vector<std::string> column_names;
  SelectStmtPtr query;
  bool materialized = false;
  int location = -1;
};

struct WithClause {
  bool recursive = false;
  std::vector<CommonTableExpr> ctes;
};

/// A query expression: a plain SELECT, a VALUES list, or a set operation of queries, with
/// its WITH, ORDER BY, LIMIT and OFFSET.
struct SelectStmt {
  enum class SetOp { kNone, kUnion, kIntersect, kExcept };
  SetOp set_op = SetOp::kNone;
  bool set_all = false;  // UNION ALL, ...
  /// A set operation's inputs, left to right: two, or more for a chain of UNIONs (all
  /// UNION ALL, or all UNION) that the parser flattened ((a UNION b) UNION c is a UNION of
  /// a, b and c).
  std::vector<SelectStmtPtr> inputs;

  std::vector<std::vector<ParsedExprPtr>> values;  // VALUES (...), (...) when non-empty

  std::shared_ptr<WithClause> with;
  bool distinct = false;                   // DISTINCT, also set for DISTINCT ON
  std::vector<ParsedExprPtr> distinct_on;  // DISTINCT ON (...)
  std::vector<SelectItem> targets;
  std::vector<TableRefPtr> from;  // comma-separated items (cross joined)
  ParsedExprPtr where;
  std::vector<ParsedExprPtr> group_by;
  /// GROUP BY GROUPING SETS / ROLLUP / CUBE: each set lists indexes into group_by.
  /// Empty for a plain GROUP BY.
  std::vector<std::vector<int>> grouping_sets;
  ParsedExprPtr having;
  std::vector<WindowDef> windows;  // WINDOW w AS (...)
  std::vector<SortItem> order_by;
  ParsedExprPtr limit;  // LIMIT n / FETCH FIRST n ROWS; null when absent (LIMIT ALL too)
  ParsedExprPtr offset;
  int location = -1;
};

enum class JoinKind { kInner, kLeft, kRight, kFull, kCross };

/// A column of CREATE TABLE, of CREATE TYPE ... AS (...) and of a column definition list.
struct ColumnDef {
  std::string name;
  TypeName type;
  bool not_null = false;
  ParsedExprPtr default_value;
  int location = -1;
};

/// An item of a FROM clause.
struct TableRef {
  enum class Kind { kTable, kFunction, kSubquery, kJoin };
  Kind kind = Kind::kTable;
  int location = -1;

  std::vector<std::string> names;  // kTable: qualified name parts
  ParsedExprPtr function;          // kFunction: a kFunction expression (read_parquet(...))
  SelectStmtPtr subquery;          // kSubquery (VALUES lists arrive as a SelectStmt too)
  bool lateral = false;
  bool ordinality = false;  // kFunction: WITH ORDINALITY
  /// kFunction: a column definition list, AS alias(a int, b text), naming and typing the
  /// columns of a function returning records.
  std::vector<ColumnDef> column_definitions;

  std::string alias;                        // AS alias
  std::vector<std::string> column_aliases;  // AS alias(a, b)

  // kJoin
  JoinKind join_kind = JoinKind::kInner;
  TableRefPtr left;
  TableRefPtr right;
  ParsedExprPtr on;                        // ON condition
  std::vector<std::string> using_columns;  // USING (a, b)
  bool natural = false;
};

// ---------------------------------------------------------------------------------------
// Statements

/// WITH (key = value, ...) options; values are kept as their text ("day(ts)", "2", "zstd").
struct Option {
  std::string name;
  std::string value;
  int location = -1;
};

struct SelectStatement {
  SelectStmtPtr query;
};

struct InsertStatement {
  std::vector<std::string> table;
  std::vector<std::string> columns;  // empty: all, in table order
  SelectStmtPtr query;               // VALUES arrive as a SelectStmt with values
};

/// DELETE FROM table [AS alias] [USING from_item, ...] [WHERE ...], or TRUNCATE [TABLE] table
/// (`truncate`, never a WHERE).
struct DeleteStatement {
  std::vector<std::string> table;
  std::string alias;
  std::vector<TableRefPtr> using_items;
  ParsedExprPtr where;
  bool truncate = false;
};

/// `column = value` of UPDATE ... SET and of MERGE's UPDATE SET; a null value is DEFAULT.
/// SET (a, b) = (x, y) arrives as one assignment per column.
struct Assignment {
  std::string column;
  ParsedExprPtr value;
  int location = -1;
};

/// UPDATE table [AS alias] SET assignments [FROM from_item, ...] [WHERE ...].
struct UpdateStatement {
  std::vector<std::string> table;
  std::string alias;
  std::vector<Assignment> assignments;
  std::vector<TableRefPtr> from;
  ParsedExprPtr where;
  int location = -1;
};

/// One WHEN clause of MERGE.
struct MergeAction {
  enum class Kind { kUpdate, kDelete, kInsert, kNothing };
  bool matched = false;     // WHEN MATCHED (else WHEN NOT MATCHED)
  ParsedExprPtr condition;  // AND condition; null when absent
  Kind kind = Kind::kNothing;
  std::vector<Assignment> assignments;  // kUpdate
  /// kInsert: the columns listed (empty: all, in table order) and their values (a null
  /// value is DEFAULT; no values at all is DEFAULT VALUES).
  std::vector<std::string> insert_columns;
  std::vector<ParsedExprPtr> insert_values;
  int location = -1;
};

/// MERGE INTO table [AS alias] USING source ON condition WHEN ...
struct MergeStatement {
  std::vector<std::string> table;
  std::string alias;
  TableRefPtr source;
  ParsedExprPtr on;
  std::vector<MergeAction> actions;
  int location = -1;
};

struct CreateSchemaStatement {
  std::vector<std::string> name;
  bool if_not_exists = false;
};

struct CreateTableStatement {
  std::vector<std::string> table;
  std::vector<ColumnDef> columns;
  std::vector<Option> options;
  bool if_not_exists = false;
  SelectStmtPtr as_query;  // CREATE TABLE ... AS SELECT
  bool temporary = false;  // CREATE TEMP TABLE: the session's own, dropped when it ends
};

/// CREATE TYPE name AS (field type, ...): a composite type.
struct CreateTypeStatement {
  std::vector<std::string> name;
  std::vector<ColumnDef> fields;
  int location = -1;
};

/// CREATE DOMAIN name [AS] type [DEFAULT expr] [[CONSTRAINT c] NOT NULL | NULL | CHECK (expr)]...:
/// a type of the session that is its base type with constraints (VALUE in a CHECK is the
/// value).
struct CreateDomainStatement {
  struct Check {
    std::string name;  // CONSTRAINT c, or "" for PostgreSQL's default name (<domain>_check)
    ParsedExprPtr expr;
  };
  std::vector<std::string> name;
  TypeName type;
  ParsedExprPtr default_value;
  bool not_null = false;
  std::vector<Check> checks;
  int location = -1;
};

struct DropStatement {
  enum class ObjectKind { kTable, kSchema, kView, kType, kDomain };
  ObjectKind object = ObjectKind::kTable;
  std::vector<std::vector<std::string>> names;
  bool if_exists = false;
  bool cascade = false;
  bool purge = false;  // DROP TABLE ... PURGE is not PostgreSQL; floe reads it from options
};

/// One ALTER TABLE action.
struct AlterTableCommand {
  enum class Kind {
    kAddColumn,
    kDropColumn,
    kRenameColumn,
    kAlterColumnType,
    kSetOptions,
    kResetOptions,
    kRenameTable,
    kSetNotNull,
    kDropNotNull
  };
  Kind kind = Kind::kAddColumn;
  ColumnDef column;                    // kAddColumn, kAlterColumnType (name + type)
  std::string name;                    // column for drop/rename/not-null
  std::string new_name;                // kRenameColumn
  std::vector<std::string> new_table;  // kRenameTable
  std::vector<Option> options;         // kSetOptions / kResetOptions (names only)
  bool if_exists = false;
  int location = -1;
};

struct AlterTableStatement {
  std::vector<std::string> table;
  std::vector<AlterTableCommand> commands;
  bool if_exists = false;
};

/// SET name = value / SET name TO DEFAULT / RESET name.
struct SetStatement {
  std::string name;                 // lower-cased, dotted names joined with "."
  std::vector<std::string> values;  // as text; several for SET search_path = a, b
  bool reset = false;               // RESET or SET ... TO DEFAULT
  bool set_default = false;         // SET ... TO DEFAULT (its tag is SET)
  bool local = false;
};

/// SHOW name / SHOW ALL.
struct ShowStatement {
  std::string name;  // "all" for SHOW ALL
};

struct ExplainStatement;
struct CallStatement {
  ParsedExprPtr call;  // a kFunction expression
};

/// SHOW TABLES / SHOW SCHEMAS / DESCRIBE t / SHOW CREATE TABLE t (PostgreSQL has no such
/// statements; the parser recognizes them before handing the text to libpg_query).
struct ShowObjectsStatement {
  enum class Kind { kTables, kSchemas, kDescribe, kCreateTable };
  Kind kind = Kind::kTables;
  std::vector<std::string> name;  // kDescribe, kCreateTable: the table; kTables: a schema
};

/// One option of COPY ... (name value, ...): the name lower-cased; the value as text ("" for
/// a bare option such as HEADER), or a column list (FORCE_QUOTE (a, b)), or `*`.
struct CopyOption {
  std::string name;
  std::string value;
  std::vector<std::string> columns;
  bool star = false;
  bool has_value = false;
  int location = -1;
};

/// COPY table [(columns)] FROM 'file' [WITH] (options), COPY table [(columns)] TO 'file' ...,
/// COPY (query) TO 'file' ...
struct CopyStatement {
  std::vector<std::string> table;  // empty for COPY (query)
  std::vector<std::string> columns;
  SelectStmtPtr query;
  bool from = false;
  /// Empty for STDIN / STDOUT.
  std::string file;
  std::vector<CopyOption> options;
};

using StatementBody =
    std::variant<SelectStatement, InsertStatement, DeleteStatement, UpdateStatement, MergeStatement,
                 CreateSchemaStatement, CreateTableStatement, DropStatement, AlterTableStatement,
                 SetStatement, ShowStatement, std::shared_ptr<ExplainStatement>, CallStatement,
                 ShowObjectsStatement, CopyStatement, CreateTypeStatement, CreateDomainStatement>;

/// One parsed statement with the span of text it came from.
struct Statement {
  StatementBody body;
  std::string text;  // the statement's own text (without the trailing ';')
  int location = 0;  // byte offset of `text` in the input
};

struct ExplainStatement {
  Statement statement;
  bool analyze = false;
  bool verbose = false;
};

}  // namespace floe::sql
