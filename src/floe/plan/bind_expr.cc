// Expression binding: names, types and PostgreSQL's coercions. Untyped literals (string
// constants and NULL as written) take the type their context asks for and are converted
// at bind time, so a bad literal is an error here naming the value.
//
// Type names: numeric without a typmod binds as the numeric type whose values carry their
// own scale (common/numeric.h), numeric(p, s) as decimal(p, s); varchar(n) and bpchar(n)
// bind as text without enforcing the length. Numeric literals with an exponent (1e10) are float8.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/common/calendar.h"
#include "floe/common/interval.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/physical_expr.h"
#include "floe/plan/binder_internal.h"
#include "floe/type/list_type.h"

namespace floe::plan::internal {

using expr::ExprPtr;

bool AnyOf(const ExprPtr& e, const std::function<bool(const expr::Expr&)>& pred) {
  if (pred(*e)) return true;
  for (const ExprPtr& a : e->args) {
    if (a && AnyOf(a, pred)) return true;
  }
  return false;
}

Result<ExprPtr> Transform(const ExprPtr& e,
                          const std::function<Result<ExprPtr>(const ExprPtr&)>& fn) {
  FLOE_ASSIGN_OR_RAISE(ExprPtr replaced, fn(e));
  if (replaced) return replaced;
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const ExprPtr& a : e->args) {
    if (!a) {
      args.push_back(a);
      continue;
    }
    FLOE_ASSIGN_OR_RAISE(ExprPtr t, Transform(a, fn));
    changed = changed || t.get() != a.get();
    args.push_back(std::move(t));
  }
  if (!changed) return e;
  auto copy = std::make_shared<expr::Expr>(*e);
  copy->args = std::move(args);
  return ExprPtr(copy);
}

ExprPtr Binder::ReplacePlaceholders(const ExprPtr& e) const {
  auto result = Transform(e, [this](const ExprPtr& x) -> Result<ExprPtr> {
    if (IsPlaceholder(*x)) {
      auto it = placeholder_values_.find(PlaceholderId(*x));
      if (it != placeholder_values_.end()) return it->second;
    }
    return ExprPtr();
  });
  return *result;
}

namespace {

bool FitsInt32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/// A numeric literal as written ("1.5", "99999999999999999999", "1e10").
Result<Scalar> NumericLiteral(const std::string& written, bool negative) {
  // The parser hands negative literals over with their sign (-1000.5).
  std::string text = written;
  while (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    if (text[0] == '-') negative = !negative;
    text.erase(0, 1);
  }
  if (text.find_first_of("eE") != std::string::npos) {
    double v = std::strtod(text.c_str(), nullptr);
    return Scalar::F64(negative ? -v : v);
  }
  Int128 unscaled = 0;
  int digits = 0;
  int scale = 0;
  bool seen_point = false;
  bool leading = true;
  for (char c : text) {
    if (c == '.') {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return Status::Invalid("invalid numeric literal \"" + text + "\"");
    if (seen_point) ++scale;
    if (leading && c == '0' && !seen_point) continue;
    leading = false;
    if (digits >= 38) {
      double v = std::strtod(text.c_str(), nullptr);
      return Scalar::F64(negative ? -v : v);
    }
    unscaled = unscaled * 10 + (c - '0');
    ++digits;
  }
  int precision = std::max(std::max(digits, scale), 1);
  if (negative) unscaled = -unscaled;
  return Scalar::Make(Decimal(precision, scale), unscaled);
}

/// ParsedExpr as an interval literal ('1 day'::interval, INTERVAL '1' DAY), or null.
const sql::ParsedExpr* AsIntervalLiteral(const sql::ParsedExpr& e) {
  if (e.kind != sql::ExprKind::kCast || e.type.name != "interval" || e.type.array_bounds != 0) {
    return nullptr;
  }
  if (e.args.empty() || e.args[0]->kind != sql::ExprKind::kConstant ||
      e.args[0]->constant.kind != sql::Constant::Kind::kString) {
    return nullptr;
  }
  return &e;
}

}  // namespace

namespace {}  // namespace

/// An interval literal's value under its typmod's fields (INTERVAL '1' DAY).
Result<IntervalValue> IntervalLiteralValue(const sql::ParsedExpr& literal) {
  return ParseIntervalText(literal.args[0]->constant.text,
                           literal.type.modifiers.empty() ? 0 : literal.type.modifiers[0]);
}

Result<TypePtr> Binder::CommonTypeAt(const TypePtr& a, const TypePtr& b, std::string_view context,
                                     int location) const {
  auto t = expr::CommonType(a, b, context);
  if (!t.ok()) return Status(t.status().code(), t.status().message() + Where(location));
  return *t;
}

Result<TypePtr> Binder::ComparisonTypeAt(const TypePtr& a, const TypePtr& b,
                                         std::string_view context, int location) const {
  auto t = expr::ComparisonType(a, b, context);
  if (!t.ok()) return Status(t.status().code(), t.status().message() + Where(location));
  return *t;
}

Result<ExprPtr> Binder::CoerceTo(const ExprPtr& e, const TypePtr& type, int location) {
  if (e->type && e->type->Equals(*type)) return e;
  if (e->kind == expr::ExprKind::kLiteral) {
    if (e->literal.is_null()) return expr::Literal(Scalar::Null(type));
    ExprPtr cast = expr::Cast(e, type);
    if (type->is_nested()) {
      // A Scalar holds no nested value: the cast stays, checked now.
      if (IsUntyped(*e)) {
        auto value = expr::EvaluateConstantArray(cast);
        if (!value.ok()) {
          return Status(value.status().code(), value.status().message() + Where(location));
        }
      }
      return cast;
    }
    if (IsUntyped(*e)) {
      FLOE_ASSIGN_OR_RAISE(Scalar value, EvaluateConstantAt(cast, location));
      return expr::Literal(std::move(value));
    }
    auto value = expr::EvaluateConstant(cast);
    if (value.ok()) return expr::Literal(*std::move(value));
    return cast;
  }
  return expr::Cast(e, type);
}

Result<std::pair<ExprPtr, ExprPtr>> Binder::Unify(ExprPtr a, ExprPtr b, std::string_view context,
                                                  int location) {
  bool ua = IsUntyped(*a);
  bool ub = IsUntyped(*b);
  TypePtr type;
  if (ua && ub) {
    type = String();
  } else if (ua) {
    type = b->type;
  } else if (ub) {
    type = a->type;
  } else if (a->type->Equals(*b->type)) {
    return std::make_pair(std::move(a), std::move(b));
  } else {
    FLOE_ASSIGN_OR_RAISE(type, ComparisonTypeAt(a->type, b->type, context, location));
  }
  FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, type, location));
  FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, type, location));
  return std::make_pair(std::move(a), std::move(b));
}

std::vector<bool> Binder::UnknownArgs(const std::vector<sql::ParsedExprPtr>& parsed,
                                      const std::vector<ExprPtr>& args) const {
  std::vector<bool> unknown(args.size(), false);
  for (size_t i = 0; i < args.size() && i < parsed.size(); ++i) {
    unknown[i] = parsed[i]->kind == sql::ExprKind::kConstant && IsUntyped(*args[i]);
  }
  return unknown;
}

Result<ExprPtr> Binder::MakeCall(std::string_view name, std::vector<ExprPtr> args, int location,
                                 const std::vector<bool>& unknown) {
  std::vector<TypePtr> types;
  for (size_t i = 0; i < args.size(); ++i) {
    types.push_back(i < unknown.size() && unknown[i] ? expr::UnknownType() : args[i]->type);
  }
  auto resolved = expr::ResolveScalarFunction(name, types);
  if (!resolved.ok()) {
    return Status(resolved.status().code(), resolved.status().message() + Where(location));
  }
  bool nullable = false;
  for (size_t i = 0; i < args.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], resolved->arg_types[i], location));
    nullable = nullable || args[i]->nullable;
  }
  if (!resolved->null_if_any_arg_null) nullable = true;
  return expr::Call(resolved->name, std::move(args), resolved->return_type, nullable);
}

namespace {

/// A constant timestamp expression that is exactly midnight, as a date literal (so that
/// `date_column < DATE '1994-01-01' + INTERVAL '1' YEAR` compares dates, which scans can
/// prune with); null otherwise. Comparing a date with such a timestamp is equivalent.
ExprPtr MidnightAsDate(const ExprPtr& e) {
  if (e->type->id() != TypeId::kTimestamp || !expr::IsConstant(*e) || expr::IsVolatile(*e)) {
    return nullptr;
  }
  auto value = expr::EvaluateConstant(e);
  if (!value.ok() || value->is_null() || !std::holds_alternative<int64_t>(value->value())) {
    return nullptr;
  }
  int64_t micros = value->get<int64_t>();
  if (micros % kMicrosPerDay != 0) return nullptr;
  int64_t days = micros / kMicrosPerDay;
  if (!FitsInt32(days)) return nullptr;
  return expr::Literal(Scalar::Make(Date(), static_cast<int32_t>(days)));
}

}  // namespace

