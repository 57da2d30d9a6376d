#include "floe/connector/text/text_batch_builder.h"

#include <algorithm>
#include <utility>

#include "floe/batch/select.h"
#include "floe/batch/utf8.h"
#include "floe/expr/function_registry.h"
#include "floe/expr/json.h"
#include "floe/type/sql_type_name.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

bool IsPlainText(const DataType& type) {
  return type.id() == TypeId::kString && type.extension() == Extension::kNone;
}

Status InvalidUtf8(std::string_view value) {
  const size_t at = InvalidUtf8Offset(value);
  return Status::Invalid("invalid byte sequence for encoding \"UTF8\": 0x{:02x}",
                         static_cast<uint8_t>(value[at]));
}

}  // namespace

Result<std::unique_ptr<TextBatchBuilder>> TextBatchBuilder::Make(SchemaPtr file_schema,
                                                                 std::vector<int> projection,
                                                                 TextFormat format,
                                                                 TextErrorPolicy policy,
                                                                 MemoryPool* pool) {
  auto builder = std::unique_ptr<TextBatchBuilder>(new TextBatchBuilder());
  std::vector<Field> fields;
  builder->output_of_file_.assign(static_cast<size_t>(file_schema->num_fields()), -1);
  builder->text_schema_ =
      std::make_shared<const Schema>(std::vector<Field>{Field("value", String(), true)});
  for (size_t p = 0; p < projection.size(); ++p) {
    const int c = projection[p];
    if (c < 0 || c >= file_schema->num_fields()) {
      return Status::Internal("text scan: column {} of {}", c, file_schema->num_fields());
    }
    const Field& field = file_schema->field(c);
    fields.emplace_back(field.name(), field.type(), true);
    builder->output_of_file_[static_cast<size_t>(c)] = static_cast<int>(p);
    if (IsPlainText(*field.type())) {
      builder->casts_.push_back(nullptr);
    } else {
      if (!expr::CanExplicitCast(*String(), *field.type())) {
        return Status::NotSupported("column \"{}\": {} values cannot be read from text",
                                    field.name(), SqlTypeName(*field.type()));
      }
      FLOE_ASSIGN_OR_RAISE(expr::PhysicalExprPtr cast,
                           expr::Compile(expr::Cast(expr::Column(0, "value", String()), field.type()),
                                         builder->text_schema_));
      builder->casts_.push_back(std::move(cast));
    }
    builder->json_raw_.push_back(field.type()->is_json());
    builder->builders_.push_back(std::make_unique<BinaryBuilder>(String(), pool));
  }
  for (int c = 0; c < file_schema->num_fields(); ++c) {
    builder->json_columns_.emplace(file_schema->field(c).name(), c);
  }
  builder->output_schema_ = std::make_shared<const Schema>(std::move(fields));
  builder->file_schema_ = std::move(file_schema);
  builder->projection_ = std::move(projection);
  builder->format_ = format;
  builder->policy_ = std::move(policy);
  builder->pool_ = pool;
  return builder;
}

void TextBatchBuilder::NoteRejection(int file, int64_t line, std::string message) {
  const std::pair<int, int64_t> where{file, line};
  if (rejected_ == 0 || where < first_rejection_at_) {
    first_rejection_at_ = where;
    first_rejection_ = std::move(message);
  }
}

Status TextBatchBuilder::Reject(const std::string& path, int64_t line, std::string message) {
  std::string full = fmt::format("{}:{}: {}", path, line, message);
  if (policy_.ignore_errors) {
    if (paths_.empty() || paths_.back() != path) paths_.push_back(path);
    NoteRejection(static_cast<int>(paths_.size()) - 1, line, std::move(full));
    ++rejected_;
    return Status::OK();
  }
  // An earlier row's bad value is the first error.
  FLOE_RETURN_NOT_OK(Finish().status());
  return Status::Invalid("{}", full);
}

Status TextBatchBuilder::Append(const TextRecordReader& reader) {
  if (!reader.record_status().ok()) {
    return Reject(reader.path(), reader.line(), reader.record_status().message());
  }
  Status st = format_ == TextFormat::kCsv ? AppendCsv(reader) : AppendJson(reader);
  return st;
}

