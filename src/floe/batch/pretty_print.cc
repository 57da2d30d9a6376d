#include "floe/batch/pretty_print.h"

#include <algorithm>
#include <sstream>

#include "floe/batch/utf8.h"
#include "floe/batch/value_format.h"

namespace floe {

namespace {

// Display width in code points (UTF-8 continuation bytes do not count).
int64_t DisplayWidth(std::string_view s) { return CountCodePoints(s); }

bool IsRightAligned(const DataType& type) {
  return type.is_integer() || type.is_floating() || type.id() == TypeId::kDecimal ||
         type.is_numeric();
}

Status CheckColumns(const Schema& schema, const RecordBatch& batch) {
  if (batch.num_columns() != schema.num_fields()) {
    return Status::Invalid("a batch of {} columns for a table of {} columns", batch.num_columns(),
                           schema.num_fields());
  }
  return Status::OK();
}

Status CheckStream(const std::ostream& out) {
  if (!out.good()) return Status::IOError("writing the output stream failed");
  return Status::OK();
}

}  // namespace

// TableWriter ------------------------------------------------------------------------

TableWriter::TableWriter(SchemaPtr schema, std::ostream* out, TableOptions options)
    : schema_(std::move(schema)), out_(out), options_(std::move(options)) {
  for (const Field& f : schema_->fields()) widths_.push_back(DisplayWidth(f.name()));
}

void TableWriter::WriteHeader() {
  std::string line;
  std::string sep;
  const int n = schema_->num_fields();
  for (int j = 0; j < n; ++j) {
    const std::string& name = schema_->field(j).name();
    const int64_t pad = widths_[static_cast<size_t>(j)] - DisplayWidth(name);
    line += j == 0 ? " " : "| ";
    line.append(static_cast<size_t>(pad / 2), ' ');
    line += name;
    line.append(static_cast<size_t>((pad + 1) / 2), ' ');
    line += ' ';
    if (j > 0) sep += '+';
    sep.append(static_cast<size_t>(widths_[static_cast<size_t>(j)] + 2), '-');
  }
  *out_ << line << '\n' << sep << '\n';
  header_written_ = true;
}

Status TableWriter::Write(const RecordBatch& batch) {
  FLOE_RETURN_NOT_OK(CheckColumns(*schema_, batch));
  const int n = batch.num_columns();
  const int64_t rows = batch.num_rows();
  FormatOptions fmt{options_.null_text, options_.extra_float_digits};
  // Format every cell once, measuring as we go.
  std::vector<std::vector<std::string>> cells(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    auto& col = cells[static_cast<size_t>(j)];
    col.resize(static_cast<size_t>(rows));
    const Array& a = *batch.column(j);
    int64_t& w = widths_[static_cast<size_t>(j)];
    for (int64_t i = 0; i < rows; ++i) {
      AppendValueText(a, i, &col[static_cast<size_t>(i)], fmt);
      w = std::max(w, DisplayWidth(col[static_cast<size_t>(i)]));
    }
  }
  if (!header_written_) WriteHeader();
  std::string line;
  for (int64_t i = 0; i < rows; ++i) {
    line.clear();
    for (int j = 0; j < n; ++j) {
      const std::string& cell = cells[static_cast<size_t>(j)][static_cast<size_t>(i)];
      const auto pad = static_cast<size_t>(widths_[static_cast<size_t>(j)] - DisplayWidth(cell));
      const bool last = j == n - 1;
      line += j == 0 ? " " : "| ";
      if (IsRightAligned(*batch.column(j)->type())) {
        line.append(pad, ' ');
        line += cell;
      } else {
        line += cell;
        if (!last) line.append(pad, ' ');
      }
      if (!last) line += ' ';
    }
    line += '\n';
    *out_ << line;
  }
  rows_ += rows;
  return CheckStream(*out_);
}

Status TableWriter::Finish() {
  if (!header_written_) WriteHeader();
  if (options_.footer) *out_ << '(' << rows_ << (rows_ == 1 ? " row)" : " rows)") << '\n';
  return CheckStream(*out_);
}

std::string PrettyPrint(const RecordBatch& batch, const TableOptions& options) {
  std::ostringstream out;
  TableWriter writer(batch.schema(), &out, options);
  // A batch always matches its own schema and a string stream does not fail.
  (void)writer.Write(batch);
  (void)writer.Finish();
  return std::move(out).str();
}

// CsvWriter --------------------------------------------------------------------------

CsvWriter::CsvWriter(SchemaPtr schema, std::ostream* out, CsvOptions options)
    : schema_(std::move(schema)), out_(out), options_(std::move(options)) {}

void CsvWriter::AppendField(std::string_view text, bool is_null, bool force,
                            std::string* line) const {
  if (is_null) {
    *line += options_.null_text;
    return;
  }
  const char quote_char = options_.quote;
  bool quote = force || text == options_.null_text;
  for (char c : text) {
    if (c == options_.delimiter || c == quote_char || c == '\r' || c == '\n') {
      quote = true;
      break;
    }
  }
  if (!quote) {
    line->append(text);
    return;
  }
  *line += quote_char;
  for (char c : text) {
    if (c == quote_char || (c == options_.escape && options_.escape != quote_char)) {
      *line += options_.escape;
    }
    *line += c;
  }
  *line += quote_char;
}

void CsvWriter::WriteHeader() {
  header_written_ = true;
  if (!options_.header) return;
  std::string line;
  for (int j = 0; j < schema_->num_fields(); ++j) {
    if (j > 0) line += options_.delimiter;
    AppendField(schema_->field(j).name(), false, false, &line);
  }
  line += options_.line_ending;
  *out_ << line;
}

Status CsvWriter::Write(const RecordBatch& batch) {
  FLOE_RETURN_NOT_OK(CheckColumns(*schema_, batch));
  if (!header_written_) WriteHeader();
  std::string line;
  std::string text;
  FormatOptions fmt;
  fmt.extra_float_digits = options_.extra_float_digits;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    line.clear();
    for (int j = 0; j < batch.num_columns(); ++j) {
      if (j > 0) line += options_.delimiter;
      const Array& a = *batch.column(j);
      const bool is_null = a.IsNull(i);
      text.clear();
      if (!is_null) AppendValueText(a, i, &text, fmt);
      const bool force = static_cast<size_t>(j) < options_.force_quote.size() &&
                         options_.force_quote[static_cast<size_t>(j)];
      AppendField(text, is_null, force, &line);
    }
    line += options_.line_ending;
    *out_ << line;
  }
  return CheckStream(*out_);
}

