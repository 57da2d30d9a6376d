// Binding of PostgreSQL's records over the engine's structs: row constructors (ROW(a, b) and
// (a, b), with t.* and (x).* expanded), whole-row references (`t` for the row of FROM item
// t), composite types of the session (CREATE TYPE), casts to them and to `record`,
// comparisons of row constructors, IS [NOT] NULL of records, (x).* in a select list, and
// functions returning records in FROM with their column definition lists.
//
// An anonymous record's fields are f1, f2, ... as PostgreSQL names them; a record with
// names of its own (a whole-row reference, a composite type) is the row constructor cast to
// a struct of those names.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/expr/function_registry.h"
#include "floe/plan/binder_internal.h"

namespace floe::plan::internal {

using expr::ExprPtr;

namespace {

bool IsToRecordFunction(std::string_view name) {
  return name == "json_to_record" || name == "jsonb_to_record" || name == "json_to_recordset" ||
         name == "jsonb_to_recordset";
}

bool IsPopulateFunction(std::string_view name) {
  return name == "json_populate_record" || name == "jsonb_populate_record" ||
         name == "json_populate_recordset" || name == "jsonb_populate_recordset";
}

// `record` as written in a cast (PostgreSQL's pseudo-type of any row).
bool IsRecordTypeName(const sql::TypeName& type) {
  return type.name == "record" && type.array_bounds == 0 && type.modifiers.empty();
}

// A struct type like `type` with the fields named `names` (same count).
TypePtr Renamed(const TypePtr& type, const std::vector<std::string>& names) {
  std::vector<Field> fields;
  for (int i = 0; i < type->num_fields(); ++i) {
    fields.push_back(type->field(i).WithName(names[static_cast<size_t>(i)]));
  }
  return Struct(std::move(fields));
}

std::string Plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

}  // namespace

TypePtr Binder::FindCompositeType(const std::string& name) const {
  if (!options_.user_types) return nullptr;
  std::string key = name;
  if (key.starts_with("public.")) key = key.substr(7);
  auto it = options_.user_types->composites.find(key);
  return it == options_.user_types->composites.end() ? nullptr : it->second.type;
}

Result<std::vector<std::pair<std::string, ExprPtr>>> Binder::ExpandStar(const sql::ParsedExpr& e,
                                                                        ExprContext& ctx) {
  std::vector<std::pair<std::string, ExprPtr>> out;
  if (!e.args.empty()) {
    // (x).*: each field of a record.
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(*e.args[0], ctx));
    if (IsUntyped(*x) || x->type->id() != TypeId::kStruct) {
      return BindError(e.location,
                       "type " + (IsUntyped(*x) ? std::string("unknown") : SqlTypeName(*x->type)) +
                           " is not composite");
    }
    for (const Field& f : x->type->fields()) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr field, SelectField(x, f.name(), e.location));
      out.emplace_back(f.name(), std::move(field));
    }
    return out;
  }
  if (e.names.empty()) return BindError(e.location, "* is not allowed here");
  const std::string& qualifier = e.names.back();
  for (const ScopeColumn& c : ctx.scope->columns) {
    if (c.table != qualifier || c.system) continue;
    out.emplace_back(c.name, expr::Column(c.index, c.name, c.type, c.nullable));
  }
  if (out.empty()) {
    return BindError(e.location, "missing FROM-clause entry for table \"" + qualifier + "\"");
  }
  return out;
}

Result<ExprPtr> Binder::BindRow(const sql::ParsedExpr& e, ExprContext& ctx, const TypePtr& target) {
  std::vector<ExprPtr> items;
  std::vector<int> locations;
  for (const sql::ParsedExprPtr& a : e.args) {
    if (a->kind == sql::ExprKind::kStar) {
      FLOE_ASSIGN_OR_RAISE(auto expanded, ExpandStar(*a, ctx));
      for (auto& [name, x] : expanded) {
        items.push_back(std::move(x));
        locations.push_back(a->location);
      }
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(*a, ctx));
    items.push_back(std::move(x));
    locations.push_back(a->location);
  }
  const bool typed = target != nullptr && target->id() == TypeId::kStruct &&
                     target->num_fields() == static_cast<int>(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!IsUntyped(*items[i])) continue;
    // An untyped literal takes the type of its field in a cast to a composite type
    // (ROW('x', '2012-12-31')::t), else text.
    const TypePtr type = typed ? target->field(static_cast<int>(i)).type() : String();
    FLOE_ASSIGN_OR_RAISE(items[i], CoerceTo(items[i], type, locations[i]));
  }
  return MakeCall("row", std::move(items), e.location);
}

