#include "floe/session/copy_statement.h"

#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <utility>

#include "floe/batch/pretty_print.h"
#include "floe/common/ascii.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/s3_file_io.h"
#include "fmt/format.h"

namespace floe::session {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         EqualsIgnoreAsciiCase(s.substr(s.size() - suffix.size()), suffix);
}

Result<bool> BoolValue(const sql::CopyOption& option) {
  if (!option.has_value) return true;
  const std::string v = AsciiLower(option.value);
  if (v == "true" || v == "on" || v == "1") return true;
  if (v == "false" || v == "off" || v == "0") return false;
  if (option.name == "header" && v == "match") {
    return Status::NotSupported("COPY HEADER MATCH is not supported (use HEADER true)");
  }
  return Status::Invalid("{} requires a Boolean value", option.name);
}

Result<char> OneByte(const sql::CopyOption& option, std::string_view what) {
  if (option.value.size() != 1 || option.star || !option.columns.empty()) {
    return Status::Invalid("COPY {} must be a single one-byte character", what);
  }
  return option.value[0];
}

}  // namespace

Result<CopyOptions> ParseCopyOptions(const sql::CopyStatement& copy) {
  CopyOptions out;
  std::set<std::string> seen;
  const sql::CopyOption* format = nullptr;
  for (const sql::CopyOption& option : copy.options) {
    if (!seen.insert(option.name).second) {
      return Status::Invalid("conflicting or redundant options: {}", option.name);
    }
    if (option.name == "format") format = &option;
  }
  // FORMAT, or the file's extension.
  std::string name;
  if (format != nullptr) {
    name = AsciiLower(format->value);
  } else if (EndsWith(copy.file, ".csv") || EndsWith(copy.file, ".tsv")) {
    name = "csv";
    if (EndsWith(copy.file, ".tsv")) out.csv.delimiter = '\t';
  } else if (EndsWith(copy.file, ".json") || EndsWith(copy.file, ".jsonl") ||
             EndsWith(copy.file, ".ndjson")) {
    name = "json";
  } else if (EndsWith(copy.file, ".parquet")) {
    name = "parquet";
  } else {
    return Status::NotSupported(
        "COPY's text format is not supported: name the format (FORMAT csv, json or parquet)");
  }
  if (name == "csv") {
    out.format = CopyFormat::kCsv;
  } else if (name == "json") {
    out.format = CopyFormat::kJson;
  } else if (name == "parquet") {
    out.format = CopyFormat::kParquet;
  } else if (name == "text" || name == "binary") {
    return Status::NotSupported("COPY format \"{}\" is not supported (csv, json or parquet)", name);
  } else {
    return Status::Invalid("COPY format \"{}\" not recognized", name);
  }
  const bool csv = out.format == CopyFormat::kCsv;
  bool escape_given = false;
  for (const sql::CopyOption& option : copy.options) {
    const std::string& o = option.name;
    auto csv_only = [&]() -> Status {
      if (!csv) return Status::Invalid("COPY {} available only in CSV mode", AsciiUpper(o));
      return Status::OK();
    };
    if (o == "format") continue;
    if (o == "header") {
      FLOE_RETURN_NOT_OK(csv_only());
      FLOE_ASSIGN_OR_RAISE(out.header, BoolValue(option));
    } else if (o == "delimiter") {
      FLOE_RETURN_NOT_OK(csv_only());
      FLOE_ASSIGN_OR_RAISE(out.csv.delimiter, OneByte(option, "delimiter"));
      if (out.csv.delimiter == '\n' || out.csv.delimiter == '\r') {
        return Status::Invalid("COPY delimiter cannot be newline or carriage return");
      }
    } else if (o == "null") {
      FLOE_RETURN_NOT_OK(csv_only());
      if (option.value.find_first_of("\r\n") != std::string::npos) {
        return Status::Invalid("COPY null representation cannot use newline or carriage return");
      }
      out.csv.null_text = option.value;
    } else if (o == "quote") {
      FLOE_RETURN_NOT_OK(csv_only());
      FLOE_ASSIGN_OR_RAISE(out.csv.quote, OneByte(option, "quote"));
    } else if (o == "escape") {
      FLOE_RETURN_NOT_OK(csv_only());
      FLOE_ASSIGN_OR_RAISE(out.csv.escape, OneByte(option, "escape"));
      escape_given = true;
    } else if (o == "force_quote") {
      FLOE_RETURN_NOT_OK(csv_only());
      if (copy.from) return Status::Invalid("COPY FORCE_QUOTE cannot be used with COPY FROM");
      out.force_quote_all = option.star;
      out.force_quote = option.columns;
      if (!option.star && option.columns.empty()) {
        return Status::Invalid("argument to option \"force_quote\" must be a list of column names");
      }
    } else if (o == "on_error") {
      if (!copy.from) return Status::Invalid("COPY ON_ERROR cannot be used with COPY TO");
      const std::string v = AsciiLower(option.value);
      if (v == "stop") {
        out.ignore_errors = false;
      } else if (v == "ignore") {
        out.ignore_errors = true;
      } else {
        return Status::Invalid("COPY ON_ERROR \"{}\" not recognized (stop or ignore)",
                               option.value);
      }
    } else if (o == "encoding") {
      const std::string v = AsciiLower(option.value);
      if (v != "utf8" && v != "utf-8" && v != "unicode") {
        return Status::NotSupported("COPY ENCODING '{}' is not supported (only UTF8)",
                                    option.value);
      }
    } else if (o == "compression") {
      if (out.format != CopyFormat::kParquet || copy.from) {
        return Status::Invalid("COPY COMPRESSION is for COPY TO ... (FORMAT parquet)");
      }
      out.compression = AsciiLower(option.value);
    } else if (o == "force_not_null" || o == "force_null" || o == "default" || o == "freeze") {
      return Status::NotSupported("COPY option {} is not supported", AsciiUpper(o));
    } else {
      return Status::Invalid("option \"{}\" not recognized", o);
    }
  }
  if (!escape_given) out.csv.escape = out.csv.quote;
  if (csv) {
    const connector::CsvDialect& d = out.csv;
    if (d.delimiter == d.quote) {
      return Status::Invalid("COPY delimiter and quote must be different");
    }
    if (d.null_text.find(d.delimiter) != std::string::npos) {
      return Status::Invalid("COPY delimiter must not appear in the NULL specification");
    }
    if (d.null_text.find(d.quote) != std::string::npos) {
      return Status::Invalid("CSV quote character must not appear in the NULL specification");
    }
  }
  return out;
}

