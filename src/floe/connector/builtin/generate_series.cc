#include "floe/connector/builtin/generate_series.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <utility>

#include "floe/batch/buffer.h"
#include "floe/batch/value_format.h"
#include "floe/codec/value_codec.h"
#include "floe/common/ascii.h"
#include "floe/common/calendar.h"
#include "floe/common/interval.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/projection_exec.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

constexpr const char* kColumnName = "generate_series";

// The sign of an interval as PostgreSQL compares intervals (a month is 30 days).
int IntervalSign(const IntervalStep& step) {
  const __int128 span = IntervalSpan(IntervalValue{step.months, step.days, step.micros});
  return span > 0 ? 1 : span < 0 ? -1 : 0;
}

SchemaPtr SeriesSchema(TypePtr type) {
  return std::make_shared<const Schema>(
      std::vector<Field>{Field(kColumnName, std::move(type), false)});
}

Result<RecordBatchPtr> MakeBatch(const SchemaPtr& schema, const std::vector<int64_t>& values,
                                 MemoryPool* pool) {
  int64_t n = static_cast<int64_t>(values.size());
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> buffer, Buffer::AllocateZeroed(n * 8, pool));
  std::copy(values.begin(), values.end(), reinterpret_cast<int64_t*>(buffer->mutable_data()));
  FLOE_ASSIGN_OR_RAISE(ArrayPtr array, Array::Make(schema->field(0).type(), n, {nullptr, buffer}));
  return RecordBatch::Make(schema, n, {std::move(array)});
}

class IntSeriesStream final : public exec::BatchStream {
 public:
  IntSeriesStream(SchemaPtr schema, int64_t first, int64_t count, int64_t step, int64_t batch_size,
                  MemoryPool* pool)
      : schema_(std::move(schema)),
        next_(first),
        remaining_(count),
        step_(step),
        batch_size_(std::max<int64_t>(batch_size, 1)),
        pool_(pool) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (remaining_ <= 0) return RecordBatchPtr();
    int64_t n = std::min(remaining_, batch_size_);
    const TypePtr& type = schema_->field(0).type();
    const bool narrow = type->id() == TypeId::kInt32;
    FLOE_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> buffer,
                         Buffer::AllocateZeroed(n * (narrow ? 4 : 8), pool_));
    // Wrapping arithmetic: the last value is within range, intermediate steps past it are
    // never produced.
    uint64_t value = static_cast<uint64_t>(next_);
    for (int64_t i = 0; i < n; ++i) {
      if (narrow) {
        reinterpret_cast<int32_t*>(buffer->mutable_data())[i] =
            static_cast<int32_t>(static_cast<int64_t>(value));
      } else {
        reinterpret_cast<int64_t*>(buffer->mutable_data())[i] = static_cast<int64_t>(value);
      }
      value += static_cast<uint64_t>(step_);
    }
    next_ = static_cast<int64_t>(value);
    remaining_ -= n;
    FLOE_ASSIGN_OR_RAISE(ArrayPtr array, Array::Make(type, n, {nullptr, buffer}));
    return RecordBatch::Make(schema_, n, {std::move(array)});
  }

 private:
  SchemaPtr schema_;
  int64_t next_;
  int64_t remaining_;
  int64_t step_;
  int64_t batch_size_;
  MemoryPool* pool_;
};

