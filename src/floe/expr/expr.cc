#include "floe/expr/expr.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>
#include <variant>

#include "floe/batch/value_format.h"
#include "floe/common/logging.h"

namespace floe::expr {

namespace {

ExprPtr MakeShared(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

bool TypesEqual(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

bool ScalarsEqual(const Scalar& a, const Scalar& b) {
  if (!TypesEqual(a.type(), b.type())) return false;
  if (a.value().index() != b.value().index()) return false;
  // Floats compare by bits so that NaN literals equal themselves (structural equality).
  if (const auto* f = std::get_if<float>(&a.value())) {
    float g = b.get<float>();
    return std::memcmp(f, &g, sizeof(float)) == 0;
  }
  if (const auto* d = std::get_if<double>(&a.value())) {
    double e = b.get<double>();
    return std::memcmp(d, &e, sizeof(double)) == 0;
  }
  return a.value() == b.value();
}

size_t HashCombine(size_t seed, size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t ScalarHash(const Scalar& s) {
  size_t h = s.value().index();
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          h = HashCombine(h, 0);
        } else if constexpr (std::is_same_v<T, Int128>) {
          h = HashCombine(h, std::hash<uint64_t>()(static_cast<uint64_t>(v)));
          h = HashCombine(h, std::hash<uint64_t>()(static_cast<uint64_t>(v >> 64)));
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          uint64_t bits = 0;
          std::memcpy(&bits, &v, sizeof(T));
          h = HashCombine(h, std::hash<uint64_t>()(bits));
        } else {
          h = HashCombine(h, std::hash<T>()(v));
        }
      },
      s.value());
  return h;
}

void AppendQuoted(std::string_view text, std::string* out) {
  out->push_back('\'');
  for (char c : text) {
    if (c == '\'') out->push_back('\'');
    out->push_back(c);
  }
  out->push_back('\'');
}

std::string LiteralToString(const Scalar& s) {
  const TypePtr& type = s.type();
  if (s.is_null()) return "NULL::" + (type ? type->ToString() : std::string("unknown"));
  std::string text = FormatScalar(s);
  switch (type->id()) {
    case TypeId::kBoolean:
      return s.get<bool>() ? "true" : "false";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal:
      return text;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      // Non-finite values have no bare SQL spelling.
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
        std::string out;
        AppendQuoted(text, &out);
        return out + "::" + type->ToString();
      }
      return text;
    }
    case TypeId::kString: {
      std::string out;
      AppendQuoted(text, &out);
      return out;
    }
    case TypeId::kDate: {
      std::string out = "DATE ";
      AppendQuoted(text, &out);
      return out;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs: {
      std::string out = "TIMESTAMP ";
      AppendQuoted(text, &out);
      return out;
    }
    default: {
      std::string out;
      AppendQuoted(text, &out);
      return out + "::" + type->ToString();
    }
  }
}

// Binary operators shown infix in ToString.
std::string_view InfixSymbol(std::string_view name) {
  if (name == "eq") return "=";
  if (name == "ne") return "<>";
  if (name == "lt") return "<";
  if (name == "le") return "<=";
  if (name == "gt") return ">";
  if (name == "ge") return ">=";
  if (name == "add") return "+";
  if (name == "subtract") return "-";
  if (name == "multiply") return "*";
  if (name == "divide") return "/";
  if (name == "modulo") return "%";
  if (name == "concat_op") return "||";
  if (name == "and") return "AND";
  if (name == "or") return "OR";
  return {};
}

template <typename Fn>
ExprPtr Transform(const ExprPtr& expr, const Fn& fn) {
  if (ExprPtr replaced = fn(*expr)) return replaced;
  if (expr->args.empty()) return expr;
  std::vector<ExprPtr> args;
  args.reserve(expr->args.size());
  bool changed = false;
  for (const ExprPtr& a : expr->args) {
    ExprPtr n = Transform(a, fn);
    changed |= n != a;
    args.push_back(std::move(n));
  }
  if (!changed) return expr;
  Expr copy = *expr;
  copy.args = std::move(args);
  return MakeShared(std::move(copy));
}

void CollectColumns(const Expr& expr, std::vector<int>* out) {
  if (expr.kind == ExprKind::kColumn) out->push_back(expr.column);
  for (const ExprPtr& a : expr.args) CollectColumns(*a, out);
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind) {
    case ExprKind::kColumn:
      return "#" + std::to_string(column) + ":" + name;
    case ExprKind::kLiteral:
      return LiteralToString(literal);
    case ExprKind::kCast:
      return "CAST(" + args[0]->ToString() + " AS " + (type ? type->ToString() : "?") + ")";
    case ExprKind::kCase: {
      std::string out = "CASE";
      const size_t pairs = (args.size() - (case_has_else ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        out += " WHEN " + args[2 * i]->ToString() + " THEN " + args[2 * i + 1]->ToString();
      }
      if (case_has_else) out += " ELSE " + args.back()->ToString();
      return out + " END";
    }
    case ExprKind::kCall: {
      std::string_view infix = InfixSymbol(name);
      if (!infix.empty() && args.size() >= 2) {
        std::string out = "(";
        for (size_t i = 0; i < args.size(); ++i) {
          if (i > 0) {
            out += " ";
            out += infix;
            out += " ";
          }
          out += args[i]->ToString();
        }
        return out + ")";
      }
      std::string out = name + "(";
      for (size_t i = 0; i < args.size(); ++i) {
        if (i > 0) out += ", ";
        out += args[i]->ToString();
      }
      return out + ")";
    }
  }
  return "?";
}

bool Expr::Equals(const Expr& other) const {
  if (this == &other) return true;
  if (kind != other.kind || nullable != other.nullable || !TypesEqual(type, other.type)) {
    return false;
  }
  switch (kind) {
    case ExprKind::kColumn:
      if (column != other.column || name != other.name) return false;
      break;
    case ExprKind::kLiteral:
      if (!ScalarsEqual(literal, other.literal)) return false;
      break;
    case ExprKind::kCall:
      if (name != other.name) return false;
      break;
    case ExprKind::kCase:
      if (case_has_else != other.case_has_else) return false;
      break;
    case ExprKind::kCast:
      break;
  }
  if (args.size() != other.args.size()) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->Equals(*other.args[i])) return false;
  }
  return true;
}

