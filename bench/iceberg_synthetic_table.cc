#include "iceberg_synthetic_table.h"

#include <fmt/format.h>

#include <memory>
#include <random>
#include <vector>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/single_value.h"

namespace floe::bench {

using iceberg::DataFile;
using iceberg::ManifestFile;
using iceberg::PartitionField;
using iceberg::PartitionSpec;
using iceberg::Schema;
using iceberg::SerializeValue;
using iceberg::Transform;

namespace {

constexpr int kColumns = 10;
constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

Status SetBounds(DataFile* f, int32_t column, const Scalar& lo, const Scalar& hi) {
  FLOE_ASSIGN_OR_RAISE(f->lower_bounds[column], SerializeValue(lo));
  FLOE_ASSIGN_OR_RAISE(f->upper_bounds[column], SerializeValue(hi));
  return Status::OK();
}

/// One data file of day `day` and bucket `bucket` with metrics for all columns.
Result<DataFile> MakeFile(const std::string& location, int manifest, int index, int32_t day,
                          int32_t bucket, std::mt19937_64& rng) {
  DataFile f;
  f.file_path = fmt::format("{}/data/ts_day={}/id_bucket={}/{:05d}-{:05d}-{:016x}.parquet",
                            location, day, bucket, manifest, index, rng());
  f.partition = {Scalar::Make(Date(), day), Scalar::I32(bucket)};
  const int64_t rows = 50000 + static_cast<int64_t>(rng() % 100000);
  f.record_count = rows;
  f.file_size_in_bytes = rows * 48 + static_cast<int64_t>(rng() % 4096);
  for (int32_t c = 1; c <= kColumns; ++c) {
    f.column_sizes[c] = rows * (2 + c % 5) + static_cast<int64_t>(rng() % 1000);
    f.value_counts[c] = rows;
    f.null_value_counts[c] = c == 1 ? 0 : static_cast<int64_t>(rng() % 100);
    if (c == 4 || c == 10) f.nan_value_counts[c] = 0;
  }
  const int64_t id0 = (static_cast<int64_t>(manifest) * 1000 + index) * 1000000;
  const int64_t ts0 = day * kMicrosPerDay;
  FLOE_RETURN_NOT_OK(SetBounds(&f, 1, Scalar::I64(id0), Scalar::I64(id0 + rows * 7)));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 2, Scalar::Make(TimestampTz(), ts0 + 1000),
                               Scalar::Make(TimestampTz(), ts0 + kMicrosPerDay - 1000)));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 3, Scalar::Str("click"), Scalar::Str("view")));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 4, Scalar::F64(-1000.5), Scalar::F64(99999.25)));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 5, Scalar::I32(0), Scalar::I32(1000)));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 6, Scalar::Make(Decimal(18, 2), Int128{-500000}),
                               Scalar::Make(Decimal(18, 2), Int128{99999999})));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 7, Scalar::Make(Date(), day - 30), Scalar::Make(Date(), day)));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 8, Scalar::Str("aaron abbott"), Scalar::Str("zoe zimmerman")));
  FLOE_RETURN_NOT_OK(SetBounds(&f, 9, Scalar::Bool(false), Scalar::Bool(true)));
  FLOE_RETURN_NOT_OK(
      SetBounds(&f, 10, Scalar::Make(Float32(), -1.0f), Scalar::Make(Float32(), 1.0f)));
  f.split_offsets = {4, rows * 24};
  f.sort_order_id = 0;
  return f;
}

}  // namespace

