#include "floe/expr/physical_expr.h"

#include <algorithm>

#include "floe/batch/builder.h"
#include "floe/batch/select.h"
#include "floe/expr/cast_internal.h"
#include "floe/expr/function_registry_internal.h"
#include "floe/expr/kernel_internal.h"

namespace floe::expr {

namespace {

// A scalar repeated `length` times, written in bulk.
Result<ArrayPtr> RepeatScalar(const Scalar& s, int64_t length, MemoryPool* pool) {
  if (!s.type()) return Status::Internal("cannot materialize an untyped NULL");
  if (s.is_null()) return Array::MakeNull(s.type(), length, pool);
  const TypePtr& type = s.type();
  return VisitPhysicalType(type->id(), [&]<typename T>(TypeTag<T>) -> Result<ArrayPtr> {
    if constexpr (std::is_same_v<T, void>) {
      return Status::NotSupported("cannot repeat a scalar of type {}", type->ToString());
    } else if constexpr (std::is_same_v<T, bool>) {
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> bits,
                           Buffer::AllocateZeroed(bit_util::BytesForBits(length), pool));
      if (s.get<bool>()) bit_util::SetBitsTo(bits->mutable_data(), 0, length, true);
      return Array::Make(type, length, {nullptr, std::move(bits)}, {}, 0);
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      const std::string& v = s.get<std::string>();
      auto builder = MakeBuilder(type, pool);
      FLOE_RETURN_NOT_OK(builder->Reserve(length));
      if (type->is_binary_like()) {
        auto* b = static_cast<BinaryBuilder*>(builder.get());
        FLOE_RETURN_NOT_OK(b->ReserveData(static_cast<int64_t>(v.size()) * length));
        for (int64_t i = 0; i < length; ++i) b->UnsafeAppend(v);
      } else {
        auto* b = static_cast<FixedSizeBinaryBuilder*>(builder.get());
        if (static_cast<int>(v.size()) != b->byte_width()) {
          return Status::Internal("a {} scalar of {} bytes", type->ToString(), v.size());
        }
        for (int64_t i = 0; i < length; ++i) b->UnsafeAppend(v.data());
      }
      return builder->Finish();
    } else {
      const T v = internal::ScalarValueAs<T>(s);
      FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> values,
                           Buffer::AllocateZeroed(length * static_cast<int64_t>(sizeof(T)), pool));
      T* out = reinterpret_cast<T*>(values->mutable_data());
      std::fill(out, out + length, v);
      return Array::Make(type, length, {nullptr, std::move(values)}, {}, 0);
    }
  });
}

// Binary operators shown infix by ToString.
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
  if (name == "is_distinct_from") return "IS DISTINCT FROM";
  if (name == "is_not_distinct_from") return "IS NOT DISTINCT FROM";
  if (name == "like") return "LIKE";
  if (name == "ilike") return "ILIKE";
  return {};
}

// Postfix forms: x IS NULL and the like.
std::string_view PostfixSymbol(std::string_view name) {
  if (name == "is_null") return "IS NULL";
  if (name == "is_not_null") return "IS NOT NULL";
  if (name == "is_true") return "IS TRUE";
  if (name == "is_false") return "IS FALSE";
  if (name == "is_not_true") return "IS NOT TRUE";
  if (name == "is_not_false") return "IS NOT FALSE";
  return {};
}

bool NeedsParens(const PhysicalExpr& child) {
  if (child.name() != "Call") return false;
  const Expr& e = *child.source();
  return !InfixSymbol(e.name).empty() || !PostfixSymbol(e.name).empty() || e.name == "not" ||
         e.name == "negate" || e.name == "in_list";
}

std::string ChildText(const PhysicalExprPtr& child) {
  std::string s = child->ToString();
  return NeedsParens(*child) ? "(" + s + ")" : s;
}

class ColumnExpr final : public PhysicalExpr {
 public:
  ColumnExpr(ExprPtr source, std::string name)
      : source_(std::move(source)), name_(std::move(name)) {}
  std::string_view name() const override { return "Column"; }
  const TypePtr& type() const override { return source_->type; }
  bool nullable() const override { return source_->nullable; }
  Result<ColumnarValue> Evaluate(const RecordBatch& batch, EvalContext&) const override {
    if (source_->column >= batch.num_columns()) {
      return Status::Internal("column #{} ({}) is not in a batch of {} columns", source_->column,
                              name_, batch.num_columns());
    }
    return ColumnarValue(batch.column(source_->column));
  }
  std::vector<PhysicalExprPtr> children() const override { return {}; }
  std::string ToString() const override { return name_; }
  const ExprPtr& source() const override { return source_; }

