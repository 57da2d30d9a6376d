// Statements, queries and FROM items: libpg_query's JSON -> ast.h.

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/ascii.h"
#include "floe/sql/parse_tree_internal.h"

namespace floe::sql::internal {

namespace {

/// At most this many grouping sets, as in PostgreSQL.
constexpr size_t kMaxGroupingSets = 4096;

/// A copy of `j` without "location" members, to compare expressions as written.
Json WithoutLocations(const Json& j) {
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() != "location") out[it.key()] = WithoutLocations(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& item : j) out.push_back(WithoutLocations(item));
    return out;
  }
  return j;
}

std::vector<std::string> RangeVarNames(const Json& rv) {
  std::vector<std::string> names;
  for (const char* key : {"catalogname", "schemaname", "relname"}) {
    std::string part = StringField(rv, key);
    if (!part.empty()) names.push_back(std::move(part));
  }
  return names;
}

// The alias of the target table of DELETE, UPDATE and MERGE ("" when none).
std::string TargetAlias(const Json& rv) {
  const Json* alias = Field(rv, "alias");
  return alias != nullptr ? StringField(*alias, "aliasname") : std::string();
}

/// GROUP BY with ROLLUP / CUBE / GROUPING SETS: distinct expressions in `group_by`, each
/// grouping set as indexes into it.
class GroupingSetBuilder {
 public:
  GroupingSetBuilder(Converter* c, std::vector<ParsedExprPtr>* group_by)
      : converter_(c), group_by_(group_by) {}

  Result<std::vector<std::vector<int>>> Build(const Json& clause) {
    std::vector<std::vector<int>> sets = {{}};
    for (const Json& item : clause) {
      FLOE_ASSIGN_OR_RAISE(auto item_sets, SetsOf(item, /*top=*/true));
      std::vector<std::vector<int>> next;
      for (const auto& a : sets) {
        for (const auto& b : item_sets) {
          std::vector<int> merged = a;
          merged.insert(merged.end(), b.begin(), b.end());
          next.push_back(std::move(merged));
          if (next.size() > kMaxGroupingSets) return TooMany(item);
        }
      }
      sets = std::move(next);
    }
    return sets;
  }

 private:
  Status TooMany(const Json& item) {
    const Json* f = nullptr;
    NodeTag(item, &f);
    return converter_->NotSupported(
        "more than " + std::to_string(kMaxGroupingSets) + " grouping sets",
        f != nullptr ? LocationOf(*f) : -1);
  }

  Result<int> IndexOf(const Json& expr) {
    std::string key = WithoutLocations(expr).dump();
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == key) return static_cast<int>(i);
    }
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr e, converter_->ConvertExpr(expr));
    keys_.push_back(std::move(key));
    group_by_->push_back(std::move(e));
    return static_cast<int>(keys_.size() - 1);
  }

  /// The indexes of one ROLLUP/CUBE element: (a, b) is a unit of two expressions.
  Result<std::vector<int>> Element(const Json& item) {
    const Json* f = nullptr;
    if (NodeTag(item, &f) == "RowExpr" && StringField(*f, "row_format") == "COERCE_IMPLICIT_CAST") {
      std::vector<int> out;
      for (const Json& arg : ListField(*f, "args")) {
        FLOE_ASSIGN_OR_RAISE(int i, IndexOf(arg));
        out.push_back(i);
      }
      return out;
    }
    FLOE_ASSIGN_OR_RAISE(int i, IndexOf(item));
    return std::vector<int>{i};
  }

  Result<std::vector<std::vector<int>>> SetsOf(const Json& item, bool top) {
    const Json* f = nullptr;
    std::string_view tag = NodeTag(item, &f);
    if (tag != "GroupingSet") {
      if (!top) {
        FLOE_ASSIGN_OR_RAISE(std::vector<int> unit, Element(item));
        return std::vector<std::vector<int>>{unit};
      }
      FLOE_ASSIGN_OR_RAISE(int i, IndexOf(item));
      return std::vector<std::vector<int>>{{i}};
    }
    std::string kind = StringField(*f, "kind");
    const Json& content = ListField(*f, "content");
    std::vector<std::vector<int>> out;
    if (kind == "GROUPING_SET_EMPTY") return std::vector<std::vector<int>>{{}};
    if (kind == "GROUPING_SET_SETS") {
      for (const Json& sub : content) {
        FLOE_ASSIGN_OR_RAISE(auto sub_sets, SetsOf(sub, /*top=*/false));
        for (auto& s : sub_sets) {
          out.push_back(std::move(s));
          if (out.size() > kMaxGroupingSets) return TooMany(item);
        }
      }
      return out;
    }
    std::vector<std::vector<int>> elements;
    for (const Json& sub : content) {
      FLOE_ASSIGN_OR_RAISE(std::vector<int> unit, Element(sub));
      elements.push_back(std::move(unit));
    }
    if (kind == "GROUPING_SET_ROLLUP") {
      for (size_t k = elements.size() + 1; k-- > 0;) {
        std::vector<int> set;
        for (size_t i = 0; i < k; ++i)
          set.insert(set.end(), elements[i].begin(), elements[i].end());
        out.push_back(std::move(set));
      }
      return out;
    }
    if (kind == "GROUPING_SET_CUBE") {
      if (elements.size() > 12) return TooMany(item);
      size_t n = elements.size();
      for (size_t mask = (size_t{1} << n); mask-- > 0;) {
        std::vector<int> set;
        for (size_t i = 0; i < n; ++i) {
          if (mask & (size_t{1} << (n - 1 - i))) {
            set.insert(set.end(), elements[i].begin(), elements[i].end());
          }
        }
        out.push_back(std::move(set));
      }
      return out;
    }
    return converter_->NotSupported("grouping set kind " + kind, LocationOf(*f));
  }

  Converter* converter_;
  std::vector<ParsedExprPtr>* group_by_;
  std::vector<std::string> keys_;
};

bool ContainsGroupingSet(const Json& clause) {
  for (const Json& item : clause) {
    const Json* f = nullptr;
    if (NodeTag(item, &f) == "GroupingSet") return true;
  }
  return false;
}