Status TextBatchBuilder::AppendCsv(const TextRecordReader& reader) {
  const CsvTokenizer& t = reader.csv();
  const int columns = file_schema_->num_fields();
  if (t.empty_line() && columns != 1) return Status::OK();
  if (t.num_fields() < columns) {
    return Reject(reader.path(), reader.line(),
                  fmt::format("missing data for column \"{}\"",
                              file_schema_->field(t.num_fields()).name()));
  }
  if (t.num_fields() > columns) {
    return Reject(reader.path(), reader.line(), "extra data after last expected column");
  }
  for (size_t p = 0; p < projection_.size(); ++p) {
    const int c = projection_[p];
    if (t.is_null(c)) {
      FLOE_RETURN_NOT_OK(builders_[p]->AppendNull());
    } else {
      const std::string_view value = t.field(c);
      FLOE_RETURN_NOT_OK(builders_[p]->Append(value));
      bytes_ += static_cast<int64_t>(value.size());
    }
  }
  if (paths_.empty() || paths_.back() != reader.path()) paths_.push_back(reader.path());
  paths_of_rows_.push_back(static_cast<int>(paths_.size()) - 1);
  lines_.push_back(reader.line());
  return Status::OK();
}

Status TextBatchBuilder::AppendJson(const TextRecordReader& reader) {
  const std::string_view text = reader.json_text();
  Result<expr::JsonValue> parsed = expr::ParseJson(text, /*jsonb=*/false);
  if (!parsed.ok()) return Reject(reader.path(), reader.line(), parsed.status().message());
  const expr::JsonValue& object = *parsed;
  if (object.kind != expr::JsonKind::kObject) {
    return Reject(reader.path(), reader.line(),
                  fmt::format("expected a JSON object, found {} {}",
                              object.kind == expr::JsonKind::kArray ? "an" : "a",
                              expr::JsonKindName(object.kind)));
  }
  json_items_.assign(projection_.size(), -1);
  for (size_t k = 0; k < object.keys.size(); ++k) {
    auto it = json_columns_.find(object.keys[k]);
    if (it == json_columns_.end()) continue;
    const int p = output_of_file_[static_cast<size_t>(it->second)];
    if (p >= 0) json_items_[static_cast<size_t>(p)] = static_cast<int>(k);  // the last one wins
  }
  for (size_t p = 0; p < projection_.size(); ++p) {
    const int k = json_items_[p];
    const expr::JsonValue* value = k < 0 ? nullptr : &object.items[static_cast<size_t>(k)];
    if (value == nullptr || value->kind == expr::JsonKind::kNull) {
      FLOE_RETURN_NOT_OK(builders_[p]->AppendNull());
      continue;
    }
    std::string_view out;
    if (json_raw_[p] || value->is_container()) {
      out = text.substr(value->begin, value->end - value->begin);
    } else if (value->kind == expr::JsonKind::kBool) {
      out = value->boolean ? "true" : "false";
    } else {
      out = value->text;
    }
    FLOE_RETURN_NOT_OK(builders_[p]->Append(out));
    bytes_ += static_cast<int64_t>(out.size());
  }
  if (paths_.empty() || paths_.back() != reader.path()) paths_.push_back(reader.path());
  paths_of_rows_.push_back(static_cast<int>(paths_.size()) - 1);
  lines_.push_back(reader.line());
  return Status::OK();
}

Result<ArrayPtr> TextBatchBuilder::Convert(size_t p, const ArrayPtr& text) const {
  if (!casts_[p]) {
    const BufferPtr& data = text->buffer(2);
    if (data && text->length() > 0) {
      const int32_t* offsets = text->value_offsets();
      const int64_t begin = offsets[0];
      const int64_t end = offsets[text->length()];
      if (!IsValidUtf8(data->data() + begin, end - begin)) {
        return Status::Invalid("invalid byte sequence for encoding \"UTF8\"");
      }
    }
    return text;
  }
  FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                       RecordBatch::Make(text_schema_, text->length(), {text}));
  expr::EvalContext ctx;
  ctx.pool = pool_;
  return expr::EvaluateToArray(*casts_[p], *batch, ctx);
}

Status TextBatchBuilder::FindBadRows(size_t p, const ArrayPtr& text, int64_t lo, int64_t hi,
                                     bool first_only,
                                     std::vector<std::pair<int64_t, Status>>* bad) const {
  if (lo >= hi) return Status::OK();
  if (!casts_[p]) {
    for (int64_t r = lo; r < hi; ++r) {
      if (text->IsNull(r)) continue;
      const std::string_view value = text->BytesValue(r);
      if (!IsValidUtf8(value)) {
        bad->emplace_back(r, InvalidUtf8(value));
        if (first_only) return Status::OK();
      }
    }
    return Status::OK();
  }
  // Halves that convert hold no bad row: the search costs a conversion per bad row and level.
  Result<ArrayPtr> converted = Convert(p, text->Slice(lo, hi - lo));
  if (converted.ok()) return Status::OK();
  if (hi - lo == 1) {
    bad->emplace_back(lo, converted.status());
    return Status::OK();
  }
  const int64_t mid = lo + (hi - lo) / 2;
  const size_t before = bad->size();
  FLOE_RETURN_NOT_OK(FindBadRows(p, text, lo, mid, first_only, bad));
  if (first_only && bad->size() > before) return Status::OK();
  return FindBadRows(p, text, mid, hi, first_only, bad);
}

