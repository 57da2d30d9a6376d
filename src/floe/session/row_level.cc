#include "floe/session/row_level.h"

#include <set>
#include <utility>

#include "floe/common/ascii.h"
#include "floe/connector/iceberg/iceberg_delta_write_exec.h"
#include "floe/connector/iceberg/iceberg_filter.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/expr/expr.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/projection.h"
#include "floe/iceberg/table_scan.h"

namespace floe::session {

namespace {

using sql::ExprKind;
using sql::ParsedExpr;
using sql::ParsedExprPtr;

// Parse-tree builders for the change queries.

ParsedExprPtr ColumnRef(const std::string& qualifier, const std::string& name) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kColumnRef;
  if (!qualifier.empty()) e->names.push_back(qualifier);
  e->names.push_back(name);
  return e;
}

ParsedExprPtr IntegerConstant(int64_t value) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kConstant;
  e->constant.kind = sql::Constant::Kind::kInteger;
  e->constant.integer = value;
  return e;
}

ParsedExprPtr NullConstant() {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kConstant;
  e->constant.kind = sql::Constant::Kind::kNull;
  return e;
}

ParsedExprPtr Binary(std::string op, ParsedExprPtr left, ParsedExprPtr right) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kBinaryOp;
  e->op = std::move(op);
  e->args = {std::move(left), std::move(right)};
  return e;
}

ParsedExprPtr IsNull(ParsedExprPtr arg, bool negated) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kIsNull;
  e->negated = negated;
  e->args = {std::move(arg)};
  return e;
}

ParsedExprPtr And(ParsedExprPtr left, ParsedExprPtr right) {
  if (right == nullptr) return left;
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kAnd;
  e->args = {std::move(left), std::move(right)};
  return e;
}

ParsedExprPtr Function(std::string name, std::vector<ParsedExprPtr> args) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = ExprKind::kFunction;
  e->names = {std::move(name)};
  e->args = std::move(args);
  return e;
}

sql::SelectItem Item(ParsedExprPtr expr, std::string alias) {
  sql::SelectItem item;
  item.expr = std::move(expr);
  item.alias = std::move(alias);
  return item;
}

sql::TableRefPtr TargetRef(const std::vector<std::string>& table, const std::string& alias) {
  auto ref = std::make_shared<sql::TableRef>();
  ref->kind = sql::TableRef::Kind::kTable;
  ref->names = table;
  ref->alias = alias;
  return ref;
}

sql::TableRefPtr SubqueryRef(sql::SelectStmtPtr query, std::string alias) {
  auto ref = std::make_shared<sql::TableRef>();
  ref->kind = sql::TableRef::Kind::kSubquery;
  ref->subquery = std::move(query);
  ref->alias = std::move(alias);
  return ref;
}

// How the change query names the target table's columns.
std::string Qualifier(const std::vector<std::string>& table, const std::string& alias) {
  return alias.empty() ? table.back() : alias;
}

// The change query's leading columns: the target row's metadata columns, then _op.
void AddMetadataItems(const std::string& q, ChangeColumns columns, ParsedExprPtr op,
                      sql::SelectStmt* select) {
  select->targets.push_back(Item(ColumnRef(q, "_file"), "_file"));
  select->targets.push_back(Item(ColumnRef(q, "_pos"), "_pos"));
  select->targets.push_back(Item(ColumnRef(q, "_spec_id"), "_spec_id"));
  if (columns.partition) {
    select->targets.push_back(Item(ColumnRef(q, "_partition"), "_partition"));
  }
  if (columns.row_id) select->targets.push_back(Item(ColumnRef(q, "_row_id"), "_row_id"));
  select->targets.push_back(Item(std::move(op), "_op"));
}