Result<std::vector<Option>> ConvertOptions(Converter& c, const Json& list) {
  std::vector<Option> options;
  for (const Json& item : list) {
    const Json* f = nullptr;
    if (NodeTag(item, &f) != "DefElem") return c.NotSupported("this option", -1);
    Option o;
    o.location = LocationOf(*f);
    std::string ns = StringField(*f, "defnamespace");
    o.name = ns.empty() ? StringField(*f, "defname") : ns + "." + StringField(*f, "defname");
    FLOE_ASSIGN_OR_RAISE(o.value, c.DefElemValueText(*f));
    options.push_back(std::move(o));
  }
  return options;
}

// ON COMMIT of a temporary table: every floe statement commits on its own, so PRESERVE ROWS
// (the default) is what a temporary table does anyway; DELETE ROWS and DROP would empty or
// drop it after each statement.
Status CheckOnCommit(Converter& c, const std::string& on_commit, bool temporary) {
  if (!temporary && !on_commit.empty() && on_commit != "ONCOMMIT_NOOP") {
    return Status::Invalid("ON COMMIT can only be used on temporary tables");
  }
  if (on_commit == "ONCOMMIT_DELETE_ROWS") return c.NotSupported("ON COMMIT DELETE ROWS", -1);
  if (on_commit == "ONCOMMIT_DROP") return c.NotSupported("ON COMMIT DROP", -1);
  return Status::OK();
}

Result<ColumnDef> ConvertColumnDef(Converter& c, const Json& f) {
  ColumnDef col;
  col.name = StringField(f, "colname");
  col.location = LocationOf(f);
  const Json* type = Field(f, "typeName");
  if (type == nullptr) return c.NotSupported("a column without a type", col.location);
  FLOE_ASSIGN_OR_RAISE(col.type, c.ConvertTypeName(*type));
  if (Field(f, "collClause") != nullptr) return c.NotSupported("COLLATE", col.location);
  for (const Json& node : ListField(f, "constraints")) {
    const Json* cf = nullptr;
    if (NodeTag(node, &cf) != "Constraint") return c.NotSupported("this constraint", col.location);
    std::string type_name = StringField(*cf, "contype");
    int location = LocationOf(*cf);
    if (type_name == "CONSTR_NOTNULL") {
      col.not_null = true;
    } else if (type_name == "CONSTR_NULL") {
      col.not_null = false;
    } else if (type_name == "CONSTR_DEFAULT") {
      const Json* expr = Field(*cf, "raw_expr");
      if (expr == nullptr) return c.NotSupported("this DEFAULT", location);
      FLOE_ASSIGN_OR_RAISE(col.default_value, c.ConvertExpr(*expr));
    } else {
      std::string what = type_name.substr(type_name.rfind('_') + 1);
      return c.NotSupported("the column constraint " + what + " (on column " + col.name + ")",
                            location);
    }
  }
  return col;
}

std::string StatementDisplayName(std::string_view tag) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"UpdateStmt", "UPDATE"},
      {"MergeStmt", "MERGE"},
      {"TransactionStmt", "transactions"},
      {"ViewStmt", "CREATE VIEW"},
      {"IndexStmt", "CREATE INDEX"},
      {"CopyStmt", "COPY"},
      {"TruncateStmt", "TRUNCATE"},
      {"CreateFunctionStmt", "CREATE FUNCTION"},
      {"PrepareStmt", "PREPARE"},
      {"ExecuteStmt", "EXECUTE"},
      {"DeclareCursorStmt", "cursors"},
      {"GrantStmt", "GRANT/REVOKE"},
      {"CreateSeqStmt", "sequences"},
      {"DoStmt", "DO"},
  };
  for (const auto& [pg, name] : kNames) {
    if (tag == pg) return name;
  }
  // Any other statement by the words of its node's name: "AlterSeqStmt" is ALTER SEQUENCE,
  // "VacuumStmt" VACUUM (the parse tree's names are not SQL).
  std::string_view base = tag;
  if (base.size() > 4 && base.substr(base.size() - 4) == "Stmt") base.remove_suffix(4);
  const std::string words = SqlWords(base);
  return words.empty() ? "this statement" : words;
}

}  // namespace

namespace {

// Where a SelectStmt is in the text (it has no location of its own): its first output item,
// or its first VALUES row; -1 for a set operation.
int SelectLocation(const Json& fields) {
  for (std::string_view list : {"targetList", "valuesLists"}) {
    const Json& items = ListField(fields, list);
    if (items.empty()) continue;
    const Json* inner = nullptr;
    NodeTag(items[0], &inner);
    if (inner == nullptr) continue;
    if (int location = LocationOf(*inner); location >= 0) return location;
    // A VALUES row is a List of expressions.
    const Json& row = ListField(*inner, "items");
    if (!row.empty() && NodeTag(row[0], &inner) != "" && inner != nullptr)
      return LocationOf(*inner);
  }
  return -1;
}

// The fields of a SelectStmt node (wrapped or bare), or nullptr for another node.
const Json* SelectFields(const Json& node) {
  const Json* f = nullptr;
  std::string_view tag = NodeTag(node, &f);
  if (tag.empty()) return &node;
  return tag == "SelectStmt" ? f : nullptr;
}

// True for a set operation `op` whose left input is the same UNION [ALL] with nothing of its
// own (no WITH, ORDER BY, LIMIT or OFFSET), so that it can join the chain: (a UNION b) UNION c
// is a UNION of a, b and c.
bool ContinuesUnionChain(const Json& fields, std::string_view op, bool all) {
  return op == "SETOP_UNION" && StringField(fields, "op") == op &&
         BoolField(fields, "all") == all && Field(fields, "withClause") == nullptr &&
         ListField(fields, "sortClause").empty() && Field(fields, "limitCount") == nullptr &&
         Field(fields, "limitOffset") == nullptr && ListField(fields, "lockingClause").empty();
}

}  // namespace

