// Expressions, types, sort items and window definitions: libpg_query's JSON -> ast.h.

#include <cctype>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/sql/parse_tree_internal.h"
#include "floe/sql/parser.h"

namespace floe::sql::internal {

namespace {

// PostgreSQL 15's FRAMEOPTION_* bits (nodes/parsenodes.h).
constexpr int64_t kFrameNonDefault = 0x1;
constexpr int64_t kFrameRange = 0x2;
constexpr int64_t kFrameRows = 0x4;
constexpr int64_t kFrameGroups = 0x8;
constexpr int64_t kFrameStartUnboundedPreceding = 0x20;
constexpr int64_t kFrameEndUnboundedPreceding = 0x40;
constexpr int64_t kFrameStartUnboundedFollowing = 0x80;
constexpr int64_t kFrameEndUnboundedFollowing = 0x100;
constexpr int64_t kFrameStartCurrentRow = 0x200;
constexpr int64_t kFrameEndCurrentRow = 0x400;
constexpr int64_t kFrameStartOffsetPreceding = 0x800;
constexpr int64_t kFrameEndOffsetPreceding = 0x1000;
constexpr int64_t kFrameStartOffsetFollowing = 0x2000;
constexpr int64_t kFrameEndOffsetFollowing = 0x4000;
constexpr int64_t kFrameExclusion = 0x8000 | 0x10000 | 0x20000;

ParsedExprPtr NewExpr(ExprKind kind, int location) {
  auto e = std::make_shared<ParsedExpr>();
  e->kind = kind;
  e->location = location;
  return e;
}

/// The last String of an operator name list (OPERATOR(pg_catalog.+) -> "+").
std::string OperatorName(const Json& fields) {
  const Json& names = ListField(fields, "name");
  if (names.empty()) return "";
  const Json* s = nullptr;
  if (NodeTag(names.back(), &s) != "String") return "";
  return StringField(*s, "sval");
}

/// `text` as an int64 when it is an integer literal that fits.
bool ParseInt64(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  return ec == std::errc() && ptr == end;
}

Result<Constant> ConvertConstant(const Converter& c, const Json& fields) {
  Constant k;
  int location = LocationOf(fields);
  if (BoolField(fields, "isnull")) return k;
  if (const Json* v = Field(fields, "ival")) {
    k.kind = Constant::Kind::kInteger;
    const Json* inner = Field(*v, "ival");
    k.integer = inner != nullptr && inner->is_number_integer()
                    ? inner->get<int64_t>()
                    : ReadIntegerLiteral(c.text(), location);
    return k;
  }
  if (const Json* v = Field(fields, "fval")) {
    std::string text = StringField(*v, "fval");
    if (ParseInt64(text, &k.integer)) {
      k.kind = Constant::Kind::kInteger;
    } else {
      k.kind = Constant::Kind::kNumeric;
      k.text = std::move(text);
    }
    return k;
  }
  if (const Json* v = Field(fields, "sval")) {
    k.kind = Constant::Kind::kString;
    k.text = StringField(*v, "sval");
    return k;
  }
  if (const Json* v = Field(fields, "boolval")) {
    k.kind = Constant::Kind::kBoolean;
    k.boolean = BoolField(*v, "boolval");
    return k;
  }
  if (Field(fields, "bsval") != nullptr) {
    return c.NotSupported("a bit-string literal", location);
  }
  return c.NotSupported("this constant", location);
}

}  // namespace

Result<std::vector<std::string>> Converter::ConvertNameList(const Json& list, int location) {
  std::vector<std::string> names;
  for (const Json& item : list) {
    const Json* f = nullptr;
    if (NodeTag(item, &f) != "String") return NotSupported("this kind of name", location);
    names.push_back(StringField(*f, "sval"));
  }
  return names;
}

Result<TypeName> Converter::ConvertTypeName(const Json& fields) {
  TypeName t;
  t.location = LocationOf(fields);
  if (BoolField(fields, "setof")) return NotSupported("SETOF", t.location);
  if (BoolField(fields, "pct_type")) return NotSupported("%TYPE", t.location);
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> names,
                       ConvertNameList(ListField(fields, "names"), t.location));
  names = StripCatalog(std::move(names));
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) t.name += '.';
    t.name += names[i];
  }
  for (const Json& mod : ListField(fields, "typmods")) {
    const Json* f = nullptr;
    if (NodeTag(mod, &f) != "A_Const" || Field(*f, "ival") == nullptr) {
      return NotSupported("a type modifier that is not an integer constant", t.location);
    }
    FLOE_ASSIGN_OR_RAISE(Constant k, ConvertConstant(*this, *f));
    t.modifiers.push_back(k.integer);
  }
  t.array_bounds = static_cast<int>(ListField(fields, "arrayBounds").size());
  return t;
}