Result<ExprPtr> Binder::BindRecordCast(const sql::ParsedExpr& e, ExprContext& ctx) {
  const sql::ParsedExpr& arg = *e.args[0];
  if (IsRecordTypeName(e.type)) {
    ExprPtr x;
    if (arg.kind == sql::ExprKind::kRow) {
      FLOE_ASSIGN_OR_RAISE(x, BindRow(arg, ctx, nullptr));
    } else {
      FLOE_ASSIGN_OR_RAISE(x, BindExpr(arg, ctx));
    }
    if (IsUntyped(*x) && x->literal.is_null()) return expr::Literal(Scalar::Null(Struct({})));
    if (IsUntyped(*x) || x->type->id() != TypeId::kStruct) {
      return BindError(e.location,
                       "cannot cast type " +
                           (IsUntyped(*x) ? std::string("unknown") : SqlTypeName(*x->type)) +
                           " to record");
    }
    return x;
  }
  FLOE_ASSIGN_OR_RAISE(TypePtr target, BindTypeName(e.type));
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindRow(arg, ctx, target));
  if (target->id() != TypeId::kStruct) return BindExplicitCast(std::move(x), e.type, e.location);
  const TypePtr& have = x->type;
  if (have->num_fields() != target->num_fields()) {
    return BindError(e.location, "cannot cast type record to " + e.type.name + ": the row has " +
                                     Plural(static_cast<size_t>(have->num_fields()), "column") +
                                     ", the type " +
                                     Plural(static_cast<size_t>(target->num_fields()), "column"));
  }
  for (int i = 0; i < have->num_fields(); ++i) {
    const TypePtr& from = have->field(i).type();
    const TypePtr& to = target->field(i).type();
    if (!from->Equals(*to) && !expr::CanExplicitCast(*from, *to)) {
      return BindError(e.location, "cannot cast type record to " + e.type.name +
                                       ": cannot cast type " + SqlTypeName(*from) + " to " +
                                       SqlTypeName(*to) + " in column " + std::to_string(i + 1));
    }
  }
  if (!have->Equals(*target)) x = expr::Cast(std::move(x), target);
  return ApplyTypeRules(std::move(x), e.type, /*assignment=*/false, e.location);
}

Result<ExprPtr> Binder::ApplyRecordRules(ExprPtr call, std::string_view function, int location) {
  if (!IsPopulateFunction(function) || !options_.user_types) return call;
  const bool set = call->type->id() == TypeId::kList;
  const TypePtr& record = set ? call->type->field(0).type() : call->type;
  sql::TypeName type;
  type.name = options_.user_types->NameOf(record.get());
  if (type.name.empty() || !HasTypeRules(type, options_.user_types.get())) return call;
  if (set) {
    return NotSupported(location, std::string(function) + " of type " + type.name +
                                      " is not supported (its values have constraints or "
                                      "attributes of a length; use " +
                                      std::string(function.substr(0, function.size() - 3)) +
                                      " per element)");
  }
  return ApplyTypeRules(std::move(call), type, /*assignment=*/true, location);
}

Result<ExprPtr> Binder::BindColumnRef(const sql::ParsedExpr& e, ExprContext& ctx) {
  Result<ExprPtr> column = ResolveColumn(e, ctx);
  if (column.ok() || e.names.size() != 1 || column.status().code() != StatusCode::kBind ||
      column.status().message().find("does not exist") == std::string::npos) {
    return column;
  }
  // A whole-row reference: the FROM item of that name as one record of its columns.
  const std::string& table = e.names[0];
  std::vector<ExprPtr> items;
  std::vector<std::string> names;
  for (const ScopeColumn& c : ctx.scope->columns) {
    if (c.table != table || c.system) continue;
    items.push_back(expr::Column(c.index, c.name, c.type, c.nullable));
    names.push_back(c.name);
  }
  if (items.empty()) {
    for (const Scope* s = ctx.scope->outer; s != nullptr; s = s->outer) {
      for (const ScopeColumn& c : s->columns) {
        if (c.table == table) {
          return NotSupported(e.location, "a whole-row reference to \"" + table +
                                              "\" of an enclosing query is not supported");
        }
      }
    }
    return column;
  }
  FLOE_ASSIGN_OR_RAISE(ExprPtr row, MakeCall("row", std::move(items), e.location));
  return expr::Cast(row, Renamed(row->type, names));
}