// The SET list as one value per table column (null: not assigned; a null value inside the
// optional is DEFAULT). kBind as PostgreSQL for unknown and repeated columns.
Result<std::vector<std::optional<ParsedExprPtr>>> AssignedValues(
    const std::vector<sql::Assignment>& assignments, const iceberg::Schema& schema,
    std::string_view table_name) {
  std::vector<std::optional<ParsedExprPtr>> values(static_cast<size_t>(schema.num_fields()));
  for (const sql::Assignment& assignment : assignments) {
    const int column = schema.columns()->GetFieldIndex(assignment.column);
    if (column < 0) {
      return Status::Bind("column \"{}\" of relation \"{}\" does not exist", assignment.column,
                          table_name);
    }
    if (values[static_cast<size_t>(column)].has_value()) {
      return Status::Bind("multiple assignments to same column \"{}\"", assignment.column);
    }
    values[static_cast<size_t>(column)] = assignment.value ? assignment.value : NullConstant();
  }
  return values;
}

// A DEFAULT value (floe's table columns have no defaults: NULL).
ParsedExprPtr ValueOrNull(const ParsedExprPtr& value) { return value ? value : NullConstant(); }

}  // namespace

std::string_view RowChanges::tag() const {
  switch (command) {
    case Command::kDelete:
      return "DELETE";
    case Command::kUpdate:
      return "UPDATE";
    case Command::kMerge:
      return "MERGE";
  }
  return "DELETE";
}

namespace {

// SELECT <metadata columns>, <op> [, values added later] FROM target [AS alias], <others>
// WHERE <where>: the change query of DELETE and UPDATE.
std::shared_ptr<sql::SelectStmt> TargetChanges(const std::vector<std::string>& table,
                                               const std::string& alias, ChangeColumns columns,
                                               connector::RowChangeOp op,
                                               const std::vector<sql::TableRefPtr>& others,
                                               const ParsedExprPtr& where) {
  auto select = std::make_shared<sql::SelectStmt>();
  AddMetadataItems(Qualifier(table, alias), columns, IntegerConstant(static_cast<int>(op)),
                   select.get());
  select->from.push_back(TargetRef(table, alias));
  for (const sql::TableRefPtr& item : others) select->from.push_back(item);
  select->where = where;
  return select;
}

}  // namespace

Result<RowChanges> DeleteChanges(const sql::DeleteStatement& del, ChangeColumns columns) {
  RowChanges changes;
  changes.command = RowChanges::Command::kDelete;
  changes.has_partition = columns.partition;
  changes.row_lineage = columns.row_id;
  changes.query = TargetChanges(del.table, del.alias, columns, connector::RowChangeOp::kDelete,
                                del.using_items, del.where);
  return changes;
}

Result<RowChanges> UpdateChanges(const sql::UpdateStatement& update, const iceberg::Schema& schema,
                                 ChangeColumns columns, std::string_view table_name) {
  RowChanges changes;
  changes.command = RowChanges::Command::kUpdate;
  changes.has_partition = columns.partition;
  changes.row_lineage = columns.row_id;
  changes.writes_rows = true;
  FLOE_ASSIGN_OR_RAISE(auto values, AssignedValues(update.assignments, schema, table_name));
  const std::string q = Qualifier(update.table, update.alias);
  std::shared_ptr<sql::SelectStmt> select =
      TargetChanges(update.table, update.alias, columns, connector::RowChangeOp::kUpdate,
                    update.from, update.where);
  for (int c = 0; c < schema.num_fields(); ++c) {
    const std::string& name = schema.fields()[static_cast<size_t>(c)].name();
    const auto& value = values[static_cast<size_t>(c)];
    select->targets.push_back(Item(value ? *value : ColumnRef(q, name), name));
  }
  changes.query = std::move(select);
  return changes;
}