class TimestampSeriesStream final : public exec::BatchStream {
 public:
  TimestampSeriesStream(SchemaPtr schema, int64_t start, int64_t stop, IntervalStep step,
                        int64_t batch_size, MemoryPool* pool)
      : schema_(std::move(schema)),
        next_(start),
        stop_(stop),
        step_(step),
        sign_(IntervalSign(step)),
        batch_size_(std::max<int64_t>(batch_size, 1)),
        pool_(pool) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    std::vector<int64_t> values;
    while (!done_ && static_cast<int64_t>(values.size()) < batch_size_) {
      if (sign_ > 0 ? next_ > stop_ : next_ < stop_) {
        done_ = true;
        break;
      }
      values.push_back(next_);
      // PostgreSQL's timestamp + interval, and its error past the timestamp range.
      int64_t after = 0;
      if (!AddInterval(next_, kMicrosPerDay, step_.months, step_.days, step_.micros, &after)) {
        return Status::Invalid("timestamp out of range");
      }
      // A step that does not move (a month added to a clamped day cannot shrink, but a
      // mixed-sign interval can) would loop forever.
      if (sign_ > 0 ? after <= next_ : after >= next_) done_ = true;
      next_ = after;
    }
    if (values.empty()) return RecordBatchPtr();
    return MakeBatch(schema_, values, pool_);
  }

 private:
  SchemaPtr schema_;
  int64_t next_;
  int64_t stop_;
  IntervalStep step_;
  int sign_;
  int64_t batch_size_;
  MemoryPool* pool_;
  bool done_ = false;
};

std::string FormatTimestamp(const TypePtr& type, int64_t micros) {
  return FormatScalar(Scalar::Make(type, micros));
}

std::string IntervalText(const IntervalStep& step) {
  std::string out;
  if (step.months != 0) out += fmt::format("{} mons", step.months);
  if (step.days != 0) out += fmt::format("{}{} days", out.empty() ? "" : " ", step.days);
  if (step.micros != 0 || out.empty()) {
    out += fmt::format("{}{} us", out.empty() ? "" : " ", step.micros);
  }
  return out;
}

}  // namespace

namespace {
IntervalStep IntervalStepOf(const IntervalValue& v) {
  return IntervalStep{v.months, v.days, v.micros};
}
}  // namespace

Result<IntervalStep> ParseIntervalStep(std::string_view text) {
  FLOE_ASSIGN_OR_RAISE(IntervalValue v, ParseIntervalText(text));
  return IntervalStepOf(v);
}

int64_t GenerateSeriesExec::Count(int64_t start, int64_t stop, int64_t step) {
  if (step == 0) return 0;
  __int128 span = static_cast<__int128>(stop) - start;
  if ((step > 0 && span < 0) || (step < 0 && span > 0)) return 0;
  __int128 count = span / step + 1;
  return count > INT64_MAX ? INT64_MAX : static_cast<int64_t>(count);
}

Result<exec::PlanPtr> GenerateSeriesExec::Make(int64_t start, int64_t stop, int64_t step,
                                               int partitions, TypePtr type) {
  if (step == 0) return Status::Invalid("generate_series: step size cannot equal zero");
  if (partitions < 1) return Status::Internal("GenerateSeriesExec: {} partitions", partitions);
  if (type == nullptr || (type->id() != TypeId::kInt32 && type->id() != TypeId::kInt64)) {
    return Status::Internal("GenerateSeriesExec: integers must be int32 or int64");
  }
  if (type->id() == TypeId::kInt32 &&
      (start < INT32_MIN || start > INT32_MAX || stop < INT32_MIN || stop > INT32_MAX)) {
    return Status::Internal("GenerateSeriesExec: an int32 series from {} to {}", start, stop);
  }
  auto node = std::shared_ptr<GenerateSeriesExec>(new GenerateSeriesExec());
  node->start_ = start;
  node->stop_ = stop;
  node->step_ = step;
  node->properties_.schema = SeriesSchema(type);
  node->properties_.partitioning =
      partitions == 1 ? exec::Partitioning::Single() : exec::Partitioning::Unknown(partitions);
  Result<expr::PhysicalExprPtr> column =
      expr::Compile(expr::Column(0, kColumnName, type, false), node->properties_.schema);
  if (column.ok()) {
    node->properties_.ordering.push_back(exec::PhysicalSortExpr{*column, step < 0, step < 0});
  }
  return exec::PlanPtr(std::move(node));
}