Result<ExprPtr> Binder::BindRowComparison(const sql::ParsedExpr& e, const char* op,
                                          ExprContext& ctx) {
  // Two row constructors compare field by field with SQL's NULL semantics: = is the AND of
  // the fields' =, <> the OR of their <>, and < <= > >= decide at the first pair that is not
  // equal (NULL when that pair holds a NULL).
  std::vector<ExprPtr> sides[2];
  std::vector<int> locations[2];
  for (int s = 0; s < 2; ++s) {
    for (const sql::ParsedExprPtr& a : e.args[static_cast<size_t>(s)]->args) {
      if (a->kind == sql::ExprKind::kStar) {
        FLOE_ASSIGN_OR_RAISE(auto expanded, ExpandStar(*a, ctx));
        for (auto& [name, x] : expanded) {
          sides[s].push_back(std::move(x));
          locations[s].push_back(a->location);
        }
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(*a, ctx));
      sides[s].push_back(std::move(x));
      locations[s].push_back(a->location);
    }
  }
  if (sides[0].size() != sides[1].size()) {
    return BindError(e.location, "unequal number of entries in row expressions");
  }
  if (sides[0].empty()) {
    return NotSupported(e.location, "comparison of empty rows is not supported");
  }
  const std::string_view name = op;
  const size_t n = sides[0].size();
  if (name == "eq" || name == "ne") {
    std::vector<ExprPtr> pairs;
    for (size_t i = 0; i < n; ++i) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr c, MakeCompare(name, sides[0][i], sides[1][i], e.location));
      pairs.push_back(std::move(c));
    }
    if (pairs.size() == 1) return pairs[0];
    return name == "eq" ? expr::And(std::move(pairs)) : expr::Or(std::move(pairs));
  }
  // (a1, a2, a3) < (b1, b2, b3) is a1 < b1 OR (a1 = b1 AND (a2 < b2 OR (a2 = b2 AND
  // a3 < b3))): three-valued logic gives NULL exactly where the first unequal pair has a
  // NULL. For > and >= the pairs before the last compare with >.
  const std::string_view strict = name == "gt" || name == "ge" ? "gt" : "lt";
  FLOE_ASSIGN_OR_RAISE(ExprPtr result,
                       MakeCompare(name, sides[0][n - 1], sides[1][n - 1], e.location));
  for (size_t i = n - 1; i-- > 0;) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr less, MakeCompare(strict, sides[0][i], sides[1][i], e.location));
    FLOE_ASSIGN_OR_RAISE(ExprPtr equal, MakeCompare("eq", sides[0][i], sides[1][i], e.location));
    result = expr::Or({less, expr::And({equal, result})});
  }
  return result;
}

Result<ExprPtr> Binder::BindRowInList(const sql::ParsedExpr& e, ExprContext& ctx) {
  // x IN (a, b) is x = a OR x = b, and NOT IN its negation, each comparison of rows.
  std::vector<ExprPtr> terms;
  for (size_t i = 1; i < e.args.size(); ++i) {
    sql::ParsedExpr compare;
    compare.kind = sql::ExprKind::kBinaryOp;
    compare.location = e.args[i]->location;
    compare.op = "=";
    compare.args = {e.args[0], e.args[i]};
    FLOE_ASSIGN_OR_RAISE(ExprPtr term, BindExpr(compare, ctx));
    terms.push_back(std::move(term));
  }
  ExprPtr any = terms.size() == 1 ? terms[0] : expr::Or(std::move(terms));
  return e.negated ? expr::Not(any) : any;
}

Result<ExprPtr> Binder::BindAssignedValue(const sql::ParsedExpr& e, ExprContext& ctx,
                                          const TypePtr& target) {
  if (e.kind != sql::ExprKind::kRow || target->id() != TypeId::kStruct) return BindExpr(e, ctx);
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindRow(e, ctx, target));
  if (x->type->Equals(*target) || !expr::CanExplicitCast(*x->type, *target)) return x;
  return expr::Cast(std::move(x), target);
}