 private:
  ExprPtr source_;
  std::string name_;
};

class LiteralExpr final : public PhysicalExpr {
 public:
  explicit LiteralExpr(ExprPtr source) : source_(std::move(source)) {}
  std::string_view name() const override { return "Literal"; }
  const TypePtr& type() const override { return source_->type; }
  bool nullable() const override { return source_->literal.is_null(); }
  Result<ColumnarValue> Evaluate(const RecordBatch&, EvalContext&) const override {
    return ColumnarValue(source_->literal);
  }
  std::vector<PhysicalExprPtr> children() const override { return {}; }
  std::string ToString() const override { return source_->ToString(); }
  const ExprPtr& source() const override { return source_; }

 private:
  ExprPtr source_;
};

class CastExpr final : public PhysicalExpr {
 public:
  CastExpr(ExprPtr source, PhysicalExprPtr input)
      : source_(std::move(source)), input_(std::move(input)) {}
  std::string_view name() const override { return "Cast"; }
  const TypePtr& type() const override { return source_->type; }
  bool nullable() const override { return source_->nullable; }
  Result<ColumnarValue> Evaluate(const RecordBatch& batch, EvalContext& ctx) const override {
    FLOE_ASSIGN_OR_RAISE(ColumnarValue v, input_->Evaluate(batch, ctx));
    return internal::CastValue(v, source_->type, batch.num_rows(), ctx);
  }
  std::vector<PhysicalExprPtr> children() const override { return {input_}; }
  std::string ToString() const override {
    return "CAST(" + input_->ToString() + " AS " + source_->type->ToString() + ")";
  }
  const ExprPtr& source() const override { return source_; }

 private:
  ExprPtr source_;
  PhysicalExprPtr input_;
};

class CallExpr final : public PhysicalExpr {
 public:
  CallExpr(ExprPtr source, std::vector<PhysicalExprPtr> args, ResolvedFunction fn,
           internal::ScalarKernel kernel)
      : source_(std::move(source)),
        args_(std::move(args)),
        fn_(std::move(fn)),
        kernel_(std::move(kernel)) {}
  std::string_view name() const override { return "Call"; }
  const TypePtr& type() const override { return source_->type; }
  bool nullable() const override { return source_->nullable; }
  Result<ColumnarValue> Evaluate(const RecordBatch& batch, EvalContext& ctx) const override {
    std::vector<ColumnarValue> values;
    values.reserve(args_.size());
    for (const PhysicalExprPtr& a : args_) {
      FLOE_ASSIGN_OR_RAISE(ColumnarValue v, a->Evaluate(batch, ctx));
      values.push_back(std::move(v));
    }
    FLOE_ASSIGN_OR_RAISE(ColumnarValue out, kernel_(fn_, values, batch.num_rows(), ctx));
    // The expression's type wins over the resolved one when they differ (a decimal
    // precision the binder chose, say).
    if (out.type() && !source_->type->is_nested() && !out.type()->Equals(*source_->type)) {
      return internal::CastValue(out, source_->type, batch.num_rows(), ctx);
    }
    return out;
  }
  std::vector<PhysicalExprPtr> children() const override { return args_; }
  std::string ToString() const override {
    const std::string& fname = source_->name;
    std::string_view infix = InfixSymbol(fname);
    if (!infix.empty() && args_.size() >= 2) {
      std::string out;
      for (size_t i = 0; i < args_.size(); ++i) {
        if (i > 0) {
          out += " ";
          out += infix;
          out += " ";
        }
        out += ChildText(args_[i]);
      }
      if ((fname == "like" || fname == "ilike") && args_.size() == 3) {
        // like(value, pattern, escape) reads "value LIKE pattern ESCAPE e".
        out = ChildText(args_[0]) + " " + std::string(infix) + " " + ChildText(args_[1]) +
              " ESCAPE " + ChildText(args_[2]);
      }
      return out;
    }
    std::string_view postfix = PostfixSymbol(fname);
    if (!postfix.empty() && args_.size() == 1) {
      return ChildText(args_[0]) + " " + std::string(postfix);
    }
    if (fname == "not" && args_.size() == 1) return "NOT " + ChildText(args_[0]);
    if (fname == "negate" && args_.size() == 1) return "-" + ChildText(args_[0]);
    if (fname == "in_list" && !args_.empty()) {
      std::string out = ChildText(args_[0]) + " IN (";
      for (size_t i = 1; i < args_.size(); ++i) {
        if (i > 1) out += ", ";
        out += args_[i]->ToString();
      }
      return out + ")";
    }
    std::string out = fname + "(";
    for (size_t i = 0; i < args_.size(); ++i) {
      if (i > 0) out += ", ";
      out += args_[i]->ToString();
    }
    return out + ")";
  }
  const ExprPtr& source() const override { return source_; }