Result<std::vector<ParsedExprPtr>> Converter::ConvertExprList(const Json& list) {
  std::vector<ParsedExprPtr> out;
  out.reserve(list.size());
  for (const Json& item : list) {
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr e, ConvertExpr(item));
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<SortItem>> Converter::ConvertSortList(const Json& list) {
  std::vector<SortItem> items;
  for (const Json& node : list) {
    const Json* f = nullptr;
    if (NodeTag(node, &f) != "SortBy") return NotSupported("this ORDER BY item", -1);
    SortItem item;
    const Json* expr = Field(*f, "node");
    if (expr == nullptr) return NotSupported("an empty ORDER BY item", LocationOf(*f));
    FLOE_ASSIGN_OR_RAISE(item.expr, ConvertExpr(*expr));
    item.location = LocationOf(*f) >= 0 ? LocationOf(*f) : item.expr->location;
    std::string dir = StringField(*f, "sortby_dir");
    if (dir == "SORTBY_DESC") {
      item.descending = true;
    } else if (dir == "SORTBY_USING") {
      return NotSupported("ORDER BY ... USING", item.location);
    }
    std::string nulls = StringField(*f, "sortby_nulls");
    if (nulls == "SORTBY_NULLS_FIRST") item.nulls_first = true;
    if (nulls == "SORTBY_NULLS_LAST") item.nulls_first = false;
    items.push_back(std::move(item));
  }
  return items;
}

Result<WindowDef> Converter::ConvertWindowDef(const Json& fields) {
  WindowDef w;
  w.location = LocationOf(fields);
  w.name = StringField(fields, "name");
  w.ref_name = StringField(fields, "refname");
  FLOE_ASSIGN_OR_RAISE(w.partition_by, ConvertExprList(ListField(fields, "partitionClause")));
  FLOE_ASSIGN_OR_RAISE(w.order_by, ConvertSortList(ListField(fields, "orderClause")));
  int64_t options = IntField(fields, "frameOptions", 0);
  if (options & kFrameExclusion) return NotSupported("a window frame EXCLUDE clause", w.location);
  w.frame.explicit_frame = (options & kFrameNonDefault) != 0;
  if (options & kFrameRows) {
    w.frame.mode = WindowFrame::Mode::kRows;
  } else if (options & kFrameGroups) {
    w.frame.mode = WindowFrame::Mode::kGroups;
  } else {
    w.frame.mode = WindowFrame::Mode::kRange;
  }
  (void)kFrameRange;
  ParsedExprPtr start_offset, end_offset;
  if (const Json* s = Field(fields, "startOffset")) {
    FLOE_ASSIGN_OR_RAISE(start_offset, ConvertExpr(*s));
  }
  if (const Json* e = Field(fields, "endOffset")) {
    FLOE_ASSIGN_OR_RAISE(end_offset, ConvertExpr(*e));
  }
  using K = FrameBound::Kind;
  if (options & kFrameStartUnboundedPreceding) {
    w.frame.start = {K::kUnboundedPreceding, nullptr};
  } else if (options & kFrameStartCurrentRow) {
    w.frame.start = {K::kCurrentRow, nullptr};
  } else if (options & kFrameStartOffsetPreceding) {
    w.frame.start = {K::kPreceding, start_offset};
  } else if (options & kFrameStartOffsetFollowing) {
    w.frame.start = {K::kFollowing, start_offset};
  } else if (options & kFrameStartUnboundedFollowing) {
    w.frame.start = {K::kUnboundedFollowing, nullptr};
  }
  if (options & kFrameEndUnboundedFollowing) {
    w.frame.end = {K::kUnboundedFollowing, nullptr};
  } else if (options & kFrameEndCurrentRow) {
    w.frame.end = {K::kCurrentRow, nullptr};
  } else if (options & kFrameEndOffsetPreceding) {
    w.frame.end = {K::kPreceding, end_offset};
  } else if (options & kFrameEndOffsetFollowing) {
    w.frame.end = {K::kFollowing, end_offset};
  } else if (options & kFrameEndUnboundedPreceding) {
    w.frame.end = {K::kUnboundedPreceding, nullptr};
  }
  return w;
}

namespace {

Result<ParsedExprPtr> ConvertAExpr(Converter& c, const Json& f) {
  int location = LocationOf(f);
  std::string kind = StringField(f, "kind");
  std::string op = OperatorName(f);
  const Json* lexpr = Field(f, "lexpr");
  const Json* rexpr = Field(f, "rexpr");
  ParsedExprPtr left, right;
  if (lexpr != nullptr) {
    FLOE_ASSIGN_OR_RAISE(left, c.ConvertExpr(*lexpr));
  }

  // The list forms (IN, BETWEEN) carry a List node on the right.
  auto right_list = [&]() -> Result<std::vector<ParsedExprPtr>> {
    const Json* lf = nullptr;
    if (rexpr == nullptr || NodeTag(*rexpr, &lf) != "List") {
      return c.NotSupported("this form of " + kind, location);
    }
    return c.ConvertExprList(ListField(*lf, "items"));
  };

  if (kind == "AEXPR_OP") {
    if (rexpr == nullptr) return c.NotSupported("postfix operator " + op, location);
    FLOE_ASSIGN_OR_RAISE(right, c.ConvertExpr(*rexpr));
    if (left == nullptr) {
      auto e = NewExpr(ExprKind::kUnaryOp, location);
      e->op = op;
      e->args = {right};
      return e;
    }
    auto e = NewExpr(ExprKind::kBinaryOp, location);
    e->op = op;
    e->args = {left, right};
    return e;
  }
  if (left == nullptr) return c.NotSupported("operator " + kind + " without a left side", location);
  if (kind == "AEXPR_IN") {
    FLOE_ASSIGN_OR_RAISE(auto items, right_list());
    auto e = NewExpr(ExprKind::kInList, location);
    e->negated = op == "<>";
    e->args.push_back(left);
    for (auto& item : items) e->args.push_back(std::move(item));
    return e;
  }
  if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN" || kind == "AEXPR_BETWEEN_SYM" ||
      kind == "AEXPR_NOT_BETWEEN_SYM") {
    FLOE_ASSIGN_OR_RAISE(auto items, right_list());
    if (items.size() != 2) return c.NotSupported("this BETWEEN", location);
    auto e = NewExpr(ExprKind::kBetween, location);
    e->negated = kind.find("NOT_") != std::string::npos;
    e->symmetric = kind.find("_SYM") != std::string::npos;
    e->args = {left, items[0], items[1]};
    return e;
  }
  if (rexpr == nullptr)
    return c.NotSupported("operator " + kind + " without a right side", location);
  if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE" || kind == "AEXPR_SIMILAR") {
    bool similar = kind == "AEXPR_SIMILAR";
    auto e = NewExpr(similar ? ExprKind::kSimilar : ExprKind::kLike, location);
    e->negated = !op.empty() && op[0] == '!';
    e->case_insensitive = kind == "AEXPR_ILIKE";
    e->args.push_back(left);
    // ESCAPE arrives as like_escape(pattern, escape); SIMILAR TO always as
    // similar_to_escape(pattern[, escape]).
    const Json* ff = nullptr;
    if (NodeTag(*rexpr, &ff) == "FuncCall" &&
        StringField(*ff, "funcformat") == "COERCE_EXPLICIT_CALL") {
      FLOE_ASSIGN_OR_RAISE(auto fname, c.ConvertNameList(ListField(*ff, "funcname"), location));
      fname = StripCatalog(std::move(fname));
      const Json& fargs = ListField(*ff, "args");
      std::string expected = similar ? "similar_to_escape" : "like_escape";
      bool prefixed = ListField(*ff, "funcname").size() == 2;
      if (prefixed && fname.size() == 1 && fname[0] == expected && !fargs.empty() &&
          fargs.size() <= 2) {
        FLOE_ASSIGN_OR_RAISE(auto parts, c.ConvertExprList(fargs));
        for (auto& p : parts) e->args.push_back(std::move(p));
        return e;
      }
    }
    FLOE_ASSIGN_OR_RAISE(right, c.ConvertExpr(*rexpr));
    e->args.push_back(right);
    return e;
  }
  FLOE_ASSIGN_OR_RAISE(right, c.ConvertExpr(*rexpr));
  if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
    auto e = NewExpr(ExprKind::kIsDistinctFrom, location);
    e->negated = kind == "AEXPR_NOT_DISTINCT";
    e->args = {left, right};
    return e;
  }
  if (kind == "AEXPR_NULLIF") {
    auto e = NewExpr(ExprKind::kNullIf, location);
    e->args = {left, right};
    return e;
  }
  if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") {
    // x op ANY|ALL (array): a kQuantified without a subquery; args[1] is the array.
    auto e = NewExpr(ExprKind::kQuantified, location);
    e->op = op;
    e->all = kind == "AEXPR_OP_ALL";
    e->args = {left, right};
    return e;
  }
  return c.NotSupported("operator kind " + kind, location);
}