Result<exec::PlanPtr> GenerateSeriesExec::MakeTimestamps(TypePtr type, int64_t start, int64_t stop,
                                                         IntervalStep step) {
  if (!type || (type->id() != TypeId::kTimestamp && type->id() != TypeId::kTimestampTz)) {
    return Status::Internal("GenerateSeriesExec: timestamps must be timestamp or timestamptz");
  }
  if (IntervalSign(step) == 0) {
    return Status::Invalid("generate_series: step size cannot equal zero");
  }
  auto node = std::shared_ptr<GenerateSeriesExec>(new GenerateSeriesExec());
  node->start_ = start;
  node->stop_ = stop;
  node->timestamp_ = true;
  node->interval_ = step;
  node->properties_.schema = SeriesSchema(type);
  node->properties_.partitioning = exec::Partitioning::Single();
  return exec::PlanPtr(std::move(node));
}

Result<exec::PlanPtr> GenerateSeriesExec::WithNewChildren(
    std::vector<exec::PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("GenerateSeriesExec takes no children");
  if (timestamp_) return MakeTimestamps(schema()->field(0).type(), start_, stop_, interval_);
  return Make(start_, stop_, step_, partition_count(), schema()->field(0).type());
}

Result<exec::BatchStreamPtr> GenerateSeriesExec::Execute(int partition,
                                                         const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= partition_count()) {
    return Status::Internal("GenerateSeriesExec: no partition {}", partition);
  }
  int64_t batch_size = ctx->config().batch_size();
  if (timestamp_) {
    return exec::BatchStreamPtr(std::make_unique<TimestampSeriesStream>(
        schema(), start_, stop_, interval_, batch_size, ctx->pool()));
  }
  int64_t count = Count(start_, stop_, step_);
  int n = partition_count();
  int64_t begin = static_cast<int64_t>(static_cast<__int128>(count) * partition / n);
  int64_t end = static_cast<int64_t>(static_cast<__int128>(count) * (partition + 1) / n);
  int64_t first = static_cast<int64_t>(static_cast<uint64_t>(start_) +
                                       static_cast<uint64_t>(begin) * static_cast<uint64_t>(step_));
  return exec::BatchStreamPtr(std::make_unique<IntSeriesStream>(schema(), first, end - begin, step_,
                                                                batch_size, ctx->pool()));
}

std::string GenerateSeriesExec::ToString() const {
  if (timestamp_) {
    const TypePtr& type = schema()->field(0).type();
    return fmt::format("GenerateSeriesExec: start={} stop={} step={}",
                       FormatTimestamp(type, start_), FormatTimestamp(type, stop_),
                       IntervalText(interval_));
  }
  return fmt::format("GenerateSeriesExec: start={} stop={} step={}", start_, stop_, step_);
}

Result<std::shared_ptr<const GenerateSeriesTable>> GenerateSeriesTable::Make(int64_t start,
                                                                             int64_t stop,
                                                                             int64_t step,
                                                                             TypePtr type) {
  if (step == 0) return Status::Invalid("generate_series: step size cannot equal zero");
  auto table = std::shared_ptr<GenerateSeriesTable>(new GenerateSeriesTable());
  table->schema_ = SeriesSchema(std::move(type));
  table->start_ = start;
  table->stop_ = stop;
  table->step_ = step;
  return std::shared_ptr<const GenerateSeriesTable>(std::move(table));
}

Result<std::shared_ptr<const GenerateSeriesTable>> GenerateSeriesTable::MakeTimestamps(
    TypePtr type, int64_t start, int64_t stop, IntervalStep step) {
  if (!type || (type->id() != TypeId::kTimestamp && type->id() != TypeId::kTimestampTz)) {
    return Status::Invalid("generate_series: a timestamp series needs timestamp arguments");
  }
  if (IntervalSign(step) == 0) {
    return Status::Invalid("generate_series: step size cannot equal zero");
  }
  auto table = std::shared_ptr<GenerateSeriesTable>(new GenerateSeriesTable());
  table->schema_ = SeriesSchema(std::move(type));
  table->timestamp_ = true;
  table->start_ = start;
  table->stop_ = stop;
  table->interval_ = step;
  return std::shared_ptr<const GenerateSeriesTable>(std::move(table));
}