 private:
  ExprPtr source_;
  std::vector<PhysicalExprPtr> args_;
  ResolvedFunction fn_;
  internal::ScalarKernel kernel_;
};

// Rows where a boolean value is true (NULL counts as false), as ascending indices into
// `rows` (the positions being decided).
void TrueRows(const ColumnarValue& cond, int64_t n, std::vector<int64_t>* selected,
              std::vector<int64_t>* rest) {
  selected->clear();
  rest->clear();
  if (cond.is_scalar()) {
    const bool t = !cond.scalar().is_null() && cond.scalar().get<bool>();
    for (int64_t i = 0; i < n; ++i) (t ? selected : rest)->push_back(i);
    return;
  }
  const Array& a = *cond.array();
  for (int64_t i = 0; i < n; ++i) {
    const bool t = a.IsValid(i) && a.BoolValue(i);
    (t ? selected : rest)->push_back(i);
  }
}

class CaseExpr final : public PhysicalExpr {
 public:
  CaseExpr(ExprPtr source, std::vector<PhysicalExprPtr> args)
      : source_(std::move(source)), args_(std::move(args)) {
    referenced_ = ReferencedColumns(*source_);
  }
  std::string_view name() const override { return "Case"; }
  const TypePtr& type() const override { return source_->type; }
  bool nullable() const override { return source_->nullable; }