Status CsvWriter::Finish() {
  if (!header_written_) WriteHeader();
  out_->flush();
  return CheckStream(*out_);
}

// JsonLinesWriter ----------------------------------------------------------------------

JsonLinesWriter::JsonLinesWriter(SchemaPtr schema, std::ostream* out)
    : schema_(std::move(schema)), out_(out) {
  for (const Field& f : schema_->fields()) {
    std::string key;
    AppendJsonString(f.name(), &key);
    key += ':';
    keys_.push_back(std::move(key));
  }
}

Status JsonLinesWriter::Write(const RecordBatch& batch) {
  FLOE_RETURN_NOT_OK(CheckColumns(*schema_, batch));
  constexpr size_t kFlushBytes = 1 << 20;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    buffer_ += '{';
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) buffer_ += ',';
      buffer_ += keys_[static_cast<size_t>(c)];
      AppendJsonValue(*batch.column(c), r, &buffer_);
    }
    buffer_ += "}\n";
    if (buffer_.size() >= kFlushBytes) FLOE_RETURN_NOT_OK(Flush());
  }
  return Status::OK();
}

Status JsonLinesWriter::Flush() {
  out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
  return CheckStream(*out_);
}

Status JsonLinesWriter::Finish() {
  FLOE_RETURN_NOT_OK(Flush());
  out_->flush();
  return CheckStream(*out_);
}

std::string FormatCsv(const RecordBatch& batch, const CsvOptions& options) {
  std::ostringstream out;
  CsvWriter writer(batch.schema(), &out, options);
  (void)writer.Write(batch);
  (void)writer.Finish();
  return std::move(out).str();
}

}  // namespace floe