Result<ExprPtr> Binder::MakeCompare(std::string_view op, ExprPtr a, ExprPtr b, int location) {
  if (a->type->id() == TypeId::kDate) {
    if (ExprPtr d = MidnightAsDate(b)) b = d;
  } else if (b->type->id() == TypeId::kDate) {
    if (ExprPtr d = MidnightAsDate(a)) a = d;
  }
  FLOE_ASSIGN_OR_RAISE(auto unified, Unify(std::move(a), std::move(b), "operator", location));
  // character(n) compares without its trailing spaces: as text, cast here so that join keys,
  // filters pushed into scans and every later rule see the comparison as it runs.
  if (unified.first->type->is_bpchar()) {
    FLOE_ASSIGN_OR_RAISE(unified.first, CoerceTo(unified.first, String(), location));
    FLOE_ASSIGN_OR_RAISE(unified.second, CoerceTo(unified.second, String(), location));
  }
  // Comparisons exist for every pair of equal types the engine has.
  return expr::Compare(std::string(op), unified.first, unified.second);
}

namespace {

// The comparison function of an SQL comparison operator ("=" -> "eq"), nullptr for others.
const char* ComparisonName(std::string_view op) {
  static const std::pair<const char*, const char*> kCompare[] = {
      {"=", "eq"},  {"<>", "ne"}, {"!=", "ne"}, {"<", "lt"},
      {"<=", "le"}, {">", "gt"},  {">=", "ge"}};
  for (const auto& [sym, name] : kCompare) {
    if (op == sym) return name;
  }
  return nullptr;
}

}  // namespace

Result<ExprPtr> Binder::BindInList(const sql::ParsedExpr& value,
                                   const std::vector<const sql::ParsedExpr*>& items, bool negated,
                                   ExprContext& ctx) {
  std::vector<const sql::ParsedExpr*> parsed{&value};
  parsed.insert(parsed.end(), items.begin(), items.end());
  std::vector<ExprPtr> args;
  TypePtr type;
  for (const sql::ParsedExpr* a : parsed) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
    if (!IsUntyped(*x)) {
      if (!type) {
        type = x->type;
      } else if (!type->Equals(*x->type)) {
        FLOE_ASSIGN_OR_RAISE(type, ComparisonTypeAt(type, x->type, "IN", a->location));
      }
    }
    args.push_back(std::move(x));
  }
  // character(n) compares without its trailing spaces (MakeCompare).
  if (!type || type->is_bpchar()) type = String();
  bool nullable = false;
  for (size_t i = 0; i < args.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], type, parsed[i]->location));
    nullable = nullable || args[i]->nullable;
  }
  ExprPtr in = expr::Call("in_list", std::move(args), Boolean(), nullable);
  return negated ? expr::Not(in) : in;
}

Result<ExprPtr> Binder::BindQuantifiedArray(const sql::ParsedExpr& e, ExprContext& ctx) {
  const char* op = ComparisonName(e.op);
  const std::string written = e.op + (e.all ? " ALL" : " ANY");
  // LIKE and ILIKE, as [NOT] [I]LIKE ANY|ALL (ARRAY[...]) arrive: ~~ ~~* !~~ !~~*.
  const bool like = e.op == "~~" || e.op == "~~*" || e.op == "!~~" || e.op == "!~~*";
  if (like && e.args.size() == 2 && e.args[0] != nullptr && e.args[1] != nullptr &&
      e.args[1]->kind == sql::ExprKind::kArray) {
    // Over ARRAY[a, b]: (x LIKE a) OR (x LIKE b) for ANY, AND for ALL; an empty array gives
    // false (ANY) or true (ALL).
    const bool insensitive = e.op.ends_with('*');
    const bool negated = e.op[0] == '!';
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
    if (IsUntyped(*x)) {
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), e.args[0]->location));
    }
    if (e.args[1]->args.empty()) return expr::Literal(Scalar::Bool(e.all));
    if (expr::IsVolatile(*x)) {
      return NotSupported(e.location, "a volatile operand of " + written +
                                          " (array) is not supported (it would be evaluated "
                                          "once per element)");
    }
    std::vector<ExprPtr> terms;
    for (const auto& item : e.args[1]->args) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr y, BindExprImpl(*item, ctx));
      if (IsUntyped(*y)) {
        FLOE_ASSIGN_OR_RAISE(y, CoerceTo(y, String(), item->location));
      }
      if (x->type->id() != TypeId::kString || y->type->id() != TypeId::kString) {
        return BindError(e.location, "operator does not exist: " + SqlTypeName(*x->type) + " " +
                                         e.op + " " + SqlTypeName(*y->type));
      }
      const bool nullable = x->nullable || y->nullable;
      ExprPtr term =
          expr::Call(insensitive ? "ilike" : "like", {x, std::move(y)}, Boolean(), nullable);
      terms.push_back(negated ? expr::Not(std::move(term)) : std::move(term));
    }
    if (terms.size() == 1) return terms[0];
    return e.all ? expr::And(std::move(terms)) : expr::Or(std::move(terms));
  }
  if (op == nullptr) {
    return NotSupported(e.location, "operator " + written + " (array) is not supported");
  }
  if (e.args.size() != 2 || e.args[0] == nullptr || e.args[1] == nullptr) {
    return NotSupported(e.location, "this form of " + written + " is not supported");
  }
  const sql::ParsedExpr& array = *e.args[1];
  if (array.kind == sql::ExprKind::kArray) {
    // PostgreSQL: x op ANY (ARRAY[a, b]) is (x op a) OR (x op b); ALL is the AND. An empty
    // array gives false (ANY) or true (ALL) whatever x is.
    std::vector<const sql::ParsedExpr*> items;
    for (const auto& a : array.args) items.push_back(a.get());
    const bool is_in = std::string_view(op) == (e.all ? "ne" : "eq");
    if (is_in && !items.empty()) return BindInList(*e.args[0], items, e.all, ctx);
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
    if (items.empty()) return expr::Literal(Scalar::Bool(e.all));
    if (expr::IsVolatile(*x)) {
      return NotSupported(e.location, "a volatile operand of " + written +
                                          " (array) is not supported (it would be evaluated "
                                          "once per element)");
    }
    std::vector<ExprPtr> terms;
    for (const sql::ParsedExpr* item : items) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr y, BindExprImpl(*item, ctx));
      FLOE_ASSIGN_OR_RAISE(ExprPtr term, MakeCompare(op, x, std::move(y), item->location));
      terms.push_back(std::move(term));
    }
    if (terms.size() == 1) return terms[0];
    return e.all ? expr::And(std::move(terms)) : expr::Or(std::move(terms));
  }
  FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
  FLOE_ASSIGN_OR_RAISE(ExprPtr list, BindExprImpl(array, ctx));
  if (IsUntyped(*list)) {
    // '{1,2}' is an array of the operand's type (PostgreSQL's anyarray beside anyelement).
    if (IsUntyped(*x)) {
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), e.args[0]->location));
    }
    FLOE_ASSIGN_OR_RAISE(list, CoerceTo(list, List(x->type), array.location));
  }
  if (list->type->id() != TypeId::kList) {
    return BindError(array.location, "op ANY/ALL (array) requires array on right side");
  }
  TypePtr element = list->type->field(0).type();
  if (element->is_nested()) {
    return NotSupported(array.location,
                        written + " over arrays of " + SqlTypeName(*element) + " is not supported");
  }
  TypePtr common = element;
  if (!IsUntyped(*x) && !x->type->Equals(*element)) {
    FLOE_ASSIGN_OR_RAISE(common, ComparisonTypeAt(x->type, element, "operator", e.location));
  }
  FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, common, e.args[0]->location));
  if (!common->Equals(*element)) {
    list = expr::Cast(list, List(common, list->type->field(0).nullable()));
  }
  return MakeCall(std::string(e.all ? "all_" : "any_") + op, {std::move(x), std::move(list)},
                  e.location);
}

Result<ExprPtr> Binder::RequireBoolean(ExprPtr e, std::string_view what, int location) {
  if (IsUntyped(*e)) {
    FLOE_ASSIGN_OR_RAISE(e, CoerceTo(e, Boolean(), location));
  }
  if (e->type->id() != TypeId::kBoolean) {
    return BindError(location, "argument of " + std::string(what) +
                                   " must be type boolean, not type " + SqlTypeName(*e->type));
  }
  return e;
}

std::optional<sql::TypeName> ArrayElementTypeName(const sql::TypeName& type,
                                                  const UserTypes* user_types) {
  sql::TypeName element = type;
  element.array_bounds = 0;
  if (type.array_bounds > 0) return element;
  if (type.name.size() < 2 || type.name[0] != '_') return std::nullopt;
  if (user_types != nullptr &&
      (user_types->composites.count(type.name) > 0 || user_types->domains.count(type.name) > 0)) {
    return std::nullopt;
  }
  element.name = type.name.substr(1);
  return element;
}

