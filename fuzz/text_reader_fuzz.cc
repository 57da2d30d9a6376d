// libFuzzer target over the CSV and JSON readers of read_csv / read_json / COPY FROM: the
// first input byte picks the format and options (CSV or JSON, lines or array, the delimiter,
// a backslash escape, a header, whether errors are ignored), the rest is the file, opened
// with io::MakeBufferFile over libFuzzer's own buffer (so AddressSanitizer sees every read past
// the input). The first records are sniffed for columns and types as TextTable does, every
// record is read into typed batches, and the file is read once more from a record start the
// split planner finds in its middle. Any error Status is fine; a crash, sanitizer report,
// leak, hang or a record bigger than the reader's limit is a bug.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/connector/text/csv_tokenizer.h"
#include "floe/connector/text/text_batch_builder.h"
#include "floe/connector/text/text_reader.h"
#include "floe/connector/text/text_sniffer.h"
#include "floe/expr/json.h"
#include "floe/io/file.h"

namespace {

using namespace floe;
using namespace floe::connector;

constexpr int64_t kMaxRecordBytes = 4096;
constexpr int64_t kSampleRows = 64;
constexpr int64_t kBatchRows = 64;

// The file's columns from its first records, as TextTable::Make decides them.
SchemaPtr SniffSchema(const std::shared_ptr<io::RandomAccessFile>& file,
                      TextRecordOptions options) {
  options.header = false;
  TextFileRange range;
  range.path = "fuzz";
  auto reader = TextRecordReader::Open(file, range, options);
  if (!reader.ok()) return nullptr;
  std::vector<Field> fields;
  if (options.format == TextFormat::kCsv) {
    std::vector<SampleRow> rows;
    while (static_cast<int64_t>(rows.size()) < kSampleRows) {
      auto more = (*reader)->Next();
      if (!more.ok() || !*more || !(*reader)->record_status().ok()) break;
      const CsvTokenizer& t = (*reader)->csv();
      SampleRow row;
      for (int i = 0; i < t.num_fields(); ++i) {
        row.emplace_back(t.is_null(i) ? std::nullopt : std::optional<std::string>(t.field(i)));
      }
      rows.push_back(std::move(row));
    }
    CsvSniffResult sniffed = SniffCsv(rows, std::nullopt, false);
    for (size_t c = 0; c < sniffed.names.size() && c < 64; ++c) {
      fields.emplace_back(sniffed.names[c], sniffed.types[c], true);
    }
  } else {
    JsonSniffer sniffer;
    for (int64_t n = 0; n < kSampleRows; ++n) {
      auto more = (*reader)->Next();
      if (!more.ok() || !*more) break;
      if (!(*reader)->record_status().ok()) continue;
      auto value = expr::ParseJson((*reader)->json_text(), false);
      if (value.ok() && value->kind == expr::JsonKind::kObject) sniffer.Add(*value);
    }
    std::vector<std::string> names = sniffer.names();
    std::vector<TypePtr> types = sniffer.types();
    for (size_t c = 0; c < names.size() && c < 64; ++c) fields.emplace_back(names[c], types[c], true);
  }
  if (fields.empty()) fields.emplace_back("column0", String(), true);
  return std::make_shared<const Schema>(std::move(fields));
}

// Reads `range` into batches of `schema` and formats every value.
void ReadAll(const std::shared_ptr<io::RandomAccessFile>& file, const TextFileRange& range,
             const TextRecordOptions& options, const SchemaPtr& schema, bool ignore_errors) {
  auto reader = TextRecordReader::Open(file, range, options);
  if (!reader.ok()) return;
  std::vector<int> all;
  for (int c = 0; c < schema->num_fields(); ++c) all.push_back(c);
  TextErrorPolicy policy;
  policy.ignore_errors = ignore_errors;
  auto builder = TextBatchBuilder::Make(schema, all, options.format, policy, DefaultMemoryPool());
  if (!builder.ok()) return;
  std::string scratch;
  auto drain = [&]() -> bool {
    auto batch = (*builder)->Finish();
    if (!batch.ok()) return false;
    for (int c = 0; c < (*batch)->num_columns(); ++c) {
      for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
        scratch.clear();
        AppendJsonValue(*(*batch)->column(c), r, &scratch);
      }
    }
    return true;
  };
  while (true) {
    auto more = (*reader)->Next();
    if (!more.ok() || !*more) break;
    if (!(*builder)->Append(**reader).ok()) return;
    if ((*builder)->rows() >= kBatchRows && !drain()) return;
  }
  drain();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  BufferPtr bytes = Buffer::Wrap(data + 1, static_cast<int64_t>(size - 1),
                                 std::shared_ptr<const void>());
  std::shared_ptr<io::RandomAccessFile> file = io::MakeBufferFile(bytes, "fuzz");

  TextRecordOptions options;
  options.format = (flags & 1) ? TextFormat::kJson : TextFormat::kCsv;
  options.json_layout = (flags & 2) ? JsonLayout::kArray : JsonLayout::kLines;
  if (flags & 4) options.csv.escape = '\\';
  static constexpr char kDelimiters[] = {',', ';', '\t', '|'};
  options.csv.delimiter = kDelimiters[(flags >> 3) & 3];
  options.max_record_bytes = kMaxRecordBytes;
  const bool ignore_errors = (flags & 64) != 0;

  SchemaPtr schema = SniffSchema(file, options);
  if (schema == nullptr) return 0;
  options.header = options.format == TextFormat::kCsv && (flags & 32) != 0;
  TextFileRange whole;
  whole.path = "fuzz";
  ReadAll(file, whole, options, schema, ignore_errors);

  // Split where the planner would, and read the second half from its record start.
  if (options.format == TextFormat::kCsv || options.json_layout == JsonLayout::kLines) {
    CsvDialect dialect = options.csv;
    if (options.format == TextFormat::kJson) dialect.quote = '\0';
    CsvRecordStarts starts(dialect);
    starts.Want(static_cast<int64_t>(size / 2) + 1);
    starts.Feed(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
    for (const CsvRecordStarts::Start& start : starts.found()) {
      TextFileRange rest;
      rest.path = "fuzz";
      rest.begin = start.offset;
      rest.first_line = start.line;
      if (start.offset < static_cast<int64_t>(size - 1)) {
        ReadAll(file, rest, options, schema, ignore_errors);
      }
    }
  }
  return 0;
}