Result<plan::TableSourcePtr> CopySource(const std::string& path, const CopyOptions& options,
                                        std::vector<Field> columns,
                                        std::shared_ptr<const io::FileIO> io) {
  if (options.format == CopyFormat::kParquet) {
    FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const connector::ParquetTable> table,
                         connector::ParquetTable::Make({path}, std::move(io)));
    return plan::TableSourcePtr(std::move(table));
  }
  connector::TextTableOptions text;
  text.scan.source = "COPY";
  text.scan.errors.ignore_errors = options.ignore_errors;
  text.columns = std::move(columns);
  connector::TextRecordOptions& records = text.scan.records;
  if (options.format == CopyFormat::kCsv) {
    records.format = connector::TextFormat::kCsv;
    records.csv = options.csv;
    text.header = options.header;
  } else {
    records.format = connector::TextFormat::kJson;
    records.max_record_bytes = 16 << 20;
    text.detect_json_layout = true;
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const connector::TextTable> table,
                       connector::TextTable::Make({path}, std::move(text), std::move(io)));
  return plan::TableSourcePtr(std::move(table));
}

Result<std::vector<int>> CopyColumnsByName(const Schema& file_schema,
                                           const std::vector<Field>& columns,
                                           const std::string& path) {
  std::vector<int> projection;
  for (const Field& column : columns) {
    int found = file_schema.GetFieldIndex(column.name());
    for (int c = 0; found < 0 && c < file_schema.num_fields(); ++c) {
      if (EqualsIgnoreAsciiCase(file_schema.field(c).name(), column.name())) found = c;
    }
    if (found < 0) {
      return Status::Invalid("COPY: '{}' has no column \"{}\"", path, column.name());
    }
    projection.push_back(found);
  }
  return projection;
}

namespace {

// Opens the output file: on S3 through `io`, else a local file.
Result<std::unique_ptr<io::OutputStream>> CreateOutput(const std::string& path,
                                                       const io::FileIO* io) {
  if (io::IsS3Path(path)) {
    const io::LocalFileIO local;
    return (io ? io : &local)->NewOutputFile(path);
  }
  return io::CreateLocalFile(path);
}

// The CSV and JSON writers write to a string stream; its bytes go to the file in large
// pieces. A file that is not closed is removed (a failed COPY leaves no partial file).
template <typename Writer>
class TextFileWriter final : public CopyFileWriter {
 public:
  using MakeWriter = std::function<std::unique_ptr<Writer>(std::ostream*)>;
  TextFileWriter(std::unique_ptr<io::OutputStream> out, std::string path, const MakeWriter& make)
      : out_(std::move(out)), path_(std::move(path)), writer_(make(&buffer_)) {}
  ~TextFileWriter() override {
    if (out_ == nullptr) return;
    out_.reset();
    if (!io::IsS3Path(path_)) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
    }
  }