Result<RowChanges> MergeChanges(const sql::MergeStatement& merge, const iceberg::Schema& schema,
                                ChangeColumns leading, std::string_view table_name) {
  RowChanges changes;
  changes.command = RowChanges::Command::kMerge;
  changes.has_partition = leading.partition;
  changes.row_lineage = leading.row_id;
  changes.writes_rows = true;
  const std::string q = Qualifier(merge.table, merge.alias);
  const size_t columns = static_cast<size_t>(schema.num_fields());
  // Per WHEN clause: when it takes a row, its op, and the new value of each column.
  struct Clause {
    ParsedExprPtr when;
    connector::RowChangeOp op = connector::RowChangeOp::kDelete;
    bool nothing = false;
    std::vector<ParsedExprPtr> values;
  };
  std::vector<Clause> clauses;
  for (const sql::MergeAction& action : merge.actions) {
    Clause clause;
    clause.when = And(IsNull(ColumnRef(q, "_file"), /*negated=*/action.matched), action.condition);
    switch (action.kind) {
      case sql::MergeAction::Kind::kNothing:
        clause.nothing = true;
        break;
      case sql::MergeAction::Kind::kDelete:
        clause.op = connector::RowChangeOp::kDelete;
        break;
      case sql::MergeAction::Kind::kUpdate: {
        clause.op = connector::RowChangeOp::kUpdate;
        FLOE_ASSIGN_OR_RAISE(auto values, AssignedValues(action.assignments, schema, table_name));
        for (size_t c = 0; c < columns; ++c) {
          clause.values.push_back(values[c] ? *values[c] : ColumnRef(q, schema.fields()[c].name()));
        }
        break;
      }
      case sql::MergeAction::Kind::kInsert: {
        clause.op = connector::RowChangeOp::kInsert;
        std::vector<std::string> targets = action.insert_columns;
        if (targets.empty() && !action.insert_values.empty()) {
          for (size_t c = 0; c < columns && c < action.insert_values.size(); ++c) {
            targets.push_back(schema.fields()[c].name());
          }
        }
        if (action.insert_values.size() > targets.size() && action.insert_columns.empty()) {
          return Status::Bind("INSERT has more expressions than target columns");
        }
        if (action.insert_values.size() != targets.size() && !action.insert_values.empty()) {
          return Status::Bind(action.insert_values.size() > targets.size()
                                  ? "INSERT has more expressions than target columns"
                                  : "INSERT has more target columns than expressions");
        }
        clause.values.assign(columns, nullptr);
        std::set<std::string> seen;
        for (size_t i = 0; i < targets.size(); ++i) {
          const int column = schema.columns()->GetFieldIndex(targets[i]);
          if (column < 0) {
            return Status::Bind("column \"{}\" of relation \"{}\" does not exist", targets[i],
                                table_name);
          }
          if (!seen.insert(targets[i]).second) {
            return Status::Bind("column \"{}\" specified more than once", targets[i]);
          }
          clause.values[static_cast<size_t>(column)] = ValueOrNull(action.insert_values[i]);
        }
        for (ParsedExprPtr& value : clause.values) {
          if (value == nullptr) value = NullConstant();
        }
        break;
      }
    }
    clauses.push_back(std::move(clause));
  }
  // One CASE per output column over the clauses in order: the first that takes a row
  // decides.
  auto case_of = [&](const std::function<ParsedExprPtr(const Clause&)>& then,
                     ParsedExprPtr otherwise) {
    auto e = std::make_shared<ParsedExpr>();
    e->kind = ExprKind::kCase;
    for (const Clause& clause : clauses) e->when_then.emplace_back(clause.when, then(clause));
    e->else_expr = std::move(otherwise);
    return e;
  };
  ParsedExprPtr op = clauses.empty()
                         ? IntegerConstant(0)
                         : case_of(
                               [](const Clause& c) {
                                 return IntegerConstant(c.nothing ? 0 : static_cast<int>(c.op));
                               },
                               IntegerConstant(0));
  auto inner = std::make_shared<sql::SelectStmt>();
  AddMetadataItems(q, leading, op, inner.get());
  for (size_t c = 0; c < columns; ++c) {
    const std::string& name = schema.fields()[c].name();
    ParsedExprPtr value = clauses.empty() ? ColumnRef(q, name)
                                          : case_of(
                                                [&](const Clause& clause) {
                                                  return clause.values.empty() ? ColumnRef(q, name)
                                                                               : clause.values[c];
                                                },
                                                ColumnRef(q, name));
    inner->targets.push_back(Item(std::move(value), name));
  }
  auto join = std::make_shared<sql::TableRef>();
  join->kind = sql::TableRef::Kind::kJoin;
  join->join_kind = sql::JoinKind::kLeft;
  join->left = merge.source;
  join->right = TargetRef(merge.table, merge.alias);
  join->on = merge.on;
  inner->from.push_back(std::move(join));
  // Rows no clause changes are no change.
  auto outer = std::make_shared<sql::SelectStmt>();
  auto star = std::make_shared<ParsedExpr>();
  star->kind = ExprKind::kStar;
  outer->targets.push_back(Item(std::move(star), ""));
  outer->from.push_back(SubqueryRef(std::move(inner), "_changes"));
  outer->where = Binary("<>", ColumnRef("_changes", "_op"), IntegerConstant(0));
  changes.query = std::move(outer);
  return changes;
}

