#pragma once

#include "floe/common/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

/// Inclusive projection (spec, "Scan Planning"): a predicate on the partition tuple that
/// is true for every partition that may hold a row matching `bound` (bound to `schema`).
/// Predicates with no usable partition field become TRUE. The result is bound to
/// `partition_type` (PartitionSpec::PartitionType(schema)): its terms carry partition
/// field ids and their positions in the tuple.
Result<ExpressionPtr> ProjectInclusive(const ExpressionPtr& bound, const PartitionSpec& spec,
                                       const Schema& schema, const TypePtr& partition_type);

/// Strict projection: a predicate on the partition tuple that is true only for
/// partitions whose rows all match `bound`. Predicates with no usable partition field
/// become FALSE.
Result<ExpressionPtr> ProjectStrict(const ExpressionPtr& bound, const PartitionSpec& spec,
                                    const Schema& schema, const TypePtr& partition_type);

/// The projection of one bound predicate through one partition field with `transform`
/// (inclusive or strict). `partition_term` is the bound term of the partition field in the
/// tuple (its type is the transform's result type). Returns nullptr when the transform
/// gives no constraint (the caller substitutes TRUE for inclusive, FALSE for strict).
Result<ExpressionPtr> ProjectPredicate(const Expression& predicate, const Transform& transform,
                                       const Term& partition_term, bool strict);

}  // namespace floe::iceberg
