#pragma once

#include <map>
#include <memory>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

/// Decides from a manifest list entry's partition summaries whether the manifest may hold
/// rows matching a filter. Built from the filter's inclusive projection for the
/// manifest's spec (ProjectInclusive), bound to `partition_type`.
class ManifestEvaluator {
 public:
  static Result<std::unique_ptr<ManifestEvaluator>> Make(ExpressionPtr inclusive,
                                                         TypePtr partition_type);

  /// False only when no partition summarized by `manifest` can match. A manifest without
  /// summaries may match. Errors: kCorrupt for undecodable bounds or a summary list
  /// shorter than the partition type, naming the manifest.
  Result<bool> MayMatch(const ManifestFile& manifest) const;

 private:
  ManifestEvaluator(ExpressionPtr expr, TypePtr partition_type)
      : expr_(std::move(expr)), partition_type_(std::move(partition_type)) {}

  ExpressionPtr expr_;
  TypePtr partition_type_;
};

/// Evaluates a partition-bound expression (terms carry tuple positions, as the
/// projections make them) exactly on one partition tuple. A predicate on a NULL value is
/// false except IS NULL / NOT NAN; NOT follows three-valued logic; an unknown result
/// is false. kInvalidArgument when a position is outside the tuple.
Result<bool> EvaluatePartition(const Expression& partition_expr, const PartitionValues& partition);

/// May a data file contain rows matching `bound` (bound to `schema`), judged from its
/// column metrics (spec, "Scan Planning")? Missing metrics, fields nested in lists or
/// maps, and transform terms always may match. Bounds are decoded with the field's
/// type; string upper bounds may be truncated. Errors: kCorrupt for an undecodable bound,
/// naming the file and field.
class InclusiveMetricsEvaluator {
 public:
  InclusiveMetricsEvaluator(ExpressionPtr bound, SchemaPtr schema);
  Result<bool> MayMatch(const DataFile& file) const;

 private:
  ExpressionPtr expr_;
  SchemaPtr schema_;
};

/// Do all rows of a data file match `bound`, judged from its column metrics? True only
/// when the metrics prove it (used to drop a residual filter).
class StrictMetricsEvaluator {
 public:
  StrictMetricsEvaluator(ExpressionPtr bound, SchemaPtr schema);
  Result<bool> AllMatch(const DataFile& file) const;

 private:
  ExpressionPtr expr_;
  SchemaPtr schema_;
};

/// InclusiveMetricsEvaluator / StrictMetricsEvaluator on one file without keeping the
/// evaluator (the schema is only borrowed for the call).
Result<bool> InclusiveMetricsMayMatch(const Expression& bound, const Schema& schema,
                                      const DataFile& file);
Result<bool> StrictMetricsAllMatch(const Expression& bound, const Schema& schema,
                                   const DataFile& file);

/// The residual of a filter for the files of one partition: each predicate that the
/// partition tuple decides is replaced by TRUE (its strict projection holds) or FALSE
/// (its inclusive projection fails); the rest are kept, and the result is simplified.
class ResidualEvaluator {
 public:
  static Result<std::unique_ptr<ResidualEvaluator>> Make(ExpressionPtr bound, PartitionSpecPtr spec,
                                                         SchemaPtr schema);
  /// The residual for `partition` (a tuple of the spec), bound to the table schema.
  Result<ExpressionPtr> ResidualFor(const PartitionValues& partition) const;

 private:
  struct Projections {
    ExpressionPtr strict;
    ExpressionPtr inclusive;
  };
  ResidualEvaluator() = default;
  Result<ExpressionPtr> Residual(const ExpressionPtr& expr, const PartitionValues& partition) const;

  ExpressionPtr expr_;
  std::map<const Expression*, Projections> projections_;
};

/// Evaluates a bound expression on every row of `batch`: a boolean array with SQL
/// three-valued logic (a comparison with NULL is NULL; AND/OR/NOT as in SQL; IS NULL and
/// IS NAN are never NULL). Columns are found by field id at any struct depth (a row whose
/// enclosing struct is NULL reads the field as NULL); transform terms apply the
/// transform to the column. kNotFound when a field id is not in the batch.
Result<ArrayPtr> EvaluateRows(const Expression& bound, const RecordBatch& batch);

}  // namespace floe::iceberg