Result<ParsedExprPtr> ConvertFuncCall(Converter& c, const Json& f) {
  int location = LocationOf(f);
  auto e = NewExpr(ExprKind::kFunction, location);
  FLOE_ASSIGN_OR_RAISE(auto names, c.ConvertNameList(ListField(f, "funcname"), location));
  e->names = StripCatalog(std::move(names));
  e->agg_within_group = BoolField(f, "agg_within_group");
  e->func_variadic = BoolField(f, "func_variadic");
  for (const Json& arg : ListField(f, "args")) {
    const Json* af = nullptr;
    if (NodeTag(arg, &af) == "NamedArgExpr") {
      const Json* value = Field(*af, "arg");
      if (value == nullptr) return c.NotSupported("a named argument without a value", location);
      FLOE_ASSIGN_OR_RAISE(ParsedExprPtr v, c.ConvertExpr(*value));
      e->args.push_back(std::move(v));
      e->arg_names.push_back(StringField(*af, "name"));
    } else {
      FLOE_ASSIGN_OR_RAISE(ParsedExprPtr v, c.ConvertExpr(arg));
      e->args.push_back(std::move(v));
      e->arg_names.emplace_back();
    }
  }
  e->agg_star = BoolField(f, "agg_star");
  e->agg_distinct = BoolField(f, "agg_distinct");
  FLOE_ASSIGN_OR_RAISE(e->agg_order_by, c.ConvertSortList(ListField(f, "agg_order")));
  if (const Json* filter = Field(f, "agg_filter")) {
    FLOE_ASSIGN_OR_RAISE(e->agg_filter, c.ConvertExpr(*filter));
  }
  if (const Json* over = Field(f, "over")) {
    FLOE_ASSIGN_OR_RAISE(WindowDef w, c.ConvertWindowDef(*over));
    e->over = std::make_shared<WindowDef>(std::move(w));
  }
  return e;
}