Result<SelectStmtPtr> Converter::ConvertSelect(const Json& node) {
  const Json* f = nullptr;
  std::string_view tag = NodeTag(node, &f);
  if (tag.empty()) {
    f = &node;
  } else if (tag != "SelectStmt") {
    return NotSupported(StatementDisplayName(tag) + " as a subquery", -1);
  }
  DepthGuard guard(this, SelectLocation(*f), "queries");
  FLOE_RETURN_NOT_OK(guard.status());
  auto s = std::make_shared<SelectStmt>();
  std::string op = StringField(*f, "op");
  if (Field(*f, "intoClause") != nullptr) return NotSupported("SELECT INTO", 0);
  if (!ListField(*f, "lockingClause").empty()) return NotSupported("FOR UPDATE/SHARE", 0);
  if (BoolField(*f, "groupDistinct")) return NotSupported("GROUP BY DISTINCT", 0);

  if (const Json* with = Field(*f, "withClause")) {
    auto w = std::make_shared<WithClause>();
    w->recursive = BoolField(*with, "recursive");
    for (const Json& cte_node : ListField(*with, "ctes")) {
      const Json* cf = nullptr;
      if (NodeTag(cte_node, &cf) != "CommonTableExpr") return NotSupported("this WITH item", -1);
      CommonTableExpr cte;
      cte.name = StringField(*cf, "ctename");
      cte.location = LocationOf(*cf);
      if (Field(*cf, "search_clause") != nullptr || Field(*cf, "cycle_clause") != nullptr) {
        return NotSupported("SEARCH/CYCLE in WITH", cte.location);
      }
      FLOE_ASSIGN_OR_RAISE(cte.column_names,
                           ConvertNameList(ListField(*cf, "aliascolnames"), cte.location));
      cte.materialized = StringField(*cf, "ctematerialized") == "CTEMaterializeAlways";
      const Json* query = Field(*cf, "ctequery");
      if (query == nullptr) return NotSupported("an empty WITH query", cte.location);
      FLOE_ASSIGN_OR_RAISE(cte.query, ConvertSelect(*query));
      w->ctes.push_back(std::move(cte));
    }
    s->with = std::move(w);
  }

  if (op == "SETOP_UNION" || op == "SETOP_INTERSECT" || op == "SETOP_EXCEPT") {
    s->set_op = op == "SETOP_UNION"       ? SelectStmt::SetOp::kUnion
                : op == "SETOP_INTERSECT" ? SelectStmt::SetOp::kIntersect
                                          : SelectStmt::SetOp::kExcept;
    s->set_all = BoolField(*f, "all");
    // A chain of UNIONs nests one level per UNION on the left: it is walked in a loop, not
    // by recursion, into one list of inputs (a UNION ALL of thousands of queries is common
    // in generated SQL).
    std::vector<const Json*> rights;
    const Json* current = f;
    while (true) {
      const Json* larg = Field(*current, "larg");
      const Json* rarg = Field(*current, "rarg");
      if (larg == nullptr || rarg == nullptr) return NotSupported("this set operation", -1);
      rights.push_back(rarg);
      const Json* left = SelectFields(*larg);
      if (left == nullptr || !ContinuesUnionChain(*left, op, s->set_all)) {
        rights.push_back(larg);
        break;
      }
      current = left;
    }
    for (auto it = rights.rbegin(); it != rights.rend(); ++it) {
      FLOE_ASSIGN_OR_RAISE(SelectStmtPtr input, ConvertSelect(**it));
      s->inputs.push_back(std::move(input));
    }
  } else if (!op.empty() && op != "SETOP_NONE") {
    return NotSupported(op, -1);
  }

  for (const Json& row : ListField(*f, "valuesLists")) {
    const Json* rf = nullptr;
    if (NodeTag(row, &rf) != "List") return NotSupported("this VALUES row", -1);
    FLOE_ASSIGN_OR_RAISE(auto values, ConvertExprList(ListField(*rf, "items")));
    s->values.push_back(std::move(values));
  }

  const Json& distinct = ListField(*f, "distinctClause");
  if (!distinct.empty()) {
    s->distinct = true;
    if (!(distinct.size() == 1 && distinct[0].is_object() && distinct[0].empty())) {
      FLOE_ASSIGN_OR_RAISE(s->distinct_on, ConvertExprList(distinct));
    }
  }

  for (const Json& target : ListField(*f, "targetList")) {
    const Json* tf = nullptr;
    if (NodeTag(target, &tf) != "ResTarget") return NotSupported("this select item", -1);
    SelectItem item;
    item.location = LocationOf(*tf);
    item.alias = StringField(*tf, "name");
    const Json* val = Field(*tf, "val");
    if (val == nullptr) return NotSupported("an empty select item", item.location);
    FLOE_ASSIGN_OR_RAISE(item.expr, ConvertExpr(*val));
    s->targets.push_back(std::move(item));
    if (s->location < 0) s->location = s->targets.back().location;
  }

  for (const Json& from : ListField(*f, "fromClause")) {
    FLOE_ASSIGN_OR_RAISE(TableRefPtr ref, ConvertTableRef(from));
    s->from.push_back(std::move(ref));
  }
  if (const Json* where = Field(*f, "whereClause")) {
    FLOE_ASSIGN_OR_RAISE(s->where, ConvertExpr(*where));
  }
  const Json& group = ListField(*f, "groupClause");
  if (ContainsGroupingSet(group)) {
    GroupingSetBuilder builder(this, &s->group_by);
    FLOE_ASSIGN_OR_RAISE(s->grouping_sets, builder.Build(group));
  } else {
    FLOE_ASSIGN_OR_RAISE(s->group_by, ConvertExprList(group));
  }
  if (const Json* having = Field(*f, "havingClause")) {
    FLOE_ASSIGN_OR_RAISE(s->having, ConvertExpr(*having));
  }
  for (const Json& win : ListField(*f, "windowClause")) {
    const Json* wf = nullptr;
    if (NodeTag(win, &wf) != "WindowDef") return NotSupported("this WINDOW item", -1);
    FLOE_ASSIGN_OR_RAISE(WindowDef w, ConvertWindowDef(*wf));
    s->windows.push_back(std::move(w));
  }
  FLOE_ASSIGN_OR_RAISE(s->order_by, ConvertSortList(ListField(*f, "sortClause")));

  if (StringField(*f, "limitOption") == "LIMIT_OPTION_WITH_TIES") {
    return NotSupported("FETCH ... WITH TIES", -1);
  }
  if (const Json* limit = Field(*f, "limitCount")) {
    FLOE_ASSIGN_OR_RAISE(ParsedExprPtr e, ConvertExpr(*limit));
    // LIMIT ALL arrives as a NULL constant; LIMIT NULL means the same.
    if (!(e->kind == ExprKind::kConstant && e->constant.kind == Constant::Kind::kNull)) {
      s->limit = std::move(e);
    }
  }
  if (const Json* offset = Field(*f, "limitOffset")) {
    FLOE_ASSIGN_OR_RAISE(s->offset, ConvertExpr(*offset));
  }
  return s;
}