std::shared_ptr<const GenerateSeriesTable> GenerateSeriesTable::MakeEmpty(TypePtr type) {
  auto table = std::shared_ptr<GenerateSeriesTable>(new GenerateSeriesTable());
  table->schema_ = SeriesSchema(std::move(type));
  table->empty_ = true;
  return table;
}

std::string GenerateSeriesTable::display_name() const {
  if (empty_) return "generate_series(NULL)";
  if (timestamp_) {
    const TypePtr& type = schema_->field(0).type();
    return fmt::format("generate_series({}, {}, '{}')", FormatTimestamp(type, start_),
                       FormatTimestamp(type, stop_), IntervalText(interval_));
  }
  return fmt::format("generate_series({}, {}, {})", start_, stop_, step_);
}

plan::Statistics GenerateSeriesTable::statistics() const {
  plan::Statistics statistics;
  if (empty_) {
    statistics.row_count = 0;
    statistics.exact = true;
    statistics.total_bytes = 0;
    return statistics;
  }
  if (timestamp_) return statistics;
  int64_t count = GenerateSeriesExec::Count(start_, stop_, step_);
  statistics.row_count = count;
  statistics.exact = true;
  // A series of more than 2^60 rows has more bytes than int64 counts: as many as it can.
  int64_t bytes = 0;
  const int64_t width = schema_->field(0).type()->id() == TypeId::kInt32 ? 4 : 8;
  statistics.total_bytes =
      __builtin_mul_overflow(count, width, &bytes) ? std::numeric_limits<int64_t>::max() : bytes;
  plan::ColumnStatistics column;
  column.null_count = 0;
  column.distinct_count = count;
  if (count > 0) {
    int64_t last =
        static_cast<int64_t>(static_cast<uint64_t>(start_) +
                             static_cast<uint64_t>(count - 1) * static_cast<uint64_t>(step_));
    const bool narrow = schema_->field(0).type()->id() == TypeId::kInt32;
    auto scalar = [&](int64_t v) {
      return narrow ? Scalar::I32(static_cast<int32_t>(v)) : Scalar::I64(v);
    };
    column.min = scalar(std::min(start_, last));
    column.max = scalar(std::max(start_, last));
  }
  statistics.columns.push_back(std::move(column));
  return statistics;
}