Result<TypePtr> Binder::BindTypeName(const sql::TypeName& type) {
  // PostgreSQL's arrays are Iceberg lists: int[] is list<int32>, and each further [] a list
  // of those (PostgreSQL ignores the declared dimensions; a constant's own decide, see
  // BindExplicitCast). _int4 is PostgreSQL's internal name of int4[].
  if (std::optional<sql::TypeName> element =
          ArrayElementTypeName(type, options_.user_types.get())) {
    const int dims = std::max(type.array_bounds, 1);
    Result<TypePtr> t = BindTypeName(*element);
    if (t.ok() || type.array_bounds > 0) {
      FLOE_ASSIGN_OR_RAISE(TypePtr list, std::move(t));
      const std::string& e = element->name;
      if (e != "bpchar" && e != "varchar" && HasTypeRules(*element, options_.user_types.get())) {
        // Each element would have to be checked (or its attributes coerced) one by one.
        return NotSupported(type.location, "arrays of type " + e +
                                               " are not supported (its values have "
                                               "constraints or attributes of a length)");
      }
      for (int i = 0; i < dims; ++i) list = List(list);
      return list;
    }
  }
  const std::string& n = type.name;
  if (n == "numeric" || n == "decimal") {
    if (type.modifiers.empty()) return Numeric();
    int64_t p = type.modifiers[0];
    int64_t s = type.modifiers.size() > 1 ? type.modifiers[1] : 0;
    if (p < 1 || p > 38) {
      return BindError(type.location,
                       "NUMERIC precision " + std::to_string(p) + " must be between 1 and 38");
    }
    if (s < 0 || s > p) {
      return BindError(type.location, "NUMERIC scale " + std::to_string(s) +
                                          " must be between 0 and precision " + std::to_string(p));
    }
    return Decimal(static_cast<int>(p), static_cast<int>(s));
  }
  // int8 is PostgreSQL's bigint, not floe's one-byte integer (which SQL cannot name).
  if (n != "tinyint") {
    if (TypePtr t = TypeFromSqlName(n)) return t;
  }
  if (TypePtr composite = FindCompositeType(n)) return composite;
  if (options_.user_types) {
    auto d = options_.user_types->domains.find(n.starts_with("public.") ? n.substr(7) : n);
    if (d != options_.user_types->domains.end()) return d->second.type;
  }
  if (n == "interval") return Interval();
  return BindError(type.location, "type \"" + n + "\" does not exist");
}

Result<ExprPtr> Binder::BindExplicitCast(ExprPtr x, const sql::TypeName& type_name, int location) {
  FLOE_ASSIGN_OR_RAISE(TypePtr type, BindTypeName(type_name));
  // An array keeps its own dimensions through a cast to an array type: a list's, or those a
  // constant literal's braces declare ('{{1,2},{3,4}}'::int[] has two).
  if (type->id() == TypeId::kList) {
    if (!IsUntyped(*x) && x->type->id() == TypeId::kList) {
      type = WithArrayDims(type, ListDepth(*x->type));
    } else if (IsUntyped(*x) && !x->literal.is_null()) {
      type = WithArrayDims(type, expr::ArrayTextDimensions(x->literal.get<std::string>()));
    }
  }
  ExprPtr cast;
  if (IsUntyped(*x) || !x->type->Equals(*type)) {
    if (!IsUntyped(*x) && !expr::CanExplicitCast(*x->type, *type)) {
      return BindError(location,
                       "cannot cast type " + SqlTypeName(*x->type) + " to " + SqlTypeName(*type));
    }
    FLOE_ASSIGN_OR_RAISE(cast, CoerceTo(x, type, location));
  } else {
    cast = std::move(x);
  }
  // An explicit cast to varchar(n) keeps the first n characters, as PostgreSQL's does (an
  // assignment is an error instead: connector/iceberg/declared_types.h); one to char(n) also
  // pads to n characters; one to a domain checks its constraints.
  return ApplyTypeRules(std::move(cast), type_name, /*assignment=*/false, location);
}

Result<ExprPtr> Binder::ApplyTypeRules(ExprPtr v, const sql::TypeName& declared, bool assignment,
                                       int location) {
  const UserTypes* user_types = options_.user_types.get();
  if (!HasTypeRules(declared, user_types)) return v;
  const std::optional<sql::TypeName> element = ArrayElementTypeName(declared, user_types);
  const sql::TypeName& base = element ? *element : declared;
  const std::string& name = base.name;
  if ((name == "bpchar" || name == "varchar") && !base.modifiers.empty() && base.modifiers[0] > 0) {
    // The list forms of these functions apply them to every element.
    const int64_t n = std::min<int64_t>(base.modifiers[0], INT32_MAX);
    const char* function = name == "bpchar" ? (assignment ? "assign_bpchar" : "bpchar_typmod")
                                            : (assignment ? "assign_varchar" : "varchar_typmod");
    return MakeCall(function, {std::move(v), expr::Literal(Scalar::I32(static_cast<int32_t>(n)))},
                    location);
  }
  if (element) return NotSupported(location, "arrays of type " + name + " are not supported");
  const std::string key = name.starts_with("public.") ? name.substr(7) : name;
  if (user_types->domains.count(key) > 0) {
    // The constraints of the domain and of the domains under it, the lowest's first (each
    // one's in the order of their names), all reported under this domain's name, as
    // PostgreSQL's domain_check does; NOT NULL before them when any of them has it.
    bool not_null = false;
    std::vector<std::vector<const UserTypes::Domain::Check*>> levels;
    sql::TypeName under = declared;
    for (auto d = user_types->domains.find(key); d != user_types->domains.end();
         d = user_types->domains.find(under.name.starts_with("public.") ? under.name.substr(7)
                                                                        : under.name)) {
      not_null = not_null || d->second.not_null;
      std::vector<const UserTypes::Domain::Check*> level;
      for (const UserTypes::Domain::Check& check : d->second.checks) level.push_back(&check);
      std::sort(level.begin(), level.end(),
                [](const auto* a, const auto* b) { return a->name < b->name; });
      levels.insert(levels.begin(), std::move(level));
      under = d->second.base;
    }
    FLOE_ASSIGN_OR_RAISE(v, ApplyTypeRules(std::move(v), under, assignment, location));
    // domain_check(value, ok, message, ...) is the value, or the message of its first
    // constraint that is false.
    std::vector<ExprPtr> args{v};
    if (not_null) {
      args.push_back(expr::Call("is_not_null", {v}, Boolean(), false));
      args.push_back(expr::Literal(Scalar::Str("domain " + key + " does not allow null values")));
    }
    for (const auto& level : levels) {
      for (const UserTypes::Domain::Check* check : level) {
        args.push_back(expr::SubstituteColumns(check->predicate, {v}));
        args.push_back(expr::Literal(Scalar::Str(
            "value for domain " + key + " violates check constraint \"" + check->name + "\"")));
      }
    }
    if (args.size() == 1) return v;
    return MakeCall("domain_check", std::move(args), location);
  }
  if (auto c = user_types->composites.find(key); c != user_types->composites.end()) {
    return ApplyFieldRules(std::move(v), c->second.field_types, assignment, location);
  }
  return v;
}

Result<ExprPtr> Binder::ApplyFieldRules(ExprPtr v, const std::vector<sql::TypeName>& field_types,
                                        bool assignment, int location) {
  const TypePtr type = v->type;
  std::vector<ExprPtr> fields;
  bool changed = false;
  for (int i = 0; i < type->num_fields(); ++i) {
    const Field& f = type->field(i);
    ExprPtr field = expr::Call(
        "struct_field", {v, expr::Literal(Scalar::I32(i)), expr::Literal(Scalar::Null(f.type()))},
        f.type(), true);
    if (static_cast<size_t>(i) < field_types.size() &&
        HasTypeRules(field_types[static_cast<size_t>(i)], options_.user_types.get())) {
      FLOE_ASSIGN_OR_RAISE(
          field, ApplyTypeRules(std::move(field), field_types[static_cast<size_t>(i)], assignment,
                                location));
      if (!field->type->Equals(*f.type())) field = expr::Cast(field, f.type());
      changed = true;
    }
    fields.push_back(std::move(field));
  }
  if (!changed) return v;
  FLOE_ASSIGN_OR_RAISE(ExprPtr row, MakeCall("row", std::move(fields), location));
  // A NULL record stays NULL (its fields' rules do not apply).
  return expr::Case(
      {expr::Call("is_null", {v}, Boolean(), false), expr::Literal(Scalar::Null(type))},
      expr::Cast(row, type), type);
}

