// Decoding Iceberg manifest entries (the v2 manifest_entry schema of the Iceberg spec,
// for a table of 10 columns) from Avro container files of 100k entries, uncompressed
// and deflate-compressed. Reports entries per second (items_per_second).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "floe/batch/builder.h"
#include "floe/format/avro/reader.h"
#include "floe/format/avro/writer.h"
#include "floe/io/file.h"

namespace floe::avro {
namespace {

constexpr int kEntries = 100000;
constexpr int kColumns = 10;

Field IntMap(const char* name, int id, int key_id, TypePtr value) {
  return Field(name,
               Map(Field("key", Int32(), false, key_id), Field("value", std::move(value), false,
                                                               key_id + 1)),
               true, id);
}

SchemaPtr ManifestEntrySchema() {
  auto data_file = Struct({
      Field("content", Int32(), false, 134),
      Field("file_path", String(), false, 100),
      Field("file_format", String(), false, 101),
      Field("partition",
            Struct({Field("id_bucket", Int32(), true, 1000), Field("ts_day", Date(), true, 1001)}),
            false, 102),
      Field("record_count", Int64(), false, 103),
      Field("file_size_in_bytes", Int64(), false, 104),
      IntMap("column_sizes", 108, 117, Int64()),
      IntMap("value_counts", 109, 119, Int64()),
      IntMap("null_value_counts", 110, 121, Int64()),
      IntMap("nan_value_counts", 137, 138, Int64()),
      IntMap("lower_bounds", 125, 126, Binary()),
      IntMap("upper_bounds", 128, 129, Binary()),
      Field("key_metadata", Binary(), true, 131),
      Field("split_offsets", List(Field("element", Int64(), false, 133)), true, 132),
      Field("equality_ids", List(Field("element", Int32(), false, 136)), true, 135),
      Field("sort_order_id", Int32(), true, 140),
  });
  return std::make_shared<Schema>(std::vector<Field>{
      Field("status", Int32(), false, 0),
      Field("snapshot_id", Int64(), true, 1),
      Field("sequence_number", Int64(), true, 3),
      Field("file_sequence_number", Int64(), true, 4),
      Field("data_file", data_file, false, 2),
  });
}

template <typename T>
T Must(Result<T> r) {
  if (!r.has_value()) {
    std::fprintf(stderr, "%s\n", r.error().ToString().c_str());
    std::abort();
  }
  return std::move(r).value();
}

template <typename B>
B* As(ArrayBuilder* b) {
  return static_cast<B*>(b);
}

RecordBatchPtr MakeEntries(const SchemaPtr& schema) {
  std::mt19937_64 rng(7);
  auto status = MakeBuilder(schema->field(0).type());
  auto snapshot = MakeBuilder(schema->field(1).type());
  auto seq = MakeBuilder(schema->field(2).type());
  auto file_seq = MakeBuilder(schema->field(3).type());
  auto df = MakeBuilder(schema->field(4).type());
  auto* s = As<StructBuilder>(df.get());
  for (int i = 0; i < kEntries; ++i) {
    (void)As<Int32Builder>(status.get())->Append(1);
    (void)As<Int64Builder>(snapshot.get())->Append(8499397478161915471);
    (void)As<Int64Builder>(seq.get())->Append(42);
    (void)As<Int64Builder>(file_seq.get())->Append(42);
    (void)s->Append();
    (void)As<Int32Builder>(s->field_builder(0))->Append(0);
    (void)As<BinaryBuilder>(s->field_builder(1))
        ->Append("s3://warehouse/db/events/data/id_bucket=" + std::to_string(i % 16) +
                 "/ts_day=2026-01-01/00000-" + std::to_string(i) +
                 "-d3a59669-ce58-4006-b445-2f83ff3e0398.parquet");
    (void)As<BinaryBuilder>(s->field_builder(2))->Append("PARQUET");
    auto* part = As<StructBuilder>(s->field_builder(3));
    (void)part->Append();
    (void)As<Int32Builder>(part->field_builder(0))->Append(i % 16);
    (void)As<Int32Builder>(part->field_builder(1))->Append(20454 + i % 30);
    (void)As<Int64Builder>(s->field_builder(4))->Append(static_cast<int64_t>(rng() % 1000000));
    (void)As<Int64Builder>(s->field_builder(5))->Append(static_cast<int64_t>(rng() % 100000000));
    for (int m = 6; m <= 11; ++m) {
      auto* mb = As<MapBuilder>(s->field_builder(m));
      (void)mb->Append();
      int n = m == 9 ? 2 : kColumns;  // NaN counts only for the float columns
      for (int k = 1; k <= n; ++k) {
        (void)As<Int32Builder>(mb->key_builder())->Append(k);
        if (m >= 10) {
          uint64_t v = rng();
          (void)As<BinaryBuilder>(mb->item_builder())
              ->Append(std::string_view(reinterpret_cast<const char*>(&v), k % 2 ? 8 : 4));
        } else {
          (void)As<Int64Builder>(mb->item_builder())->Append(static_cast<int64_t>(rng() % 100000));
        }
      }
    }
    (void)s->field_builder(12)->AppendNull();
    auto* so = As<ListBuilder>(s->field_builder(13));
    (void)so->Append();
    (void)As<Int64Builder>(so->value_builder())->Append(4);
    (void)s->field_builder(14)->AppendNull();
    (void)As<Int32Builder>(s->field_builder(15))->Append(0);
  }
  std::vector<ArrayPtr> cols;
  for (auto* b : {status.get(), snapshot.get(), seq.get(), file_seq.get(), df.get()}) {
    cols.push_back(Must(b->Finish()));
  }
  return Must(RecordBatch::Make(schema, kEntries, cols));
}

std::string WriteFile(const std::string& codec) {
  SchemaPtr schema = ManifestEntrySchema();
  std::string json = Must(ToAvroSchemaJson(*schema, "manifest_entry"));
  auto out = std::make_unique<io::BufferOutputStream>();
  auto* raw = out.get();
  AvroWriteOptions options;
  options.codec = codec;
  auto writer = Must(AvroFileWriter::Open(std::move(out), json,
                                          {{"format-version", "2"}, {"content", "data"}}, options));
  if (!writer->Write(*MakeEntries(schema)).ok() || !writer->Close().ok()) std::abort();
  return raw->bytes();
}

void BM_DecodeManifestEntries(benchmark::State& state, const std::string& codec) {
  std::string bytes = WriteFile(codec);
  auto buffer = Must(Buffer::CopyOf(std::string_view(bytes)));
  SchemaPtr target = ManifestEntrySchema();
  int64_t rows = 0;
  for (auto _ : state) {
    auto reader = Must(AvroFileReader::Open(
        std::shared_ptr<io::RandomAccessFile>(io::MakeBufferFile(buffer, "bench.avro"))));
    auto stream = Must(reader->Read(target));
    while (true) {
      auto batch = stream->Next();
      if (!batch.has_value()) {
        state.SkipWithError(batch.error().ToString().c_str());
        return;
      }
      if (!*batch) break;
      rows += (*batch)->num_rows();
    }
  }
  state.SetItemsProcessed(rows);
  state.counters["file_bytes"] = static_cast<double>(bytes.size());
}

// Only the fields manifest planning needs: path, partition and record count; the
// metrics maps are skipped without being materialized.
void BM_DecodeManifestEntriesProjected(benchmark::State& state) {
  std::string bytes = WriteFile("null");
  auto buffer = Must(Buffer::CopyOf(std::string_view(bytes)));
  auto target = std::make_shared<Schema>(std::vector<Field>{
      Field("status", Int32(), false, 0),
      Field("data_file",
            Struct({Field("file_path", String(), false, 100),
                    Field("partition", Struct({Field("id_bucket", Int32(), true, 1000),
                                               Field("ts_day", Date(), true, 1001)}),
                          false, 102),
                    Field("record_count", Int64(), false, 103)}),
            false, 2)});
  int64_t rows = 0;
  for (auto _ : state) {
    auto reader = Must(AvroFileReader::Open(
        std::shared_ptr<io::RandomAccessFile>(io::MakeBufferFile(buffer, "bench.avro"))));
    auto stream = Must(reader->Read(target));
    while (auto batch = Must(stream->Next())) rows += batch->num_rows();
  }
  state.SetItemsProcessed(rows);
}

BENCHMARK_CAPTURE(BM_DecodeManifestEntries, null, std::string("null"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeManifestEntries, deflate, std::string("deflate"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeManifestEntriesProjected)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace floe::avro

BENCHMARK_MAIN();