sql::SelectStmtPtr DistinctChanges(const RowChanges& changes) {
  auto select = std::make_shared<sql::SelectStmt>();
  auto star = std::make_shared<ParsedExpr>();
  star->kind = ExprKind::kStar;
  select->targets.push_back(Item(std::move(star), ""));
  select->from.push_back(SubqueryRef(changes.query, "_changes"));
  select->distinct = true;
  select->distinct_on = {ColumnRef("_changes", "_file"), ColumnRef("_changes", "_pos")};
  return select;
}

sql::SelectStmtPtr ChangedFilesQuery(const RowChanges& changes) {
  auto select = std::make_shared<sql::SelectStmt>();
  select->targets.push_back(Item(ColumnRef("_changes", "_file"), "_file"));
  ParsedExprPtr count = Function("count", {});
  count->agg_star = true;
  select->targets.push_back(Item(std::move(count), "changes"));
  ParsedExprPtr distinct = Function("count", {ColumnRef("_changes", "_pos")});
  distinct->agg_distinct = true;
  select->targets.push_back(Item(std::move(distinct), "positions"));
  select->from.push_back(SubqueryRef(changes.query, "_changes"));
  select->group_by = {ColumnRef("_changes", "_file")};
  return select;
}

sql::SelectStmtPtr TargetFilterQuery(const std::vector<std::string>& table,
                                     const std::string& alias, const sql::ParsedExprPtr& where) {
  auto select = std::make_shared<sql::SelectStmt>();
  select->targets.push_back(Item(IntegerConstant(1), "one"));
  select->from.push_back(TargetRef(table, alias));
  select->where = where;
  return select;
}

namespace {

void SplitConjuncts(const expr::ExprPtr& e, std::vector<expr::ExprPtr>* out) {
  if (e->kind == expr::ExprKind::kCall && e->name == "and") {
    for (const expr::ExprPtr& arg : e->args) SplitConjuncts(arg, out);
    return;
  }
  out->push_back(e);
}

// A bound TargetFilterQuery that is Projection <- Filter <- Scan of an Iceberg table of all
// its columns (a subquery would add joins): the table and the WHERE's conjuncts.
struct TargetFilter {
  const connector::IcebergTable* table = nullptr;
  std::vector<expr::ExprPtr> conjuncts;
};

std::optional<TargetFilter> FilterOverTarget(const plan::LogicalPlanPtr& bound) {
  if (bound->kind != plan::LogicalKind::kProjection || bound->children.size() != 1) {
    return std::nullopt;
  }
  const plan::LogicalPlanPtr& filter = bound->children[0];
  if (filter->kind != plan::LogicalKind::kFilter || filter->children.size() != 1) {
    return std::nullopt;
  }
  const plan::LogicalPlanPtr& scan = filter->children[0];
  if (scan->kind != plan::LogicalKind::kScan || !scan->filters.empty()) return std::nullopt;
  TargetFilter out;
  out.table = dynamic_cast<const connector::IcebergTable*>(scan->source.get());
  if (out.table == nullptr) return std::nullopt;
  for (size_t i = 0; i < scan->projection.size(); ++i) {
    if (scan->projection[i] != static_cast<int>(i)) return std::nullopt;
  }
  SplitConjuncts(filter->predicate, &out.conjuncts);
  return out;
}

}  // namespace

