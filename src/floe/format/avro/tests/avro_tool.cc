// A small command-line helper for the avsc interop suite (test/interop/avro_avsc.mjs):
//   floe_avro_tool write DIR   writes sample.<codec>.avro for every codec into DIR
//   floe_avro_tool dump FILE   prints the file's schema JSON on the first line, then one
//                              JSON object per record (values as floe's JSON forms)

#include <cstdio>
#include <string>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/format/avro/reader.h"
#include "floe/format/avro/writer.h"

namespace floe::avro {
namespace {

SchemaPtr SampleSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      Field("id", Int64(), false, 1),
      Field("name", String(), true, 2),
      Field("score", Float64(), true, 3),
      Field("day", Date(), true, 4),
      Field("ts", TimestampTz(), true, 5),
      Field("price", Decimal(9, 2), true, 6),
      Field("tags", List(Field("element", String(), false, 8)), true, 7),
      Field("counts", Map(Field("key", Int32(), false, 10), Field("value", Int64(), false, 11)),
            true, 9),
      Field("point", Struct({Field("x", Int32(), false, 13), Field("y", Int32(), true, 14)}), true,
            12),
  });
}

Result<RecordBatchPtr> SampleBatch() {
  SchemaPtr schema = SampleSchema();
  Int64Builder id(Int64());
  BinaryBuilder name(String());
  Float64Builder score(Float64());
  Int32Builder day(Date());
  Int64Builder ts(TimestampTz());
  DecimalBuilder price(Decimal(9, 2));
  ListBuilder tags(schema->field(6).type());
  MapBuilder counts(schema->field(7).type());
  StructBuilder point(schema->field(8).type());
  for (int r = 0; r < 3; ++r) {
    FLOE_RETURN_NOT_OK(id.Append(int64_t{9007199254740993} + r));
    FLOE_RETURN_NOT_OK(r == 1 ? name.AppendNull() : name.Append("row" + std::to_string(r)));
    FLOE_RETURN_NOT_OK(score.Append(r * 0.5));
    FLOE_RETURN_NOT_OK(day.Append(19000 + r));
    FLOE_RETURN_NOT_OK(ts.Append(1700000000000000 + r));
    FLOE_RETURN_NOT_OK(r == 2 ? price.AppendNull() : price.Append(-12345 + r));
    FLOE_RETURN_NOT_OK(tags.Append());
    for (int k = 0; k < r; ++k) {
      FLOE_RETURN_NOT_OK(static_cast<BinaryBuilder*>(tags.value_builder())->Append("t" + std::to_string(k)));
    }
    FLOE_RETURN_NOT_OK(counts.Append());
    for (int k = 0; k < r; ++k) {
      FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(counts.key_builder())->Append(k + 100));
      FLOE_RETURN_NOT_OK(static_cast<Int64Builder*>(counts.item_builder())->Append(k * 1000));
    }
    if (r == 1) {
      FLOE_RETURN_NOT_OK(point.AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(point.Append());
      FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(point.field_builder(0))->Append(r));
      FLOE_RETURN_NOT_OK(static_cast<Int32Builder*>(point.field_builder(1))->Append(-r));
    }
  }
  std::vector<ArrayPtr> cols;
  for (ArrayBuilder* b : std::initializer_list<ArrayBuilder*>{&id, &name, &score, &day, &ts, &price,
                                                              &tags, &counts, &point}) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
    cols.push_back(a);
  }
  return RecordBatch::Make(schema, 3, cols);
}

Status Write(const std::string& dir) {
  FLOE_ASSIGN_OR_RAISE(std::string json, ToAvroSchemaJson(*SampleSchema(), "sample"));
  FLOE_ASSIGN_OR_RAISE(auto batch, SampleBatch());
  for (std::string codec : {"null", "deflate", "snappy", "zstd"}) {
    FLOE_ASSIGN_OR_RAISE(auto out, io::CreateLocalFile(dir + "/sample." + codec + ".avro"));
    AvroWriteOptions options;
    options.codec = codec;
    FLOE_ASSIGN_OR_RAISE(auto writer,
                         AvroFileWriter::Open(std::move(out), json,
                                              {{"format-version", "2"}, {"content", "data"}},
                                              options));
    FLOE_RETURN_NOT_OK(writer->Write(*batch));
    FLOE_RETURN_NOT_OK(writer->Close());
  }
  return Status::OK();
}

Status Dump(const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io::OpenLocalFile(path));
  FLOE_ASSIGN_OR_RAISE(auto reader,
                       AvroFileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  std::printf("%s\n", reader->schema_json().c_str());
  FLOE_ASSIGN_OR_RAISE(Schema s, reader->FileSchema());
  auto schema = std::make_shared<Schema>(s);
  FLOE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll(schema));
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::string line = "{";
      for (int c = 0; c < b->num_columns(); ++c) {
        if (c) line += ",";
        line += "\"" + schema->field(c).name() + "\":";
        AppendJsonValue(*b->column(c), r, &line);
      }
      line += "}";
      std::printf("%s\n", line.c_str());
    }
  }
  return Status::OK();
}

}  // namespace
}  // namespace floe::avro

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: floe_avro_tool write DIR | dump FILE\n");
    return 2;
  }
  std::string cmd = argv[1];
  floe::Status s = cmd == "write"  ? floe::avro::Write(argv[2])
                   : cmd == "dump" ? floe::avro::Dump(argv[2])
                                   : floe::Status::Invalid("unknown command {}", cmd);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