  Status Write(const RecordBatch& batch) override {
    FLOE_RETURN_NOT_OK(writer_->Write(batch));
    return Drain(1 << 20);
  }
  Status Close() override {
    FLOE_RETURN_NOT_OK(writer_->Finish());
    FLOE_RETURN_NOT_OK(Drain(0));
    FLOE_RETURN_NOT_OK(out_->Close());
    out_.reset();
    return Status::OK();
  }

 private:
  Status Drain(int64_t at_least) {
    if (static_cast<int64_t>(buffer_.tellp()) < at_least) return Status::OK();
    const std::string bytes = std::move(buffer_).str();
    buffer_.str(std::string());
    buffer_.clear();
    return out_->Write(bytes);
  }

  std::unique_ptr<io::OutputStream> out_;
  std::string path_;
  std::ostringstream buffer_;
  std::unique_ptr<Writer> writer_;
};

class ParquetCopyWriter final : public CopyFileWriter {
 public:
  ParquetCopyWriter(std::unique_ptr<parquet::ParquetFileWriter> writer, std::string path)
      : writer_(std::move(writer)), path_(std::move(path)) {}
  ~ParquetCopyWriter() override {
    if (writer_ == nullptr) return;
    writer_.reset();
    if (!io::IsS3Path(path_)) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
    }
  }
  Status Write(const RecordBatch& batch) override { return writer_->Write(batch); }
  Status Close() override {
    FLOE_RETURN_NOT_OK(writer_->Close().status());
    writer_.reset();
    return Status::OK();
  }

 private:
  std::unique_ptr<parquet::ParquetFileWriter> writer_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<CopyFileWriter>> CopyFileWriter::Open(const std::string& path,
                                                             const CopyOptions& options,
                                                             SchemaPtr schema,
                                                             const io::FileIO* io,
                                                             int extra_float_digits) {
  if (path.empty()) return Status::NotSupported("COPY TO STDOUT is not supported (name a file)");
  if (options.format == CopyFormat::kParquet) {
    parquet::WriterOptions writer_options;
    writer_options.compression = options.compression;
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::OutputStream> out, CreateOutput(path, io));
    Result<std::unique_ptr<parquet::ParquetFileWriter>> writer =
        parquet::ParquetFileWriter::Open(std::move(out), std::move(schema), writer_options);
    if (!writer.ok()) {
      if (!io::IsS3Path(path)) {
        std::error_code ec;
        std::filesystem::remove(path, ec);
      }
      return writer.status();
    }
    return std::unique_ptr<CopyFileWriter>(
        std::make_unique<ParquetCopyWriter>(std::move(*writer), path));
  }
  if (options.format == CopyFormat::kCsv) {
    CsvOptions csv;
    csv.header = options.header;
    csv.delimiter = options.csv.delimiter;
    csv.null_text = options.csv.null_text;
    csv.quote = options.csv.quote;
    csv.escape = options.csv.escape;
    csv.extra_float_digits = extra_float_digits;
    csv.force_quote.assign(static_cast<size_t>(schema->num_fields()), options.force_quote_all);
    for (const std::string& name : options.force_quote) {
      const int c = schema->GetFieldIndex(name);
      if (c < 0) return Status::Invalid("FORCE_QUOTE column \"{}\" not referenced by COPY", name);
      csv.force_quote[static_cast<size_t>(c)] = true;
    }
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::OutputStream> out, CreateOutput(path, io));
    return std::unique_ptr<CopyFileWriter>(std::make_unique<TextFileWriter<CsvWriter>>(
        std::move(out), path,
        [&](std::ostream* buffer) { return std::make_unique<CsvWriter>(schema, buffer, csv); }));
  }
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::OutputStream> out, CreateOutput(path, io));
  return std::unique_ptr<CopyFileWriter>(
      std::make_unique<TextFileWriter<JsonLinesWriter>>(std::move(out), path, [&](std::ostream* buffer) {
        return std::make_unique<JsonLinesWriter>(schema, buffer);
      }));
}

}  // namespace floe::session