std::string Binder::OutputName(const sql::ParsedExpr& e) {
  switch (e.kind) {
    case sql::ExprKind::kColumnRef:
      return e.names.empty() ? "?column?" : e.names.back();
    case sql::ExprKind::kFunction:
      return e.names.empty() ? "?column?" : e.names.back();
    case sql::ExprKind::kCast: {
      std::string inner = OutputName(*e.args[0]);
      if (inner != "?column?") return inner;
      return e.type.name;
    }
    case sql::ExprKind::kCase:
      return "case";
    case sql::ExprKind::kCoalesce:
      return "coalesce";
    case sql::ExprKind::kNullIf:
      return "nullif";
    case sql::ExprKind::kGreatest:
      return "greatest";
    case sql::ExprKind::kLeast:
      return "least";
    case sql::ExprKind::kExists:
      return "exists";
    case sql::ExprKind::kArray:
      return "array";
    case sql::ExprKind::kSubscript:
      return OutputName(*e.args[0]);
    case sql::ExprKind::kFieldSelect:
      return e.names[0];
    case sql::ExprKind::kRow:
      return "row";
    case sql::ExprKind::kCurrentValue:
      return e.value_function;
    case sql::ExprKind::kScalarSubquery: {
      const sql::SelectStmt* s = e.subquery.get();
      while (s && s->set_op != sql::SelectStmt::SetOp::kNone) s = s->inputs[0].get();
      if (s && !s->targets.empty()) {
        if (!s->targets[0].alias.empty()) return s->targets[0].alias;
        if (s->targets[0].expr) return OutputName(*s->targets[0].expr);
      }
      return "?column?";
    }
    default:
      return "?column?";
  }
}

Result<ExprPtr> Binder::ResolveColumn(const sql::ParsedExpr& e, const ExprContext& ctx) {
  const std::string& column = e.names.back();
  std::string qualifier = e.names.size() >= 2 ? e.names[e.names.size() - 2] : "";
  std::string shown = qualifier.empty() ? column : qualifier + "." + column;
  bool table_seen = false;
  int depth = 0;
  for (const Scope* s = ctx.scope; s != nullptr; s = s->outer, ++depth) {
    const ScopeColumn* found = nullptr;
    bool table_here = false;
    // System columns (_file, _pos, ...) answer a name only when no other column does.
    for (const bool system : {false, true}) {
      for (const ScopeColumn& c : s->columns) {
        if (c.system != system) continue;
        if (qualifier.empty()) {
          if (c.using_hidden || c.name != column) continue;
        } else {
          if (c.table != qualifier) continue;
          table_here = true;
          if (c.name != column) continue;
        }
        if (found != nullptr && found->index != c.index) {
          return BindError(e.location, "column reference \"" + shown + "\" is ambiguous");
        }
        found = &c;
      }
      if (found != nullptr) break;
    }
    if (found == nullptr) {
      if (table_here) {
        return BindError(e.location, "column \"" + shown + "\" does not exist");
      }
      continue;
    }
    table_seen = true;
    if (depth == 0) {
      ExprPtr col = expr::Column(found->index, found->name, found->type, found->nullable);
      column_locations_[col.get()] = e.location;
      return col;
    }
    if (depth > 1) {
      return NotSupported(e.location,
                          "correlated reference to \"" + shown + "\" more than one query level up");
    }
    ++outer_ref_count_;
    if (!states_.empty()) {
      ++state()->outer_refs;
      if (!state()->binding_where) state()->outer_ref_outside_where = true;
    }
    return expr::Column(-1 - found->index, found->name, found->type, found->nullable);
  }
  if (!qualifier.empty() && !table_seen) {
    return BindError(e.location, "missing FROM-clause entry for table \"" + qualifier + "\"");
  }
  return BindError(e.location, "column \"" + shown + "\" does not exist");
}

Result<ExprPtr> Binder::BindExpr(const sql::ParsedExpr& e, ExprContext& ctx) {
  return BindExprImpl(e, ctx);
}

Result<ExprPtr> Binder::BindBinaryOp(const sql::ParsedExpr& e, ExprContext& ctx) {
  const std::string& op = e.op;
  // date/timestamp +- interval.
  if (op == "+" || op == "-") {
    const sql::ParsedExpr* interval = AsIntervalLiteral(*e.args[1]);
    const sql::ParsedExpr* base = e.args[0].get();
    if (interval == nullptr && op == "+") {
      interval = AsIntervalLiteral(*e.args[0]);
      base = e.args[1].get();
    }
    if (interval != nullptr) {
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*base, ctx));
      // Only a date or timestamp takes this form; intervals, times and untyped literals
      // (which become intervals, as in PostgreSQL) go the general way below.
      if (!IsUntyped(*x) && (x->type->id() == TypeId::kDate || x->type->is_timestamp())) {
        Result<IntervalValue> parsed = IntervalLiteralValue(*interval);
        if (!parsed.ok()) {
          return Status(parsed.status().code(),
                        parsed.status().message() + Where(interval->location));
        }
        IntervalValue v = *parsed;
        if (op == "-") {
          FLOE_ASSIGN_OR_RAISE(v, NegateInterval(v));
        }
        return MakeCall("interval_add",
                        {x, expr::Literal(Scalar::I32(v.months)),
                         expr::Literal(Scalar::I32(v.days)), expr::Literal(Scalar::I64(v.micros))},
                        e.location);
      }
    }
  }
  if (const char* compare = ComparisonName(op); compare != nullptr &&
                                                e.args[0]->kind == sql::ExprKind::kRow &&
                                                e.args[1]->kind == sql::ExprKind::kRow) {
    return BindRowComparison(e, compare, ctx);
  }
  FLOE_ASSIGN_OR_RAISE(ExprPtr a, BindExprImpl(*e.args[0], ctx));
  FLOE_ASSIGN_OR_RAISE(ExprPtr b, BindExprImpl(*e.args[1], ctx));
  if (const char* compare = ComparisonName(op)) return MakeCompare(compare, a, b, e.location);
  // json and jsonb's operators (expr/json_functions.cc). An untyped literal stays text for
  // them (a key, or JSON text the function takes as jsonb), as PostgreSQL resolves it.
  static const std::pair<const char*, const char*> kJson[] = {
      {"->", "json_get"},         {"->>", "json_get_text"},
      {"#>", "json_get_path"},    {"#>>", "json_get_path_text"},
      {"@>", "jsonb_contains"},   {"<@", "jsonb_contained"},
      {"?", "jsonb_exists"},      {"?|", "jsonb_exists_any"},
      {"?&", "jsonb_exists_all"}, {"#-", "jsonb_delete_path"}};
  // @> and <@ are arrays' too (below) when an operand is a list.
  const bool list_operand = (!IsUntyped(*a) && a->type->id() == TypeId::kList) ||
                            (!IsUntyped(*b) && b->type->id() == TypeId::kList);
  for (const auto& [sym, name] : kJson) {
    if (op == sym && !(list_operand && (op == "@>" || op == "<@"))) {
      std::vector<ExprPtr> operands = {a, b};
      std::vector<bool> unknown = UnknownArgs(e.args, operands);
      return MakeCall(name, std::move(operands), e.location, unknown);
    }
  }
  if ((op == "-" || op == "||") && (a->type->is_json() || b->type->is_json())) {
    if (op == "-") return MakeCall("subtract", {a, b}, e.location);
    // jsonb || unknown is jsonb's concatenation; text || jsonb stays text's (also a literal
    // cast to text, which keeps its untyped node: UnknownArgs tells them apart).
    const std::vector<bool> unknown = UnknownArgs(e.args, {a, b});
    if (unknown[1]) {
      FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, a->type, e.args[1]->location));
    } else if (unknown[0]) {
      FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, b->type, e.args[0]->location));
    } else {
      if (IsUntyped(*a)) {
        FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, String(), e.args[0]->location));
      }
      if (IsUntyped(*b)) {
        FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, String(), e.args[1]->location));
      }
    }
    if (a->type->extension() == Extension::kJsonb && b->type->extension() == Extension::kJsonb) {
      return MakeCall("concat_op", {a, b}, e.location);
    }
    // text || json(b): PostgreSQL's text || anynonarray, the json side as its text.
    if (!a->type->is_json()) b = expr::Cast(b, String());
    if (!b->type->is_json() && a->type->is_json()) a = expr::Cast(a, String());
    return MakeCall("concat_op", {a, b}, e.location);
  }
  static const std::pair<const char*, const char*> kArith[] = {{"+", "add"},
                                                               {"-", "subtract"},
                                                               {"*", "multiply"},
                                                               {"/", "divide"},
                                                               {"%", "modulo"},
                                                               {"^", "power"},
                                                               {"||", "concat_op"},
                                                               {"~", "regex_match"},
                                                               {"~*", "regex_imatch"},
                                                               {"!~", "regex_match"},
                                                               {"!~*", "regex_imatch"},
                                                               {"&", "bitwise_and"},
                                                               {"|", "bitwise_or"},
                                                               {"#", "bitwise_xor"},
                                                               {"<<", "bitwise_shift_left"},
                                                               {">>", "bitwise_shift_right"},
                                                               {"@>", "op_contains"},
                                                               {"<@", "op_contained"},
                                                               {"&&", "op_overlap"}};
  for (const auto& [sym, name] : kArith) {
    if (op != sym) continue;
    std::string_view fname = name;
    // An untyped operand of || or of @>, <@, && next to an array is an array of its type
    // (ARRAY[1] || '{2}').
    if (fname == "concat_op" || fname.starts_with("op_")) {
      // (A literal cast to text keeps its untyped node: only a bare constant counts.)
      const bool ca = e.args[0]->kind == sql::ExprKind::kConstant;
      const bool cb = e.args[1]->kind == sql::ExprKind::kConstant;
      if (ca && IsUntyped(*a) && !IsUntyped(*b) && b->type->id() == TypeId::kList) {
        FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, b->type, e.args[0]->location));
      } else if (cb && IsUntyped(*b) && !IsUntyped(*a) && a->type->id() == TypeId::kList) {
        FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, a->type, e.args[1]->location));
      }
    }
    bool ua = IsUntyped(*a);
    bool ub = IsUntyped(*b);
    bool textual = fname == "concat_op" || fname.starts_with("regex");
    if (ua && (ub || textual)) {
      FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, String(), e.location));
    }
    if (ub && (ua || textual)) {
      FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, String(), e.location));
    }
    // A literal already made text above stays text (a text literal keeps its node, so it
    // would still count as untyped here).
    if (!textual && IsUntyped(*a)) {
      FLOE_ASSIGN_OR_RAISE(a, CoerceTo(a, b->type, e.args[0]->location));
    }
    if (!textual && IsUntyped(*b)) {
      FLOE_ASSIGN_OR_RAISE(b, CoerceTo(b, a->type, e.args[1]->location));
    }
    if (fname == "concat_op") {
      // PostgreSQL's text || anynonarray and anynonarray || text: the other side is
      // converted to its text form.
      auto is_text = [](const expr::Expr& x) { return x.type->id() == TypeId::kString; };
      auto is_other = [](const expr::Expr& x) {
        return x.type->id() != TypeId::kString && x.type->id() != TypeId::kBinary &&
               (!x.type->is_nested() || x.type->id() == TypeId::kStruct);
      };
      if (is_text(*a) && is_other(*b)) b = expr::Cast(b, String());
      if (is_other(*a) && is_text(*b)) a = expr::Cast(a, String());
    }
    FLOE_ASSIGN_OR_RAISE(ExprPtr call, MakeCall(name, {a, b}, e.location));
    if (op == "!~" || op == "!~*") return expr::Not(call);
    return call;
  }
  return NotSupported(e.location, "operator " + op + " is not supported");
}

