#pragma once

// The Avro schemas of manifests and manifest lists (spec, "Manifests", "Manifest Lists"),
// as floe schemas with the spec's field ids, for reading (every field optional, so that
// files of any version resolve) and for writing (the version's fields and requirements).

#include <cstdint>
#include <vector>

#include "floe/type/type.h"

namespace floe::iceberg::internal {

// manifest_entry
inline constexpr int32_t kStatusId = 0;
inline constexpr int32_t kSnapshotIdId = 1;
inline constexpr int32_t kDataFileId = 2;
inline constexpr int32_t kSequenceNumberId = 3;
inline constexpr int32_t kFileSequenceNumberId = 4;

// data_file
inline constexpr int32_t kContentId = 134;
inline constexpr int32_t kFilePathId = 100;
inline constexpr int32_t kFileFormatId = 101;
inline constexpr int32_t kPartitionId = 102;
inline constexpr int32_t kRecordCountId = 103;
inline constexpr int32_t kFileSizeId = 104;
inline constexpr int32_t kBlockSizeId = 105;
inline constexpr int32_t kColumnSizesId = 108;
inline constexpr int32_t kValueCountsId = 109;
inline constexpr int32_t kNullValueCountsId = 110;
inline constexpr int32_t kNanValueCountsId = 137;
inline constexpr int32_t kLowerBoundsId = 125;
inline constexpr int32_t kUpperBoundsId = 128;
inline constexpr int32_t kKeyMetadataId = 131;
inline constexpr int32_t kSplitOffsetsId = 132;
inline constexpr int32_t kSplitOffsetsElementId = 133;
inline constexpr int32_t kEqualityIdsId = 135;
inline constexpr int32_t kEqualityIdsElementId = 136;
inline constexpr int32_t kSortOrderIdId = 140;
inline constexpr int32_t kFirstRowIdId = 142;
inline constexpr int32_t kReferencedDataFileId = 143;
inline constexpr int32_t kContentOffsetId = 144;
inline constexpr int32_t kContentSizeId = 145;

// manifest_file
inline constexpr int32_t kManifestPathId = 500;
inline constexpr int32_t kManifestLengthId = 501;
inline constexpr int32_t kPartitionSpecIdId = 502;
inline constexpr int32_t kAddedSnapshotIdId = 503;
inline constexpr int32_t kAddedFilesCountId = 504;
inline constexpr int32_t kExistingFilesCountId = 505;
inline constexpr int32_t kDeletedFilesCountId = 506;
inline constexpr int32_t kPartitionsId = 507;
inline constexpr int32_t kPartitionsElementId = 508;
inline constexpr int32_t kContainsNullId = 509;
inline constexpr int32_t kLowerBoundId = 510;
inline constexpr int32_t kUpperBoundId = 511;
inline constexpr int32_t kAddedRowsCountId = 512;
inline constexpr int32_t kExistingRowsCountId = 513;
inline constexpr int32_t kDeletedRowsCountId = 514;
inline constexpr int32_t kManifestSequenceNumberId = 515;
inline constexpr int32_t kMinSequenceNumberId = 516;
inline constexpr int32_t kManifestContentId = 517;
inline constexpr int32_t kContainsNanId = 518;
inline constexpr int32_t kManifestKeyMetadataId = 519;
inline constexpr int32_t kManifestFirstRowIdId = 520;

/// One of the six column metric maps of data_file: its field id, key id and value id.
struct MetricMapIds {
  int32_t field_id;
  int32_t key_id;
  int32_t value_id;
  const char* name;
  bool binary_values;
};
inline constexpr MetricMapIds kMetricMaps[6] = {
    {kColumnSizesId, 117, 118, "column_sizes", false},
    {kValueCountsId, 119, 120, "value_counts", false},
    {kNullValueCountsId, 121, 122, "null_value_counts", false},
    {kNanValueCountsId, 138, 139, "nan_value_counts", false},
    {kLowerBoundsId, 126, 127, "lower_bounds", true},
    {kUpperBoundsId, 129, 130, "upper_bounds", true},
};

/// Positions of the data_file fields in a struct built by DataFileFields (-1: absent).
struct DataFileLayout {
  int content = -1;
  int file_path = -1;
  int file_format = -1;
  int partition = -1;
  int record_count = -1;
  int file_size = -1;
  int block_size = -1;
  int metric_maps[6] = {-1, -1, -1, -1, -1, -1};
  int key_metadata = -1;
  int split_offsets = -1;
  int equality_ids = -1;
  int sort_order_id = -1;
  int first_row_id = -1;
  int referenced_data_file = -1;
  int content_offset = -1;
  int content_size = -1;
};

/// The data_file struct's fields. For reading (`format_version` 0): every field of every
/// version, all optional, the metric maps only with `with_stats`, the partition struct
/// only when it has fields. For writing: the fields of `format_version` in the spec's
/// order and requirements. `layout` receives the positions.
std::vector<Field> DataFileFields(int format_version, const TypePtr& partition_type,
                                  bool with_stats, DataFileLayout* layout);

/// The manifest_entry fields (status, snapshot_id, [sequence numbers,] data_file).
/// Reading (`format_version` 0) makes every field optional; the data_file struct is
/// the last field.
std::vector<Field> ManifestEntryFields(int format_version, const TypePtr& partition_type,
                                       bool with_stats, DataFileLayout* layout);

/// The manifest_file fields of a manifest list (reading: `format_version` 0, all
/// optional, every version's fields) in the order of the ManifestListColumn enum.
std::vector<Field> ManifestFileFields(int format_version);

}  // namespace floe::iceberg::internal