iceberg::ExpressionPtr ConflictFilter(const plan::LogicalPlanPtr& bound) {
  std::optional<TargetFilter> target = FilterOverTarget(bound);
  if (!target) return nullptr;
  const Schema& columns = *target->table->schema();
  const int visible = columns.num_fields() - target->table->hidden_columns();
  iceberg::ExpressionPtr out;
  for (const expr::ExprPtr& conjunct : target->conjuncts) {
    bool only_table_columns = true;
    for (int column : expr::ReferencedColumns(*conjunct)) {
      only_table_columns = only_table_columns && column < visible;
    }
    if (!only_table_columns) continue;
    std::optional<iceberg::ExpressionPtr> converted =
        connector::ToIcebergFilter(*conjunct, columns);
    if (!converted) continue;
    out = out ? iceberg::Expression::And(out, *converted) : *converted;
  }
  return out;
}

Result<std::optional<WholeFiles>> WholeFileDelete(const plan::LogicalPlanPtr& bound) {
  std::optional<TargetFilter> target = FilterOverTarget(bound);
  if (!target) return std::nullopt;
  const connector::IcebergTable* table = target->table;
  const Schema& columns = *table->schema();
  const int visible = columns.num_fields() - table->hidden_columns();
  iceberg::ExpressionPtr iceberg_filter;
  for (const expr::ExprPtr& conjunct : target->conjuncts) {
    if (!connector::ConvertsExactly(*conjunct, columns, visible)) return std::nullopt;
    std::optional<iceberg::ExpressionPtr> converted =
        connector::ToIcebergFilter(*conjunct, columns);
    if (!converted) return std::nullopt;
    iceberg_filter =
        iceberg_filter ? iceberg::Expression::And(iceberg_filter, *converted) : *converted;
  }
  const iceberg::Table& iceberg_table = table->table();
  const iceberg::TableMetadata& metadata = *iceberg_table.metadata;
  WholeFiles whole;
  if (metadata.CurrentSnapshot() == nullptr) return whole;
  iceberg::ScanOptions options;
  options.snapshot.snapshot_id = metadata.current_snapshot_id;
  options.filter = iceberg_filter;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan_files,
                       iceberg::TableScan::Make(iceberg_table.metadata, iceberg_table.io, options));
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan_files->PlanFiles());
  const iceberg::Schema& schema = *scan_files->schema();
  const iceberg::ExpressionPtr& bound_filter = scan_files->bound_filter();
  std::set<std::string> seen;
  for (const iceberg::FileScanTask& task : tasks) {
    const iceberg::DataFile& file = *task.data_file;
    if (!seen.insert(file.file_path).second) continue;
    if (!task.delete_files.empty() || task.spec == nullptr) return std::nullopt;
    FLOE_ASSIGN_OR_RAISE(TypePtr partition_type, task.spec->PartitionType(schema));
    FLOE_ASSIGN_OR_RAISE(iceberg::ExpressionPtr strict,
                         iceberg::ProjectStrict(bound_filter, *task.spec, schema, partition_type));
    FLOE_ASSIGN_OR_RAISE(bool all, iceberg::EvaluatePartition(*strict, file.partition));
    if (!all) {
      FLOE_ASSIGN_OR_RAISE(all, iceberg::StrictMetricsAllMatch(*bound_filter, schema, file));
    }
    if (!all) return std::nullopt;
    whole.paths.push_back(file.file_path);
    whole.rows += file.record_count;
  }
  return whole;
}

