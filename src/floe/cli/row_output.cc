#include "floe/cli/row_output.h"

#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "floe/batch/pretty_print.h"
#include "floe/batch/value_format.h"

namespace floe::cli {

namespace {

Status CheckStream(const std::ostream& out) {
  if (!out) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

/// The table and CSV printers: a pretty_print writer, flushed and checked at the end.
template <typename Writer>
class WriterPrinter final : public RowPrinter {
 public:
  WriterPrinter(SchemaPtr schema, std::ostream* out, int extra_float_digits)
      : writer_(std::move(schema), out, Options(extra_float_digits)), out_(out) {}
  Status Write(const RecordBatch& batch) override { return writer_.Write(batch); }
  static auto Options(int extra_float_digits) {
    std::conditional_t<std::is_same_v<Writer, TableWriter>, TableOptions, CsvOptions> options;
    options.extra_float_digits = extra_float_digits;
    return options;
  }
  Status Finish() override {
    FLOE_RETURN_NOT_OK(writer_.Finish());
    out_->flush();
    return CheckStream(*out_);
  }

 private:
  Writer writer_;
  std::ostream* out_;
};

/// Rows as JSON objects, one per line, keyed by column name (JsonLinesWriter).
class JsonLinesPrinter final : public RowPrinter {
 public:
  JsonLinesPrinter(SchemaPtr schema, std::ostream* out) : writer_(std::move(schema), out) {}
  Status Write(const RecordBatch& batch) override { return writer_.Write(batch); }
  Status Finish() override { return writer_.Finish(); }

 private:
  JsonLinesWriter writer_;
};

}  // namespace

Status RowPrinter::WriteStream(RecordBatchReader& stream, int64_t* remaining) {
  while (*remaining > 0) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream.Next());
    if (!batch) break;
    if (batch->num_rows() > *remaining) batch = batch->Slice(0, *remaining);
    *remaining -= batch->num_rows();
    FLOE_RETURN_NOT_OK(Write(*batch));
  }
  return Status::OK();
}

Result<std::unique_ptr<RowPrinter>> RowPrinter::Make(std::string_view format, SchemaPtr schema,
                                                     std::ostream* out, int extra_float_digits) {
  if (format == "table") {
    return std::make_unique<WriterPrinter<TableWriter>>(std::move(schema), out,
                                                        extra_float_digits);
  }
  if (format == "csv") {
    return std::make_unique<WriterPrinter<CsvWriter>>(std::move(schema), out, extra_float_digits);
  }
  if (format == "jsonl") return std::make_unique<JsonLinesPrinter>(std::move(schema), out);
  return Status::Invalid("unknown --format '{}' (table, csv or jsonl)", format);
}

}  // namespace floe::cli