  Result<ColumnarValue> Evaluate(const RecordBatch& batch, EvalContext& ctx) const override {
    const bool has_else = source_->case_has_else;
    const size_t pairs = (args_.size() - (has_else ? 1 : 0)) / 2;
    const int64_t n = batch.num_rows();
    // `rows` maps positions of the current sub-batch to rows of `batch`.
    std::vector<int64_t> rows;
    RecordBatchPtr current;  // null while it is the whole batch
    // The value of each branch on the rows that chose it.
    std::vector<ArrayPtr> pieces;
    std::vector<std::vector<int64_t>> piece_rows;
    std::vector<int64_t> selected, rest;
    for (size_t p = 0; p < pairs; ++p) {
      const RecordBatch& sub = current ? *current : batch;
      const int64_t m = sub.num_rows();
      if (m == 0) break;
      FLOE_ASSIGN_OR_RAISE(ColumnarValue cond, args_[2 * p]->Evaluate(sub, ctx));
      TrueRows(cond, m, &selected, &rest);
      if (selected.empty()) continue;
      if (rest.empty() && !current) {
        // Every row chose this branch.
        return args_[2 * p + 1]->Evaluate(batch, ctx);
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr chosen, SubBatch(sub, selected, ctx));
      FLOE_ASSIGN_OR_RAISE(ColumnarValue then, args_[2 * p + 1]->Evaluate(*chosen, ctx));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr then_array, then.ToArray(chosen->num_rows(), ctx.pool));
      pieces.push_back(std::move(then_array));
      piece_rows.push_back(MapRows(selected, current ? &rows : nullptr));
      if (rest.empty()) {
        rows.clear();
        FLOE_ASSIGN_OR_RAISE(current, SubBatch(sub, rest, ctx));
        break;
      }
      std::vector<int64_t> rest_rows = MapRows(rest, current ? &rows : nullptr);
      FLOE_ASSIGN_OR_RAISE(current, SubBatch(sub, rest, ctx));
      rows = std::move(rest_rows);
    }
    const int64_t remaining = current ? current->num_rows() : n;
    if (!current && has_else) return args_.back()->Evaluate(batch, ctx);
    if (!current) {
      // No WHEN matched any row and there is no ELSE.
      return ColumnarValue(Scalar::Null(source_->type));
    }
    if (remaining > 0 && has_else) {
      FLOE_ASSIGN_OR_RAISE(ColumnarValue other, args_.back()->Evaluate(*current, ctx));
      FLOE_ASSIGN_OR_RAISE(ArrayPtr other_array, other.ToArray(remaining, ctx.pool));
      pieces.push_back(std::move(other_array));
      piece_rows.push_back(rows);
    }
    // Scatter: row r takes value positions[r] of the concatenated pieces (-1 = NULL).
    std::vector<int64_t> positions(static_cast<size_t>(n), -1);
    int64_t base = 0;
    for (size_t k = 0; k < pieces.size(); ++k) {
      for (size_t j = 0; j < piece_rows[k].size(); ++j) {
        positions[static_cast<size_t>(piece_rows[k][j])] = base + static_cast<int64_t>(j);
      }
      base += pieces[k]->length();
    }
    ArrayPtr all;
    if (pieces.empty()) {
      FLOE_ASSIGN_OR_RAISE(all, Array::MakeNull(source_->type, 0, ctx.pool));
    } else {
      for (ArrayPtr& piece : pieces) {
        if (!piece->type()->Equals(*source_->type)) {
          return Status::Internal("CASE branch of type {} in a CASE of type {}",
                                  piece->type()->ToString(), source_->type->ToString());
        }
      }
      FLOE_ASSIGN_OR_RAISE(all, ConcatenateArrays(pieces, ctx.pool));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, TakeArray(*all, positions.data(), n, ctx.pool));
    return ColumnarValue(std::move(out));
  }

  std::vector<PhysicalExprPtr> children() const override { return args_; }
  std::string ToString() const override {
    const bool has_else = source_->case_has_else;
    const size_t pairs = (args_.size() - (has_else ? 1 : 0)) / 2;
    std::string out = "CASE";
    for (size_t p = 0; p < pairs; ++p) {
      out += " WHEN " + args_[2 * p]->ToString() + " THEN " + args_[2 * p + 1]->ToString();
    }
    if (has_else) out += " ELSE " + args_.back()->ToString();
    return out + " END";
  }
  const ExprPtr& source() const override { return source_; }

 private:
  // Positions in the original batch of sub-batch positions `sel`.
  static std::vector<int64_t> MapRows(const std::vector<int64_t>& sel,
                                      const std::vector<int64_t>* rows) {
    if (rows == nullptr) return sel;
    std::vector<int64_t> out;
    out.reserve(sel.size());
    for (int64_t s : sel) out.push_back((*rows)[static_cast<size_t>(s)]);
    return out;
  }

  // The rows `sel` of `sub`; only the columns this CASE reads are gathered, the others
  // are cheap slices of the right length and type that no branch reads.
  Result<RecordBatchPtr> SubBatch(const RecordBatch& sub, const std::vector<int64_t>& sel,
                                  EvalContext& ctx) const {
    const int64_t k = static_cast<int64_t>(sel.size());
    std::vector<ArrayPtr> columns(static_cast<size_t>(sub.num_columns()));
    for (int c = 0; c < sub.num_columns(); ++c) {
      const bool read = std::binary_search(referenced_.begin(), referenced_.end(), c);
      if (read) {
        FLOE_ASSIGN_OR_RAISE(columns[static_cast<size_t>(c)],
                             TakeArray(*sub.column(c), sel.data(), k, ctx.pool));
      } else {
        columns[static_cast<size_t>(c)] = sub.column(c)->Slice(0, k);
      }
    }
    return RecordBatch::Make(sub.schema(), k, std::move(columns));
  }

  ExprPtr source_;
  std::vector<PhysicalExprPtr> args_;
  std::vector<int> referenced_;
};