Result<RowLevelSettings> SettingsFor(RowChanges::Command command,
                                     const std::map<std::string, std::string>& properties) {
  const std::string word = command == RowChanges::Command::kDelete   ? "delete"
                           : command == RowChanges::Command::kUpdate ? "update"
                                                                     : "merge";
  RowLevelSettings settings;
  const std::string mode_key = "write." + word + ".mode";
  if (auto it = properties.find(mode_key); it != properties.end()) {
    const std::string value = AsciiLower(it->second);
    if (value != "copy-on-write" && value != "merge-on-read") {
      return Status::Invalid("table property {} is '{}': it must be copy-on-write or merge-on-read",
                             mode_key, it->second);
    }
    settings.merge_on_read = value == "merge-on-read";
  }
  if (auto it = properties.find("write.delete.granularity"); it != properties.end()) {
    const std::string value = AsciiLower(it->second);
    if (value != "file" && value != "partition") {
      return Status::Invalid(
          "table property write.delete.granularity is '{}': it must be file or partition",
          it->second);
    }
  }
  const std::string isolation_key = "write." + word + ".isolation-level";
  if (auto it = properties.find(isolation_key); it != properties.end()) {
    const std::string value = AsciiLower(it->second);
    if (value != "serializable" && value != "snapshot") {
      return Status::Invalid("table property {} is '{}': it must be serializable or snapshot",
                             isolation_key, it->second);
    }
    settings.serializable = value == "serializable";
  }
  return settings;
}

Result<plan::LogicalPlanPtr> CopyOnWriteRows(plan::LogicalPlanPtr rewritten,
                                             plan::LogicalPlanPtr changes, int op_column,
                                             const iceberg::Schema& table_schema, bool writes_rows,
                                             bool row_lineage) {
  const int table_columns = table_schema.num_fields();
  const int lineage = row_lineage ? 2 : 0;
  const Schema& in = *rewritten->schema;
  if (in.num_fields() != table_columns + 2 + lineage) {
    return Status::Internal("copy-on-write: the rewritten scan has {} columns, not {}",
                            in.num_fields(), table_columns + 2 + lineage);
  }
  const Schema& change_schema = *changes->schema;
  auto column = [](const Schema& schema, int i) {
    const Field& f = schema.field(i);
    return expr::Column(i, f.name(), f.type(), f.nullable());
  };
  auto op_is_not = [&](connector::RowChangeOp op) {
    return expr::Call(
        "ne", {column(change_schema, op_column), expr::Literal(Scalar::I32(static_cast<int>(op)))},
        Boolean(), false);
  };
  // The target rows that stay: no delete or update names them.
  plan::LogicalPlanPtr removed =
      plan::MakeFilter(changes, op_is_not(connector::RowChangeOp::kInsert));
  plan::LogicalPlanPtr kept =
      plan::MakeJoin(std::move(rewritten), std::move(removed), plan::JoinType::kAnti,
                     {column(in, table_columns), column(in, table_columns + 1)},
                     {column(change_schema, 0), column(change_schema, 1)}, nullptr);
  // The scan reads declared types (smallint, json, ...); the writer takes stored ones,
  // which the conformed changes already have. Kept rows keep their lineage.
  std::vector<expr::ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c = 0; c < table_columns; ++c) {
    expr::ExprPtr value = column(in, c);
    const TypePtr& stored = table_schema.fields()[static_cast<size_t>(c)].type();
    if (!value->type->Equals(*stored)) value = expr::Cast(value, stored);
    exprs.push_back(std::move(value));
    names.push_back(in.field(c).name());
  }
  for (int c = 0; c < lineage; ++c) {
    exprs.push_back(column(in, table_columns + 2 + c));
    names.push_back(in.field(table_columns + 2 + c).name());
  }
  kept = plan::MakeProjection(std::move(kept), exprs, names);
  if (!writes_rows) return kept;
  // The new rows of updates and inserts: an updated row keeps its _row_id, and its NULL
  // sequence number inherits the commit's.
  plan::LogicalPlanPtr added =
      plan::MakeFilter(std::move(changes), op_is_not(connector::RowChangeOp::kDelete));
  std::vector<expr::ExprPtr> values;
  for (int c = 0; c < table_columns; ++c) {
    values.push_back(column(change_schema, op_column + 1 + c));
  }
  if (row_lineage) {
    values.push_back(column(change_schema, op_column - 1));
    values.push_back(expr::Literal(Scalar::Null(Int64())));
  }
  added = plan::MakeProjection(std::move(added), std::move(values), names);
  return plan::MakeUnion({std::move(kept), std::move(added)}, /*all=*/true);
}

}  // namespace floe::session
