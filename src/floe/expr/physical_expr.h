#pragma once

// Evaluable expressions over record batches. A PhysicalExpr evaluates a whole batch at a
// time (no per-row virtual calls): kernels loop over value buffers. The result is a
// ColumnarValue: an array with one value per row, or one scalar standing for every row
// (a literal, or a call whose arguments were all scalars).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/expr/expr.h"

namespace floe::expr {

/// An array with one value per row, or a scalar that stands for every row.
class ColumnarValue {
 public:
  ColumnarValue() = default;
  explicit ColumnarValue(ArrayPtr array)
      : array_(std::move(array)), scalar_(Scalar::Null(nullptr)) {}
  explicit ColumnarValue(Scalar scalar) : scalar_(std::move(scalar)), is_scalar_(true) {}

  bool is_scalar() const { return is_scalar_; }
  const ArrayPtr& array() const { return array_; }
  const Scalar& scalar() const { return scalar_; }
  const TypePtr& type() const { return is_scalar_ ? scalar_.type() : array_->type(); }

  /// The value as an array of `length` rows (a scalar is repeated).
  Result<ArrayPtr> ToArray(int64_t length, MemoryPool* pool = DefaultMemoryPool()) const;

 private:
  ArrayPtr array_;
  Scalar scalar_ = Scalar::Null(nullptr);
  bool is_scalar_ = false;
};

class PhysicalExpr;
using PhysicalExprPtr = std::shared_ptr<const PhysicalExpr>;

/// What evaluation needs besides the batch.
struct EvalContext {
  MemoryPool* pool = DefaultMemoryPool();
};

/// An immutable, evaluable expression. Errors (division by zero, overflow, bad casts)
/// are kInvalidArgument naming the operation and the offending value.
class PhysicalExpr {
 public:
  virtual ~PhysicalExpr() = default;

  /// The node type's stable name ("Column", "Literal", "Call", "Cast", "Case"), used by
  /// the plan codec.
  virtual std::string_view name() const = 0;
  virtual const TypePtr& type() const = 0;
  virtual bool nullable() const = 0;
  virtual Result<ColumnarValue> Evaluate(const RecordBatch& batch, EvalContext& ctx) const = 0;
  virtual std::vector<PhysicalExprPtr> children() const = 0;
  /// The SQL-ish form used by EXPLAIN: column names, not indices ("l_quantity < 24").
  virtual std::string ToString() const = 0;
  /// The bound expression this was compiled from (the codec encodes it).
  virtual const ExprPtr& source() const = 0;
};

/// Compiles a bound expression against the schema of the batches it will see. kInternal
/// when a column index is out of range or a type disagrees with the schema.
Result<PhysicalExprPtr> Compile(const ExprPtr& expr, const SchemaPtr& input_schema);

/// Evaluates and materializes one array of batch.num_rows() values.
Result<ArrayPtr> EvaluateToArray(const PhysicalExpr& expr, const RecordBatch& batch,
                                 EvalContext& ctx);

/// Evaluates a constant expression (no column references) to a scalar; used by constant
/// folding. Errors as Evaluate; kNotSupported for a nested result type (a Scalar holds
/// none).
Result<Scalar> EvaluateConstant(const ExprPtr& expr);
/// Evaluates a constant expression of any type, nested ones included, to a one-value array.
Result<ArrayPtr> EvaluateConstantArray(const ExprPtr& expr);

}  // namespace floe::expr
