#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// Partition field ids start here (spec: "partition field IDs ... start at 1000").
inline constexpr int32_t kPartitionFieldIdStart = 1000;

struct PartitionField {
  int32_t source_id = 0;
  /// The partition field's own id (>= 1000 in v2; assigned from 1000 for v1 specs).
  int32_t field_id = 0;
  std::string name;
  Transform transform = Transform::Identity();

  bool operator==(const PartitionField& other) const = default;
};

/// A partition spec: how a table's rows map to partition tuples.
class PartitionSpec {
 public:
  /// Validates the fields against `schema`: sources exist and are primitive, each
  /// transform can apply to its source type, names and field ids are unique. A source
  /// missing from the schema is allowed only when `allow_missing_sources` (a spec of an
  /// older schema whose source column was since dropped; such a field reads as void).
  static Result<std::shared_ptr<const PartitionSpec>> Make(const Schema& schema, int32_t spec_id,
                                                           std::vector<PartitionField> fields,
                                                           bool allow_missing_sources = false);
  /// The unpartitioned spec (id 0, no fields).
  static std::shared_ptr<const PartitionSpec> Unpartitioned();

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  bool is_unpartitioned() const;
  /// The largest partition field id, or kPartitionFieldIdStart - 1 with no fields.
  int32_t last_assigned_field_id() const;

  /// The partition tuple's struct type for `schema`: one optional field per partition
  /// field, named and numbered as the partition field, typed as the transform's result.
  Result<TypePtr> PartitionType(const Schema& schema) const;

  /// "[\n  1000: ts_day: day(2)\n]" — the spec's text form.
  std::string ToString() const;
  bool Equals(const PartitionSpec& other) const {
    return spec_id_ == other.spec_id_ && fields_ == other.fields_;
  }
  /// Same fields ignoring the spec id (used to find an existing spec on evolution).
  bool CompatibleWith(const PartitionSpec& other) const { return fields_ == other.fields_; }

 private:
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}

  int32_t spec_id_;
  std::vector<PartitionField> fields_;
};

using PartitionSpecPtr = std::shared_ptr<const PartitionSpec>;

enum class SortDirection : uint8_t { kAsc, kDesc };
enum class NullOrder : uint8_t { kNullsFirst, kNullsLast };

struct SortField {
  int32_t source_id = 0;
  Transform transform = Transform::Identity();
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  bool operator==(const SortField& other) const = default;
};

/// A sort order (spec, "Sort Orders"); order id 0 is reserved for the unsorted order.
class SortOrder {
 public:
  static Result<std::shared_ptr<const SortOrder>> Make(const Schema& schema, int32_t order_id,
                                                       std::vector<SortField> fields);
  static std::shared_ptr<const SortOrder> Unsorted();

  int32_t order_id() const { return order_id_; }
  const std::vector<SortField>& fields() const { return fields_; }
  bool is_unsorted() const { return fields_.empty(); }
  /// True when data sorted by this order is also sorted by `other` (other's fields are a
  /// prefix of ours, field by field satisfied).
  bool Satisfies(const SortOrder& other) const;
  std::string ToString() const;
  bool Equals(const SortOrder& other) const {
    return order_id_ == other.order_id_ && fields_ == other.fields_;
  }

 private:
  SortOrder(int32_t order_id, std::vector<SortField> fields)
      : order_id_(order_id), fields_(std::move(fields)) {}

  int32_t order_id_;
  std::vector<SortField> fields_;
};

using SortOrderPtr = std::shared_ptr<const SortOrder>;

/// Which of the reference implementation's conventions names a partition field that is given
/// no name: a new table's spec builder (`col_bucket`, `col_trunc`), or a spec evolution
/// that adds the field (`col_bucket_16`, `col_trunc_4`, so that an added field never takes
/// the name of an older spec's field). The other transforms are named alike: `col`,
/// `col_year`, `col_month`, `col_day`, `col_hour`, `col_null` (void).
enum class PartitionNaming : uint8_t { kNewTable, kEvolution };

/// The name a partition field of `transform` over `column` gets by default.
std::string DefaultPartitionFieldName(const Transform& transform, std::string_view column,
                                      PartitionNaming naming);

}  // namespace floe::iceberg