Result<ExprPtr> Binder::BindFunction(const sql::ParsedExpr& e, ExprContext& ctx) {
  std::string name = e.names.empty() ? "" : AsciiLower(e.names.back());
  if (e.agg_within_group || name == "percentile_cont" || name == "percentile_disc" ||
      name == "mode") {
    return BindOrderedSetAggregate(e, ctx);
  }
  if (e.over) return BindWindow(e, ctx);
  if (e.agg_star || expr::IsAggregateFunction(name)) return BindAggregate(e, ctx);
  if (e.agg_distinct || !e.agg_order_by.empty() || e.agg_filter) {
    return BindError(e.location, (e.agg_filter ? "FILTER" : "DISTINCT/ORDER BY") +
                                     std::string(" specified, but ") + name +
                                     " is not an aggregate function");
  }
  if (expr::IsWindowFunction(name)) {
    return BindError(e.location, "window function " + name + " requires an OVER clause");
  }
  if (name == "now" || name == "transaction_timestamp" || name == "statement_timestamp" ||
      name == "current_timestamp") {
    if (!e.args.empty()) {
      return BindError(e.location, "function " + name + " takes no arguments");
    }
    return expr::Literal(Scalar::Make(TimestampTz(), options_.statement_time_micros));
  }
  for (const std::string& n : e.arg_names) {
    if (!n.empty()) {
      return NotSupported(e.location, "named arguments of function " + name + " are not supported");
    }
  }
  std::vector<ExprPtr> args;
  for (const auto& a : e.args) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
    args.push_back(std::move(x));
  }
  if (e.func_variadic) return BindVariadicCall(name, std::move(args), e);
  if (name == "array_fill" && e.names.size() == 1) {
    const std::vector<bool> unknown = UnknownArgs(e.args, args);
    return BindArrayFill(std::move(args), unknown, e.location);
  }
  FLOE_RETURN_NOT_OK(CoerceUntypedArrayArgs(name, args));
  // A function-style cast (PostgreSQL's "special type conversion request"): one argument,
  // a name that is a type's and no function's: float8(x), int4('5'), text(5),
  // date('2024-01-02'), numeric(x). Not "char", which is PostgreSQL's one-byte type there
  // (char(65) is 'A'), nor bpchar, whose blank-padding floe's text does not keep.
  if (args.size() == 1 && e.names.size() == 1 && !expr::IsScalarFunction(name) && name != "char" &&
      name != "bpchar" && name != "string" && name != "tinyint") {
    sql::TypeName type_name;
    type_name.name = name;
    type_name.location = e.location;
    if (BindTypeName(type_name).ok()) {
      return BindExplicitCast(std::move(args[0]), type_name, e.location);
    }
  }
  if (!expr::IsScalarFunction(name)) {
    std::string types;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) types += ", ";
      types += IsUntyped(*args[i]) ? "unknown" : SqlTypeName(*args[i]->type);
    }
    return Status::NotFound("function " + name + "(" + types + ") does not exist" +
                            Where(e.location));
  }
  const std::vector<bool> unknown = UnknownArgs(e.args, args);
  FLOE_ASSIGN_OR_RAISE(ExprPtr call, MakeCall(name, std::move(args), e.location, unknown));
  FLOE_ASSIGN_OR_RAISE(call, ApplyRecordRules(std::move(call), name, e.location));
  if (call->kind == expr::ExprKind::kCall && expr::IsSetReturningFunction(call->name)) {
    return BindSetReturning(std::move(call), e, ctx);
  }
  // EXTRACT's numeric result has PostgreSQL's per-field scale (EXTRACT(year ...) is 2024).
  if (call->kind == expr::ExprKind::kCall && call->name == "extract" && call->args.size() == 2 &&
      call->args[0]->kind == expr::ExprKind::kLiteral && !call->args[0]->literal.is_null() &&
      std::holds_alternative<std::string>(call->args[0]->literal.value()) &&
      call->type->id() == TypeId::kDecimal) {
    int scale = expr::ExtractResultScale(call->args[0]->literal.get<std::string>());
    if (scale >= 0 && scale != call->type->scale()) {
      return expr::Cast(call, Decimal(call->type->precision(), scale));
    }
  }
  // to_number's result has its template's scale (to_number('1.5', '9.9') is 1.5).
  if (call->kind == expr::ExprKind::kCall && call->name == "to_number" && call->args.size() == 2 &&
      call->args[1]->kind == expr::ExprKind::kLiteral && !call->args[1]->literal.is_null() &&
      std::holds_alternative<std::string>(call->args[1]->literal.value()) &&
      call->type->id() == TypeId::kDecimal) {
    int scale = expr::ToNumberResultScale(call->args[1]->literal.get<std::string>());
    if (scale >= 0 && scale != call->type->scale()) {
      return expr::Cast(call, Decimal(call->type->precision(), scale));
    }
  }
  return call;
}

Result<ExprPtr> Binder::BindVariadicCall(const std::string& name, std::vector<ExprPtr> args,
                                         const sql::ParsedExpr& e) {
  if (args.empty()) return BindError(e.location, "VARIADIC argument must be an array");
  ExprPtr& array = args.back();
  if (IsUntyped(*array)) {
    FLOE_ASSIGN_OR_RAISE(array, CoerceTo(array, List(String()), e.args.back()->location));
  }
  if (array->type->id() != TypeId::kList) {
    return BindError(e.args.back()->location, "VARIADIC argument must be an array");
  }
  // PostgreSQL's json(b)_extract_path(_text)(j, VARIADIC text[]) are #> and #>> over the array.
  static const std::pair<const char*, const char*> kPathForms[] = {
      {"json_extract_path", "json_get_path"},
      {"jsonb_extract_path", "json_get_path"},
      {"json_extract_path_text", "json_get_path_text"},
      {"jsonb_extract_path_text", "json_get_path_text"}};
  for (const auto& [function, path_form] : kPathForms) {
    if (name == function) return MakeCall(path_form, std::move(args), e.location);
  }
  // A function with PostgreSQL's VARIADIC "any" spreads the array's elements over its last
  // arguments (expr::VariadicFormName); any other takes the array as its last argument, as
  // a variadic array parameter does (jsonb_delete(j, VARIADIC keys)).
  const std::string form = expr::VariadicFormName(name);
  if (expr::IsScalarFunction(form)) {
    std::string types;
    for (size_t i = 0; i < args.size(); ++i) {
      types += (i > 0 ? ", " : "") +
               (IsUntyped(*args[i]) ? std::string("unknown") : SqlTypeName(*args[i]->type));
    }
    auto call = MakeCall(form, std::move(args), e.location);
    // No form fits: name the function as written.
    if (!call.ok() && call.status().message().starts_with("function " + form + "(")) {
      return BindError(e.location, "function " + name + "(" + types + ") does not exist");
    }
    return call;
  }
  if (!expr::IsScalarFunction(name)) {
    return Status::NotFound("function " + name + " does not exist" + Where(e.location));
  }
  return MakeCall(name, std::move(args), e.location);
}

