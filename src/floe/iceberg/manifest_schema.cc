// The Avro schemas of manifests, manifest lists and data_file structs, as floe fields
// with the spec's ids (manifest_io_internal.h).

#include "floe/iceberg/manifest_io_internal.h"

namespace floe::iceberg::internal {

namespace {

Field Opt(std::string name, TypePtr type, int32_t id) {
  return Field(std::move(name), std::move(type), /*nullable=*/true, id);
}
Field Req(std::string name, TypePtr type, int32_t id, bool for_read) {
  return Field(std::move(name), std::move(type), /*nullable=*/for_read, id);
}

TypePtr MetricMapType(const MetricMapIds& ids) {
  return Map(
      Field("key", Int32(), /*nullable=*/false, ids.key_id),
      Field("value", ids.binary_values ? Binary() : Int64(), /*nullable=*/false, ids.value_id));
}

}  // namespace

std::vector<Field> DataFileFields(int v, const TypePtr& partition_type, bool with_stats,
                                  DataFileLayout* layout) {
  const bool read = v == 0;
  std::vector<Field> f;
  auto add = [&](int* slot, Field field) {
    *slot = static_cast<int>(f.size());
    f.push_back(std::move(field));
  };
  DataFileLayout l;
  if (read || v >= 2) add(&l.content, Req("content", Int32(), kContentId, read));
  add(&l.file_path, Req("file_path", String(), kFilePathId, read));
  add(&l.file_format, Req("file_format", String(), kFileFormatId, read));
  if (!read || partition_type->num_fields() > 0) {
    add(&l.partition, Req("partition", partition_type, kPartitionId, read));
  }
  add(&l.record_count, Req("record_count", Int64(), kRecordCountId, read));
  add(&l.file_size, Req("file_size_in_bytes", Int64(), kFileSizeId, read));
  if (v == 1) add(&l.block_size, Req("block_size_in_bytes", Int64(), kBlockSizeId, false));
  if (!read || with_stats) {
    for (int i = 0; i < 6; ++i) {
      add(&l.metric_maps[i],
          Opt(kMetricMaps[i].name, MetricMapType(kMetricMaps[i]), kMetricMaps[i].field_id));
    }
  }
  add(&l.key_metadata, Opt("key_metadata", Binary(), kKeyMetadataId));
  add(&l.split_offsets,
      Opt("split_offsets", List(Field("element", Int64(), false, kSplitOffsetsElementId)),
          kSplitOffsetsId));
  if (read || v >= 2) {
    add(&l.equality_ids,
        // The spec's element type is int; pyiceberg writes long. Reading as long accepts
        // both (int -> long promotion); the values are range-checked below.
        Opt("equality_ids",
            List(Field("element", read ? Int64() : Int32(), false, kEqualityIdsElementId)),
            kEqualityIdsId));
  }
  add(&l.sort_order_id, Opt("sort_order_id", Int32(), kSortOrderIdId));
  if (read || v >= 3) add(&l.first_row_id, Opt("first_row_id", Int64(), kFirstRowIdId));
  if (read || v >= 2) {
    add(&l.referenced_data_file, Opt("referenced_data_file", String(), kReferencedDataFileId));
  }
  if (read || v >= 3) {
    add(&l.content_offset, Opt("content_offset", Int64(), kContentOffsetId));
    add(&l.content_size, Opt("content_size_in_bytes", Int64(), kContentSizeId));
  }
  if (layout) *layout = l;
  return f;
}

std::vector<Field> ManifestEntryFields(int v, const TypePtr& partition_type, bool with_stats,
                                       DataFileLayout* layout) {
  const bool read = v == 0;
  std::vector<Field> f;
  f.push_back(Req("status", Int32(), kStatusId, read));
  // v1 requires the snapshot id; v2 makes it optional (inherited when null).
  f.push_back(v == 1 ? Req("snapshot_id", Int64(), kSnapshotIdId, false)
                     : Opt("snapshot_id", Int64(), kSnapshotIdId));
  if (read || v >= 2) {
    f.push_back(Opt("sequence_number", Int64(), kSequenceNumberId));
    f.push_back(Opt("file_sequence_number", Int64(), kFileSequenceNumberId));
  }
  f.push_back(Req("data_file", Struct(DataFileFields(v, partition_type, with_stats, layout)),
                  kDataFileId, read));
  return f;
}

std::vector<Field> ManifestFileFields(int v) {
  const bool read = v == 0;
  const bool v2 = read || v >= 2;
  // v1 leaves the counts optional; v2 requires them.
  auto count = [&](std::string name, TypePtr type, int32_t id) {
    return v == 1 ? Opt(std::move(name), std::move(type), id)
                  : Req(std::move(name), std::move(type), id, read);
  };
  std::vector<Field> f;
  f.push_back(Req("manifest_path", String(), kManifestPathId, read));
  f.push_back(Req("manifest_length", Int64(), kManifestLengthId, read));
  f.push_back(Req("partition_spec_id", Int32(), kPartitionSpecIdId, read));
  if (v2) {
    f.push_back(Req("content", Int32(), kManifestContentId, read));
    f.push_back(Req("sequence_number", Int64(), kManifestSequenceNumberId, read));
    f.push_back(Req("min_sequence_number", Int64(), kMinSequenceNumberId, read));
  }
  f.push_back(Req("added_snapshot_id", Int64(), kAddedSnapshotIdId, read));
  f.push_back(count("added_files_count", Int32(), kAddedFilesCountId));
  f.push_back(count("existing_files_count", Int32(), kExistingFilesCountId));
  f.push_back(count("deleted_files_count", Int32(), kDeletedFilesCountId));
  f.push_back(count("added_rows_count", Int64(), kAddedRowsCountId));
  f.push_back(count("existing_rows_count", Int64(), kExistingRowsCountId));
  f.push_back(count("deleted_rows_count", Int64(), kDeletedRowsCountId));
  TypePtr summary = Struct({Req("contains_null", Boolean(), kContainsNullId, read),
                            Opt("contains_nan", Boolean(), kContainsNanId),
                            Opt("lower_bound", Binary(), kLowerBoundId),
                            Opt("upper_bound", Binary(), kUpperBoundId)});
  f.push_back(Opt("partitions", List(Field("element", summary, false, kPartitionsElementId)),
                  kPartitionsId));
  f.push_back(Opt("key_metadata", Binary(), kManifestKeyMetadataId));
  if (read || v >= 3) f.push_back(Opt("first_row_id", Int64(), kManifestFirstRowIdId));
  return f;
}

}  // namespace floe::iceberg::internal