size_t Expr::Hash() const {
  size_t h = static_cast<size_t>(kind) * 0x9e3779b97f4a7c15ULL;
  if (type) h = HashCombine(h, std::hash<std::string>()(type->ToString()));
  h = HashCombine(h, nullable ? 1 : 2);
  switch (kind) {
    case ExprKind::kColumn:
      h = HashCombine(h, static_cast<size_t>(column));
      h = HashCombine(h, std::hash<std::string>()(name));
      break;
    case ExprKind::kLiteral:
      h = HashCombine(h, ScalarHash(literal));
      break;
    case ExprKind::kCall:
      h = HashCombine(h, std::hash<std::string>()(name));
      break;
    case ExprKind::kCase:
      h = HashCombine(h, case_has_else ? 3 : 4);
      break;
    case ExprKind::kCast:
      break;
  }
  for (const ExprPtr& a : args) h = HashCombine(h, a->Hash());
  return h;
}

ExprPtr Column(int index, std::string name, TypePtr type, bool nullable) {
  Expr e;
  e.kind = ExprKind::kColumn;
  e.column = index;
  e.name = std::move(name);
  e.type = std::move(type);
  e.nullable = nullable;
  return MakeShared(std::move(e));
}

ExprPtr Literal(Scalar value) {
  Expr e;
  e.kind = ExprKind::kLiteral;
  e.type = value.type();
  e.nullable = value.is_null();
  e.literal = std::move(value);
  return MakeShared(std::move(e));
}

ExprPtr Call(std::string name, std::vector<ExprPtr> args, TypePtr type, bool nullable) {
  Expr e;
  e.kind = ExprKind::kCall;
  e.name = std::move(name);
  e.args = std::move(args);
  e.type = std::move(type);
  e.nullable = nullable;
  return MakeShared(std::move(e));
}

ExprPtr Cast(ExprPtr input, TypePtr type) {
  Expr e;
  e.kind = ExprKind::kCast;
  e.nullable = input->nullable;
  e.args.push_back(std::move(input));
  e.type = std::move(type);
  return MakeShared(std::move(e));
}

ExprPtr Case(std::vector<ExprPtr> when_then, ExprPtr else_value, TypePtr type) {
  Expr e;
  e.kind = ExprKind::kCase;
  e.type = std::move(type);
  // Without ELSE a row that matches no WHEN is NULL.
  bool nullable = else_value == nullptr || else_value->nullable;
  for (size_t i = 1; i < when_then.size(); i += 2) nullable |= when_then[i]->nullable;
  e.nullable = nullable;
  e.args = std::move(when_then);
  if (else_value) {
    e.args.push_back(std::move(else_value));
    e.case_has_else = true;
  }
  return MakeShared(std::move(e));
}

