#pragma once

// Writing Iceberg tables from SQL (DESIGN.md section 5): INSERT and CREATE TABLE AS plan as
//
//   IcebergCommitExec                      single partition: commits one snapshot, once
//     CoalescePartitionsExec
//       IcebergWriteExec                   one writer per input partition; emits DataFiles
//         [SortExec]                       the table's sort order (clustered: the tuple first)
//           [RepartitionExec Hash(tuple)]  rows of one partition tuple meet in one writer
//             ProjectionExec               the table's columns, in its schema's order
//               ... the input query
//
// The write node declares the distribution and ordering it needs, so the enforcement pass
// adds the exchange and the sort and no later pass can drop them. The partition tuple is
// computed by IcebergTransformExpr over the projected table columns.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/connector/iceberg/iceberg_commit_exec.h"
#include "floe/connector/iceberg/iceberg_transform_expr.h"
#include "floe/connector/iceberg/iceberg_write_exec.h"
#include "floe/connector/iceberg/iceberg_write_target.h"
#include "floe/exec/execution_plan.h"
#include "floe/iceberg/schema.h"
#include "floe/plan/logical_plan.h"

namespace floe::connector {

/// The rows an INSERT writes, as a logical plan: `input`'s columns assigned to the table's
/// columns by `columns` (names; empty: by position, in table order), each converted to its
/// column's type (implicit casts, else the explicit cast: a value that does not convert fails
/// the statement naming it), columns not listed NULL, in the table schema's order. kBind
/// errors as PostgreSQL's: an unknown or repeated column, more expressions than target
/// columns (or fewer for a listed column set), a type with no conversion. Values convert to
/// the columns' declared types (`properties`, declared_types.h), then to the stored ones.
Result<plan::LogicalPlanPtr> ConformInsertInput(
    plan::LogicalPlanPtr input, const iceberg::Schema& table_schema,
    const std::map<std::string, std::string>& properties, const std::vector<std::string>& columns,
    std::string_view table_name);

/// ConformInsertInput for the changes of a row-level statement: the first `leading` columns
/// (_file, _pos, ...) pass through, the rest are the table's columns by position.
Result<plan::LogicalPlanPtr> ConformRowChanges(plan::LogicalPlanPtr input, int leading,
                                               const iceberg::Schema& table_schema,
                                               const std::map<std::string, std::string>& properties,
                                               std::string_view table_name);

/// The type of the table column each input position of an INSERT goes into (by `columns`,
/// else in table order); nullptr for a listed name the table lacks (ConformInsertInput names
/// it). Untyped VALUES literals bind to these types.
std::vector<TypePtr> InsertTargetTypes(const iceberg::Schema& table_schema,
                                       const std::map<std::string, std::string>& properties,
                                       const std::vector<std::string>& columns);

/// The physical plan of a write: IcebergCommitExec over IcebergWriteExec over `input` (whose
/// columns conform to the table, see ConformInsertInput). The enforcement pass adds the
/// exchanges and sorts the write requires.
Result<exec::PlanPtr> PlanIcebergWrite(IcebergWriteTargetPtr target, exec::PlanPtr input);

}  // namespace floe::connector
