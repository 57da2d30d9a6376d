#include "floe/expr/filter_predicate.h"

#include <cstring>
#include <utility>

#include "floe/batch/select.h"
#include "floe/expr/comparison_internal.h"

namespace floe::expr {

namespace {

// Below one selected row in kSparseRatio, a column comparison tests the selected rows
// one by one and other conjuncts run on the selected rows gathered; above it, they run
// over the whole batch and their result is ANDed in.
constexpr int64_t kSparseRatio = 8;

// Collects the conjuncts of nested ANDs, in order.
void Flatten(const PhysicalExprPtr& e, std::vector<PhysicalExprPtr>* out) {
  if (e->name() == "Call" && e->source() && e->source()->name == "and") {
    for (const PhysicalExprPtr& c : e->children()) Flatten(c, out);
    return;
  }
  out->push_back(e);
}

// Sets `bits` (n rows) to the rows where the boolean array `a` is TRUE.
void TrueBits(const Array& a, uint8_t* bits) {
  const int64_t n = a.length();
  bit_util::CopyBitmap(a.buffer(1)->data(), a.offset(), n, bits, 0);
  internal::AndValidity(a, bits);
}

}  // namespace

struct FilterPredicate::Conjunct {
  PhysicalExprPtr expr;
  // Set when the conjunct compares column `column` with a constant.
  std::optional<internal::ConstantComparison> compare;
  int column = -1;
  // The columns `expr` reads, ascending (for evaluation on gathered rows).
  std::vector<int> referenced;
};

FilterPredicate::FilterPredicate(FilterPredicate&&) noexcept = default;
FilterPredicate& FilterPredicate::operator=(FilterPredicate&&) noexcept = default;
FilterPredicate::~FilterPredicate() = default;

Result<FilterPredicate> FilterPredicate::Make(PhysicalExprPtr predicate) {
  if (!predicate) return Status::Internal("FilterPredicate: no predicate");
  if (predicate->type()->id() != TypeId::kBoolean) {
    return Status::Internal("FilterPredicate: predicate {} is of type {}, not boolean",
                            predicate->ToString(), predicate->type()->ToString());
  }
  FilterPredicate out;
  out.predicate_ = predicate;
  std::vector<PhysicalExprPtr> parts;
  Flatten(predicate, &parts);
  std::vector<Conjunct> compares, others;
  for (PhysicalExprPtr& part : parts) {
    Conjunct c;
    c.expr = part;
    const std::vector<PhysicalExprPtr> args = part->children();
    std::optional<internal::CmpOp> op;
    if (part->name() == "Call" && part->source())
      op = internal::CmpOpFromName(part->source()->name);
    if (op && args.size() == 2) {
      for (int k = 0; k < 2 && !c.compare; ++k) {
        const PhysicalExpr& column = *args[static_cast<size_t>(k)];
        const PhysicalExpr& constant = *args[static_cast<size_t>(1 - k)];
        if (column.name() != "Column" || constant.name() != "Literal") continue;
        c.compare = internal::ConstantComparison::Make(*op, *column.type(), *constant.type(),
                                                       constant.source()->literal, k == 1);
        c.column = column.source()->column;
      }
    }
    if (c.compare) {
      compares.push_back(std::move(c));
    } else {
      c.referenced = ReferencedColumns(*part->source());
      others.push_back(std::move(c));
    }
  }
  // Comparisons with constants cannot fail, so running them first only spares the
  // other conjuncts rows that are dropped anyway.
  for (Conjunct& c : compares) out.conjuncts_.push_back(std::move(c));
  for (Conjunct& c : others) out.conjuncts_.push_back(std::move(c));
  return out;
}

Result<FilterSelection> FilterPredicate::Select(const RecordBatch& batch, EvalContext& ctx) const {
  const int64_t n = batch.num_rows();
  FilterSelection out;
  if (n == 0) return out;
  const int64_t bytes = bit_util::BytesForBits(n);
  // The rows selected so far: every row while `mask` is null, else its set bits.
  std::shared_ptr<Buffer> mask;
  uint8_t* bits = nullptr;
  int64_t count = n;
  std::vector<uint8_t> scratch;
  auto start_mask = [&]() -> Status {
    FLOE_ASSIGN_OR_RAISE(mask, Buffer::AllocateZeroed(bytes, ctx.pool));
    bits = mask->mutable_data();
    return Status::OK();
  };
  std::vector<int64_t> rows;
  for (const Conjunct& c : conjuncts_) {
    if (c.compare) {
      if (c.column < 0 || c.column >= batch.num_columns()) {
        return Status::Internal("column #{} is not in a batch of {} columns", c.column,
                                batch.num_columns());
      }
      const Array& values = *batch.column(c.column);
      if (bits == nullptr) {
        FLOE_RETURN_NOT_OK(start_mask());
        c.compare->Compare(values, bits);
        internal::AndValidity(values, bits);
      } else if (count * kSparseRatio < n) {
        c.compare->Refine(values, bits);
      } else {
        scratch.assign(static_cast<size_t>(bytes), 0);
        c.compare->Compare(values, scratch.data());
        internal::AndValidity(values, scratch.data());
        for (int64_t b = 0; b < bytes; ++b) bits[b] &= scratch[static_cast<size_t>(b)];
      }
    } else if (bits == nullptr || count * kSparseRatio >= n) {
      FLOE_ASSIGN_OR_RAISE(ColumnarValue v, c.expr->Evaluate(batch, ctx));
      if (v.is_scalar()) {
        if (v.scalar().is_null() || !v.scalar().get<bool>()) return out;
        continue;
      }
      if (v.array()->length() != n) {
        return Status::Internal("filter conjunct {} gave {} values for {} rows", c.expr->ToString(),
                                v.array()->length(), n);
      }
      if (bits == nullptr) {
        FLOE_RETURN_NOT_OK(start_mask());
        TrueBits(*v.array(), bits);
      } else {
        scratch.assign(static_cast<size_t>(bytes), 0);
        TrueBits(*v.array(), scratch.data());
        for (int64_t b = 0; b < bytes; ++b) bits[b] &= scratch[static_cast<size_t>(b)];
      }
    } else {
      // Few rows left: evaluate on those rows only, gathering just the columns read.
      rows.clear();
      rows.reserve(static_cast<size_t>(count));
      for (int64_t i = 0; i < n; ++i) {
        if (bit_util::GetBit(bits, i)) rows.push_back(i);
      }
      const int64_t k = static_cast<int64_t>(rows.size());
      std::vector<ArrayPtr> columns(static_cast<size_t>(batch.num_columns()));
      size_t next = 0;
      for (int col = 0; col < batch.num_columns(); ++col) {
        while (next < c.referenced.size() && c.referenced[next] < col) ++next;
        if (next < c.referenced.size() && c.referenced[next] == col) {
          FLOE_ASSIGN_OR_RAISE(columns[static_cast<size_t>(col)],
                               TakeArray(*batch.column(col), rows.data(), k, ctx.pool));
        } else {
          // Not read by this conjunct: any array of the right type and length will do.
          columns[static_cast<size_t>(col)] = batch.column(col)->Slice(0, k);
        }
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr sub,
                           RecordBatch::Make(batch.schema(), k, std::move(columns)));
      FLOE_ASSIGN_OR_RAISE(ColumnarValue v, c.expr->Evaluate(*sub, ctx));
      if (v.is_scalar()) {
        if (v.scalar().is_null() || !v.scalar().get<bool>()) return out;
        continue;
      }
      const Array& a = *v.array();
      if (a.length() != k) {
        return Status::Internal("filter conjunct {} gave {} values for {} rows", c.expr->ToString(),
                                a.length(), k);
      }
      for (int64_t j = 0; j < k; ++j) {
        if (!(a.IsValid(j) && a.BoolValue(j)))
          bit_util::ClearBit(bits, rows[static_cast<size_t>(j)]);
      }
    }
    count = bit_util::CountSetBits(bits, 0, n);
    if (count == 0) return out;
  }
  out.selected = count;
  if (count < n) {
    // Bits past the last row stay clear.
    if (n % 8 != 0) bits[bytes - 1] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
    FLOE_ASSIGN_OR_RAISE(out.mask, Array::Make(Boolean(), n, {nullptr, std::move(mask)}, {}, 0));
  }
  return out;
}

}  // namespace floe::expr
