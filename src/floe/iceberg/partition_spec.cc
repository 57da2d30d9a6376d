#include "floe/iceberg/partition_spec.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace floe::iceberg {

namespace {

const char* DirectionName(SortDirection d) { return d == SortDirection::kAsc ? "asc" : "desc"; }
const char* NullOrderName(NullOrder n) {
  return n == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
}

// Checks that `transform` can apply to the source field `source_id` of `schema`. A missing
// source is reported through `missing`.
Status CheckSource(const Schema& schema, int32_t source_id, const Transform& transform,
                   std::string_view what, bool* missing) {
  const Field* source = schema.FindFieldById(source_id);
  *missing = source == nullptr;
  if (source == nullptr) return Status::OK();
  if (source->type()->is_nested()) {
    return Status::Invalid("{}: source field {} ('{}') is a {}, not a primitive", what, source_id,
                           source->name(), source->type()->ToString());
  }
  // Unknown transforms are kept by name only; void applies to any type.
  if (transform.kind() == TransformKind::kUnknown || transform.kind() == TransformKind::kVoid) {
    return Status::OK();
  }
  if (!transform.CanTransform(*source->type())) {
    return Status::Invalid("{}: transform {} cannot apply to source field {} ('{}') of type {}",
                           what, transform.ToString(), source_id, source->name(),
                           source->type()->ToString());
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const PartitionSpec>> PartitionSpec::Make(const Schema& schema,
                                                                 int32_t spec_id,
                                                                 std::vector<PartitionField> fields,
                                                                 bool allow_missing_sources) {
  std::set<std::string> names;
  std::set<int32_t> ids;
  for (const auto& f : fields) {
    std::string what = fmt::format("partition field '{}' (id {})", f.name, f.field_id);
    if (f.name.empty()) {
      return Status::Invalid("partition field with id {} has an empty name", f.field_id);
    }
    if (!names.insert(f.name).second) {
      return Status::Invalid("partition spec {}: field name '{}' is used twice", spec_id, f.name);
    }
    if (!ids.insert(f.field_id).second) {
      return Status::Invalid("partition spec {}: field id {} is used twice", spec_id, f.field_id);
    }
    bool missing = false;
    FLOE_RETURN_NOT_OK(CheckSource(schema, f.source_id, f.transform, what, &missing));
    if (missing && !allow_missing_sources) {
      return Status::Invalid("{}: source field {} is not in schema {}", what, f.source_id,
                             schema.schema_id());
    }
  }
  return std::shared_ptr<const PartitionSpec>(new PartitionSpec(spec_id, std::move(fields)));
}

std::shared_ptr<const PartitionSpec> PartitionSpec::Unpartitioned() {
  static const std::shared_ptr<const PartitionSpec> kUnpartitioned(
      new PartitionSpec(0, std::vector<PartitionField>{}));
  return kUnpartitioned;
}

bool PartitionSpec::is_unpartitioned() const {
  return std::all_of(fields_.begin(), fields_.end(), [](const PartitionField& f) {
    return f.transform.kind() == TransformKind::kVoid;
  });
}

int32_t PartitionSpec::last_assigned_field_id() const {
  int32_t last = kPartitionFieldIdStart - 1;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<Field> out;
  out.reserve(fields_.size());
  for (const auto& f : fields_) {
    const Field* source = schema.FindFieldById(f.source_id);
    if (source == nullptr) {
      return Status::Invalid("partition field '{}' of spec {}: source field {} is not in schema {}",
                             f.name, spec_id_, f.source_id, schema.schema_id());
    }
    TypePtr type;
    if (f.transform.kind() == TransformKind::kVoid) {
      type = source->type();
    } else {
      auto result = f.transform.ResultType(source->type());
      if (!result.ok()) {
        return Status::Invalid("partition field '{}' of spec {}: {}", f.name, spec_id_,
                               result.error().message());
      }
      type = *result;
    }
    out.emplace_back(f.name, std::move(type), /*nullable=*/true, f.field_id);
  }
  return Struct(std::move(out));
}

std::string PartitionSpec::ToString() const {
  if (fields_.empty()) return "[]";
  std::string out = "[\n";
  for (const auto& f : fields_) {
    fmt::format_to(std::back_inserter(out), "  {}: {}: {}({})\n", f.field_id, f.name,
                   f.transform.ToString(), f.source_id);
  }
  out += "]";
  return out;
}

Result<std::shared_ptr<const SortOrder>> SortOrder::Make(const Schema& schema, int32_t order_id,
                                                         std::vector<SortField> fields) {
  if (order_id == 0 && !fields.empty()) {
    return Status::Invalid("sort order id 0 is reserved for the unsorted order");
  }
  if (order_id != 0 && fields.empty()) {
    return Status::Invalid("sort order {} has no fields; only order 0 may be unsorted", order_id);
  }
  for (const auto& f : fields) {
    std::string what =
        fmt::format("sort order {}: field {}({})", order_id, f.transform.ToString(), f.source_id);
    bool missing = false;
    FLOE_RETURN_NOT_OK(CheckSource(schema, f.source_id, f.transform, what, &missing));
    if (missing) {
      return Status::Invalid("{}: source field {} is not in schema {}", what, f.source_id,
                             schema.schema_id());
    }
  }
  return std::shared_ptr<const SortOrder>(new SortOrder(order_id, std::move(fields)));
}

std::shared_ptr<const SortOrder> SortOrder::Unsorted() {
  static const std::shared_ptr<const SortOrder> kUnsorted(
      new SortOrder(0, std::vector<SortField>{}));
  return kUnsorted;
}

bool SortOrder::Satisfies(const SortOrder& other) const {
  if (other.fields_.size() > fields_.size()) return false;
  for (size_t i = 0; i < other.fields_.size(); ++i) {
    const SortField& mine = fields_[i];
    const SortField& theirs = other.fields_[i];
    if (mine.source_id != theirs.source_id || mine.direction != theirs.direction ||
        mine.null_order != theirs.null_order) {
      return false;
    }
    if (mine.transform != theirs.transform && !mine.transform.SatisfiesOrderOf(theirs.transform)) {
      return false;
    }
  }
  return true;
}

std::string SortOrder::ToString() const {
  if (fields_.empty()) return "[]";
  std::string out = "[\n";
  for (const auto& f : fields_) {
    fmt::format_to(std::back_inserter(out), "  {}({}) {} {}\n", f.transform.ToString(), f.source_id,
                   DirectionName(f.direction), NullOrderName(f.null_order));
  }
  out += "]";
  return out;
}

std::string DefaultPartitionFieldName(const Transform& transform, std::string_view column,
                                      PartitionNaming naming) {
  const std::string source(column);
  const std::string param =
      naming == PartitionNaming::kEvolution ? "_" + std::to_string(transform.param()) : "";
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return source;
    case TransformKind::kBucket:
      return source + "_bucket" + param;
    case TransformKind::kTruncate:
      return source + "_trunc" + param;
    case TransformKind::kYear:
      return source + "_year";
    case TransformKind::kMonth:
      return source + "_month";
    case TransformKind::kDay:
      return source + "_day";
    case TransformKind::kHour:
      return source + "_hour";
    case TransformKind::kVoid:
      return source + "_null";
    case TransformKind::kUnknown:
      break;
  }
  return source + "_" + transform.ToString();
}

}  // namespace floe::iceberg
