// Records read from byte ranges of in-memory files (a byte order mark, a header, CRLF, a
// range that starts at a planned record start and ends inside a record, chunk boundaries in
// records, the record size limit, JSON lines with blank lines, JSON arrays), and the batch
// builder over them: values converted by the engine's casts, errors naming file, line and
// column, rows left out and counted when errors are ignored.

#include "floe/connector/text/text_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/connector/text/text_batch_builder.h"
#include "floe/io/file.h"
#include "floe/testing/matchers.h"

namespace floe::connector {
namespace {

using ::floe::testing::IsErrorWith;

std::shared_ptr<io::RandomAccessFile> MemoryFile(const std::string& bytes,
                                                 const std::string& name = "f.csv") {
  // The buffer keeps its own copy of the bytes alive.
  auto owner = std::make_shared<const std::string>(bytes);
  BufferPtr buffer = Buffer::Wrap(reinterpret_cast<const uint8_t*>(owner->data()),
                                  static_cast<int64_t>(owner->size()), owner);
  return io::MakeBufferFile(std::move(buffer), name);
}

// "line: field|field|..." per record, NULL as \N.
Result<std::vector<std::string>> Records(const std::string& bytes, TextFileRange range,
                                         TextRecordOptions options) {
  range.path = "f.csv";
  FLOE_ASSIGN_OR_RAISE(auto reader, TextRecordReader::Open(MemoryFile(bytes), range, options));
  std::vector<std::string> out;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(bool more, reader->Next());
    if (!more) break;
    std::string line = std::to_string(reader->line()) + ":";
    if (!reader->record_status().ok()) {
      line += " error " + reader->record_status().message();
    } else if (options.format == TextFormat::kJson) {
      line += " " + std::string(reader->json_text());
    } else {
      for (int i = 0; i < reader->csv().num_fields(); ++i) {
        line += i == 0 ? " " : "|";
        line += reader->csv().is_null(i) ? "\\N" : std::string(reader->csv().field(i));
      }
    }
    out.push_back(std::move(line));
  }
  return out;
}

TEST(TextRecordReaderTest, BomHeaderAndCrlf) {
  TextRecordOptions options;
  options.header = true;
  ASSERT_OK_AND_ASSIGN(auto records,
                       Records("\xEF\xBB\xBFid,name\r\n1,\"a\r\nb\"\r\n2,c\r\n", {}, options));
  EXPECT_EQ(records, (std::vector<std::string>{"2: 1|a\r\nb", "4: 2|c"}));
}

TEST(TextRecordReaderTest, RangesHoldTheRecordsStartingInThem) {
  const std::string bytes = "a,1\nb,\"2\n3\"\nc,4\nd,5";
  TextRecordOptions options;
  // [0, 5): the records starting before byte 5 ("a,1" and the two-line "b" record).
  ASSERT_OK_AND_ASSIGN(auto first, Records(bytes, {"", 0, 5}, options));
  EXPECT_EQ(first, (std::vector<std::string>{"1: a|1", "2: b|2\n3"}));
  // From the planned start of "c" (byte 12, line 4) to the end.
  TextFileRange rest;
  rest.begin = 12;
  rest.first_line = 4;
  ASSERT_OK_AND_ASSIGN(auto second, Records(bytes, rest, options));
  EXPECT_EQ(second, (std::vector<std::string>{"4: c|4", "5: d|5"}));
}

TEST(TextRecordReaderTest, RecordsAcrossReadChunksAndTheLimit) {
  // A field longer than the reader's 1 MiB chunk.
  const std::string big(3 << 20, 'x');
  TextRecordOptions options;
  options.max_record_bytes = 4 << 20;
  ASSERT_OK_AND_ASSIGN(auto records, Records("\"" + big + "\",y\nz,w\n", {}, options));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].size(), big.size() + 5);
  EXPECT_EQ(records[1], "2: z|w");
  options.max_record_bytes = 1 << 20;
  EXPECT_THAT(Records(big + "\n", {}, options),
              IsErrorWith(StatusCode::kInvalidArgument, "f.csv:1: a record is longer than 1048576"));
}

