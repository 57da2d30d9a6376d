// What an OR of conjunctions says beyond itself, for predicate pushdown:
//   - the conjuncts every branch holds, factored out ((a AND b) OR (a AND c) is
//     a AND (b OR c)), so that an equality between join sides written in every branch
//     becomes a join key (TPC-H Q19 otherwise joins part and lineitem as a cross product);
//   - the OR of each branch's conjuncts over one side of a join, which that side can
//     evaluate before the join;
//   - for a column that every branch restricts by comparisons with constants, the union of
//     those restrictions as an IN list or a range, which scans prune files and row groups by.
// Kleene's three-valued logic is distributive, so factoring keeps NULL results as they were;
// the derived predicates are implied by the OR (a row it keeps satisfies them), so adding
// them changes no result.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/plan/optimizer_internal.h"

namespace floe::plan::internal {

namespace {

using expr::Expr;
using expr::ExprKind;
using expr::ExprPtr;

// An IN list derived from branches holding more values than this becomes a range.
constexpr size_t kMaxDerivedValues = 64;

bool IsCall(const Expr& e, std::string_view name) {
  return e.kind == ExprKind::kCall && e.name == name;
}

// The branches of a disjunction, nested ORs flattened.
std::vector<ExprPtr> SplitDisjunction(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  if (IsCall(*e, "or")) {
    for (const ExprPtr& a : e->args) {
      std::vector<ExprPtr> inner = SplitDisjunction(a);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  } else {
    out.push_back(e);
  }
  return out;
}

bool ContainsExpr(const std::vector<ExprPtr>& list, const Expr& e) {
  return std::any_of(list.begin(), list.end(), [&](const ExprPtr& x) { return x->Equals(e); });
}

// The same term, or the same comparison written the other way round (a = b and b = a,
// a < b and b > a), so that branches that wrote it differently are seen to share it.
bool SameTerm(const Expr& a, const Expr& b) {
  if (a.Equals(b)) return true;
  static const std::map<std::string, std::string> kMirrored = {
      {"eq", "eq"},
      {"ne", "ne"},
      {"lt", "gt"},
      {"le", "ge"},
      {"gt", "lt"},
      {"ge", "le"},
      {"is_not_distinct_from", "is_not_distinct_from"},
      {"is_distinct_from", "is_distinct_from"}};
  if (a.kind != ExprKind::kCall || b.kind != ExprKind::kCall || a.args.size() != 2 ||
      b.args.size() != 2) {
    return false;
  }
  auto mirrored = kMirrored.find(a.name);
  return mirrored != kMirrored.end() && mirrored->second == b.name &&
         a.args[0]->Equals(*b.args[1]) && a.args[1]->Equals(*b.args[0]);
}

bool ContainsTerm(const std::vector<ExprPtr>& list, const Expr& e) {
  return std::any_of(list.begin(), list.end(), [&](const ExprPtr& x) { return SameTerm(*x, e); });
}

// `a < b` for two literals of one type, or nullopt when they do not compare to a constant.
std::optional<bool> LiteralLess(const ExprPtr& a, const ExprPtr& b) {
  if (!a->type || !b->type || !a->type->Equals(*b->type)) return std::nullopt;
  Result<ExprPtr> folded = SimplifyExpr(expr::Compare("lt", a, b));
  if (!folded.ok()) return std::nullopt;
  if (IsBoolLiteral(**folded, true)) return true;
  if (IsBoolLiteral(**folded, false)) return false;
  return std::nullopt;
}

// What one branch says about one column: a set of values, and/or bounds.
struct Bound {
  ExprPtr value;  // a non-NULL literal
  bool strict = false;
};

struct Restriction {
  std::optional<std::vector<ExprPtr>> values;  // the column is one of these
  std::optional<Bound> lower;
  std::optional<Bound> upper;
  bool failed = false;  // literals that would not compare: the column is left alone
};

bool IsUsableLiteral(const Expr& e) { return e.kind == ExprKind::kLiteral && !e.literal.is_null(); }

// Tightens `current` with `next`: the larger lower bound (or smaller upper bound when
// `lower` is false); equal values are strict when either is.
void Tighten(std::optional<Bound>* current, const Bound& next, bool lower, bool* failed) {
  if (!current->has_value()) {
    *current = next;
    return;
  }
  std::optional<bool> less = LiteralLess((*current)->value, next.value);
  std::optional<bool> greater = LiteralLess(next.value, (*current)->value);
  if (!less || !greater) {
    *failed = true;
    return;
  }
  if (!*less && !*greater) {
    (*current)->strict = (*current)->strict || next.strict;
  } else if (*less == lower) {
    *current = next;
  }
}

// Loosens `current` to admit `next` too: the smaller lower bound (or larger upper bound);
// equal values are strict only when both are.
void Loosen(std::optional<Bound>* current, const std::optional<Bound>& next, bool lower,
            bool* failed) {
  if (!current->has_value() || !next.has_value()) {
    current->reset();
    return;
  }
  std::optional<bool> less = LiteralLess((*current)->value, next->value);
  std::optional<bool> greater = LiteralLess(next->value, (*current)->value);
  if (!less || !greater) {
    *failed = true;
    return;
  }
  if (!*less && !*greater) {
    (*current)->strict = (*current)->strict && next->strict;
  } else if (*greater == lower) {
    *current = next;
  }
}

// Records what `term` (one conjunct of a branch) says about a column compared with
// constants, in `by_column` (keyed by column index).
void Collect(const ExprPtr& term, std::map<int, Restriction>* by_column,
             std::map<int, ExprPtr>* columns) {
  if (term->kind != ExprKind::kCall) return;
  if (term->name == "in_list" && !term->args.empty() && term->args[0]->kind == ExprKind::kColumn) {
    std::vector<ExprPtr> values;
    for (size_t i = 1; i < term->args.size(); ++i) {
      if (IsNullLiteral(*term->args[i])) continue;  // never equal to anything
      if (!IsUsableLiteral(*term->args[i])) return;
      values.push_back(term->args[i]);
    }
    const int col = term->args[0]->column;
    (*columns)[col] = term->args[0];
    Restriction& r = (*by_column)[col];
    if (!r.values) r.values = std::move(values);  // the first set suffices: it is implied
    return;
  }
  static const std::map<std::string, std::string> kFlipped = {
      {"eq", "eq"}, {"lt", "gt"}, {"le", "ge"}, {"gt", "lt"}, {"ge", "le"}};
  auto flipped = kFlipped.find(term->name);
  if (flipped == kFlipped.end() || term->args.size() != 2) return;
  std::string op = term->name;
  ExprPtr column = term->args[0];
  ExprPtr literal = term->args[1];
  if (column->kind != ExprKind::kColumn) {
    std::swap(column, literal);
    op = flipped->second;
  }
  if (column->kind != ExprKind::kColumn || !IsUsableLiteral(*literal)) return;
  if (!column->type || !literal->type || !column->type->Equals(*literal->type)) return;
  (*columns)[column->column] = column;
  Restriction& r = (*by_column)[column->column];
  if (op == "eq") {
    if (!r.values) r.values = std::vector<ExprPtr>{literal};
  } else if (op == "gt" || op == "ge") {
    Tighten(&r.lower, Bound{literal, op == "gt"}, /*lower=*/true, &r.failed);
  } else {
    Tighten(&r.upper, Bound{literal, op == "lt"}, /*lower=*/false, &r.failed);
  }
}

// Replaces a set of values by the range from its smallest to its largest.
void ToBounds(Restriction* x) {
  if (!x->values) return;
  if (x->values->empty()) {
    x->failed = true;  // matches nothing; the column is left alone rather than reasoned about
    return;
  }
  std::optional<Bound> lo, hi;
  for (const ExprPtr& v : *x->values) {
    Tighten(&lo, Bound{v, false}, /*lower=*/false, &x->failed);  // keeps the smallest
    Tighten(&hi, Bound{v, false}, /*lower=*/true, &x->failed);   // keeps the largest
  }
  x->values.reset();
  x->lower = lo;
  x->upper = hi;
}

}  // namespace

std::vector<ExprPtr> FactorDisjunction(const ExprPtr& e) {
  if (!IsCall(*e, "or")) return {e};
  std::vector<std::vector<ExprPtr>> branches;
  for (const ExprPtr& b : SplitDisjunction(e)) branches.push_back(expr::SplitConjunction(b));
  std::vector<ExprPtr> common;
  for (const ExprPtr& term : branches[0]) {
    if (expr::IsVolatile(*term) || ContainsTerm(common, *term)) continue;
    bool everywhere = std::all_of(branches.begin() + 1, branches.end(),
                                  [&](const auto& branch) { return ContainsTerm(branch, *term); });
    if (everywhere) common.push_back(term);
  }
  if (common.empty()) return {e};
  std::vector<ExprPtr> rest;
  for (const auto& branch : branches) {
    std::vector<ExprPtr> left;
    for (const ExprPtr& term : branch) {
      if (!ContainsTerm(common, *term)) left.push_back(term);
    }
    // A branch holding only common conjuncts is true once they hold: so is the OR.
    if (left.empty()) return common;
    rest.push_back(expr::JoinConjunction(std::move(left)));
  }
  std::vector<ExprPtr> out = common;
  out.push_back(expr::Or(std::move(rest)));
  return out;
}

ExprPtr ImpliedDisjunction(const ExprPtr& e, const std::function<bool(const Expr&)>& keep) {
  if (!IsCall(*e, "or") || expr::IsVolatile(*e)) return nullptr;
  std::vector<ExprPtr> implied;
  for (const ExprPtr& branch : SplitDisjunction(e)) {
    std::vector<ExprPtr> kept;
    for (const ExprPtr& term : expr::SplitConjunction(branch)) {
      if (keep(*term)) kept.push_back(term);
    }
    if (kept.empty()) return nullptr;  // this branch says nothing about what is kept
    implied.push_back(expr::JoinConjunction(std::move(kept)));
  }
  return expr::Or(std::move(implied));
}

std::vector<ExprPtr> ImpliedColumnRanges(const ExprPtr& e) {
  if (!IsCall(*e, "or") || expr::IsVolatile(*e)) return {};
  std::map<int, Restriction> all;  // what every branch so far allows, per column
  std::map<int, ExprPtr> columns;
  bool first = true;
  for (const ExprPtr& branch : SplitDisjunction(e)) {
    std::map<int, Restriction> here;
    for (const ExprPtr& term : expr::SplitConjunction(branch)) Collect(term, &here, &columns);
    if (first) {
      all = std::move(here);
      first = false;
      continue;
    }
    for (auto it = all.begin(); it != all.end();) {
      auto other = here.find(it->first);
      if (other == here.end() || other->second.failed || it->second.failed) {
        it = all.erase(it);  // a branch leaves the column unrestricted
        continue;
      }
      Restriction& r = it->second;
      const Restriction& o = other->second;
      if (r.values && o.values) {
        for (const ExprPtr& v : *o.values) {
          if (!ContainsExpr(*r.values, *v)) r.values->push_back(v);
        }
      } else {
        // A set and a range, or two ranges: the union's bounds (a set's are its extremes).
        Restriction copy = o;
        ToBounds(&r);
        ToBounds(&copy);
        Loosen(&r.lower, copy.lower, /*lower=*/true, &r.failed);
        Loosen(&r.upper, copy.upper, /*lower=*/false, &r.failed);
        r.failed = r.failed || copy.failed;
      }
      if (r.failed || (!r.values && !r.lower && !r.upper)) {
        it = all.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::vector<ExprPtr> out;
  for (auto& [col, r] : all) {
    if (r.failed) continue;
    const ExprPtr& column = columns.at(col);
    if (r.values && !r.values->empty() && r.values->size() <= kMaxDerivedValues) {
      if (r.values->size() == 1) {
        out.push_back(expr::Compare("eq", column, (*r.values)[0]));
      } else {
        std::vector<ExprPtr> args{column};
        args.insert(args.end(), r.values->begin(), r.values->end());
        out.push_back(expr::Call("in_list", std::move(args), Boolean(), column->nullable));
      }
      continue;
    }
    ToBounds(&r);
    if (r.failed) continue;
    if (r.lower)
      out.push_back(expr::Compare(r.lower->strict ? "gt" : "ge", column, r.lower->value));
    if (r.upper)
      out.push_back(expr::Compare(r.upper->strict ? "lt" : "le", column, r.upper->value));
  }
  return out;
}

}  // namespace floe::plan::internal