Result<ParsedExprPtr> ConvertSubLink(Converter& c, const Json& f) {
  int location = LocationOf(f);
  std::string type = StringField(f, "subLinkType");
  const Json* sub = Field(f, "subselect");
  if (sub == nullptr) return c.NotSupported("a subquery without a query", location);
  ParsedExprPtr e;
  if (type == "EXISTS_SUBLINK") {
    e = NewExpr(ExprKind::kExists, location);
  } else if (type == "EXPR_SUBLINK") {
    e = NewExpr(ExprKind::kScalarSubquery, location);
  } else if (type == "ANY_SUBLINK" || type == "ALL_SUBLINK") {
    const Json* test = Field(f, "testexpr");
    if (test == nullptr) return c.NotSupported(type, location);
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr left, c.ConvertExpr(*test));
    std::string op = "=";
    const Json& op_names = ListField(f, "operName");
    if (!op_names.empty()) {
      FLOE_ASSIGN_OR_RAISE(auto parts, c.ConvertNameList(op_names, location));
      op = parts.back();
    }
    if (type == "ANY_SUBLINK" && op == "=") {
      e = NewExpr(ExprKind::kInSubquery, location);
    } else {
      e = NewExpr(ExprKind::kQuantified, location);
      e->op = op;
      e->all = type == "ALL_SUBLINK";
    }
    e->args = {left};
  } else if (type == "ARRAY_SUBLINK") {
    // ARRAY(subquery): a kArray with the subquery in place of elements.
    e = NewExpr(ExprKind::kArray, location);
  } else {
    return c.NotSupported("this subquery form (" + type + ")", location);
  }
  FLOE_ASSIGN_OR_RAISE(e->subquery, c.ConvertSelect(*sub));
  return e;
}

