#include "floe/connector/iceberg/iceberg_write.h"

#include <map>
#include <optional>
#include <utility>

#include "floe/connector/iceberg/declared_types.h"

namespace floe::connector {

// ---------------------------------------------------------------------------------------
// Planning

namespace {

// The index of the table column `name`, -1 if there is none.
int TableColumnIndex(const std::vector<Field>& fields, const std::string& name) {
  for (size_t f = 0; f < fields.size(); ++f) {
    if (fields[f].name() == name) return static_cast<int>(f);
  }
  return -1;
}

}  // namespace

std::vector<TypePtr> InsertTargetTypes(const iceberg::Schema& table_schema,
                                       const std::map<std::string, std::string>& properties,
                                       const std::vector<std::string>& columns) {
  const SchemaPtr declared_schema = ApplyDeclaredTypes(table_schema.columns(), properties);
  const std::vector<Field>& fields = declared_schema->fields();
  std::vector<TypePtr> types;
  if (columns.empty()) {
    for (const Field& f : fields) types.push_back(f.type());
    return types;
  }
  for (const std::string& name : columns) {
    const int found = TableColumnIndex(fields, name);
    types.push_back(found < 0 ? nullptr : fields[found].type());
  }
  return types;
}

namespace {

// ConformInsertInput over the input's columns from `leading` on; the first `leading` pass
// through in front.
Result<plan::LogicalPlanPtr> Conform(plan::LogicalPlanPtr input, int leading,
                                     const iceberg::Schema& table_schema,
                                     const std::map<std::string, std::string>& properties,
                                     const std::vector<std::string>& columns,
                                     std::string_view table_name) {
  const std::vector<Field>& fields = table_schema.fields();
  // Values are checked against the columns' declared types, then stored as Iceberg's.
  const std::vector<std::optional<DeclaredColumn>> declared =
      DeclaredColumns(*table_schema.columns(), properties);
  const SchemaPtr& full = input->schema;
  std::vector<Field> value_fields;
  for (int i = leading; i < full->num_fields(); ++i) value_fields.push_back(full->field(i));
  const SchemaPtr in = std::make_shared<const Schema>(std::move(value_fields));
  // For each table column, the input column assigned to it (-1: none, NULL).
  std::vector<int> source(fields.size(), -1);
  if (columns.empty()) {
    if (in->num_fields() > static_cast<int>(fields.size())) {
      return Status::Bind("INSERT has more expressions than target columns ({} into {} of {})",
                          in->num_fields(), fields.size(), table_name);
    }
    for (int i = 0; i < in->num_fields(); ++i) source[i] = i;
  } else {
    for (size_t i = 0; i < columns.size(); ++i) {
      const int found = TableColumnIndex(fields, columns[i]);
      if (found < 0) {
        return Status::Bind("column \"{}\" of relation \"{}\" does not exist", columns[i],
                            table_name);
      }
      if (source[found] >= 0) {
        return Status::Bind("column \"{}\" specified more than once", columns[i]);
      }
      source[found] = static_cast<int>(i);
    }
    if (in->num_fields() > static_cast<int>(columns.size())) {
      return Status::Bind("INSERT has more expressions than target columns");
    }
    if (in->num_fields() < static_cast<int>(columns.size())) {
      return Status::Bind("INSERT has more target columns than expressions");
    }
  }
  std::vector<expr::ExprPtr> exprs;
  std::vector<std::string> names;
  for (int i = 0; i < leading; ++i) {
    const Field& pass = full->field(i);
    exprs.push_back(expr::Column(i, pass.name(), pass.type(), pass.nullable()));
    names.push_back(pass.name());
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    const Field& column = fields[f];
    const TypePtr& stored = column.type();
    const TypePtr& type = declared[f].has_value() ? declared[f]->type : stored;
    names.push_back(column.name());
    if (source[f] < 0) {
      exprs.push_back(expr::Literal(Scalar::Null(stored)));
      continue;
    }
    const Field& have = in->field(source[f]);
    expr::ExprPtr value =
        expr::Column(leading + source[f], have.name(), have.type(), have.nullable());
    if (SameShape(*have.type(), *type) && have.type()->extension() == type->extension()) {
      // The writer takes the values as they are (ConformBatch types them as the table's).
    } else if (expr::CanImplicitCast(*have.type(), *type) ||
               expr::CanExplicitCast(*have.type(), *type)) {
      value = expr::Cast(std::move(value), type);
    } else {
      return Status::Bind("column \"{}\" is of type {} but expression is of type {}", column.name(),
                          type->ToString(), have.type()->ToString());
    }
    // varchar(n) and char(n) take at most n characters (trailing spaces past n are cut).
    if (declared[f].has_value() && declared[f]->max_length > 0) {
      const bool nullable = value->nullable;
      value = expr::Call(declared[f]->blank_padded ? "assign_bpchar" : "assign_varchar",
                         {std::move(value), expr::Literal(Scalar::I32(declared[f]->max_length))},
                         declared[f]->blank_padded ? Bpchar() : String(), nullable);
    }
    // A declared smallint is stored as an int; json is stored as its text.
    if (!SameShape(*type, *stored)) value = expr::Cast(std::move(value), stored);
    exprs.push_back(std::move(value));
  }
  return plan::MakeProjection(std::move(input), std::move(exprs), std::move(names));
}

}  // namespace

Result<plan::LogicalPlanPtr> ConformInsertInput(
    plan::LogicalPlanPtr input, const iceberg::Schema& table_schema,
    const std::map<std::string, std::string>& properties, const std::vector<std::string>& columns,
    std::string_view table_name) {
  return Conform(std::move(input), 0, table_schema, properties, columns, table_name);
}

Result<plan::LogicalPlanPtr> ConformRowChanges(plan::LogicalPlanPtr input, int leading,
                                               const iceberg::Schema& table_schema,
                                               const std::map<std::string, std::string>& properties,
                                               std::string_view table_name) {
  return Conform(std::move(input), leading, table_schema, properties, {}, table_name);
}

Result<exec::PlanPtr> PlanIcebergWrite(IcebergWriteTargetPtr target, exec::PlanPtr input) {
  FLOE_ASSIGN_OR_RAISE(exec::PlanPtr write, IcebergWriteExec::Make(target, std::move(input)));
  return IcebergCommitExec::Make(std::move(target), std::move(write));
}

}  // namespace floe::connector
