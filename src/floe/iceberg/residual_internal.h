#pragma once

// Private glue between the task reader and Iceberg expressions: which columns a residual
// needs, which parts of it can prune Parquet row groups and pages, and evaluating it on
// a batch.

#include <cstdint>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/scan_task.h"

namespace floe::iceberg::internal {

/// True for a null residual or one that is always true.
bool IsTrivialResidual(const ExpressionPtr& residual);

/// Parquet column predicates implied by the residual's top-level conjuncts that compare a
/// top-level primitive column (by field id among `file_fields`) with literals (=, <, <=, >,
/// >=, IS NULL, IS NOT NULL, IN). They only prune; rows are still filtered by the residual.
std::vector<parquet::ColumnPredicate> ResidualToParquetPredicates(
    const Expression& residual, const std::vector<Field>& file_fields);

/// Clears keep[i] for each row of `batch` on which the residual is not true (false or
/// NULL). Columns are found by field id.
Status ApplyResidual(const Expression& residual, const RecordBatch& batch,
                     std::vector<uint8_t>& keep);

}  // namespace floe::iceberg::internal