Result<std::string> ValueFunctionName(const Converter& c, const std::string& op, int location) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"SVFOP_CURRENT_DATE", "current_date"},
      {"SVFOP_CURRENT_TIME", "current_time"},
      {"SVFOP_CURRENT_TIMESTAMP", "current_timestamp"},
      {"SVFOP_LOCALTIME", "localtime"},
      {"SVFOP_LOCALTIMESTAMP", "localtimestamp"},
      {"SVFOP_CURRENT_ROLE", "current_role"},
      {"SVFOP_CURRENT_USER", "current_user"},
      {"SVFOP_USER", "user"},
      {"SVFOP_SESSION_USER", "session_user"},
      {"SVFOP_CURRENT_CATALOG", "current_catalog"},
      {"SVFOP_CURRENT_SCHEMA", "current_schema"},
  };
  for (const auto& [pg, name] : kNames) {
    if (op == pg) return std::string(name);
  }
  if (op.size() > 2 && op.compare(op.size() - 2, 2, "_N") == 0) {
    return c.NotSupported("a precision on " + op.substr(6, op.size() - 8), location);
  }
  return c.NotSupported(op, location);
}

}  // namespace

DepthGuard::DepthGuard(Converter* c, int location, std::string_view what) : converter_(c) {
  if (++converter_->depth_ > kMaxDepth) {
    status_ = Status::NotSupported("{} nested deeper than {} levels are not supported{}", what,
                                   kMaxDepth, converter_->Where(location));
  }
}

