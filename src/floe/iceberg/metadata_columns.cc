#include "floe/iceberg/metadata_columns.h"

#include <map>
#include <string>
#include <utility>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

bool IsMetadataColumn(int32_t field_id) {
  return field_id == kFileColumnId || field_id == kPosColumnId || field_id == kSpecIdColumnId ||
         field_id == kPartitionColumnId || IsRowLineageColumn(field_id);
}

bool IsRowLineageColumn(int32_t field_id) {
  return field_id == kRowIdColumnId || field_id == kLastUpdatedSequenceNumberColumnId;
}

std::vector<Field> RowLineageFields() {
  return {
      Field("_row_id", Int64(), true, kRowIdColumnId),
      Field("_last_updated_sequence_number", Int64(), true, kLastUpdatedSequenceNumberColumnId)};
}

namespace {

// The type of a partition field's source column: from the current schema, else the newest
// schema that has it (a spec of an older schema may name a dropped column).
TypePtr SourceType(const TableMetadata& metadata, int32_t source_id) {
  if (SchemaPtr current = metadata.CurrentSchema()) {
    if (const Field* field = current->FindFieldById(source_id)) return field->type();
  }
  for (auto it = metadata.schemas.rbegin(); it != metadata.schemas.rend(); ++it) {
    if (const Field* field = (*it)->FindFieldById(source_id)) return field->type();
  }
  return nullptr;
}

}  // namespace

Result<TypePtr> UnifiedPartitionType(const TableMetadata& metadata) {
  // By partition field id; a later spec's name wins (specs are in id order).
  std::map<int32_t, Field> fields;
  for (const PartitionSpecPtr& spec : metadata.partition_specs) {
    for (const PartitionField& field : spec->fields()) {
      if (field.transform.kind() == TransformKind::kVoid) continue;
      TypePtr source = SourceType(metadata, field.source_id);
      if (source == nullptr) {
        return Status::Corrupt("partition field {} of spec {} names column {}, which no schema has",
                               field.name, spec->spec_id(), field.source_id);
      }
      FLOE_ASSIGN_OR_RAISE(TypePtr type, field.transform.ResultType(source));
      fields.insert_or_assign(field.field_id, Field(field.name, type, true, field.field_id));
    }
  }
  if (fields.empty()) return TypePtr();
  std::vector<Field> ordered;
  for (auto& [id, field] : fields) ordered.push_back(std::move(field));
  return Struct(std::move(ordered));
}

std::vector<Scalar> UnifiedPartitionValues(const DataType& unified, const PartitionSpec& spec,
                                           const PartitionValues& partition) {
  std::vector<Scalar> values;
  for (const Field& field : unified.fields()) {
    Scalar value = Scalar::Null(field.type());
    const std::vector<PartitionField>& spec_fields = spec.fields();
    for (size_t i = 0; i < spec_fields.size() && i < partition.size(); ++i) {
      if (spec_fields[i].field_id == field.field_id() && !partition[i].is_null()) {
        value = Scalar::Make(field.type(), partition[i].value());
      }
    }
    values.push_back(std::move(value));
  }
  return values;
}

Result<std::vector<Field>> MetadataColumns(const TableMetadata& metadata) {
  std::vector<Field> columns = {
      Field("_file", String(), false, kFileColumnId),
      Field("_pos", Int64(), false, kPosColumnId),
      Field("_spec_id", Int32(), false, kSpecIdColumnId),
  };
  FLOE_ASSIGN_OR_RAISE(TypePtr partition, UnifiedPartitionType(metadata));
  if (partition != nullptr) {
    columns.emplace_back("_partition", std::move(partition), false, kPartitionColumnId);
  }
  if (metadata.format_version >= 3) {
    for (Field& field : RowLineageFields()) columns.push_back(std::move(field));
  }
  return columns;
}

}  // namespace floe::iceberg
