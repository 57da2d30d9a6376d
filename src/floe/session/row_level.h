#pragma once

// Row-level changes of Iceberg tables: DELETE ... WHERE / USING, UPDATE ... SET [FROM] and
// MERGE INTO, in PostgreSQL's grammar, by copy-on-write or merge-on-read as the table's
// write.<command>.mode property says (Iceberg's; copy-on-write by default).
//
// Every statement becomes one "change query": a SELECT over the target table (pinned to
// the snapshot the statement reads) and whatever else the statement joins, whose rows are
// the changes, one per affected target row (and per row MERGE inserts):
//
//   _file, _pos, _spec_id, [_partition], _op, [the table's columns: the row's new values]
//
// _file/_pos/_spec_id/_partition are the target row's metadata columns (NULL for an
// inserted row), _op is a RowChangeOp (1 delete, 2 update, 3 insert). DELETE has no value
// columns. The session binds it like any query, so subqueries, joins and every expression
// work in WHERE, SET, FROM, USING and MERGE's conditions as they do in SELECT.
//
// Merge-on-read writes the changes with IcebergDeltaWriteExec (position delete files per data
// file, new rows as data files) and commits a row delta. Copy-on-write first runs
// ChangedFilesQuery to learn the data files holding changed rows (and how many rows change),
// then rewrites exactly those files (CopyOnWriteRows: their rows minus the changed ones, plus
// the new rows) and commits the rewrite; the commit removes the old files.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/schema.h"
#include "floe/plan/logical_plan.h"
#include "floe/sql/ast.h"

namespace floe::session {

/// The leading columns of a change query: _file, _pos, _spec_id, then _partition when the
/// table has a partitioned spec, then _row_id in format version 3 (row lineage), then _op.
struct ChangeColumns {
  bool partition = false;
  bool row_id = false;
};

/// The change query of one statement (see above).
struct RowChanges {
  enum class Command { kDelete, kUpdate, kMerge };
  Command command = Command::kDelete;
  sql::SelectStmtPtr query;
  /// Whether the rows carry _partition (the table has a partitioned spec) and _row_id.
  bool has_partition = false;
  bool row_lineage = false;
  /// Whether the rows carry new values (UPDATE, MERGE).
  bool writes_rows = false;

  /// The index of _op; the value columns follow it.
  int op_column() const { return 3 + (has_partition ? 1 : 0) + (row_lineage ? 1 : 0); }
  /// "DELETE", "UPDATE", "MERGE" (the command tag and the property's middle word).
  std::string_view tag() const;
};

/// The change query of DELETE FROM t [AS a] [USING ...] WHERE ... over a table with
/// `schema`'s columns.
Result<RowChanges> DeleteChanges(const sql::DeleteStatement& del, ChangeColumns columns);
/// ... of UPDATE t [AS a] SET ... [FROM ...] [WHERE ...]. kBind for an unknown or repeated
/// column, as PostgreSQL words it. `text` places the errors.
Result<RowChanges> UpdateChanges(const sql::UpdateStatement& update, const iceberg::Schema& schema,
                                 ChangeColumns columns, std::string_view table_name);
/// ... of MERGE INTO t [AS a] USING s ON c WHEN ...: the source LEFT JOIN the target; each
/// row takes the first WHEN clause whose MATCHED / NOT MATCHED and condition hold (rows
/// no clause takes, and DO NOTHING, are no change).
Result<RowChanges> MergeChanges(const sql::MergeStatement& merge, const iceberg::Schema& schema,
                                ChangeColumns columns, std::string_view table_name);

/// The changes with at most one row per target row (_file, _pos): UPDATE ... FROM joined
/// to several rows updates with one of them, as PostgreSQL does.
sql::SelectStmtPtr DistinctChanges(const RowChanges& changes);

/// Copy-on-write's first step over the changes: per data file (_file; NULL for inserted
/// rows), the change rows and the distinct positions they touch:
///   SELECT _file, count(*), count(DISTINCT _pos) FROM (changes) GROUP BY _file
sql::SelectStmtPtr ChangedFilesQuery(const RowChanges& changes);

/// `SELECT 1 FROM table [AS alias] WHERE where` over the target alone (the WHERE of a DELETE
/// without USING or an UPDATE without FROM): bound, it tells whether a DELETE can remove
/// whole files (WholeFileDelete) and what rows concurrent appends conflict with
/// (ConflictFilter).
sql::SelectStmtPtr TargetFilterQuery(const std::vector<std::string>& table,
                                     const std::string& alias, const sql::ParsedExprPtr& where);

/// The Iceberg form of the conjuncts of `bound` (TargetFilterQuery bound) that convert (a
/// superset of the rows the statement matches), for serializable conflict detection; null
/// when `bound` is not a filter over the Iceberg table's scan or nothing converts.
iceberg::ExpressionPtr ConflictFilter(const plan::LogicalPlanPtr& bound);

/// The data files a DELETE removes whole, without reading them, and their rows.
struct WholeFiles {
  std::vector<std::string> paths;
  int64_t rows = 0;
};
/// When `bound` (TargetFilterQuery bound) filters an Iceberg table scan with conjuncts that
/// convert to Iceberg exactly (ConvertsExactly), and every data file of the table's current
/// snapshot that may hold a matching row holds only matching rows (by its partition, else
/// by its column metrics) and has no delete file: those files. nullopt otherwise (the delete
/// then runs row by row). Errors from planning the scan.
Result<std::optional<WholeFiles>> WholeFileDelete(const plan::LogicalPlanPtr& bound);

/// How a table changes rows, from its properties.
struct RowLevelSettings {
  /// write.<command>.mode = merge-on-read (else copy-on-write, the default).
  bool merge_on_read = false;
  /// write.<command>.isolation-level = serializable (the default) or snapshot.
  bool serializable = true;
};
/// kInvalidArgument naming the property for a value that is not one of Iceberg's.
Result<RowLevelSettings> SettingsFor(RowChanges::Command command,
                                     const std::map<std::string, std::string>& properties);

/// Copy-on-write's rows to write: the rows of `rewritten` (a scan of the target restricted
/// to the changed files, whose output columns are the table's then _file and _pos) that no
/// delete or update of `changes` (bound and conformed: op column `op_column`, the table's
/// columns after it) names, and the new rows of the updates and inserts of `changes`.
/// Output: the table's columns with their stored types (`table_schema`), then, with
/// `row_lineage`, _row_id and _last_updated_sequence_number (`rewritten` then carries them
/// after _pos; a new row keeps its target row's _row_id, from the changes' column
/// `op_column - 1`, with a NULL sequence number).
Result<plan::LogicalPlanPtr> CopyOnWriteRows(plan::LogicalPlanPtr rewritten,
                                             plan::LogicalPlanPtr changes, int op_column,
                                             const iceberg::Schema& table_schema, bool writes_rows,
                                             bool row_lineage);

}  // namespace floe::session