Result<ParsedExprPtr> Converter::ConvertExpr(const Json& node) {
  const Json* f = nullptr;
  std::string_view tag = NodeTag(node, &f);
  if (tag.empty()) return NotSupported("an empty expression", -1);
  int location = LocationOf(*f);
  DepthGuard guard(this, location);
  FLOE_RETURN_NOT_OK(guard.status());

  if (tag == "ColumnRef") {
    auto e = NewExpr(ExprKind::kColumnRef, location);
    const Json& parts = ListField(*f, "fields");
    for (size_t i = 0; i < parts.size(); ++i) {
      const Json* pf = nullptr;
      std::string_view ptag = NodeTag(parts[i], &pf);
      if (ptag == "String") {
        e->names.push_back(StringField(*pf, "sval"));
      } else if (ptag == "A_Star" && i + 1 == parts.size()) {
        e->kind = ExprKind::kStar;
      } else {
        return NotSupported("this column reference", location);
      }
    }
    return e;
  }
  if (tag == "A_Const") {
    auto e = NewExpr(ExprKind::kConstant, location);
    FLOE_ASSIGN_OR_RAISE(e->constant, ConvertConstant(*this, *f));
    return e;
  }
  if (tag == "ParamRef") {
    auto e = NewExpr(ExprKind::kParam, location);
    e->param_index = static_cast<int>(IntField(*f, "number"));
    return e;
  }
  if (tag == "TypeCast") {
    const Json* arg = Field(*f, "arg");
    const Json* type = Field(*f, "typeName");
    if (arg == nullptr || type == nullptr) return NotSupported("this cast", location);
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr inner, ConvertExpr(*arg));
    FLOE_ASSIGN_OR_RAISE(TypeName t, ConvertTypeName(*type));
    // Typed literals (DATE '...') carry no location of their own; the type's is theirs.
    auto e = NewExpr(ExprKind::kCast, location >= 0 ? location : t.location);
    e->type = std::move(t);
    e->args = {std::move(inner)};
    return e;
  }
  if (tag == "A_Expr") return ConvertAExpr(*this, *f);
  if (tag == "BoolExpr") {
    std::string op = StringField(*f, "boolop");
    FLOE_ASSIGN_OR_RAISE(auto args, ConvertExprList(ListField(*f, "args")));
    if (op == "NOT_EXPR") {
      if (args.size() != 1) return NotSupported("NOT with several arguments", location);
      // NOT EXISTS and NOT IN (subquery) become the negated forms.
      ParsedExprPtr& arg = args[0];
      if ((arg->kind == ExprKind::kExists || arg->kind == ExprKind::kInSubquery) && !arg->negated) {
        arg->negated = true;
        return arg;
      }
      auto e = NewExpr(ExprKind::kNot, location);
      e->args = std::move(args);
      return e;
    }
    if (args.size() < 2) return NotSupported(op + " with fewer than two arguments", location);
    auto e = NewExpr(op == "AND_EXPR" ? ExprKind::kAnd : ExprKind::kOr, location);
    if (op != "AND_EXPR" && op != "OR_EXPR") return NotSupported(op, location);
    e->args = std::move(args);
    return e;
  }
  if (tag == "NullTest") {
    const Json* arg = Field(*f, "arg");
    if (arg == nullptr) return NotSupported("IS NULL without an argument", location);
    auto e = NewExpr(ExprKind::kIsNull, location);
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr inner, ConvertExpr(*arg));
    e->args = {std::move(inner)};
    e->negated = StringField(*f, "nulltesttype") == "IS_NOT_NULL";
    return e;
  }
  if (tag == "BooleanTest") {
    const Json* arg = Field(*f, "arg");
    if (arg == nullptr) return NotSupported("IS TRUE without an argument", location);
    auto e = NewExpr(ExprKind::kIsBool, location);
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr inner, ConvertExpr(*arg));
    e->args = {std::move(inner)};
    std::string test = StringField(*f, "booltesttype");  // IS_[NOT_]TRUE|FALSE|UNKNOWN
    e->negated = test.rfind("IS_NOT_", 0) == 0;
    e->bool_test = AsciiLower(std::string_view(test).substr(e->negated ? 7 : 3));
    return e;
  }
  if (tag == "CaseExpr") {
    auto e = NewExpr(ExprKind::kCase, location);
    ParsedExprPtr operand;
    if (const Json* arg = Field(*f, "arg")) {
      FLOE_ASSIGN_OR_RAISE(operand, ConvertExpr(*arg));
    }
    e->args = {operand};
    for (const Json& w : ListField(*f, "args")) {
      const Json* wf = nullptr;
      if (NodeTag(w, &wf) != "CaseWhen") return NotSupported("this CASE branch", location);
      const Json* when = Field(*wf, "expr");
      const Json* then = Field(*wf, "result");
      if (when == nullptr || then == nullptr) return NotSupported("this CASE branch", location);
      FLOE_ASSIGN_OR_RAISE(ParsedExprPtr cond, ConvertExpr(*when));
      FLOE_ASSIGN_OR_RAISE(ParsedExprPtr result, ConvertExpr(*then));
      e->when_then.emplace_back(std::move(cond), std::move(result));
    }
    if (const Json* d = Field(*f, "defresult")) {
      FLOE_ASSIGN_OR_RAISE(e->else_expr, ConvertExpr(*d));
    }
    return e;
  }
  if (tag == "CoalesceExpr" || tag == "MinMaxExpr" || tag == "RowExpr" || tag == "A_ArrayExpr") {
    ExprKind kind = ExprKind::kCoalesce;
    if (tag == "MinMaxExpr") {
      kind = StringField(*f, "op") == "IS_GREATEST" ? ExprKind::kGreatest : ExprKind::kLeast;
    } else if (tag == "RowExpr") {
      kind = ExprKind::kRow;
    } else if (tag == "A_ArrayExpr") {
      kind = ExprKind::kArray;
    }
    auto e = NewExpr(kind, location);
    FLOE_ASSIGN_OR_RAISE(
        e->args, ConvertExprList(ListField(*f, tag == "A_ArrayExpr" ? "elements" : "args")));
    return e;
  }
  if (tag == "SubLink") return ConvertSubLink(*this, *f);
  if (tag == "FuncCall") return ConvertFuncCall(*this, *f);
  if (tag == "GroupingFunc") {
    auto e = NewExpr(ExprKind::kFunction, location);
    e->names = {"grouping"};
    FLOE_ASSIGN_OR_RAISE(e->args, ConvertExprList(ListField(*f, "args")));
    e->arg_names.resize(e->args.size());
    return e;
  }
  if (tag == "SQLValueFunction") {
    auto e = NewExpr(ExprKind::kCurrentValue, location);
    FLOE_ASSIGN_OR_RAISE(e->value_function,
                         ValueFunctionName(*this, StringField(*f, "op"), location));
    return e;
  }
  if (tag == "A_Indirection") {
    const Json* arg = Field(*f, "arg");
    if (arg == nullptr) return NotSupported("this subscript", location);
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr base, ConvertExpr(*arg));
    for (const Json& ind : ListField(*f, "indirection")) {
      const Json* inf = nullptr;
      std::string_view itag = NodeTag(ind, &inf);
      if (itag == "String") {
        auto e = NewExpr(ExprKind::kFieldSelect, base->location);
        e->names = {StringField(*inf, "sval")};
        e->args = {std::move(base)};
        base = std::move(e);
        continue;
      }
      if (itag == "A_Star") {
        // (x).*: every field of a composite value, expanded where a list of values may be.
        auto e = NewExpr(ExprKind::kStar, base->location);
        e->args = {std::move(base)};
        base = std::move(e);
        continue;
      }
      if (itag != "A_Indices") return NotSupported("this indirection", base->location);
      const bool slice = BoolField(*inf, "is_slice");
      ParsedExprPtr lower, upper;
      if (const Json* l = Field(*inf, "lidx"); l != nullptr) {
        FLOE_ASSIGN_OR_RAISE(lower, ConvertExpr(*l));
      }
      if (const Json* u = Field(*inf, "uidx"); u != nullptr) {
        FLOE_ASSIGN_OR_RAISE(upper, ConvertExpr(*u));
      }
      if (!slice && upper == nullptr) return NotSupported("this subscript", base->location);
      auto e = NewExpr(ExprKind::kSubscript, base->location);
      e->slice = slice;
      e->args =
          slice ? std::vector<ParsedExprPtr>{std::move(base), std::move(lower), std::move(upper)}
                : std::vector<ParsedExprPtr>{std::move(base), std::move(upper)};
      base = std::move(e);
    }
    return base;
  }
  if (tag == "SetToDefault") return NotSupported("DEFAULT", location);
  if (tag == "CollateClause") return NotSupported("COLLATE", location);
  if (tag == "NamedArgExpr") return NotSupported("a named argument here", location);
  if (tag == "XmlExpr" || tag == "XmlSerialize") return NotSupported("XML", location);
  if (tag == "CurrentOfExpr") return NotSupported("WHERE CURRENT OF", location);
  if (tag == "GroupingFunc") return NotSupported("GROUPING()", location);
  return NotSupported("this kind of expression (" + SqlWords(tag) + ")", location);
}