namespace {
bool AnyNullable(const std::vector<ExprPtr>& args) {
  return std::any_of(args.begin(), args.end(), [](const ExprPtr& a) { return a->nullable; });
}
}  // namespace

ExprPtr And(std::vector<ExprPtr> args) {
  const bool nullable = AnyNullable(args);
  return Call("and", std::move(args), Boolean(), nullable);
}

ExprPtr Or(std::vector<ExprPtr> args) {
  const bool nullable = AnyNullable(args);
  return Call("or", std::move(args), Boolean(), nullable);
}

ExprPtr Not(ExprPtr arg) {
  const bool nullable = arg->nullable;
  return Call("not", {std::move(arg)}, Boolean(), nullable);
}

ExprPtr IsNull(ExprPtr arg) { return Call("is_null", {std::move(arg)}, Boolean(), false); }

ExprPtr Compare(std::string op, ExprPtr left, ExprPtr right) {
  const bool nullable = left->nullable || right->nullable;
  return Call(std::move(op), {std::move(left), std::move(right)}, Boolean(), nullable);
}

std::vector<ExprPtr> SplitConjunction(const ExprPtr& expr) {
  std::vector<ExprPtr> out;
  if (!expr) return out;
  // Depth-first, left to right.
  std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
    if (e->kind == ExprKind::kCall && e->name == "and") {
      for (const ExprPtr& a : e->args) visit(a);
    } else {
      out.push_back(e);
    }
  };
  visit(expr);
  return out;
}

ExprPtr JoinConjunction(std::vector<ExprPtr> conjuncts) {
  if (conjuncts.empty()) return nullptr;
  if (conjuncts.size() == 1) return std::move(conjuncts[0]);
  return And(std::move(conjuncts));
}

std::vector<int> ReferencedColumns(const Expr& expr) {
  std::vector<int> out;
  CollectColumns(expr, &out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ExprPtr RemapColumns(const ExprPtr& expr, const std::vector<int>& mapping) {
  return Transform(expr, [&](const Expr& e) -> ExprPtr {
    if (e.kind != ExprKind::kColumn) return nullptr;
    FLOE_CHECK(e.column >= 0 && static_cast<size_t>(e.column) < mapping.size() &&
                   mapping[static_cast<size_t>(e.column)] >= 0,
               "RemapColumns: column #" + std::to_string(e.column) + " has no mapping");
    const int to = mapping[static_cast<size_t>(e.column)];
    if (to == e.column) return nullptr;
    return Column(to, e.name, e.type, e.nullable);
  });
}

ExprPtr SubstituteColumns(const ExprPtr& expr, const std::vector<ExprPtr>& replacements) {
  return Transform(expr, [&](const Expr& e) -> ExprPtr {
    if (e.kind != ExprKind::kColumn) return nullptr;
    FLOE_CHECK(e.column >= 0 && static_cast<size_t>(e.column) < replacements.size(),
               "SubstituteColumns: column #" + std::to_string(e.column) + " has no replacement");
    return replacements[static_cast<size_t>(e.column)];
  });
}

bool IsConstant(const Expr& expr) {
  if (expr.kind == ExprKind::kColumn) return false;
  return std::all_of(expr.args.begin(), expr.args.end(),
                     [](const ExprPtr& a) { return IsConstant(*a); });
}

bool IsVolatile(const Expr& expr) {
  if (expr.kind == ExprKind::kCall) {
    static constexpr std::string_view kVolatile[] = {"random",
                                                     "now",
                                                     "clock_timestamp",
                                                     "statement_timestamp",
                                                     "transaction_timestamp",
                                                     "timeofday",
                                                     "gen_random_uuid",
                                                     "uuid",
                                                     "setseed",
                                                     "current_timestamp",
                                                     "current_date",
                                                     "current_time",
                                                     "localtimestamp",
                                                     "localtime"};
    for (std::string_view v : kVolatile) {
      if (expr.name == v) return true;
    }
  }
  return std::any_of(expr.args.begin(), expr.args.end(),
                     [](const ExprPtr& a) { return IsVolatile(*a); });
}

}  // namespace floe::expr