ExprPtr Binder::RecordNullTest(ExprPtr x, bool negated) {
  return expr::Call(negated ? "record_is_not_null" : "record_is_null", {std::move(x)}, Boolean(),
                    false);
}

Result<TypePtr> Binder::BindColumnDefinitions(const std::vector<sql::ColumnDef>& columns) {
  std::vector<Field> fields;
  std::set<std::string> seen;
  for (const sql::ColumnDef& c : columns) {
    if (!seen.insert(c.name).second) {
      return BindError(c.location, "column name \"" + c.name + "\" specified more than once");
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr type, BindTypeName(c.type));
    fields.emplace_back(c.name, std::move(type), true);
  }
  return Struct(std::move(fields));
}

Result<ExprPtr> Binder::BindFromFunction(const sql::TableRef& ref, ExprContext& ctx) {
  const sql::ParsedExpr& call = *ref.function;
  const std::string name = AsciiLower(call.names.back());
  ExprPtr x;
  if (IsToRecordFunction(name)) {
    // The record type is the column definition list's, handed to the function as a typed
    // NULL first argument.
    if (ref.column_definitions.empty()) {
      return BindError(ref.location,
                       "a column definition list is required for functions returning \"record\"");
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr record, BindColumnDefinitions(ref.column_definitions));
    std::vector<ExprPtr> args{expr::Literal(Scalar::Null(record))};
    for (const sql::ParsedExprPtr& a : call.args) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr arg, BindExpr(*a, ctx));
      args.push_back(std::move(arg));
    }
    FLOE_ASSIGN_OR_RAISE(x, MakeCall(name, std::move(args), call.location));
    std::vector<sql::TypeName> declared;
    bool rules = false;
    for (const sql::ColumnDef& c : ref.column_definitions) {
      declared.push_back(c.type);
      rules = rules || HasTypeRules(c.type, options_.user_types.get());
    }
    if (rules) {
      if (x->type->id() == TypeId::kList) {
        return NotSupported(ref.location, name +
                                              " with a column of a type with constraints or a "
                                              "length is not supported");
      }
      FLOE_ASSIGN_OR_RAISE(
          x, ApplyFieldRules(std::move(x), declared, /*assignment=*/true, call.location));
    }
  } else {
    if (!ref.column_definitions.empty() && !IsPopulateFunction(name)) {
      return BindError(ref.location,
                       "a column definition list is only allowed for functions returning "
                       "\"record\"");
    }
    FLOE_ASSIGN_OR_RAISE(x, BindExpr(call, ctx));
    if (!ref.column_definitions.empty()) {
      // The base record's type must be the one the list declares; the list names its fields.
      // A composite type names them itself (an anonymous record's are f1, f2, ...).
      const bool list = x->type->id() == TypeId::kList;
      const TypePtr record = list ? x->type->field(0).type() : x->type;
      for (int i = 0; i < record->num_fields(); ++i) {
        if (record->field(i).name() != "f" + std::to_string(i + 1)) {
          return BindError(ref.location,
                           "a column definition list is redundant for a function returning a "
                           "named composite type");
        }
      }
      const auto& columns = ref.column_definitions;
      FLOE_ASSIGN_OR_RAISE(TypePtr declared, BindColumnDefinitions(columns));
      const std::string mismatch =
          "function return row and query-specified return row do not match: ";
      if (record->num_fields() != declared->num_fields()) {
        return BindError(ref.location,
                         mismatch + "the returned row contains " +
                             Plural(static_cast<size_t>(record->num_fields()), "attribute") +
                             ", but the query expects " + std::to_string(declared->num_fields()));
      }
      for (int i = 0; i < record->num_fields(); ++i) {
        if (!record->field(i).type()->Equals(*declared->field(i).type())) {
          return BindError(ref.location, mismatch + "the returned type " +
                                             SqlTypeName(*record->field(i).type()) +
                                             " at ordinal position " + std::to_string(i + 1) +
                                             ", but the query expects " +
                                             SqlTypeName(*declared->field(i).type()));
        }
      }
      x = expr::Cast(x, list ? List(declared) : declared);
    }
  }
  // A function returning one record is one row of its fields.
  if (x->type->id() == TypeId::kStruct) return MakeCall("make_array", {x}, call.location);
  return x;
}

}  // namespace floe::plan::internal