Result<std::string> Converter::DefElemValueText(const Json& def) {
  const Json* arg = Field(def, "arg");
  if (arg == nullptr) return std::string();
  const Json* f = nullptr;
  std::string_view tag = NodeTag(*arg, &f);
  int location = LocationOf(def);
  if (tag == "String") return StringField(*f, "sval");
  if (tag == "Float") return StringField(*f, "fval");
  if (tag == "Boolean") return std::string(BoolField(*f, "boolval") ? "true" : "false");
  if (tag == "Integer") {
    if (const Json* v = Field(*f, "ival"); v != nullptr && v->is_number_integer()) {
      return std::to_string(v->get<int64_t>());
    }
    // Zero and negative values are missing from the JSON; read them after the '='.
    size_t pos = location >= 0 ? text_.find('=', static_cast<size_t>(location)) : std::string::npos;
    if (pos == std::string_view::npos) return std::string("0");
    return std::to_string(ReadIntegerLiteral(text_, static_cast<int>(pos + 1)));
  }
  if (tag == "TypeName") {
    FLOE_ASSIGN_OR_RAISE(TypeName t, ConvertTypeName(*f));
    return t.name;
  }
  if (tag == "A_Const") {
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr e, ConvertExpr(*arg));
    const Constant& k = e->constant;
    switch (k.kind) {
      case Constant::Kind::kInteger:
        return std::to_string(k.integer);
      case Constant::Kind::kBoolean:
        return std::string(k.boolean ? "true" : "false");
      case Constant::Kind::kNull:
        return std::string("null");
      default:
        return k.text;
    }
  }
  return NotSupported("this option value (" + std::string(tag) + ")", location);
}

}  // namespace floe::sql::internal