Result<std::vector<Assignment>> Converter::ConvertAssignments(const Json& list) {
  std::vector<Assignment> out;
  for (const Json& item : list) {
    const Json* f = nullptr;
    if (NodeTag(item, &f) != "ResTarget") return NotSupported("this SET item", -1);
    Assignment assignment;
    assignment.column = StringField(*f, "name");
    assignment.location = LocationOf(*f);
    if (!ListField(*f, "indirection").empty()) {
      return NotSupported("assigning to a field or element of a column", assignment.location);
    }
    const Json* value = Field(*f, "val");
    if (value == nullptr) return NotSupported("this SET item", assignment.location);
    const Json* vf = nullptr;
    std::string_view value_tag = NodeTag(*value, &vf);
    if (value_tag == "MultiAssignRef") {
      // SET (a, b) = (x, y): the colno-th expression of the row.
      const Json* source = Field(*vf, "source");
      const Json* rf = nullptr;
      const std::string_view source_tag =
          source != nullptr ? NodeTag(*source, &rf) : std::string_view();
      if (source_tag == "SubLink") {
        return NotSupported("SET (...) = (SELECT ...)", assignment.location);
      }
      if (source_tag != "RowExpr") {
        return Status::Bind(
            "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() "
            "expression{}",
            Where(assignment.location));
      }
      const Json& args = ListField(*rf, "args");
      const int64_t colno = IntField(*vf, "colno");
      if (static_cast<int64_t>(args.size()) != IntField(*vf, "ncolumns")) {
        return Status::Bind("number of columns does not match number of values{}",
                            Where(assignment.location));
      }
      if (colno < 1 || colno > static_cast<int64_t>(args.size())) {
        return NotSupported("this SET item", assignment.location);
      }
      value = &args[static_cast<size_t>(colno - 1)];
      value_tag = NodeTag(*value, &vf);
    }
    if (value_tag != "SetToDefault") {
      FLOE_ASSIGN_OR_RAISE(assignment.value, ConvertExpr(*value));
    }
    out.push_back(std::move(assignment));
  }
  return out;
}

Result<TableRefPtr> Converter::ConvertTableRef(const Json& node) {
  const Json* f = nullptr;
  std::string_view tag = NodeTag(node, &f);
  // Joins nest one level per JOIN; a subquery counts as a query (ConvertSelect).
  std::optional<DepthGuard> guard;
  if (tag == "JoinExpr") {
    guard.emplace(this, LocationOf(*f), "joins");
    FLOE_RETURN_NOT_OK(guard->status());
  }
  auto ref = std::make_shared<TableRef>();
  auto set_alias = [&](const Json& fields) -> Status {
    if (const Json* alias = Field(fields, "alias")) {
      ref->alias = StringField(*alias, "aliasname");
      FLOE_ASSIGN_OR_RAISE(ref->column_aliases,
                           ConvertNameList(ListField(*alias, "colnames"), ref->location));
    }
    return Status::OK();
  };
  if (tag == "RangeVar") {
    ref->kind = TableRef::Kind::kTable;
    ref->location = LocationOf(*f);
    ref->names = RangeVarNames(*f);
    FLOE_RETURN_NOT_OK(set_alias(*f));
    return ref;
  }
  if (tag == "RangeSubselect") {
    ref->kind = TableRef::Kind::kSubquery;
    ref->lateral = BoolField(*f, "lateral");
    const Json* sub = Field(*f, "subquery");
    if (sub == nullptr) return NotSupported("an empty subquery in FROM", -1);
    FLOE_ASSIGN_OR_RAISE(ref->subquery, ConvertSelect(*sub));
    ref->location = ref->subquery->location;
    FLOE_RETURN_NOT_OK(set_alias(*f));
    return ref;
  }
  if (tag == "RangeFunction") {
    ref->kind = TableRef::Kind::kFunction;
    ref->lateral = BoolField(*f, "lateral");
    const Json& functions = ListField(*f, "functions");
    if (BoolField(*f, "is_rowsfrom") || functions.size() != 1) {
      return NotSupported("ROWS FROM (...)", -1);
    }
    const Json* lf = nullptr;
    if (NodeTag(functions[0], &lf) != "List") return NotSupported("this table function", -1);
    const Json& parts = ListField(*lf, "items");
    if (parts.empty()) return NotSupported("this table function", -1);
    FLOE_ASSIGN_OR_RAISE(ref->function, ConvertExpr(parts[0]));
    ref->location = ref->function->location;
    if (ref->function->kind != ExprKind::kFunction) {
      return NotSupported("this table function", ref->location);
    }
    ref->ordinality = BoolField(*f, "ordinality");
    if (parts.size() > 1 && !(parts[1].is_object() && parts[1].empty())) {
      return NotSupported("a column definition list", ref->location);
    }
    for (const Json& item : ListField(*f, "coldeflist")) {
      const Json* cf = nullptr;
      if (NodeTag(item, &cf) != "ColumnDef") {
        return NotSupported("this column definition", ref->location);
      }
      FLOE_ASSIGN_OR_RAISE(ColumnDef col, ConvertColumnDef(*this, *cf));
      ref->column_definitions.push_back(std::move(col));
    }
    FLOE_RETURN_NOT_OK(set_alias(*f));
    return ref;
  }
  if (tag == "JoinExpr") {
    ref->kind = TableRef::Kind::kJoin;
    const Json* larg = Field(*f, "larg");
    const Json* rarg = Field(*f, "rarg");
    if (larg == nullptr || rarg == nullptr) return NotSupported("this join", -1);
    FLOE_ASSIGN_OR_RAISE(ref->left, ConvertTableRef(*larg));
    FLOE_ASSIGN_OR_RAISE(ref->right, ConvertTableRef(*rarg));
    ref->location = ref->left->location;
    if (Field(*f, "alias") != nullptr || Field(*f, "join_using_alias") != nullptr) {
      return NotSupported("an alias on a join", ref->location);
    }
    std::string type = StringField(*f, "jointype");
    ref->natural = BoolField(*f, "isNatural");
    FLOE_ASSIGN_OR_RAISE(ref->using_columns,
                         ConvertNameList(ListField(*f, "usingClause"), ref->location));
    if (const Json* quals = Field(*f, "quals")) {
      FLOE_ASSIGN_OR_RAISE(ref->on, ConvertExpr(*quals));
    }
    if (type == "JOIN_INNER") {
      bool cross = ref->on == nullptr && ref->using_columns.empty() && !ref->natural;
      ref->join_kind = cross ? JoinKind::kCross : JoinKind::kInner;
    } else if (type == "JOIN_LEFT") {
      ref->join_kind = JoinKind::kLeft;
    } else if (type == "JOIN_RIGHT") {
      ref->join_kind = JoinKind::kRight;
    } else if (type == "JOIN_FULL") {
      ref->join_kind = JoinKind::kFull;
    } else {
      return NotSupported("join type " + type, ref->location);
    }
    return ref;
  }
  int location = f != nullptr ? LocationOf(*f) : -1;
  if (tag == "RangeTableSample") return NotSupported("TABLESAMPLE", location);
  return NotSupported("the FROM item " + std::string(tag), location);
}