Result<exec::PlanPtr> GenerateSeriesTable::Scan(const exec::ScanRequest& request,
                                                const exec::SessionConfig& config) const {
  for (int c : request.projection) {
    if (c != 0) return Status::Internal("generate_series has one column, not column {}", c);
  }
  exec::PlanPtr scan;
  const TypePtr& type = schema_->field(0).type();
  if (empty_ && !timestamp_ && type->id() != TypeId::kInt32 && type->id() != TypeId::kInt64) {
    FLOE_ASSIGN_OR_RAISE(scan,
                         GenerateSeriesExec::MakeTimestamps(type, 1, 0, IntervalStep{0, 1, 0}));
  } else if (empty_) {
    FLOE_ASSIGN_OR_RAISE(scan, GenerateSeriesExec::Make(1, 0, 1, 1, type));
  } else if (timestamp_) {
    FLOE_ASSIGN_OR_RAISE(scan, GenerateSeriesExec::MakeTimestamps(schema_->field(0).type(), start_,
                                                                  stop_, interval_));
  } else {
    int64_t count = GenerateSeriesExec::Count(start_, stop_, step_);
    int64_t stop = stop_;
    if (request.limit && *request.limit < count) {
      count = *request.limit;
      stop = static_cast<int64_t>(static_cast<uint64_t>(start_) +
                                  static_cast<uint64_t>(count - 1) * static_cast<uint64_t>(step_));
      if (count == 0) stop = step_ > 0 ? start_ - 1 : start_ + 1;
    }
    int64_t batch_size = std::max<int64_t>(config.batch_size(), 1);
    // Rounded up without count + batch_size overflowing (count may be near 2^63).
    int64_t wanted = count / batch_size + (count % batch_size != 0 ? 1 : 0);
    int partitions =
        static_cast<int>(std::clamp<int64_t>(wanted, 1, std::max(1, config.target_partitions())));
    if (count == 0) {
      FLOE_ASSIGN_OR_RAISE(scan, GenerateSeriesExec::Make(1, 0, 1, 1, type));
    } else {
      FLOE_ASSIGN_OR_RAISE(scan, GenerateSeriesExec::Make(start_, stop, step_, partitions, type));
    }
  }
  if (request.projection.size() == 1) return scan;
  // No columns (count(*)) or the column twice.
  std::vector<expr::PhysicalExprPtr> exprs;
  std::vector<std::string> names;
  for (size_t i = 0; i < request.projection.size(); ++i) {
    FLOE_ASSIGN_OR_RAISE(
        expr::PhysicalExprPtr column,
        expr::Compile(expr::Column(0, kColumnName, schema_->field(0).type(), false),
                      scan->schema()));
    exprs.push_back(std::move(column));
    names.emplace_back(kColumnName);
  }
  return exec::ProjectionExec::Make(std::move(exprs), std::move(names), std::move(scan));
}

Result<plan::TableSourcePtr> MakeGenerateSeries(const std::vector<plan::TableFunctionArg>& args) {
  if (args.size() < 2 || args.size() > 3) {
    return Status::Invalid("generate_series takes 2 or 3 arguments (start, stop[, step]), got {}",
                           args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].name.empty()) {
      return Status::Invalid("generate_series has no argument named \"{}\"", args[i].name);
    }
  }
  auto type_id = [&](size_t i) {
    return args[i].value.type() ? args[i].value.type()->id() : TypeId::kInt64;
  };
  auto is_integer = [&](size_t i) {
    TypeId id = type_id(i);
    return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
           id == TypeId::kInt64;
  };
  auto is_time = [&](size_t i) {
    TypeId id = type_id(i);
    return id == TypeId::kTimestamp || id == TypeId::kTimestampTz || id == TypeId::kDate;
  };
  bool timestamps = is_time(0) || is_time(1);
  static const char* kNames[] = {"start", "stop", "step"};
  for (size_t i = 0; i < 2; ++i) {
    if (timestamps ? !is_time(i) : !is_integer(i)) {
      return Status::Invalid("generate_series: argument {} ({}) must be {}, got {}", i + 1,
                             kNames[i], timestamps ? "a timestamp" : "an integer",
                             args[i].value.type() ? args[i].value.type()->ToString() : "unknown");
    }
  }
  if (args.size() == 3 && !args[2].value.is_null()) {
    bool ok = timestamps ? type_id(2) == TypeId::kString || args[2].value.type()->is_interval()
                         : is_integer(2);
    if (!ok) {
      return Status::Invalid("generate_series: argument 3 (step) must be {}, got {}",
                             timestamps ? "an interval" : "an integer",
                             args[2].value.type() ? args[2].value.type()->ToString() : "unknown");
    }
  }
  if (timestamps && args.size() == 2) {
    return Status::Invalid(
        "generate_series: a timestamp series needs a step interval (argument 3)");
  }
  // PostgreSQL's generate_series(int, int [, int]) is a series of integers, its bigint form
  // one of bigints.
  bool narrow = true;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].value.is_null() && type_id(i) == TypeId::kInt64) narrow = false;
  }
  TypePtr out_type = narrow ? Int32() : Int64();
  if (timestamps) {
    out_type = type_id(0) == TypeId::kTimestampTz || type_id(1) == TypeId::kTimestampTz
                   ? TimestampTz()
                   : Timestamp();
  }
  for (const plan::TableFunctionArg& arg : args) {
    if (arg.value.is_null()) return plan::TableSourcePtr(GenerateSeriesTable::MakeEmpty(out_type));
  }
  auto integer = [&](size_t i) -> int64_t {
    const Scalar& s = args[i].value;
    if (const int64_t* v = std::get_if<int64_t>(&s.value())) return *v;
    return std::get<int32_t>(s.value());
  };
  auto micros = [&](size_t i) -> Result<int64_t> {
    const Scalar& s = args[i].value;
    if (s.type()->id() != TypeId::kDate) return std::get<int64_t>(s.value());
    int64_t v = 0;
    if (__builtin_mul_overflow(int64_t{std::get<int32_t>(s.value())}, kMicrosPerDay, &v)) {
      return Status::Invalid("generate_series: argument {}: timestamp out of range", i + 1);
    }
    return v;
  };
  if (!timestamps) {
    int64_t step = args.size() == 3 ? integer(2) : 1;
    FLOE_ASSIGN_OR_RAISE(auto table,
                         GenerateSeriesTable::Make(integer(0), integer(1), step, out_type));
    return plan::TableSourcePtr(std::move(table));
  }
  Result<IntervalStep> step = args[2].value.type()->is_interval()
                                  ? Result<IntervalStep>(IntervalStepOf(
                                        IntervalFromBytes(args[2].value.get<std::string>())))
                                  : ParseIntervalStep(args[2].value.get<std::string>());
  if (!step.ok()) return step.status().WithPrefix("generate_series: argument 3 (step): ");
  FLOE_ASSIGN_OR_RAISE(const int64_t start, micros(0));
  FLOE_ASSIGN_OR_RAISE(const int64_t stop, micros(1));
  FLOE_ASSIGN_OR_RAISE(auto table,
                       GenerateSeriesTable::MakeTimestamps(out_type, start, stop, *step));
  return plan::TableSourcePtr(std::move(table));
}