Result<ExprPtr> Binder::BindSetReturning(ExprPtr call, const sql::ParsedExpr& e, ExprContext& ctx) {
  const std::string& name = call->name;
  for (const ExprPtr& a : call->args) {
    const bool nested = AnyOf(a, [](const expr::Expr& x) {
      return x.kind == expr::ExprKind::kCall && expr::IsSetReturningFunction(x.name);
    });
    if (nested || AnyOf(a, [this](const expr::Expr& x) { return IsSetReturningPlaceholder(x); })) {
      return NotSupported(
          e.location, "set-returning functions in the arguments of " + name + " are not supported");
    }
  }
  if (ctx.srf_as_list) return call;
  if (ctx.in_aggregate) {
    return BindError(e.location,
                     "aggregate function calls cannot contain set-returning function calls");
  }
  if (!ctx.allow_srf || states_.empty()) {
    return BindError(e.location,
                     "set-returning functions are not allowed in " + std::string(ctx.clause));
  }
  const int id = NewPlaceholder();
  srf_placeholders_.insert(id);
  TypePtr element = call->type->field(0).type();
  state()->srfs.push_back(SrfInfo{id, std::move(call), name});
  return PlaceholderExpr(id, std::move(element), name);
}

Result<ExprPtr> Binder::BindAggregate(const sql::ParsedExpr& e, ExprContext& ctx) {
  std::string name = e.names.empty() ? "count" : AsciiLower(e.names.back());
  if (!ctx.allow_aggregates || states_.empty()) {
    return BindError(e.location,
                     "aggregate functions are not allowed in " + std::string(ctx.clause));
  }
  if (ctx.in_aggregate) {
    return BindError(e.location, "aggregate function calls cannot be nested");
  }
  ExprContext inner = ctx;
  inner.in_aggregate = true;
  inner.allow_windows = false;
  inner.srf_as_list = false;
  std::vector<ExprPtr> args;
  for (const auto& a : e.args) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, inner));
    if (IsUntyped(*x)) {
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), a->location));
    }
    args.push_back(std::move(x));
  }
  std::string fname = e.agg_star ? "count_star" : name;
  std::vector<TypePtr> types;
  for (const ExprPtr& a : args) types.push_back(a->type);
  auto resolved = expr::ResolveAggregate(fname, types, e.agg_distinct);
  if (!resolved.ok()) {
    return Status(resolved.status().code(), resolved.status().message() + Where(e.location));
  }
  AggregateCall call;
  call.function = *resolved;
  for (size_t i = 0; i < args.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], resolved->arg_types[i], e.location));
  }
  call.args = std::move(args);
  if (e.agg_filter) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr f, BindExprImpl(*e.agg_filter, inner));
    FLOE_ASSIGN_OR_RAISE(call.filter, RequireBoolean(f, "FILTER", e.agg_filter->location));
  }
  for (const sql::SortItem& item : e.agg_order_by) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr k, BindExprImpl(*item.expr, inner));
    if (IsUntyped(*k)) {
      FLOE_ASSIGN_OR_RAISE(k, CoerceTo(k, String(), item.location));
    }
    call.order_by.push_back(
        SortKey{k, !item.descending, item.nulls_first.value_or(item.descending)});
  }
  // Identical calls share one aggregate.
  std::string key = call.ToString();
  for (const AggregateInfo& info : state()->aggregates) {
    if (info.call.ToString() == key &&
        info.call.function.return_type->Equals(*call.function.return_type)) {
      return PlaceholderExpr(info.placeholder, call.function.return_type, info.name);
    }
  }
  int id = NewPlaceholder();
  TypePtr type = call.function.return_type;
  state()->aggregates.push_back(AggregateInfo{id, std::move(call), name});
  return PlaceholderExpr(id, type, name);
}

Result<ExprPtr> Binder::BindOrderedSetAggregate(const sql::ParsedExpr& e, ExprContext& ctx) {
  const std::string name = e.names.empty() ? "" : AsciiLower(e.names.back());
  const bool mode = name == "mode";
  if (name != "percentile_cont" && name != "percentile_disc" && !mode) {
    return BindError(e.location, "WITHIN GROUP specified, but " + name +
                                     " is not an ordered-set aggregate function");
  }
  if (!e.agg_within_group) {
    return BindError(e.location, "WITHIN GROUP is required for ordered-set aggregate " + name);
  }
  if (e.over) {
    return NotSupported(e.location, "OVER is not supported for ordered-set aggregate " + name);
  }
  if (e.agg_distinct) {
    return BindError(e.location, "cannot use DISTINCT with WITHIN GROUP");
  }
  const size_t direct = mode ? 0 : 1;
  if (e.args.size() != direct || e.agg_order_by.size() != 1) {
    return BindError(e.location, "function " + name + " takes " + std::to_string(direct) +
                                     " direct argument(s) and one ORDER BY argument");
  }
  // The input sorted ascending as array_agg(x ORDER BY x) (one ordering for every such call
  // of the query level, which aggregation needs); the final step reads it backwards for
  // DESC and leaves the NULLs out.
  auto input = std::make_shared<sql::ParsedExpr>(e);
  input->names = {"array_agg"};
  input->args = {e.agg_order_by[0].expr};
  input->agg_within_group = false;
  input->agg_order_by[0].descending = false;
  input->agg_order_by[0].nulls_first = false;
  FLOE_ASSIGN_OR_RAISE(ExprPtr sorted, BindAggregate(*input, ctx));
  ExprPtr descending = expr::Literal(Scalar::Bool(e.agg_order_by[0].descending));
  if (mode) return MakeCall("mode_of", {sorted, descending}, e.location);
  FLOE_ASSIGN_OR_RAISE(ExprPtr fraction, BindExprImpl(*e.args[0], ctx));
  if (IsUntyped(*fraction)) {
    FLOE_ASSIGN_OR_RAISE(fraction, CoerceTo(fraction, Float64(), e.args[0]->location));
  }
  return MakeCall(name + "_of", {fraction, sorted, descending}, e.location);
}