Result<StatementBody> Converter::ConvertStatement(const Json& node) {
  const Json* f = nullptr;
  std::string_view tag = NodeTag(node, &f);
  if (tag == "SelectStmt") {
    FLOE_ASSIGN_OR_RAISE(SelectStmtPtr q, ConvertSelect(node));
    return SelectStatement{std::move(q)};
  }
  if (tag == "InsertStmt") {
    InsertStatement ins;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("INSERT without a table", 0);
    ins.table = RangeVarNames(*rel);
    if (Field(*rel, "alias") != nullptr)
      return NotSupported("an alias in INSERT", LocationOf(*rel));
    if (Field(*f, "withClause") != nullptr) return NotSupported("WITH before INSERT", 0);
    if (Field(*f, "onConflictClause") != nullptr) return NotSupported("ON CONFLICT", 0);
    if (!ListField(*f, "returningList").empty()) return NotSupported("RETURNING", 0);
    std::string over = StringField(*f, "override");
    if (!over.empty() && over != "OVERRIDING_NOT_SET") return NotSupported("OVERRIDING", 0);
    for (const Json& col : ListField(*f, "cols")) {
      const Json* cf = nullptr;
      if (NodeTag(col, &cf) != "ResTarget" || !ListField(*cf, "indirection").empty()) {
        return NotSupported("this INSERT column", cf != nullptr ? LocationOf(*cf) : -1);
      }
      ins.columns.push_back(StringField(*cf, "name"));
    }
    const Json* query = Field(*f, "selectStmt");
    if (query == nullptr) return NotSupported("INSERT ... DEFAULT VALUES", 0);
    FLOE_ASSIGN_OR_RAISE(ins.query, ConvertSelect(*query));
    return ins;
  }
  if (tag == "DeleteStmt") {
    DeleteStatement del;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("DELETE without a table", 0);
    del.table = RangeVarNames(*rel);
    del.alias = TargetAlias(*rel);
    if (Field(*f, "withClause") != nullptr) return NotSupported("WITH before DELETE", 0);
    if (!ListField(*f, "returningList").empty()) return NotSupported("RETURNING", 0);
    for (const Json& item : ListField(*f, "usingClause")) {
      FLOE_ASSIGN_OR_RAISE(TableRefPtr ref, ConvertTableRef(item));
      del.using_items.push_back(std::move(ref));
    }
    if (const Json* where = Field(*f, "whereClause")) {
      FLOE_ASSIGN_OR_RAISE(del.where, ConvertExpr(*where));
    }
    return del;
  }
  if (tag == "UpdateStmt") {
    UpdateStatement update;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("UPDATE without a table", 0);
    update.table = RangeVarNames(*rel);
    update.alias = TargetAlias(*rel);
    update.location = LocationOf(*rel);
    if (Field(*f, "withClause") != nullptr) return NotSupported("WITH before UPDATE", 0);
    if (!ListField(*f, "returningList").empty()) return NotSupported("RETURNING", 0);
    FLOE_ASSIGN_OR_RAISE(update.assignments, ConvertAssignments(ListField(*f, "targetList")));
    for (const Json& item : ListField(*f, "fromClause")) {
      FLOE_ASSIGN_OR_RAISE(TableRefPtr ref, ConvertTableRef(item));
      update.from.push_back(std::move(ref));
    }
    if (const Json* where = Field(*f, "whereClause")) {
      FLOE_ASSIGN_OR_RAISE(update.where, ConvertExpr(*where));
    }
    return update;
  }
  if (tag == "MergeStmt") {
    MergeStatement merge;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("MERGE without a target table", 0);
    merge.table = RangeVarNames(*rel);
    merge.alias = TargetAlias(*rel);
    merge.location = LocationOf(*rel);
    if (Field(*f, "withClause") != nullptr) return NotSupported("WITH before MERGE", 0);
    const Json* source = Field(*f, "sourceRelation");
    const Json* on = Field(*f, "joinCondition");
    if (source == nullptr || on == nullptr) return NotSupported("MERGE without USING ... ON", 0);
    FLOE_ASSIGN_OR_RAISE(merge.source, ConvertTableRef(*source));
    FLOE_ASSIGN_OR_RAISE(merge.on, ConvertExpr(*on));
    for (const Json& clause : ListField(*f, "mergeWhenClauses")) {
      const Json* cf = nullptr;
      if (NodeTag(clause, &cf) != "MergeWhenClause") return NotSupported("this MERGE clause", 0);
      MergeAction action;
      action.matched = BoolField(*cf, "matched");
      std::string over = StringField(*cf, "override");
      if (!over.empty() && over != "OVERRIDING_NOT_SET") return NotSupported("OVERRIDING", 0);
      if (const Json* condition = Field(*cf, "condition")) {
        FLOE_ASSIGN_OR_RAISE(action.condition, ConvertExpr(*condition));
      }
      const std::string command = StringField(*cf, "commandType");
      if (command == "CMD_UPDATE") {
        action.kind = MergeAction::Kind::kUpdate;
        FLOE_ASSIGN_OR_RAISE(action.assignments, ConvertAssignments(ListField(*cf, "targetList")));
      } else if (command == "CMD_DELETE") {
        action.kind = MergeAction::Kind::kDelete;
      } else if (command == "CMD_INSERT") {
        action.kind = MergeAction::Kind::kInsert;
        for (const Json& target : ListField(*cf, "targetList")) {
          const Json* tf = nullptr;
          if (NodeTag(target, &tf) != "ResTarget" || !ListField(*tf, "indirection").empty()) {
            return NotSupported("this INSERT column", tf != nullptr ? LocationOf(*tf) : -1);
          }
          action.insert_columns.push_back(StringField(*tf, "name"));
        }
        for (const Json& value : ListField(*cf, "values")) {
          action.insert_values.push_back(nullptr);
          const Json* vf = nullptr;
          if (NodeTag(value, &vf) == "SetToDefault") continue;
          FLOE_ASSIGN_OR_RAISE(action.insert_values.back(), ConvertExpr(value));
        }
      } else if (command != "CMD_NOTHING") {
        return NotSupported("this MERGE action", 0);
      }
      merge.actions.push_back(std::move(action));
    }
    return merge;
  }
  if (tag == "TruncateStmt") {
    const Json& relations = ListField(*f, "relations");
    if (relations.size() != 1) return NotSupported("TRUNCATE of several tables", 0);
    if (BoolField(*f, "restart_seqs")) return NotSupported("TRUNCATE ... RESTART IDENTITY", 0);
    if (StringField(*f, "behavior") == "DROP_CASCADE") {
      return NotSupported("TRUNCATE ... CASCADE", 0);
    }
    DeleteStatement del;
    const Json* rel = Field(relations[0], "RangeVar");
    if (rel == nullptr) return NotSupported("TRUNCATE of this relation", 0);
    del.table = RangeVarNames(*rel);
    del.truncate = true;
    return del;
  }
  if (tag == "CreateSchemaStmt") {
    if (Field(*f, "authrole") != nullptr) return NotSupported("AUTHORIZATION", 0);
    if (!ListField(*f, "schemaElts").empty()) return NotSupported("CREATE SCHEMA with elements", 0);
    CreateSchemaStatement cs;
    cs.name = {StringField(*f, "schemaname")};
    cs.if_not_exists = BoolField(*f, "if_not_exists");
    return cs;
  }
  if (tag == "CreateStmt") {
    CreateTableStatement ct;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("CREATE TABLE without a name", 0);
    ct.table = RangeVarNames(*rel);
    std::string persistence = StringField(*rel, "relpersistence");
    if (persistence == "u") return NotSupported("unlogged tables", 0);
    ct.temporary = persistence == "t";
    FLOE_RETURN_NOT_OK(CheckOnCommit(*this, StringField(*f, "oncommit"), ct.temporary));
    if (!ListField(*f, "inhRelations").empty()) return NotSupported("INHERITS", 0);
    if (Field(*f, "partspec") != nullptr) {
      return NotSupported("PARTITION BY (use WITH (partitioning = '...'))", 0);
    }
    if (Field(*f, "partbound") != nullptr) return NotSupported("PARTITION OF", 0);
    if (Field(*f, "ofTypename") != nullptr) return NotSupported("CREATE TABLE ... OF", 0);
    if (!StringField(*f, "accessMethod").empty()) return NotSupported("USING (access method)", 0);
    if (!StringField(*f, "tablespacename").empty()) return NotSupported("TABLESPACE", 0);
    for (const Json& elt : ListField(*f, "tableElts")) {
      const Json* ef = nullptr;
      std::string_view etag = NodeTag(elt, &ef);
      if (etag == "ColumnDef") {
        FLOE_ASSIGN_OR_RAISE(ColumnDef col, ConvertColumnDef(*this, *ef));
        ct.columns.push_back(std::move(col));
      } else if (etag == "Constraint") {
        return NotSupported("table constraints", LocationOf(*ef));
      } else {
        return NotSupported(
            etag == "TableLikeClause" ? "LIKE in CREATE TABLE" : "this table element",
            ef != nullptr ? LocationOf(*ef) : -1);
      }
    }
    FLOE_ASSIGN_OR_RAISE(ct.options, ConvertOptions(*this, ListField(*f, "options")));
    ct.if_not_exists = BoolField(*f, "if_not_exists");
    return ct;
  }
  if (tag == "CreateTableAsStmt") {
    if (StringField(*f, "objtype") != "OBJECT_TABLE") return NotSupported("materialized views", 0);
    const Json* into = Field(*f, "into");
    const Json* query = Field(*f, "query");
    const Json* rel = into != nullptr ? Field(*into, "rel") : nullptr;
    if (rel == nullptr || query == nullptr) return NotSupported("this CREATE TABLE AS", 0);
    CreateTableStatement ct;
    ct.table = RangeVarNames(*rel);
    if (StringField(*rel, "relpersistence") == "u") return NotSupported("unlogged tables", 0);
    ct.temporary = StringField(*rel, "relpersistence") == "t";
    FLOE_RETURN_NOT_OK(CheckOnCommit(*this, StringField(*into, "onCommit"), ct.temporary));
    if (!ListField(*into, "colNames").empty()) {
      return NotSupported("column names in CREATE TABLE AS", 0);
    }
    if (BoolField(*into, "skipData")) return NotSupported("WITH NO DATA", 0);
    FLOE_ASSIGN_OR_RAISE(ct.options, ConvertOptions(*this, ListField(*into, "options")));
    ct.if_not_exists = BoolField(*f, "if_not_exists");
    FLOE_ASSIGN_OR_RAISE(ct.as_query, ConvertSelect(*query));
    return ct;
  }
  if (tag == "CompositeTypeStmt") {
    CreateTypeStatement ct;
    const Json* var = Field(*f, "typevar");
    if (var == nullptr) return NotSupported("CREATE TYPE without a name", 0);
    ct.name = RangeVarNames(*var);
    ct.location = LocationOf(*var);
    for (const Json& item : ListField(*f, "coldeflist")) {
      const Json* cf = nullptr;
      if (NodeTag(item, &cf) != "ColumnDef") return NotSupported("this attribute", ct.location);
      FLOE_ASSIGN_OR_RAISE(ColumnDef col, ConvertColumnDef(*this, *cf));
      ct.fields.push_back(std::move(col));
    }
    return ct;
  }
  if (tag == "CreateDomainStmt") {
    CreateDomainStatement cd;
    FLOE_ASSIGN_OR_RAISE(cd.name, ConvertNameList(ListField(*f, "domainname"), 0));
    const Json* type = Field(*f, "typeName");
    if (type == nullptr) return NotSupported("CREATE DOMAIN without a type", 0);
    FLOE_ASSIGN_OR_RAISE(cd.type, ConvertTypeName(*type));
    cd.location = cd.type.location;
    if (Field(*f, "collClause") != nullptr) return NotSupported("COLLATE", cd.location);
    bool nullability_given = false;
    for (const Json& node : ListField(*f, "constraints")) {
      const Json* cf = nullptr;
      if (NodeTag(node, &cf) != "Constraint") return NotSupported("this constraint", cd.location);
      const std::string contype = StringField(*cf, "contype");
      const int location = LocationOf(*cf);
      if (contype == "CONSTR_NOTNULL" || contype == "CONSTR_NULL") {
        const bool not_null = contype == "CONSTR_NOTNULL";
        if (nullability_given && cd.not_null != not_null) {
          return Status::Syntax("conflicting NULL/NOT NULL constraints{}", Where(location));
        }
        nullability_given = true;
        cd.not_null = not_null;
      } else if (contype == "CONSTR_DEFAULT") {
        const Json* expr = Field(*cf, "raw_expr");
        if (expr == nullptr) return NotSupported("this DEFAULT", location);
        if (cd.default_value != nullptr) {
          return Status::Syntax("multiple default expressions{}", Where(location));
        }
        FLOE_ASSIGN_OR_RAISE(cd.default_value, ConvertExpr(*expr));
      } else if (contype == "CONSTR_CHECK") {
        const Json* expr = Field(*cf, "raw_expr");
        if (expr == nullptr) return NotSupported("this CHECK", location);
        if (BoolField(*cf, "is_no_inherit")) return NotSupported("NO INHERIT", location);
        CreateDomainStatement::Check check;
        check.name = StringField(*cf, "conname");
        FLOE_ASSIGN_OR_RAISE(check.expr, ConvertExpr(*expr));
        cd.checks.push_back(std::move(check));
      } else {
        std::string what = contype.substr(contype.rfind('_') + 1);
        return NotSupported(what + " constraints on domains", location);
      }
    }
    return cd;
  }
  if (tag == "DropStmt") {
    DropStatement drop;
    std::string type = StringField(*f, "removeType");
    if (type == "OBJECT_TABLE") {
      drop.object = DropStatement::ObjectKind::kTable;
    } else if (type == "OBJECT_SCHEMA") {
      drop.object = DropStatement::ObjectKind::kSchema;
    } else if (type == "OBJECT_VIEW") {
      drop.object = DropStatement::ObjectKind::kView;
    } else if (type == "OBJECT_TYPE") {
      drop.object = DropStatement::ObjectKind::kType;
    } else if (type == "OBJECT_DOMAIN") {
      drop.object = DropStatement::ObjectKind::kDomain;
    } else {
      std::string what = AsciiLower(type.substr(type.find('_') + 1));
      return NotSupported("DROP of a " + what, 0);
    }
    for (const Json& obj : ListField(*f, "objects")) {
      const Json* of = nullptr;
      std::string_view otag = NodeTag(obj, &of);
      if (otag == "List") {
        FLOE_ASSIGN_OR_RAISE(auto names, ConvertNameList(ListField(*of, "items"), 0));
        drop.names.push_back(std::move(names));
      } else if (otag == "String") {
        drop.names.push_back({StringField(*of, "sval")});
      } else if (otag == "TypeName" && (drop.object == DropStatement::ObjectKind::kType ||
                                        drop.object == DropStatement::ObjectKind::kDomain)) {
        FLOE_ASSIGN_OR_RAISE(auto names, ConvertNameList(ListField(*of, "names"), LocationOf(*of)));
        drop.names.push_back(std::move(names));
      } else {
        return NotSupported("this DROP target", 0);
      }
    }
    drop.if_exists = BoolField(*f, "missing_ok");
    drop.cascade = StringField(*f, "behavior") == "DROP_CASCADE";
    if (BoolField(*f, "concurrent")) return NotSupported("DROP ... CONCURRENTLY", 0);
    return drop;
  }
  if (tag == "AlterTableStmt") {
    if (StringField(*f, "objtype") != "OBJECT_TABLE") {
      return NotSupported("ALTER of anything but a table", 0);
    }
    AlterTableStatement alter;
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr) return NotSupported("ALTER TABLE without a table", 0);
    alter.table = RangeVarNames(*rel);
    alter.if_exists = BoolField(*f, "missing_ok");
    for (const Json& cmd_node : ListField(*f, "cmds")) {
      const Json* cf = nullptr;
      if (NodeTag(cmd_node, &cf) != "AlterTableCmd") return NotSupported("this ALTER action", 0);
      AlterTableCommand cmd;
      std::string sub = StringField(*cf, "subtype");
      cmd.name = StringField(*cf, "name");
      cmd.if_exists = BoolField(*cf, "missing_ok");
      const Json* def = Field(*cf, "def");
      const Json* df = nullptr;
      std::string_view dtag = def != nullptr ? NodeTag(*def, &df) : std::string_view();
      if (sub == "AT_AddColumn") {
        if (dtag != "ColumnDef") return NotSupported("this ADD COLUMN", 0);
        cmd.kind = AlterTableCommand::Kind::kAddColumn;
        FLOE_ASSIGN_OR_RAISE(cmd.column, ConvertColumnDef(*this, *df));
        cmd.location = cmd.column.location;
      } else if (sub == "AT_DropColumn") {
        cmd.kind = AlterTableCommand::Kind::kDropColumn;
      } else if (sub == "AT_AlterColumnType") {
        if (dtag != "ColumnDef") return NotSupported("this ALTER COLUMN TYPE", 0);
        if (Field(*df, "raw_default") != nullptr) {
          return NotSupported("ALTER COLUMN ... TYPE ... USING", LocationOf(*df));
        }
        cmd.kind = AlterTableCommand::Kind::kAlterColumnType;
        const Json* type = Field(*df, "typeName");
        if (type == nullptr) return NotSupported("ALTER COLUMN TYPE without a type", 0);
        cmd.column.name = cmd.name;
        cmd.location = LocationOf(*df);
        cmd.column.location = cmd.location;
        FLOE_ASSIGN_OR_RAISE(cmd.column.type, ConvertTypeName(*type));
      } else if (sub == "AT_SetRelOptions" || sub == "AT_ResetRelOptions") {
        if (dtag != "List") return NotSupported("this SET/RESET (options)", 0);
        cmd.kind = sub == "AT_SetRelOptions" ? AlterTableCommand::Kind::kSetOptions
                                             : AlterTableCommand::Kind::kResetOptions;
        FLOE_ASSIGN_OR_RAISE(cmd.options, ConvertOptions(*this, ListField(*df, "items")));
      } else if (sub == "AT_SetNotNull") {
        cmd.kind = AlterTableCommand::Kind::kSetNotNull;
      } else if (sub == "AT_DropNotNull") {
        cmd.kind = AlterTableCommand::Kind::kDropNotNull;
      } else {
        return NotSupported("ALTER TABLE ... " + SqlWords(sub.substr(3)), 0);
      }
      alter.commands.push_back(std::move(cmd));
    }
    return alter;
  }
  if (tag == "RenameStmt") {
    std::string type = StringField(*f, "renameType");
    const Json* rel = Field(*f, "relation");
    if (rel == nullptr || (type != "OBJECT_COLUMN" && type != "OBJECT_TABLE") ||
        (type == "OBJECT_COLUMN" && StringField(*f, "relationType") != "OBJECT_TABLE")) {
      return NotSupported("this RENAME", 0);
    }
    AlterTableStatement alter;
    alter.table = RangeVarNames(*rel);
    alter.if_exists = BoolField(*f, "missing_ok");
    AlterTableCommand cmd;
    if (type == "OBJECT_COLUMN") {
      cmd.kind = AlterTableCommand::Kind::kRenameColumn;
      cmd.name = StringField(*f, "subname");
      cmd.new_name = StringField(*f, "newname");
    } else {
      cmd.kind = AlterTableCommand::Kind::kRenameTable;
      cmd.new_table = {StringField(*f, "newname")};
    }
    alter.commands.push_back(std::move(cmd));
    return alter;
  }
  if (tag == "VariableSetStmt") {
    SetStatement set;
    std::string kind = StringField(*f, "kind");
    set.name = AsciiLower(StringField(*f, "name"));
    set.local = BoolField(*f, "is_local");
    if (kind == "VAR_SET_VALUE") {
      for (const Json& arg : ListField(*f, "args")) {
        FLOE_ASSIGN_OR_RAISE(ParsedExprPtr e, ConvertExpr(arg));
        if (e->kind != ExprKind::kConstant) {
          return NotSupported("a SET value that is not a constant", e->location);
        }
        const Constant& k = e->constant;
        switch (k.kind) {
          case Constant::Kind::kInteger:
            set.values.push_back(std::to_string(k.integer));
            break;
          case Constant::Kind::kBoolean:
            set.values.push_back(k.boolean ? "true" : "false");
            break;
          case Constant::Kind::kNull:
            return NotSupported("SET to NULL", e->location);
          default:
            set.values.push_back(k.text);
        }
      }
    } else if (kind == "VAR_SET_DEFAULT" || kind == "VAR_RESET") {
      set.reset = true;
      set.set_default = kind == "VAR_SET_DEFAULT";
    } else if (kind == "VAR_RESET_ALL") {
      set.reset = true;
      set.name = "all";
    } else {
      return NotSupported("this form of SET", 0);
    }
    return set;
  }
  if (tag == "VariableShowStmt") {
    return ShowStatement{AsciiLower(StringField(*f, "name"))};
  }
  if (tag == "ExplainStmt") {
    auto explain = std::make_shared<ExplainStatement>();
    for (const Json& opt : ListField(*f, "options")) {
      const Json* of = nullptr;
      if (NodeTag(opt, &of) != "DefElem") return NotSupported("this EXPLAIN option", 0);
      std::string name = StringField(*of, "defname");
      FLOE_ASSIGN_OR_RAISE(std::string value, DefElemValueText(*of));
      value = AsciiLower(value);
      bool on;
      if (value.empty() || value == "true" || value == "on" || value == "1") {
        on = true;
      } else if (value == "false" || value == "off" || value == "0") {
        on = false;
      } else {
        return NotSupported("EXPLAIN option " + name + " = " + value, LocationOf(*of));
      }
      if (name == "analyze") {
        explain->analyze = on;
      } else if (name == "verbose") {
        explain->verbose = on;
      } else {
        return NotSupported("EXPLAIN option " + name, LocationOf(*of));
      }
    }
    const Json* query = Field(*f, "query");
    if (query == nullptr) return NotSupported("EXPLAIN without a statement", 0);
    FLOE_ASSIGN_OR_RAISE(explain->statement.body, ConvertStatement(*query));
    explain->statement.text = std::string(text_);
    explain->statement.location = offset_;
    return explain;
  }
  if (tag == "CopyStmt") {
    CopyStatement copy;
    copy.from = BoolField(*f, "is_from");
    if (BoolField(*f, "is_program")) {
      return NotSupported(copy.from ? "COPY FROM PROGRAM" : "COPY TO PROGRAM", 0);
    }
    if (Field(*f, "whereClause") != nullptr) return NotSupported("COPY FROM ... WHERE", 0);
    if (const Json* rel = Field(*f, "relation")) {
      copy.table = RangeVarNames(*rel);
      FLOE_ASSIGN_OR_RAISE(copy.columns, ConvertNameList(ListField(*f, "attlist"), 0));
    } else if (const Json* query = Field(*f, "query")) {
      const Json* qf = nullptr;
      if (NodeTag(*query, &qf) != "SelectStmt") {
        return NotSupported("COPY of a statement other than a query", 0);
      }
      FLOE_ASSIGN_OR_RAISE(copy.query, ConvertSelect(*query));
    } else {
      return NotSupported("this COPY", 0);
    }
    copy.file = StringField(*f, "filename");
    for (const Json& item : ListField(*f, "options")) {
      const Json* of = nullptr;
      if (NodeTag(item, &of) != "DefElem") return NotSupported("this COPY option", 0);
      CopyOption option;
      option.name = AsciiLower(StringField(*of, "defname"));
      option.location = LocationOf(*of);
      const Json* arg = Field(*of, "arg");
      const Json* af = nullptr;
      const std::string_view arg_tag = arg != nullptr ? NodeTag(*arg, &af) : std::string_view();
      option.has_value = arg != nullptr;
      if (arg_tag == "A_Star") {
        option.star = true;
      } else if (arg_tag == "List") {
        FLOE_ASSIGN_OR_RAISE(option.columns,
                             ConvertNameList(ListField(*af, "items"), option.location));
      } else {
        FLOE_ASSIGN_OR_RAISE(option.value, DefElemValueText(*of));
      }
      copy.options.push_back(std::move(option));
    }
    return copy;
  }
  if (tag == "CallStmt") {
    const Json* call = Field(*f, "funccall");
    if (call == nullptr) return NotSupported("this CALL", 0);
    CallStatement c;
    FLOE_ASSIGN_OR_RAISE(c.call, ConvertExpr(Json{{"FuncCall", *call}}));
    return c;
  }
  return NotSupported(StatementDisplayName(tag), 0);
}

}  // namespace floe::sql::internal
