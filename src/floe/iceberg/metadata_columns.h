#pragma once

// Iceberg's metadata columns (spec, "Reserved Field IDs"), as the reference implementation
// and Spark expose them: `_file` (the data file's path as the manifest names it), `_pos` (the
// row's position in that file, from 0), `_spec_id` (the data file's partition spec) and
// `_partition` (its partition tuple, as a struct over the partition fields of every spec the
// table has had). A scan produces them when its projection names their field ids; they are
// read from the scan task, never from the file.

#include <cstdint>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/type/type.h"

namespace floe::iceberg {

inline constexpr int32_t kFileColumnId = 2147483646;       // _file: string
inline constexpr int32_t kPosColumnId = 2147483645;        // _pos: long
inline constexpr int32_t kPartitionColumnId = 2147483643;  // _partition: struct
inline constexpr int32_t kSpecIdColumnId = 2147483642;     // _spec_id: int
/// Row lineage (format version 3, spec "Row Lineage"): stored in a data file when a writer
/// kept them, else inherited: _row_id is the file's first_row_id plus the row's position,
/// _last_updated_sequence_number the file's data sequence number.
inline constexpr int32_t kRowIdColumnId = 2147483540;                      // _row_id: long
inline constexpr int32_t kLastUpdatedSequenceNumberColumnId = 2147483539;  // long

/// Whether a field id is one of the metadata columns above.
bool IsMetadataColumn(int32_t field_id);
/// Whether it is one of the row lineage columns (which data files may store).
bool IsRowLineageColumn(int32_t field_id);

/// The row lineage fields as a writer stores them in a data file (optional longs).
std::vector<Field> RowLineageFields();

/// The metadata columns a scan of `metadata` offers, in the order _file, _pos, _spec_id,
/// _partition (left out when no spec of the table has a partition field), then in format
/// version 3 _row_id and _last_updated_sequence_number (NULL for rows written before the
/// table had row lineage). _file, _pos, _spec_id and _partition are required.
Result<std::vector<Field>> MetadataColumns(const TableMetadata& metadata);

/// The type of `_partition`: a struct with one nullable field per partition field id of any
/// spec of the table (void transforms left out), in field-id order, named as the field is in
/// the newest spec that has it and typed by its transform's result. nullptr when there is
/// none.
Result<TypePtr> UnifiedPartitionType(const TableMetadata& metadata);

/// The `_partition` value of a data file of spec `spec` with partition tuple `partition`:
/// per field of `unified` (UnifiedPartitionType), the file's value of that partition field,
/// or NULL when its spec does not have it.
std::vector<Scalar> UnifiedPartitionValues(const DataType& unified, const PartitionSpec& spec,
                                           const PartitionValues& partition);

}  // namespace floe::iceberg