Status TextBatchBuilder::ColumnError(size_t p, int64_t row, const Status& status) const {
  const std::string& path = paths_[static_cast<size_t>(paths_of_rows_[static_cast<size_t>(row)])];
  std::string hint = casts_[p] ? policy_.inferred_hint : std::string();
  return Status::Invalid("{}:{}: column \"{}\": {}{}", path, lines_[static_cast<size_t>(row)],
                         output_schema_->field(static_cast<int>(p)).name(), status.message(),
                         hint);
}

Result<RecordBatchPtr> TextBatchBuilder::Finish() {
  const int64_t n = rows();
  std::vector<ArrayPtr> texts;
  for (size_t p = 0; p < builders_.size(); ++p) {
    FLOE_ASSIGN_OR_RAISE(ArrayPtr text, builders_[p]->Finish());
    builders_[p] = std::make_unique<BinaryBuilder>(String(), pool_);
    texts.push_back(std::move(text));
  }
  // The pending rows' lines name the errors; they are cleared once the batch is done.
  auto finish = [&]() -> Result<RecordBatchPtr> {
    std::vector<ArrayPtr> columns(texts.size());
    std::vector<bool> failed(texts.size(), false);
    if (!policy_.ignore_errors) {
      int64_t best_row = -1;
      size_t best_column = 0;
      Status best;
      for (size_t p = 0; p < texts.size(); ++p) {
        Result<ArrayPtr> converted = Convert(p, texts[p]);
        if (converted.ok()) {
          columns[p] = std::move(*converted);
          continue;
        }
        std::vector<std::pair<int64_t, Status>> bad;
        FLOE_RETURN_NOT_OK(FindBadRows(p, texts[p], 0, n, /*first_only=*/true, &bad));
        if (bad.empty()) return converted.status();  // fails as a whole only: say so
        if (best_row < 0 || bad[0].first < best_row) {
          best_row = bad[0].first;
          best_column = p;
          best = bad[0].second;
        }
      }
      if (best_row >= 0) return ColumnError(best_column, best_row, best);
      return RecordBatch::Make(output_schema_, n, std::move(columns));
    }
    std::vector<uint8_t> bad_rows(static_cast<size_t>(n), 0);
    int64_t bad_count = 0;
    for (size_t p = 0; p < texts.size(); ++p) {
      Result<ArrayPtr> converted = Convert(p, texts[p]);
      if (converted.ok()) {
        columns[p] = std::move(*converted);
        continue;
      }
      failed[p] = true;
      std::vector<std::pair<int64_t, Status>> bad;
      FLOE_RETURN_NOT_OK(FindBadRows(p, texts[p], 0, n, /*first_only=*/false, &bad));
      if (bad.empty()) return converted.status();
      for (const auto& [row, status] : bad) {
        if (bad_rows[static_cast<size_t>(row)]) continue;
        bad_rows[static_cast<size_t>(row)] = 1;
        ++bad_count;
        NoteRejection(paths_of_rows_[static_cast<size_t>(row)], lines_[static_cast<size_t>(row)],
                      ColumnError(p, row, status).message());
        ++rejected_;
      }
    }
    if (bad_count == 0) return RecordBatch::Make(output_schema_, n, std::move(columns));
    BooleanBuilder keep(pool_);
    FLOE_RETURN_NOT_OK(keep.Reserve(n));
    for (int64_t r = 0; r < n; ++r) keep.UnsafeAppend(bad_rows[static_cast<size_t>(r)] == 0);
    FLOE_ASSIGN_OR_RAISE(ArrayPtr mask, keep.Finish());
    for (size_t p = 0; p < texts.size(); ++p) {
      if (!failed[p]) {
        FLOE_ASSIGN_OR_RAISE(columns[p], FilterArray(*columns[p], *mask, pool_));
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(ArrayPtr kept, FilterArray(*texts[p], *mask, pool_));
      FLOE_ASSIGN_OR_RAISE(columns[p], Convert(p, kept));
    }
    return RecordBatch::Make(output_schema_, n - bad_count, std::move(columns));
  };
  Result<RecordBatchPtr> out = finish();
  lines_.clear();
  paths_of_rows_.clear();
  bytes_ = 0;
  return out;
}

}  // namespace floe::connector