Result<ExprPtr> Binder::BindWindow(const sql::ParsedExpr& e, ExprContext& ctx) {
  std::string name = e.names.empty() ? "" : AsciiLower(e.names.back());
  if (!ctx.allow_windows || states_.empty()) {
    return BindError(e.location, "window functions are not allowed in " + std::string(ctx.clause));
  }
  // Resolve OVER w / OVER (w ...) against the WINDOW clause.
  sql::WindowDef spec = *e.over;
  // OVER w may arrive with the window's name in `name` (PostgreSQL's parse tree does that).
  if (spec.ref_name.empty() && !spec.name.empty()) spec.ref_name = spec.name;
  if (!spec.ref_name.empty()) {
    const sql::WindowDef* base = nullptr;
    if (state()->named_windows != nullptr) {
      for (const sql::WindowDef& w : *state()->named_windows) {
        if (w.name == spec.ref_name) base = &w;
      }
    }
    if (base == nullptr) {
      return BindError(spec.location, "window \"" + spec.ref_name + "\" does not exist");
    }
    sql::WindowDef merged = *base;
    if (!spec.order_by.empty()) merged.order_by = spec.order_by;
    if (spec.frame.explicit_frame) merged.frame = spec.frame;
    spec = std::move(merged);
  }
  ExprContext inner = ctx;
  inner.allow_windows = false;
  inner.allow_srf = false;
  inner.srf_as_list = false;
  inner.clause = "window function calls";
  WindowCall call;
  call.function = name;
  std::vector<ExprPtr> args;
  for (const auto& a : e.args) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, inner));
    if (IsUntyped(*x)) {
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), a->location));
    }
    args.push_back(std::move(x));
  }
  std::vector<TypePtr> types;
  for (const ExprPtr& a : args) types.push_back(a->type);
  std::vector<TypePtr> arg_types;
  if (e.agg_star || expr::IsAggregateFunction(name)) {
    std::string fname = e.agg_star ? "count_star" : name;
    auto resolved = expr::ResolveAggregate(fname, types, e.agg_distinct);
    if (!resolved.ok()) {
      return Status(resolved.status().code(), resolved.status().message() + Where(e.location));
    }
    call.is_aggregate = true;
    call.aggregate = *resolved;
    call.function = fname;
    call.type = resolved->return_type;
    arg_types = resolved->arg_types;
  } else if (expr::IsWindowFunction(name)) {
    auto resolved = expr::ResolveWindowFunction(name, types);
    if (!resolved.ok()) {
      return Status(resolved.status().code(), resolved.status().message() + Where(e.location));
    }
    call.function = resolved->name;
    call.window_op = resolved->op;
    call.type = resolved->return_type;
    arg_types = resolved->arg_types;
  } else {
    return BindError(e.location, "OVER specified, but " + name +
                                     " is not a window function nor an aggregate function");
  }
  for (size_t i = 0; i < args.size() && i < arg_types.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], arg_types[i], e.location));
  }
  call.args = std::move(args);
  for (const auto& p : spec.partition_by) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*p, inner));
    if (IsUntyped(*x)) {
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), p->location));
    }
    call.partition_by.push_back(std::move(x));
  }
  for (const sql::SortItem& item : spec.order_by) {
    FLOE_ASSIGN_OR_RAISE(ExprPtr k, BindExprImpl(*item.expr, inner));
    if (IsUntyped(*k)) {
      FLOE_ASSIGN_OR_RAISE(k, CoerceTo(k, String(), item.location));
    }
    call.order_by.push_back(
        SortKey{k, !item.descending, item.nulls_first.value_or(item.descending)});
  }
  // The frame. Without ORDER BY every row is a peer of every other, so the default frame
  // is the whole partition.
  if (spec.frame.explicit_frame) {
    switch (spec.frame.mode) {
      case sql::WindowFrame::Mode::kRows:
        call.frame.mode = WindowFrame::Mode::kRows;
        break;
      case sql::WindowFrame::Mode::kRange:
        call.frame.mode = WindowFrame::Mode::kRange;
        break;
      case sql::WindowFrame::Mode::kGroups:
        call.frame.mode = WindowFrame::Mode::kGroups;
        break;
    }
    auto bind_bound = [&](const sql::FrameBound& b, WindowFrameBound* out,
                          std::string_view which) -> Status {
      out->kind = static_cast<WindowFrameBound::Kind>(static_cast<int>(b.kind));
      if (b.kind != sql::FrameBound::Kind::kPreceding &&
          b.kind != sql::FrameBound::Kind::kFollowing) {
        return Status::OK();
      }
      if (!b.offset) return BindError(spec.location, "frame offset missing");
      if (AsIntervalLiteral(*b.offset) != nullptr) {
        return NotSupported(b.offset->location, "interval frame offsets are not supported");
      }
      FLOE_ASSIGN_OR_RAISE(ExprPtr off, BindConstantExpr(*b.offset, text_, options_));
      FLOE_ASSIGN_OR_RAISE(Scalar v, EvaluateConstantAt(off, b.offset->location));
      int64_t n = 0;
      if (v.is_null()) {
        return BindError(b.offset->location,
                         "frame " + std::string(which) + " offset must not be null");
      } else if (std::holds_alternative<int32_t>(v.value())) {
        n = v.get<int32_t>();
      } else if (std::holds_alternative<int64_t>(v.value())) {
        n = v.get<int64_t>();
      } else {
        return NotSupported(b.offset->location, "frame offsets must be integer constants");
      }
      if (n < 0) {
        return BindError(b.offset->location,
                         "frame " + std::string(which) + " offset must not be negative");
      }
      out->offset = n;
      return Status::OK();
    };
    FLOE_RETURN_NOT_OK(bind_bound(spec.frame.start, &call.frame.start, "starting"));
    FLOE_RETURN_NOT_OK(bind_bound(spec.frame.end, &call.frame.end, "ending"));
  } else if (call.order_by.empty()) {
    call.frame.end.kind = WindowFrameBound::Kind::kUnboundedFollowing;
  }
  int id = NewPlaceholder();
  TypePtr type = call.type;
  state()->windows.push_back(WindowInfo{id, std::move(call), name});
  return PlaceholderExpr(id, type, name);
}