// ---------------------------------------------------------------------------------------
// Codec (exec/plan_codec.h)

Status GenerateSeriesExec::Encode(codec::PlanEncoder& out) const {
  codec::proto::GenerateSeriesNode m;
  m.set_start(start_);
  m.set_stop(stop_);
  if (timestamp_) {
    codec::EncodeType(*properties_.schema->field(0).type(), m.mutable_timestamp_type());
    m.set_interval_months(interval_.months);
    m.set_interval_days(interval_.days);
    m.set_interval_micros(interval_.micros);
  } else {
    m.set_step(step_);
    m.set_partitions(properties_.partitioning.partition_count());
    m.set_int32_values(properties_.schema->field(0).type()->id() == TypeId::kInt32);
  }
  return out.SetPayload(m);
}

Result<exec::PlanPtr> GenerateSeriesExec::Decode(codec::PlanDecoder& in,
                                                 std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  codec::proto::GenerateSeriesNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  if (m.has_timestamp_type()) {
    FLOE_ASSIGN_OR_RAISE(TypePtr type, exec::DecodeNodeType(in, m.timestamp_type()));
    if (type->id() != TypeId::kTimestamp && type->id() != TypeId::kTimestampTz) {
      return in.Corrupt(fmt::format("a series of {}", type->ToString()));
    }
    return MakeTimestamps(
        std::move(type), m.start(), m.stop(),
        IntervalStep{m.interval_months(), m.interval_days(), m.interval_micros()});
  }
  return Make(m.start(), m.stop(), m.step(), m.partitions(), m.int32_values() ? Int32() : Int64());
}

void RegisterGenerateSeriesPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<GenerateSeriesExec>(registry);
}

}  // namespace floe::connector
