#pragma once

// Rows of CSV and JSON records into typed record batches. Values are gathered as text and
// converted by the engine's casts from text (expr: PostgreSQL's input forms and messages), a
// column at a time. A record or value that cannot be read is an error naming the file, the
// line and the column:
//
//   data.csv:17: column "price": invalid input syntax for type bigint: "12x"
//   data.csv:20: missing data for column "c"
//   data.jsonl:3: invalid input syntax for type json: ...
//
// or, when errors are ignored, a row left out and counted.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/builder.h"
#include "floe/common/memory_pool.h"
#include "floe/common/result.h"
#include "floe/connector/text/text_reader.h"
#include "floe/expr/physical_expr.h"

namespace floe::connector {

/// What the builder does with a record or value it cannot read.
struct TextErrorPolicy {
  /// Leave the row out and count it (rejected()) instead of failing.
  bool ignore_errors = false;
  /// Added to a conversion error of a column whose type was inferred: where the type came
  /// from and how to give another (" (the type was inferred from ...)"); empty for none.
  std::string inferred_hint;
};

class TextBatchBuilder {
 public:
  /// `file_schema`: every column of the file, in file order (CSV by position, JSON by key);
  /// `projection`: the columns the batches hold (indexes into file_schema). kNotSupported for a
  /// column type text cannot be cast to.
  static Result<std::unique_ptr<TextBatchBuilder>> Make(SchemaPtr file_schema,
                                                        std::vector<int> projection,
                                                        TextFormat format, TextErrorPolicy policy,
                                                        MemoryPool* pool);

  /// Adds the reader's current record as a row. A malformed record (its reader's status, a
  /// CSV record with too few or too many fields, a JSON record that is not an object) is the
  /// error, or left out. A CSV empty line is a row of one NULL for a one-column file and no
  /// row otherwise. When the record is an error, a value error in an earlier row comes first.
  Status Append(const TextRecordReader& reader);

  int64_t rows() const { return static_cast<int64_t>(lines_.size()); }
  /// Text bytes gathered for the pending rows.
  int64_t bytes() const { return bytes_; }

  /// The pending rows as one batch of the projected columns, converted to their types, and
  /// starts anew. The first value that does not convert (by line, then column) is the error,
  /// or its row is left out.
  Result<RecordBatchPtr> Finish();

  /// Rows left out so far, and what was wrong with the first of them (by file, then line).
  int64_t rejected() const { return rejected_; }
  const std::string& first_rejection() const { return first_rejection_; }

 private:
  TextBatchBuilder() = default;
  Status Reject(const std::string& path, int64_t line, std::string message);
  // Keeps `message` when its row (file sequence, line) is the first left out so far.
  void NoteRejection(int file, int64_t line, std::string message);
  Status AppendCsv(const TextRecordReader& reader);
  Status AppendJson(const TextRecordReader& reader);
  // The rows' values of output column p, converted; rows failing are noted in `bad` (all of
  // them, or only the first when `first_only`) with their messages.
  Status FindBadRows(size_t p, const ArrayPtr& text, int64_t lo, int64_t hi, bool first_only,
                     std::vector<std::pair<int64_t, Status>>* bad) const;
  Result<ArrayPtr> Convert(size_t p, const ArrayPtr& text) const;
  Status ColumnError(size_t p, int64_t row, const Status& status) const;

  SchemaPtr file_schema_;
  std::vector<int> projection_;
  SchemaPtr output_schema_;
  SchemaPtr text_schema_;  // one text column: what the casts read
  TextFormat format_ = TextFormat::kCsv;
  TextErrorPolicy policy_;
  MemoryPool* pool_ = nullptr;
  // One text builder per projected column, and the cast of its text to the column's type
  // (null for text columns).
  std::vector<std::unique_ptr<BinaryBuilder>> builders_;
  std::vector<expr::PhysicalExprPtr> casts_;
  std::vector<int> output_of_file_;  // file column -> its output index, or -1
  std::unordered_map<std::string, int> json_columns_;  // JSON key -> file column
  std::vector<bool> json_raw_;                          // output column takes raw JSON text
  // Per pending row: its line and file (an index into paths_, the files in the order they
  // were read).
  std::vector<int64_t> lines_;
  std::vector<int> paths_of_rows_;
  std::vector<std::string> paths_;
  int64_t bytes_ = 0;
  int64_t rejected_ = 0;
  std::string first_rejection_;
  std::pair<int, int64_t> first_rejection_at_{0, 0};
  // JSON scratch: the item of each output column in the current object.
  std::vector<int> json_items_;
};

}  // namespace floe::connector
