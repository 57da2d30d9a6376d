#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/exec/execution_plan.h"
#include "floe/exec/table_provider.h"
#include "floe/plan/binder.h"

namespace floe::exec {
class PlanCodecRegistry;
}  // namespace floe::exec

namespace floe::connector {

/// An interval step of a timestamp series, PostgreSQL's three fields.
struct IntervalStep {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
};

/// Parses PostgreSQL interval text (common/interval.h ParseIntervalText).
Result<IntervalStep> ParseIntervalStep(std::string_view text);

/// The values of one generate_series call, split into `partitions` partitions of about
/// equal size, each produced in order. One column "generate_series" (not null): integers
/// (int32 or int64, as the arguments were: PostgreSQL's generate_series(int, int) is an
/// integer series) start, start + step, ... while <= stop (>= stop for a negative step); or
/// timestamps
/// start, start + interval, ... (each value the previous plus the interval, as
/// PostgreSQL computes it; one partition).
class GenerateSeriesExec final : public exec::ExecutionPlan {
 public:
  static constexpr std::string_view kName = "GenerateSeriesExec";
  /// kInvalidArgument "step size cannot equal zero"; kInternal when partitions < 1 or `type`
  /// is neither int32 nor int64 (int32 values must fit it: start and stop do).
  static Result<exec::PlanPtr> Make(int64_t start, int64_t stop, int64_t step, int partitions,
                                    TypePtr type = Int64());
  /// A timestamp series (`type` timestamp or timestamptz, values in microseconds).
  static Result<exec::PlanPtr> MakeTimestamps(TypePtr type, int64_t start, int64_t stop,
                                              IntervalStep step);

  std::string_view name() const override { return kName; }
  Status Encode(codec::PlanEncoder& out) const override;
  static Result<exec::PlanPtr> Decode(codec::PlanDecoder& in, std::vector<exec::PlanPtr> children);
  const exec::PlanProperties& properties() const override { return properties_; }
  std::vector<exec::PlanPtr> children() const override { return {}; }
  Result<exec::PlanPtr> WithNewChildren(std::vector<exec::PlanPtr> children) const override;
  Result<exec::BatchStreamPtr> Execute(int partition,
                                       const exec::TaskContextPtr& ctx) const override;
  std::string ToString() const override;

  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  /// The int64 step (0 for a timestamp series).
  int64_t step() const { return step_; }
  bool is_timestamp() const { return timestamp_; }
  const IntervalStep& interval() const { return interval_; }
  /// The number of values of an int64 series.
  static int64_t Count(int64_t start, int64_t stop, int64_t step);

 private:
  GenerateSeriesExec() = default;

  int64_t start_ = 0;
  int64_t stop_ = 0;
  int64_t step_ = 0;
  bool timestamp_ = false;
  IntervalStep interval_;
  exec::PlanProperties properties_;
};

/// generate_series(start, stop[, step]) as a table: of int32 or int64 (step default 1) or of
/// timestamps (the step an interval, given as text).
class GenerateSeriesTable final : public exec::TableProvider {
 public:
  /// An integer series of `type` (int32 or int64); kInvalidArgument for a zero step.
  static Result<std::shared_ptr<const GenerateSeriesTable>> Make(int64_t start, int64_t stop,
                                                                 int64_t step,
                                                                 TypePtr type = Int64());
  /// A timestamp series; `type` timestamp or timestamptz. kInvalidArgument for a zero step.
  static Result<std::shared_ptr<const GenerateSeriesTable>> MakeTimestamps(TypePtr type,
                                                                           int64_t start,
                                                                           int64_t stop,
                                                                           IntervalStep step);
  /// A series with no values (a NULL argument).
  static std::shared_ptr<const GenerateSeriesTable> MakeEmpty(TypePtr type);

  std::string_view kind() const override { return "generate_series"; }
  std::string display_name() const override;
  const SchemaPtr& schema() const override { return schema_; }
  plan::Statistics statistics() const override;
  /// Partitions: enough for batch_size rows each, at most target_partitions.
  Result<exec::PlanPtr> Scan(const exec::ScanRequest& request,
                             const exec::SessionConfig& config) const override;

 private:
  GenerateSeriesTable() = default;

  SchemaPtr schema_;
  bool empty_ = false;
  bool timestamp_ = false;
  int64_t start_ = 0;
  int64_t stop_ = 0;
  int64_t step_ = 1;
  IntervalStep interval_;
};

/// generate_series(start, stop[, step]) from evaluated arguments: integers (any width),
/// or timestamps/timestamptz/dates with an interval step as text ('1 day'). A NULL
/// argument gives no rows, as in PostgreSQL. kInvalidArgument naming a bad argument.
Result<plan::TableSourcePtr> MakeGenerateSeries(const std::vector<plan::TableFunctionArg>& args);

/// Registers the codec of GenerateSeriesExec.
void RegisterGenerateSeriesPlanCodecs(exec::PlanCodecRegistry* registry);

}  // namespace floe::connector