Result<PhysicalExprPtr> CompileImpl(const ExprPtr& expr, const Schema& schema) {
  if (!expr) return Status::Internal("Compile: null expression");
  if (!expr->type) return Status::Internal("Compile: expression {} has no type", expr->ToString());
  switch (expr->kind) {
    case ExprKind::kColumn: {
      if (expr->column < 0 || expr->column >= schema.num_fields()) {
        return Status::Internal("column #{} ({}) is outside an input of {} columns", expr->column,
                                expr->name, schema.num_fields());
      }
      const Field& f = schema.field(expr->column);
      if (!f.type()->Equals(*expr->type)) {
        return Status::Internal("column #{} ({}) has type {} in the input but {} in the expression",
                                expr->column, f.name(), f.type()->ToString(),
                                expr->type->ToString());
      }
      return PhysicalExprPtr(std::make_shared<ColumnExpr>(expr, f.name()));
    }
    case ExprKind::kLiteral:
      return PhysicalExprPtr(std::make_shared<LiteralExpr>(expr));
    case ExprKind::kCast: {
      if (expr->args.size() != 1) return Status::Internal("CAST needs one argument");
      FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr input, CompileImpl(expr->args[0], schema));
      return PhysicalExprPtr(std::make_shared<CastExpr>(expr, std::move(input)));
    }
    case ExprKind::kCase: {
      std::vector<PhysicalExprPtr> args;
      for (const ExprPtr& a : expr->args) {
        FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr c, CompileImpl(a, schema));
        args.push_back(std::move(c));
      }
      const size_t pairs = (args.size() - (expr->case_has_else ? 1 : 0));
      if (pairs % 2 != 0 || pairs == 0) {
        return Status::Internal("CASE with {} arguments", expr->args.size());
      }
      return PhysicalExprPtr(std::make_shared<CaseExpr>(expr, std::move(args)));
    }
    case ExprKind::kCall: {
      std::vector<PhysicalExprPtr> args;
      std::vector<TypePtr> arg_types;
      for (const ExprPtr& a : expr->args) {
        FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr c, CompileImpl(a, schema));
        arg_types.push_back(a->type);
        args.push_back(std::move(c));
      }
      auto& registry = internal::ScalarFunctionRegistry::Instance();
      FLOE_ASSIGN_OR_RAISE(ResolvedFunction fn, registry.Resolve(expr->name, arg_types));
      // The binder normally coerced the arguments already; an argument that still differs
      // from the resolved signature is cast here so the kernel sees the types it expects.
      if (fn.arg_types.size() != args.size()) {
        return Status::Internal("{} resolved to {} arguments for {}", expr->name,
                                fn.arg_types.size(), args.size());
      }
      for (size_t i = 0; i < args.size(); ++i) {
        if (!arg_types[i]->is_nested() && !fn.arg_types[i]->Equals(*arg_types[i])) {
          ExprPtr cast = Cast(expr->args[i], fn.arg_types[i]);
          args[i] = std::make_shared<CastExpr>(std::move(cast), std::move(args[i]));
        }
      }
      FLOE_ASSIGN_OR_RAISE(internal::ScalarKernel kernel, registry.Kernel(fn));
      return PhysicalExprPtr(
          std::make_shared<CallExpr>(expr, std::move(args), std::move(fn), std::move(kernel)));
    }
  }
  return Status::Internal("Compile: unknown expression kind");
}

}  // namespace

Result<ArrayPtr> ColumnarValue::ToArray(int64_t length, MemoryPool* pool) const {
  if (!is_scalar_) {
    if (array_->length() != length) {
      return Status::Internal("an array of {} values where {} rows were expected", array_->length(),
                              length);
    }
    return array_;
  }
  return RepeatScalar(scalar_, length, pool);
}

Result<PhysicalExprPtr> Compile(const ExprPtr& expr, const SchemaPtr& input_schema) {
  static const Schema kEmpty;
  return CompileImpl(expr, input_schema ? *input_schema : kEmpty);
}

Result<ArrayPtr> EvaluateToArray(const PhysicalExpr& expr, const RecordBatch& batch,
                                 EvalContext& ctx) {
  FLOE_ASSIGN_OR_RAISE(ColumnarValue v, expr.Evaluate(batch, ctx));
  return v.ToArray(batch.num_rows(), ctx.pool);
}

Result<ArrayPtr> EvaluateConstantArray(const ExprPtr& expr) {
  if (!IsConstant(*expr)) {
    return Status::Internal("EvaluateConstant: {} references columns", expr->ToString());
  }
  auto schema = std::make_shared<const Schema>();
  FLOE_ASSIGN_OR_RAISE(PhysicalExprPtr physical, Compile(expr, schema));
  FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, RecordBatch::Make(schema, 1, {}));
  EvalContext ctx;
  FLOE_ASSIGN_OR_RAISE(ColumnarValue v, physical->Evaluate(*batch, ctx));
  if (v.is_scalar() && !v.scalar().type()) return Array::MakeNull(expr->type, 1);
  FLOE_ASSIGN_OR_RAISE(ArrayPtr a, v.ToArray(1, ctx.pool));
  if (a->length() != 1) {
    return Status::Internal("constant {} evaluated to {} values", expr->ToString(), a->length());
  }
  return a;
}

Result<Scalar> EvaluateConstant(const ExprPtr& expr) {
  // A Scalar holds no nested value: a list or struct constant is computed per batch instead.
  if (expr->type != nullptr && expr->type->is_nested()) {
    return Status::NotSupported("EvaluateConstant: {} has the nested type {}", expr->ToString(),
                                expr->type->ToString());
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr a, EvaluateConstantArray(expr));
  return ScalarAt(*a, 0);
}

}  // namespace floe::expr
