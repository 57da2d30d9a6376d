// Writes sample manifests and manifest lists for the avsc interop suite
// (test/interop/manifest_avsc.mjs), which checks their schemas and values exactly.
//
// usage: floe_manifest_tool write DIR
//   DIR/manifest-v2.avro, DIR/list-v2.avro   format version 2 (deflate)
//   DIR/manifest-v1.avro, DIR/list-v1.avro   format version 1 (null codec)
//
// The table: 1 id long (required), 2 ts timestamptz, 3 s string; spec 0 is
// day(ts) "ts_day" (1000), bucket[16](id) "id_bucket" (1001), identity(s) "s" (1002).
// Two data files: a.parquet (day 19000, bucket 3, s "x", 10 rows, added with an
// inherited sequence number) and b.parquet (day 19001, bucket 7, s NULL, 20 rows, added
// with data sequence number 3). Snapshot 42 (parent 41), sequence number 5.

#include <cstdio>
#include <string>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/single_value.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {
namespace {

Result<DataFile> MakeFile(const std::string& name, int32_t day, int32_t bucket,
                          std::optional<std::string> s, int64_t rows) {
  DataFile f;
  f.file_path = "s3://bucket/t/data/" + name;
  f.partition = {Scalar::Make(Date(), day), Scalar::I32(bucket),
                 s ? Scalar::Str(*s) : Scalar::Null(String())};
  f.record_count = rows;
  f.file_size_in_bytes = rows * 100;
  f.column_sizes = {{1, rows * 10}, {2, rows * 20}};
  f.value_counts = {{1, rows}, {2, rows}};
  f.null_value_counts = {{1, 0}, {2, 1}};
  FLOE_ASSIGN_OR_RAISE(f.lower_bounds[1], SerializeValue(Scalar::I64(1)));
  FLOE_ASSIGN_OR_RAISE(f.upper_bounds[1], SerializeValue(Scalar::I64(rows)));
  f.split_offsets = {4};
  f.sort_order_id = 0;
  return f;
}

Status Write(const std::string& dir) {
  io::LocalFileIO fio;
  FLOE_ASSIGN_OR_RAISE(SchemaPtr schema, Schema::Make(0, {Field("id", Int64(), false, 1),
                                                          Field("ts", TimestampTz(), true, 2),
                                                          Field("s", String(), true, 3)}));
  FLOE_ASSIGN_OR_RAISE(PartitionSpecPtr spec,
                       PartitionSpec::Make(*schema, 0,
                                           {{2, 1000, "ts_day", Transform::Day()},
                                            {1, 1001, "id_bucket", Transform::Bucket(16)},
                                            {3, 1002, "s", Transform::Identity()}}));
  FLOE_ASSIGN_OR_RAISE(DataFile a, MakeFile("a.parquet", 19000, 3, "x", 10));
  FLOE_ASSIGN_OR_RAISE(DataFile b, MakeFile("b.parquet", 19001, 7, std::nullopt, 20));
  for (int version : {1, 2}) {
    const std::string v = std::to_string(version);
    ManifestWriterOptions wo;
    wo.format_version = version;
    wo.snapshot_id = 42;
    wo.codec = version == 1 ? "null" : "deflate";
    FLOE_ASSIGN_OR_RAISE(auto writer, ManifestWriter::Make(fio, dir + "/manifest-v" + v + ".avro",
                                                           *schema, *spec, wo));
    FLOE_RETURN_NOT_OK(writer->Add(a));
    FLOE_RETURN_NOT_OK(writer->Add(b, version == 1 ? std::nullopt : std::optional<int64_t>(3)));
    FLOE_ASSIGN_OR_RAISE(ManifestFile m, writer->Close());
    ManifestListWriterOptions lo;
    lo.format_version = version;
    lo.snapshot_id = 42;
    lo.parent_snapshot_id = 41;
    lo.sequence_number = 5;
    lo.codec = wo.codec;
    FLOE_ASSIGN_OR_RAISE(auto list,
                         ManifestListWriter::Make(fio, dir + "/list-v" + v + ".avro", lo));
    FLOE_RETURN_NOT_OK(list->Add(m));
    FLOE_RETURN_NOT_OK(list->Close());
  }
  return Status::OK();
}

}  // namespace
}  // namespace floe::iceberg

int main(int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "write") {
    std::fprintf(stderr, "usage: %s write DIR\n", argv[0]);
    return 2;
  }
  floe::Status st = floe::iceberg::Write(argv[2]);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