TEST(TextRecordReaderTest, UnterminatedQuoteIsABadRecord) {
  ASSERT_OK_AND_ASSIGN(auto records, Records("a\n\"b\nc\n", {}, {}));
  EXPECT_EQ(records,
            (std::vector<std::string>{"1: a", "2: error unterminated quoted field (a quote opened "
                                              "in it is never closed)"}));
}

TEST(TextRecordReaderTest, FileChangedSincePlanning) {
  TextFileRange range;
  range.file_size = 3;
  EXPECT_THAT(Records("a,b\n", range, {}), IsErrorWith(StatusCode::kIOError, "changed"));
}

TEST(TextRecordReaderTest, JsonLinesAndArrays) {
  TextRecordOptions options;
  options.format = TextFormat::kJson;
  ASSERT_OK_AND_ASSIGN(auto lines, Records("{\"a\":1}\r\n\n  \n{\"a\":2}", {}, options));
  EXPECT_EQ(lines, (std::vector<std::string>{"1: {\"a\":1}", "4: {\"a\":2}"}));
  options.json_layout = JsonLayout::kArray;
  ASSERT_OK_AND_ASSIGN(auto elements,
                       Records(" [ {\"a\": \"],\"},\n {\"b\": [1, {\"c\": 2}]} ,3 ]\n", {}, options));
  EXPECT_EQ(elements, (std::vector<std::string>{"1: {\"a\": \"],\"}", "2: {\"b\": [1, {\"c\": 2}]}",
                                                "2: 3"}));
  ASSERT_OK_AND_ASSIGN(auto empty, Records("[]", {}, options));
  EXPECT_TRUE(empty.empty());
  EXPECT_THAT(Records("[1, 2", {}, options),
              IsErrorWith(StatusCode::kInvalidArgument, "the JSON array is not closed"));
  EXPECT_THAT(Records("{\"a\": 1}", {}, options),
              IsErrorWith(StatusCode::kInvalidArgument, "expected '['"));
  EXPECT_THAT(Records("[1] x", {}, options),
              IsErrorWith(StatusCode::kInvalidArgument, "data after the end of the JSON array"));
}

// Every row of the builder's batches as text ("1|x|NULL").
std::vector<std::string> Rows(const RecordBatch& batch) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) row += "|";
      row += batch.column(c)->IsNull(r) ? "NULL" : FormatValue(*batch.column(c), r);
    }
    rows.push_back(row);
  }
  return rows;
}

// Reads `bytes` as `schema` (every column) into one batch.
Result<std::vector<std::string>> Build(const std::string& bytes, SchemaPtr schema,
                                       TextRecordOptions options, TextErrorPolicy policy,
                                       int64_t* rejected = nullptr,
                                       std::string* first_rejection = nullptr) {
  TextFileRange range;
  range.path = "f.csv";
  FLOE_ASSIGN_OR_RAISE(auto reader, TextRecordReader::Open(MemoryFile(bytes), range, options));
  std::vector<int> all;
  for (int c = 0; c < schema->num_fields(); ++c) all.push_back(c);
  FLOE_ASSIGN_OR_RAISE(auto builder, TextBatchBuilder::Make(schema, all, options.format, policy,
                                                            DefaultMemoryPool()));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(bool more, reader->Next());
    if (!more) break;
    FLOE_RETURN_NOT_OK(builder->Append(*reader));
  }
  FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, builder->Finish());
  if (rejected) *rejected = builder->rejected();
  if (first_rejection) *first_rejection = builder->first_rejection();
  return Rows(*batch);
}

SchemaPtr Columns(std::vector<Field> fields) { return std::make_shared<Schema>(std::move(fields)); }

TEST(TextBatchBuilderTest, ConvertsValues) {
  SchemaPtr schema = Columns({Field("id", Int32()), Field("price", Decimal(10, 2)),
                              Field("day", Date()), Field("ok", Boolean()), Field("s", String())});
  ASSERT_OK_AND_ASSIGN(auto rows, Build("1,2.5,2024-01-02,t,x\n2,,,false,\"\"\n", schema, {}, {}));
  EXPECT_EQ(rows, (std::vector<std::string>{"1|2.50|2024-01-02|t|x", "2|NULL|NULL|f|"}));
}