Result<ExprPtr> Binder::BindExprImpl(const sql::ParsedExpr& e, ExprContext& ctx) {
  using K = sql::ExprKind;
  switch (e.kind) {
    case K::kColumnRef:
      return BindColumnRef(e, ctx);
    case K::kStar:
      return BindError(e.location, "* is not allowed here");
    case K::kConstant:
      switch (e.constant.kind) {
        case sql::Constant::Kind::kNull:
          return UntypedLiteral(Scalar::Null(String()));
        case sql::Constant::Kind::kInteger:
          if (FitsInt32(e.constant.integer)) {
            return expr::Literal(Scalar::I32(static_cast<int32_t>(e.constant.integer)));
          }
          return expr::Literal(Scalar::I64(e.constant.integer));
        case sql::Constant::Kind::kNumeric: {
          auto v = NumericLiteral(e.constant.text, false);
          if (!v.ok()) return BindError(e.location, v.status().message());
          return expr::Literal(*v);
        }
        case sql::Constant::Kind::kString:
          return UntypedLiteral(Scalar::Str(e.constant.text));
        case sql::Constant::Kind::kBoolean:
          return expr::Literal(Scalar::Bool(e.constant.boolean));
      }
      break;
    case K::kParam:
      return NotSupported(e.location,
                          "parameter $" + std::to_string(e.param_index) + " is not supported");
    case K::kCast: {
      if (e.args[0]->kind == K::kRow || e.type.name == "record") return BindRecordCast(e, ctx);
      if (e.args[0]->kind == K::kArray) {
        FLOE_ASSIGN_OR_RAISE(TypePtr target, BindTypeName(e.type));
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindArray(*e.args[0], ctx, target));
        return BindExplicitCast(std::move(x), e.type, e.location);
      }
      if (AsIntervalLiteral(e) != nullptr) {
        // The typmod's fields decide what the text means (INTERVAL '1' DAY): parsed here.
        Result<IntervalValue> v = IntervalLiteralValue(e);
        if (!v.ok()) return Status(v.status().code(), v.status().message() + Where(e.location));
        return expr::Literal(Scalar::Make(Interval(), IntervalBytes(*v)));
      }
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
      return BindExplicitCast(std::move(x), e.type, e.location);
    }
    case K::kUnaryOp: {
      const sql::ParsedExpr& arg = *e.args[0];
      if (e.op == "+") return BindExprImpl(arg, ctx);
      if (e.op == "-") {
        if (arg.kind == K::kConstant && arg.constant.kind == sql::Constant::Kind::kInteger) {
          int64_t v = -arg.constant.integer;
          if (FitsInt32(v)) return expr::Literal(Scalar::I32(static_cast<int32_t>(v)));
          return expr::Literal(Scalar::I64(v));
        }
        if (arg.kind == K::kConstant && arg.constant.kind == sql::Constant::Kind::kNumeric) {
          auto v = NumericLiteral(arg.constant.text, true);
          if (!v.ok()) return BindError(e.location, v.status().message());
          // -9223372036854775808 arrives as the numeric 9223372036854775808.
          if (v->type()->id() == TypeId::kDecimal && v->type()->scale() == 0 &&
              v->get<Int128>() == static_cast<Int128>(INT64_MIN)) {
            return expr::Literal(Scalar::I64(INT64_MIN));
          }
          return expr::Literal(*v);
        }
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(arg, ctx));
        return MakeCall("negate", {x}, e.location);
      }
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(arg, ctx));
      if (e.op == "~") return MakeCall("bitwise_not", {x}, e.location);
      // PostgreSQL's prefix operators for absolute value, square root and cube root.
      if (e.op == "@") return MakeCall("abs", {x}, e.location);
      if (e.op == "|/") return MakeCall("sqrt", {x}, e.location);
      if (e.op == "||/") return MakeCall("cbrt", {x}, e.location);
      return NotSupported(e.location, "prefix operator " + e.op + " is not supported");
    }
    case K::kBinaryOp:
      return BindBinaryOp(e, ctx);
    case K::kAnd:
    case K::kOr: {
      std::vector<ExprPtr> args;
      for (const auto& a : e.args) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
        FLOE_ASSIGN_OR_RAISE(x, RequireBoolean(x, e.kind == K::kAnd ? "AND" : "OR", a->location));
        args.push_back(std::move(x));
      }
      return e.kind == K::kAnd ? expr::And(std::move(args)) : expr::Or(std::move(args));
    }
    case K::kNot: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
      FLOE_ASSIGN_OR_RAISE(x, RequireBoolean(x, "NOT", e.args[0]->location));
      return expr::Not(x);
    }
    case K::kIsNull: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
      if (!IsUntyped(*x) && x->type->id() == TypeId::kStruct) return RecordNullTest(x, e.negated);
      return expr::Call(e.negated ? "is_not_null" : "is_null", {x}, Boolean(), false);
    }
    case K::kIsBool: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
      FLOE_ASSIGN_OR_RAISE(x,
                           RequireBoolean(x, "IS " + AsciiLower(e.bool_test), e.args[0]->location));
      std::string name;
      if (e.bool_test == "true") {
        name = e.negated ? "is_not_true" : "is_true";
      } else if (e.bool_test == "false") {
        name = e.negated ? "is_not_false" : "is_false";
      } else {
        name = e.negated ? "is_not_null" : "is_null";
      }
      return expr::Call(name, {x}, Boolean(), false);
    }
    case K::kIsDistinctFrom: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr a, BindExprImpl(*e.args[0], ctx));
      FLOE_ASSIGN_OR_RAISE(ExprPtr b, BindExprImpl(*e.args[1], ctx));
      FLOE_ASSIGN_OR_RAISE(auto u, Unify(a, b, "IS DISTINCT FROM", e.location));
      return expr::Call(e.negated ? "is_not_distinct_from" : "is_distinct_from",
                        {u.first, u.second}, Boolean(), false);
    }
    case K::kBetween: {
      FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.args[0], ctx));
      FLOE_ASSIGN_OR_RAISE(ExprPtr lo, BindExprImpl(*e.args[1], ctx));
      FLOE_ASSIGN_OR_RAISE(ExprPtr hi, BindExprImpl(*e.args[2], ctx));
      TypePtr type;
      for (const ExprPtr& v : {x, lo, hi}) {
        if (IsUntyped(*v)) continue;
        if (!type) {
          type = v->type;
        } else if (!type->Equals(*v->type)) {
          FLOE_ASSIGN_OR_RAISE(type, ComparisonTypeAt(type, v->type, "BETWEEN", e.location));
        }
      }
      if (!type) type = String();
      FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, type, e.args[0]->location));
      FLOE_ASSIGN_OR_RAISE(lo, CoerceTo(lo, type, e.args[1]->location));
      FLOE_ASSIGN_OR_RAISE(hi, CoerceTo(hi, type, e.args[2]->location));
      auto range = [&](const ExprPtr& a, const ExprPtr& b) -> Result<ExprPtr> {
        FLOE_ASSIGN_OR_RAISE(ExprPtr ge, MakeCompare("ge", x, a, e.location));
        FLOE_ASSIGN_OR_RAISE(ExprPtr le, MakeCompare("le", x, b, e.location));
        return expr::And({ge, le});
      };
      if (!e.symmetric) {
        if (!e.negated) return range(lo, hi);
        FLOE_ASSIGN_OR_RAISE(ExprPtr lt, MakeCompare("lt", x, lo, e.location));
        FLOE_ASSIGN_OR_RAISE(ExprPtr gt, MakeCompare("gt", x, hi, e.location));
        return expr::Or({lt, gt});
      }
      FLOE_ASSIGN_OR_RAISE(ExprPtr r1, range(lo, hi));
      FLOE_ASSIGN_OR_RAISE(ExprPtr r2, range(hi, lo));
      ExprPtr both = expr::Or({r1, r2});
      return e.negated ? expr::Not(both) : both;
    }
    case K::kInList: {
      if (e.args[0]->kind == K::kRow) return BindRowInList(e, ctx);
      std::vector<const sql::ParsedExpr*> items;
      for (size_t i = 1; i < e.args.size(); ++i) items.push_back(e.args[i].get());
      return BindInList(*e.args[0], items, e.negated, ctx);
    }
    case K::kLike: {
      std::vector<ExprPtr> args;
      bool nullable = false;
      for (const auto& a : e.args) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
        if (IsUntyped(*x)) {
          FLOE_ASSIGN_OR_RAISE(x, CoerceTo(x, String(), a->location));
        }
        if (x->type->id() != TypeId::kString) {
          return BindError(e.location, std::string("operator does not exist: ") +
                                           SqlTypeName(*x->type) +
                                           (e.case_insensitive ? " ~~* " : " ~~ ") + "text");
        }
        nullable = nullable || x->nullable;
        args.push_back(std::move(x));
      }
      ExprPtr like =
          expr::Call(e.case_insensitive ? "ilike" : "like", std::move(args), Boolean(), nullable);
      return e.negated ? expr::Not(like) : like;
    }
    case K::kSimilar: {
      // x SIMILAR TO p [ESCAPE e]: a regular-expression match of the pattern converted by
      // similar_to_escape (expr/string_functions.cc).
      std::vector<ExprPtr> args;
      for (const auto& a : e.args) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
        args.push_back(std::move(x));
      }
      ExprPtr value = args[0];
      args.erase(args.begin());
      FLOE_ASSIGN_OR_RAISE(ExprPtr regex,
                           MakeCall("similar_to_escape", std::move(args), e.location));
      FLOE_ASSIGN_OR_RAISE(ExprPtr match, MakeCall("regex_match", {value, regex}, e.location));
      return e.negated ? expr::Not(match) : match;
    }
    case K::kCase: {
      ExprPtr operand;
      if (!e.args.empty() && e.args[0]) {
        FLOE_ASSIGN_OR_RAISE(operand, BindExprImpl(*e.args[0], ctx));
      }
      std::vector<ExprPtr> whens;
      std::vector<ExprPtr> results;
      std::vector<int> locations;
      for (const auto& [when, then] : e.when_then) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr w, BindExprImpl(*when, ctx));
        if (operand) {
          FLOE_ASSIGN_OR_RAISE(w, MakeCompare("eq", operand, w, when->location));
        } else {
          FLOE_ASSIGN_OR_RAISE(w, RequireBoolean(w, "CASE/WHEN", when->location));
        }
        whens.push_back(std::move(w));
        FLOE_ASSIGN_OR_RAISE(ExprPtr t, BindExprImpl(*then, ctx));
        results.push_back(std::move(t));
        locations.push_back(then->location);
      }
      if (e.else_expr) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*e.else_expr, ctx));
        results.push_back(std::move(x));
        locations.push_back(e.else_expr->location);
      }
      TypePtr type;
      for (size_t i = 0; i < results.size(); ++i) {
        if (IsUntyped(*results[i])) continue;
        if (!type) {
          type = results[i]->type;
        } else if (!type->Equals(*results[i]->type)) {
          FLOE_ASSIGN_OR_RAISE(type, CommonTypeAt(type, results[i]->type, "CASE", locations[i]));
        }
      }
      if (!type) type = String();
      for (size_t i = 0; i < results.size(); ++i) {
        FLOE_ASSIGN_OR_RAISE(results[i], CoerceTo(results[i], type, locations[i]));
      }
      std::vector<ExprPtr> when_then;
      for (size_t i = 0; i < whens.size(); ++i) {
        when_then.push_back(whens[i]);
        when_then.push_back(results[i]);
      }
      return expr::Case(std::move(when_then), e.else_expr ? results.back() : nullptr, type);
    }
    case K::kCoalesce:
    case K::kGreatest:
    case K::kLeast:
    case K::kNullIf: {
      std::string name = e.kind == K::kCoalesce   ? "coalesce"
                         : e.kind == K::kGreatest ? "greatest"
                         : e.kind == K::kLeast    ? "least"
                                                  : "nullif";
      std::vector<ExprPtr> args;
      TypePtr type;
      for (const auto& a : e.args) {
        FLOE_ASSIGN_OR_RAISE(ExprPtr x, BindExprImpl(*a, ctx));
        if (!IsUntyped(*x)) {
          if (!type) {
            type = x->type;
          } else if (!type->Equals(*x->type)) {
            FLOE_ASSIGN_OR_RAISE(type, CommonTypeAt(type, x->type, AsciiLower(name), a->location));
          }
        }
        args.push_back(std::move(x));
      }
      if (!type) type = String();
      bool nullable = e.kind != K::kCoalesce;
      for (size_t i = 0; i < args.size(); ++i) {
        FLOE_ASSIGN_OR_RAISE(args[i], CoerceTo(args[i], type, e.args[i]->location));
        if (e.kind == K::kCoalesce)
          nullable = i == 0 ? args[i]->nullable : nullable && args[i]->nullable;
      }
      if (e.kind == K::kGreatest || e.kind == K::kLeast) {
        nullable = true;
        bool all_not_null = true;
        for (const ExprPtr& a : args) all_not_null = all_not_null && !a->nullable;
        nullable = !all_not_null;
      }
      return expr::Call(name, std::move(args), type, nullable);
    }
    case K::kFunction:
      return BindFunction(e, ctx);
    case K::kQuantified:
      if (e.subquery == nullptr) return BindQuantifiedArray(e, ctx);
      [[fallthrough]];
    case K::kScalarSubquery:
    case K::kExists:
    case K::kInSubquery:
      if (!ctx.allow_subqueries) {
        return NotSupported(e.location,
                            "subqueries in " + std::string(ctx.clause) + " are not supported");
      }
      return BindSubqueryExpr(e, ctx);
    case K::kArray:
      return BindArray(e, ctx, nullptr);
    case K::kSubscript:
      return BindSubscript(e, ctx);
    case K::kFieldSelect:
      return BindFieldSelect(e, ctx);
    case K::kRow:
      return BindRow(e, ctx, nullptr);
    case K::kCurrentValue: {
      const int64_t t = options_.statement_time_micros;
      const int64_t day = FloorDiv(t, kMicrosPerDay);
      const std::string& f = e.value_function;
      if (f == "current_date") {
        return expr::Literal(Scalar::Make(Date(), static_cast<int32_t>(day)));
      }
      if (f == "current_timestamp") return expr::Literal(Scalar::Make(TimestampTz(), t));
      if (f == "localtimestamp") return expr::Literal(Scalar::Make(Timestamp(), t));
      if (f == "current_time" || f == "localtime") {
        return expr::Literal(Scalar::Make(Time(), FloorMod(t, kMicrosPerDay)));
      }
      return NotSupported(e.location, f + " is not supported");
    }
    case K::kTypedInterval:
      break;
  }
  return NotSupported(e.location, "this expression is not supported");
}

}  // namespace floe::plan::internal