Result<SyntheticTable> WriteSyntheticTable(const io::FileIO& io,
                                           const SyntheticTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(
      iceberg::SchemaPtr schema,
      Schema::Make(0, {Field("id", Int64(), false, 1), Field("ts", TimestampTz(), true, 2),
                       Field("kind", String(), true, 3), Field("amount", Float64(), true, 4),
                       Field("qty", Int32(), true, 5), Field("price", Decimal(18, 2), true, 6),
                       Field("dt", Date(), true, 7), Field("name", String(), true, 8),
                       Field("flag", Boolean(), true, 9), Field("score", Float32(), true, 10)}));
  FLOE_ASSIGN_OR_RAISE(
      iceberg::PartitionSpecPtr spec,
      PartitionSpec::Make(*schema, 0,
                          {PartitionField{2, 1000, "ts_day", Transform::Day()},
                           PartitionField{1, 1001, "id_bucket", Transform::Bucket(16)}}));
  const int v = options.format_version;
  const int64_t snapshot_id = 3141592653589793;
  const int64_t sequence_number = v >= 2 ? 1 : 0;
  const std::string meta_dir = options.location + "/metadata";
  std::mt19937_64 rng(options.seed);

  SyntheticTable out;
  out.snapshot_id = snapshot_id;
  out.manifest_list_path = fmt::format("{}/snap-{}-1-synthetic.avro", meta_dir, snapshot_id);
  iceberg::ManifestListWriterOptions lo;
  lo.format_version = v;
  lo.snapshot_id = snapshot_id;
  lo.sequence_number = sequence_number;
  lo.codec = options.codec;
  if (v >= 3) lo.first_row_id = 0;
  FLOE_ASSIGN_OR_RAISE(auto list,
                       iceberg::ManifestListWriter::Make(io, out.manifest_list_path, lo));
  for (int m = 0; m < options.num_manifests; ++m) {
    iceberg::ManifestWriterOptions wo;
    wo.format_version = v;
    wo.snapshot_id = snapshot_id;
    wo.codec = options.codec;
    FLOE_ASSIGN_OR_RAISE(auto writer, iceberg::ManifestWriter::Make(
                                          io, fmt::format("{}/synthetic-m{:05d}.avro", meta_dir, m),
                                          *schema, *spec, wo));
    const int32_t day = 20000 + m;
    for (int i = 0; i < options.files_per_manifest; ++i) {
      FLOE_ASSIGN_OR_RAISE(DataFile f, MakeFile(options.location, m, i, day, i % 16, rng));
      out.records += f.record_count;
      FLOE_RETURN_NOT_OK(writer->Add(f));
      ++out.data_files;
    }
    FLOE_ASSIGN_OR_RAISE(ManifestFile mf, writer->Close());
    FLOE_RETURN_NOT_OK(list->Add(mf));
  }
  FLOE_RETURN_NOT_OK(list->Close());

  auto md = std::make_shared<iceberg::TableMetadata>();
  md->format_version = v;
  md->table_uuid = "5f6d2a4e-8c1b-4e7a-9d3f-0a1b2c3d4e5f";
  md->location = options.location;
  md->last_sequence_number = sequence_number;
  md->last_updated_ms = 1767225600000;
  md->last_column_id = kColumns;
  md->schemas = {schema};
  md->current_schema_id = 0;
  md->partition_specs = {spec};
  md->default_spec_id = 0;
  md->last_partition_id = 1001;
  md->sort_orders = {iceberg::SortOrder::Unsorted()};
  md->default_sort_order_id = 0;
  iceberg::Snapshot snap;
  snap.snapshot_id = snapshot_id;
  snap.sequence_number = sequence_number;
  snap.timestamp_ms = md->last_updated_ms;
  snap.manifest_list = out.manifest_list_path;
  snap.schema_id = 0;
  snap.summary = {{"operation", "append"},
                  {"added-data-files", std::to_string(out.data_files)},
                  {"total-data-files", std::to_string(out.data_files)},
                  {"added-records", std::to_string(out.records)},
                  {"total-records", std::to_string(out.records)},
                  {"total-delete-files", "0"}};
  if (v >= 3) {
    snap.first_row_id = 0;
    snap.added_rows = *list->next_row_id();
    md->next_row_id = *list->next_row_id();
  }
  md->snapshots = {snap};
  md->current_snapshot_id = snapshot_id;
  iceberg::SnapshotRef main_ref;
  main_ref.snapshot_id = snapshot_id;
  md->refs["main"] = main_ref;
  FLOE_RETURN_NOT_OK(md->Validate());
  FLOE_ASSIGN_OR_RAISE(std::string json, iceberg::TableMetadataToJsonString(*md, true));
  out.metadata_path = meta_dir + "/v1.metadata.json";
  FLOE_ASSIGN_OR_RAISE(auto file, io.NewOutputFile(out.metadata_path));
  FLOE_RETURN_NOT_OK(file->Write(json));
  FLOE_RETURN_NOT_OK(file->Close());
  out.metadata = std::move(md);
  return out;
}

}  // namespace floe::bench