TEST(TextBatchBuilderTest, ErrorsNameFileLineAndColumn) {
  SchemaPtr schema = Columns({Field("id", Int32()), Field("price", Int32())});
  EXPECT_THAT(Build("1,2\n2,3\n3,12x\n4,y\n", schema, {}, {}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "f.csv:3: column \"price\": invalid input syntax for type integer: "
                          "\"12x\""));
  // The earliest bad value wins over a later bad record.
  EXPECT_THAT(Build("1,x\n2\n", schema, {}, {}),
              IsErrorWith(StatusCode::kInvalidArgument, "f.csv:1: column \"price\""));
  EXPECT_THAT(Build("1,2\n2\n", schema, {}, {}),
              IsErrorWith(StatusCode::kInvalidArgument, "f.csv:2: missing data for column \"price\""));
  EXPECT_THAT(Build("1,2,3\n", schema, {}, {}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "f.csv:1: extra data after last expected column"));
  SchemaPtr text = Columns({Field("s", String())});
  EXPECT_THAT(Build("ok\n\xff\n", text, {}, {}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "f.csv:2: column \"s\": invalid byte sequence for encoding \"UTF8\": 0xff"));
  TextErrorPolicy hinted;
  hinted.inferred_hint = " (inferred)";
  EXPECT_THAT(Build("x\n", Columns({Field("n", Int64())}), {}, hinted),
              IsErrorWith(StatusCode::kInvalidArgument, "\"x\" (inferred)"));
}

TEST(TextBatchBuilderTest, IgnoredErrorsLeaveRowsOut) {
  SchemaPtr schema = Columns({Field("id", Int32()), Field("v", Int32())});
  TextErrorPolicy policy;
  policy.ignore_errors = true;
  int64_t rejected = 0;
  std::string first;
  ASSERT_OK_AND_ASSIGN(auto rows, Build("1,2\nx,3\n4\n5,6,7\n8,y\n9,10\n", schema, {}, policy,
                                        &rejected, &first));
  EXPECT_EQ(rows, (std::vector<std::string>{"1|2", "9|10"}));
  EXPECT_EQ(rejected, 4);
  // The first by line, though the bad value was found after the bad records.
  EXPECT_EQ(first, "f.csv:2: column \"id\": invalid input syntax for type integer: \"x\"");
}

TEST(TextBatchBuilderTest, EmptyLines) {
  // A one-column file's empty line is a NULL; other files have no row there.
  ASSERT_OK_AND_ASSIGN(auto one, Build("1\n\n3\n", Columns({Field("a", Int64())}), {}, {}));
  EXPECT_EQ(one, (std::vector<std::string>{"1", "NULL", "3"}));
  ASSERT_OK_AND_ASSIGN(auto two,
                       Build("1,2\n\n3,4\n", Columns({Field("a", Int64()), Field("b", Int64())}),
                             {}, {}));
  EXPECT_EQ(two, (std::vector<std::string>{"1|2", "3|4"}));
}

TEST(TextBatchBuilderTest, JsonObjects) {
  TextRecordOptions options;
  options.format = TextFormat::kJson;
  SchemaPtr schema = Columns({Field("a", Int64()), Field("b", String()), Field("j", Json()),
                              Field("t", String())});
  ASSERT_OK_AND_ASSIGN(
      auto rows, Build("{\"a\": 1, \"b\": \"x\", \"j\": {\"k\": [1]}, \"t\": true, \"z\": 0}\n"
                       "{\"b\": null, \"j\": \"s\", \"t\": {\"n\": 1}, \"a\": 2, \"a\": 3}\n",
                       schema, options, {}));
  EXPECT_EQ(rows, (std::vector<std::string>{"1|x|{\"k\": [1]}|true", "3|NULL|\"s\"|{\"n\": 1}"}));
  EXPECT_THAT(Build("[1]\n", schema, options, {}),
              IsErrorWith(StatusCode::kInvalidArgument, "f.csv:1: expected a JSON object, found an array"));
  EXPECT_THAT(Build("{\"a\": 1,}\n", schema, options, {}),
              IsErrorWith(StatusCode::kInvalidArgument, "f.csv:1: invalid input syntax for type json"));
  EXPECT_THAT(Build("{\"a\": 1.5}\n", schema, options, {}),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "f.csv:1: column \"a\": invalid input syntax for type bigint: \"1.5\""));
}

}  // namespace
}  // namespace floe::connector
