#include "floe/connector/text/text_table.h"

#include <algorithm>
#include <map>
#include <utility>

#include "floe/connector/text/text_sniffer.h"
#include "floe/expr/json.h"
#include "floe/io/s3_file_io.h"
#include "floe/sql/parser.h"
#include "floe/type/sql_type_name.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

// Records read to choose a CSV delimiter.
constexpr int64_t kDelimiterSampleRows = 64;
// The sniffer keeps at most this many bytes of sampled fields, whatever sample_size says.
constexpr int64_t kMaxSampleBytes = 64 << 20;
// Bytes read at a time when looking for split points.
constexpr int64_t kScanChunkBytes = 1 << 20;

std::string FunctionName(const TextTableOptions& options) { return options.scan.source; }

TextFileRange WholeFile(const TextTable::File& file) {
  TextFileRange range;
  range.path = file.path;
  range.file_size = file.size;
  return range;
}

// The first file's first records as text fields (CSV), at most `limit` (-1: all) and at most
// kMaxSampleBytes of them.
Result<std::vector<SampleRow>> SampleCsvRows(const TextTable::File& file, const io::FileIO* io,
                                             TextRecordOptions records, int64_t limit) {
  records.header = false;
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> handle, OpenTextFile(file.path, io));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<TextRecordReader> reader,
                       TextRecordReader::Open(std::move(handle), WholeFile(file), records));
  std::vector<SampleRow> rows;
  int64_t bytes = 0;
  while ((limit < 0 || static_cast<int64_t>(rows.size()) < limit) && bytes < kMaxSampleBytes) {
    FLOE_ASSIGN_OR_RAISE(bool more, reader->Next());
    if (!more || !reader->record_status().ok()) break;
    const CsvTokenizer& t = reader->csv();
    if (t.empty_line()) continue;
    SampleRow row;
    for (int i = 0; i < t.num_fields(); ++i) {
      if (t.is_null(i)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(t.field(i)));
        bytes += static_cast<int64_t>(t.field(i).size());
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The delimiter among ',', '\t', '|' and ';' that splits the first records into the most
// consistent number of fields (more than one), ',' when none does.
Result<char> DetectDelimiter(const TextTable::File& file, const io::FileIO* io,
                             const TextRecordOptions& records) {
  char best = ',';
  int64_t best_consistent = 0;
  size_t best_fields = 1;
  for (char candidate : {',', '\t', '|', ';'}) {
    TextRecordOptions trial = records;
    trial.csv.delimiter = candidate;
    if (trial.csv.quote == candidate || trial.csv.escape == candidate) continue;
    FLOE_ASSIGN_OR_RAISE(std::vector<SampleRow> rows,
                         SampleCsvRows(file, io, trial, kDelimiterSampleRows));
    std::map<size_t, int64_t> counts;
    for (const SampleRow& row : rows) ++counts[row.size()];
    size_t fields = 1;
    int64_t consistent = 0;
    for (const auto& [n, count] : counts) {
      if (count > consistent || (count == consistent && n > fields)) {
        fields = n;
        consistent = count;
      }
    }
    if (fields < 2) continue;
    if (consistent > best_consistent || (consistent == best_consistent && fields > best_fields)) {
      best = candidate;
      best_consistent = consistent;
      best_fields = fields;
    }
  }
  return best;
}

// Whether the first file holds one JSON array (its first character, after blanks and a byte
// order mark, is '[').
Result<bool> StartsWithArray(const TextTable::File& file, const io::FileIO* io) {
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> handle, OpenTextFile(file.path, io));
  const int64_t length = std::min<int64_t>(file.size, 4096);
  if (length == 0) return false;
  FLOE_ASSIGN_OR_RAISE(BufferPtr head, handle->ReadAt(0, length));
  std::string_view s(reinterpret_cast<const char*>(head->data()), static_cast<size_t>(length));
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '[';
  }
  return false;
}

// The columns of JSON records: the first file's first objects, keys in order of appearance.
// `*sampled`: the records read.
Result<JsonSniffer> SampleJson(const TextTable::File& file, const io::FileIO* io,
                               const TextRecordOptions& records, int64_t limit,
                               int64_t* sampled) {
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> handle, OpenTextFile(file.path, io));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<TextRecordReader> reader,
                       TextRecordReader::Open(std::move(handle), WholeFile(file), records));
  JsonSniffer sniffer;
  *sampled = 0;
  for (int64_t n = 0; limit < 0 || n < limit; ++n) {
    Result<bool> more = reader->Next();
    // A broken array is the scan's error to report; the sample stops there.
    if (!more.ok() || !*more) break;
    ++*sampled;
    if (!reader->record_status().ok()) continue;
    Result<expr::JsonValue> value = expr::ParseJson(reader->json_text(), /*jsonb=*/false);
    if (!value.ok() || value->kind != expr::JsonKind::kObject) continue;
    sniffer.Add(*value);
  }
  return sniffer;
}

// Splits `file` at the record starts nearest after each multiple of `chunk`.
Result<std::vector<TextFileRange>> SplitFile(const TextTable::File& file, const io::FileIO* io,
                                             const TextRecordOptions& records, int64_t chunk) {
  CsvDialect dialect = records.csv;
  if (records.format == TextFormat::kJson) dialect.quote = '\0';
  CsvRecordStarts starts(dialect);
  size_t wanted = 0;
  for (int64_t offset = chunk; offset < file.size - chunk / 2; offset += chunk) {
    starts.Want(offset);
    ++wanted;
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> handle, OpenTextFile(file.path, io));
  while (starts.found().size() < wanted && starts.position() < file.size) {
    const int64_t length = std::min(kScanChunkBytes, file.size - starts.position());
    FLOE_ASSIGN_OR_RAISE(BufferPtr bytes, handle->ReadAt(starts.position(), length));
    starts.Feed(std::string_view(reinterpret_cast<const char*>(bytes->data()),
                                 static_cast<size_t>(bytes->size())));
  }
  std::vector<TextFileRange> ranges;
  TextFileRange current = WholeFile(file);
  for (const CsvRecordStarts::Start& start : starts.found()) {
    if (start.offset <= current.begin || start.offset >= file.size) continue;
    current.end = start.offset;
    ranges.push_back(current);
    current.begin = start.offset;
    current.end = -1;
    current.first_line = start.line;
  }
  ranges.push_back(current);
  return ranges;
}

std::string TypeHint(int64_t rows) {
  return fmt::format(
      " (its type was inferred from the first {} rows: name the types with columns => "
      "'name type, ...' or raise sample_size)",
      rows);
}

}  // namespace

Result<std::vector<Field>> ParseColumnList(std::string_view text, std::string_view function) {
  const std::string statement = fmt::format("CREATE TABLE t ({})", text);
  auto fail = [&](const Status& st) {
    std::string message = st.message();
    // Positions refer to the statement made here, not to anything the user wrote.
    const size_t where = message.find(" (line ");
    if (where != std::string::npos) message.erase(where);
    return Status::Invalid("{}: columns => '{}': {}", function, text, message);
  };
  Result<std::vector<sql::Statement>> parsed = sql::Parse(statement);
  if (!parsed.ok()) return fail(parsed.status());
  const auto* create =
      parsed->size() == 1 ? std::get_if<sql::CreateTableStatement>(&(*parsed)[0].body) : nullptr;
  if (create == nullptr || create->columns.empty()) {
    return fail(Status::Invalid("expected a list of columns: 'name type, ...'"));
  }
  std::vector<Field> fields;
  for (const sql::ColumnDef& column : create->columns) {
    if (column.default_value) return fail(Status::Invalid("a column cannot have a default here"));
    Result<TypePtr> type = plan::BindType(column.type, statement);
    if (!type.ok()) return fail(type.status());
    for (const Field& seen : fields) {
      if (seen.name() == column.name) {
        return fail(Status::Invalid("column \"{}\" is named twice", column.name));
      }
    }
    fields.emplace_back(column.name, *type, true);
  }
  return fields;
}

Result<std::shared_ptr<const TextTable>> TextTable::Make(std::vector<std::string> paths_or_globs,
                                                         TextTableOptions options,
                                                         std::shared_ptr<const io::FileIO> io) {
  const std::string function = FunctionName(options);
  if (paths_or_globs.empty()) {
    return Status::Invalid("{} needs at least one path or glob pattern", function);
  }
  const io::LocalFileIO local;
  const io::FileIO& files_io = io ? *io : local;
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> paths,
                       io::ExpandPathPatterns(files_io, paths_or_globs, function));
  auto table = std::shared_ptr<TextTable>(new TextTable());
  table->io_ = std::move(io);
  for (const std::string& path : paths) {
    FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> file,
                         OpenTextFile(path, table->io_.get()));
    table->files_.push_back(File{path, file->size()});
  }
  // The sniffer reads the first file that has bytes.
  const File* first = &table->files_[0];
  for (const File& file : table->files_) {
    if (file.size > 0) {
      first = &file;
      break;
    }
  }
  TextRecordOptions& records = options.scan.records;
  const io::FileIO* reader_io = table->io_.get();
  if (records.format == TextFormat::kJson && options.detect_json_layout) {
    FLOE_ASSIGN_OR_RAISE(bool array, StartsWithArray(*first, reader_io));
    records.json_layout = array ? JsonLayout::kArray : JsonLayout::kLines;
  }
  if (records.format == TextFormat::kCsv && options.detect_delimiter) {
    FLOE_ASSIGN_OR_RAISE(records.csv.delimiter, DetectDelimiter(*first, reader_io, records));
  }

  std::vector<Field> fields;
  std::vector<double> widths;  // average text bytes per value, from the sample
  int64_t sampled_rows = 0;
  int64_t sampled_bytes = 0;
  if (records.format == TextFormat::kCsv) {
    const bool inferred = options.columns.empty();
    const int64_t limit = inferred ? options.sample_rows : 16;
    FLOE_ASSIGN_OR_RAISE(std::vector<SampleRow> rows,
                         SampleCsvRows(*first, reader_io, records, limit));
    std::optional<bool> header = options.header;
    if (!header && !inferred) header = false;
    CsvSniffResult sniffed = SniffCsv(rows, header, options.all_text);
    records.header = sniffed.header;
    if (inferred) {
      for (size_t c = 0; c < sniffed.names.size(); ++c) {
        fields.emplace_back(sniffed.names[c], sniffed.types[c], true);
      }
      options.scan.errors.inferred_hint = TypeHint(static_cast<int64_t>(rows.size()));
    } else {
      fields = options.columns;
    }
    widths.assign(fields.size(), 0);
    for (size_t r = sniffed.header ? 1 : 0; r < rows.size(); ++r) {
      ++sampled_rows;
      for (size_t c = 0; c < rows[r].size(); ++c) {
        const size_t bytes = rows[r][c] ? rows[r][c]->size() : 0;
        sampled_bytes += static_cast<int64_t>(bytes) + 1;
        if (c < widths.size()) widths[c] += static_cast<double>(bytes);
      }
    }
  } else {
    records.header = false;
    if (options.columns.empty()) {
      int64_t sampled = 0;
      FLOE_ASSIGN_OR_RAISE(JsonSniffer sniffer,
                           SampleJson(*first, reader_io, records, options.sample_rows, &sampled));
      const std::vector<std::string> names = sniffer.names();
      const std::vector<TypePtr> types = sniffer.types();
      if (names.empty()) {
        return Status::Invalid(
            "{}: no JSON object in the first records of '{}' to take columns from (name them "
            "with columns => 'name type, ...')",
            function, first->path);
      }
      for (size_t c = 0; c < names.size(); ++c) fields.emplace_back(names[c], types[c], true);
      options.scan.errors.inferred_hint = TypeHint(sampled);
    } else {
      fields = options.columns;
    }
  }
  table->schema_ = std::make_shared<const Schema>(std::move(fields));
  std::vector<int> all;
  for (int c = 0; c < table->schema_->num_fields(); ++c) all.push_back(c);
  FLOE_RETURN_NOT_OK(TextBatchBuilder::Make(table->schema_, all, records.format,
                                            options.scan.errors, DefaultMemoryPool())
                         .status()
                         .WithPrefix(function + ": "));

  int64_t total = 0;
  for (const File& file : table->files_) total += file.size;
  plan::Statistics& statistics = table->statistics_;
  statistics.total_bytes = total;
  if (sampled_rows > 0 && sampled_bytes > 0) {
    statistics.row_count = static_cast<int64_t>(static_cast<double>(total) /
                                                (static_cast<double>(sampled_bytes) / sampled_rows));
  }
  for (int c = 0; c < table->schema_->num_fields(); ++c) {
    plan::ColumnStatistics column;
    const int fixed = table->schema_->field(c).type()->byte_width();
    if (fixed > 0) {
      column.avg_width = fixed;
    } else if (sampled_rows > 0 && static_cast<size_t>(c) < widths.size()) {
      column.avg_width = widths[static_cast<size_t>(c)] / static_cast<double>(sampled_rows) + 4;
    }
    statistics.columns.push_back(std::move(column));
  }
  table->options_ = std::move(options);
  return std::shared_ptr<const TextTable>(std::move(table));
}

std::string TextTable::display_name() const {
  const std::string& function = options_.scan.source;
  if (files_.size() == 1) return fmt::format("{}('{}')", function, files_[0].path);
  return fmt::format("{}({} files)", function, files_.size());
}

Result<exec::PlanPtr> TextTable::Scan(const exec::ScanRequest& request,
                                      const exec::SessionConfig& config) const {
  const TextRecordOptions& records = options_.scan.records;
  const int64_t partitions = std::max(1, config.target_partitions());
  int64_t total = 0;
  for (const File& file : files_) total += file.size;
  const int64_t chunk =
      std::max(config.text_files_min_split_bytes(), (total + partitions - 1) / partitions);
  const bool splittable =
      records.format == TextFormat::kCsv || records.json_layout == JsonLayout::kLines;
  std::vector<TextFileRange> units;
  for (const File& file : files_) {
    if (splittable && partitions > 1 && !io::IsS3Path(file.path) && file.size > chunk + chunk / 2) {
      FLOE_ASSIGN_OR_RAISE(std::vector<TextFileRange> ranges,
                           SplitFile(file, io_.get(), records, chunk));
      units.insert(units.end(), ranges.begin(), ranges.end());
    } else {
      units.push_back(WholeFile(file));
    }
  }
  // Contiguous groups of about total / partitions bytes: each partition reads its files and
  // ranges in order.
  auto size_of = [&](const TextFileRange& unit) {
    for (const File& file : files_) {
      if (file.path == unit.path) return (unit.end < 0 ? file.size : unit.end) - unit.begin;
    }
    return int64_t{0};
  };
  const int64_t groups_wanted = std::min<int64_t>(partitions, static_cast<int64_t>(units.size()));
  std::vector<std::vector<TextFileRange>> groups(static_cast<size_t>(std::max<int64_t>(1, groups_wanted)));
  int64_t before = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const int64_t bytes = size_of(units[u]);
    int64_t g = 0;
    if (units.size() <= groups.size()) {
      g = static_cast<int64_t>(u);
    } else if (total > 0) {
      g = static_cast<int64_t>((static_cast<double>(before) + static_cast<double>(bytes) / 2) *
                               static_cast<double>(groups.size()) / static_cast<double>(total));
    } else {
      g = static_cast<int64_t>(u * groups.size() / units.size());
    }
    g = std::clamp<int64_t>(g, 0, static_cast<int64_t>(groups.size()) - 1);
    groups[static_cast<size_t>(g)].push_back(units[u]);
    before += bytes;
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [](const std::vector<TextFileRange>& g) { return g.empty(); }),
               groups.end());
  std::optional<int64_t> limit = request.filters.empty() ? request.limit : std::nullopt;
  return TextScanExec::Make(schema_, std::move(groups), request.projection, options_.scan, limit,
                            io_);
}

// ---------------------------------------------------------------------------------------
// read_csv(...) and read_json(...)

namespace {

std::string ValueTypeName(const Scalar& value) {
  if (value.is_null()) return "NULL";
  return value.type() ? SqlTypeName(*value.type()) : std::string("unknown");
}

Result<bool> BoolArgument(const plan::TableFunctionArg& arg, std::string_view function) {
  if (!arg.value.is_null() && arg.value.type() && arg.value.type()->id() == TypeId::kBoolean) {
    return arg.value.get<bool>();
  }
  return Status::Invalid("{}: argument \"{}\" must be a boolean, got {}", function, arg.name,
                         ValueTypeName(arg.value));
}

Result<std::string> TextArgument(const plan::TableFunctionArg& arg, std::string_view function) {
  if (!arg.value.is_null() && arg.value.type() && arg.value.type()->id() == TypeId::kString) {
    return arg.value.get<std::string>();
  }
  return Status::Invalid("{}: argument \"{}\" must be text, got {}", function, arg.name,
                         ValueTypeName(arg.value));
}

Result<int64_t> IntArgument(const plan::TableFunctionArg& arg, std::string_view function) {
  if (!arg.value.is_null() && arg.value.type()) {
    switch (arg.value.type()->id()) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
        return int64_t{arg.value.get<int32_t>()};
      case TypeId::kInt64:
        return arg.value.get<int64_t>();
      default:
        break;
    }
  }
  return Status::Invalid("{}: argument \"{}\" must be an integer, got {}", function, arg.name,
                         ValueTypeName(arg.value));
}

// One character (a byte), or none for '' when `allow_none`.
Result<char> CharArgument(const plan::TableFunctionArg& arg, std::string_view function,
                          bool allow_none) {
  FLOE_ASSIGN_OR_RAISE(std::string text, TextArgument(arg, function));
  if (text.empty() && allow_none) return '\0';
  if (text.size() != 1) {
    return Status::Invalid("{}: argument \"{}\" must be one single-byte character{}, got '{}'",
                           function, arg.name, allow_none ? " (or '' for none)" : "", text);
  }
  if (text[0] == '\n' || text[0] == '\r') {
    return Status::Invalid("{}: argument \"{}\" cannot be a line break", function, arg.name);
  }
  return text[0];
}

// The positional arguments (paths); the named ones are handed to `named`.
Result<std::vector<std::string>> Paths(const std::vector<plan::TableFunctionArg>& args,
                                       std::string_view function) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const plan::TableFunctionArg& arg = args[i];
    if (!arg.name.empty()) continue;
    if (arg.value.is_null() || !arg.value.type() || arg.value.type()->id() != TypeId::kString) {
      return Status::Invalid("{}: argument {} must be a text path or glob pattern, got {}",
                             function, i + 1, ValueTypeName(arg.value));
    }
    paths.push_back(arg.value.get<std::string>());
  }
  if (paths.empty()) return Status::Invalid("{} needs at least one path or glob pattern", function);
  return paths;
}

Result<int64_t> SampleSize(const plan::TableFunctionArg& arg, std::string_view function) {
  FLOE_ASSIGN_OR_RAISE(int64_t rows, IntArgument(arg, function));
  if (rows == 0 || rows < -1) {
    return Status::Invalid("{}: sample_size must be positive (or -1 for the whole first file)",
                           function);
  }
  return rows;
}

Result<int64_t> RecordLimit(const plan::TableFunctionArg& arg, std::string_view function) {
  FLOE_ASSIGN_OR_RAISE(int64_t bytes, IntArgument(arg, function));
  if (bytes < 1 || bytes > (int64_t{1} << 30)) {
    return Status::Invalid("{}: {} must be between 1 and 1073741824 bytes", function, arg.name);
  }
  return bytes;
}

Result<plan::TableSourcePtr> MakeTable(std::vector<std::string> paths, TextTableOptions options,
                                       const FileIOSource& s3_io) {
  std::shared_ptr<const io::FileIO> io;
  if (s3_io && std::any_of(paths.begin(), paths.end(),
                           [](const std::string& p) { return io::IsS3Path(p); })) {
    FLOE_ASSIGN_OR_RAISE(io, s3_io());
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const TextTable> table,
                       TextTable::Make(std::move(paths), std::move(options), std::move(io)));
  return plan::TableSourcePtr(std::move(table));
}

Status Repeated(std::vector<std::string>* seen, const std::string& name,
                std::string_view function) {
  if (std::find(seen->begin(), seen->end(), name) != seen->end()) {
    return Status::Invalid("{}: argument \"{}\" given twice", function, name);
  }
  seen->push_back(name);
  return Status::OK();
}

}  // namespace

Result<plan::TableSourcePtr> MakeReadCsv(const std::vector<plan::TableFunctionArg>& args,
                                         const FileIOSource& s3_io) {
  constexpr std::string_view kFunction = "read_csv";
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> paths, Paths(args, kFunction));
  TextTableOptions options;
  options.scan.source = std::string(kFunction);
  options.scan.records.format = TextFormat::kCsv;
  options.detect_delimiter = true;
  CsvDialect& dialect = options.scan.records.csv;
  bool escape_given = false;
  std::vector<std::string> seen;
  for (const plan::TableFunctionArg& arg : args) {
    if (arg.name.empty()) continue;
    const std::string& name = arg.name;
    FLOE_RETURN_NOT_OK(Repeated(&seen, name == "sep" || name == "delimiter" ? "delim" : name,
                                kFunction));
    if (name == "header") {
      FLOE_ASSIGN_OR_RAISE(bool header, BoolArgument(arg, kFunction));
      options.header = header;
    } else if (name == "delim" || name == "sep" || name == "delimiter") {
      FLOE_ASSIGN_OR_RAISE(dialect.delimiter, CharArgument(arg, kFunction, false));
      options.detect_delimiter = false;
    } else if (name == "quote") {
      FLOE_ASSIGN_OR_RAISE(dialect.quote, CharArgument(arg, kFunction, true));
    } else if (name == "escape") {
      FLOE_ASSIGN_OR_RAISE(dialect.escape, CharArgument(arg, kFunction, true));
      escape_given = true;
    } else if (name == "nullstr" || name == "null") {
      FLOE_ASSIGN_OR_RAISE(dialect.null_text, TextArgument(arg, kFunction));
    } else if (name == "columns") {
      FLOE_ASSIGN_OR_RAISE(std::string text, TextArgument(arg, kFunction));
      FLOE_ASSIGN_OR_RAISE(options.columns, ParseColumnList(text, kFunction));
    } else if (name == "sample_size") {
      FLOE_ASSIGN_OR_RAISE(options.sample_rows, SampleSize(arg, kFunction));
    } else if (name == "all_varchar") {
      FLOE_ASSIGN_OR_RAISE(options.all_text, BoolArgument(arg, kFunction));
    } else if (name == "ignore_errors") {
      FLOE_ASSIGN_OR_RAISE(options.scan.errors.ignore_errors, BoolArgument(arg, kFunction));
    } else if (name == "max_line_size") {
      FLOE_ASSIGN_OR_RAISE(options.scan.records.max_record_bytes, RecordLimit(arg, kFunction));
    } else {
      return Status::Invalid(
          "read_csv has no argument named \"{}\" (header, delim, quote, escape, nullstr, "
          "columns, sample_size, all_varchar, ignore_errors, max_line_size)",
          name);
    }
  }
  if (!escape_given) dialect.escape = dialect.quote;
  if (dialect.quote != '\0' && dialect.quote == dialect.delimiter) {
    return Status::Invalid("read_csv: the delimiter and the quote must differ");
  }
  if (options.detect_delimiter && dialect.quote != '\0' &&
      std::string_view(",\t|;").find(dialect.quote) != std::string_view::npos) {
    options.detect_delimiter = false;
  }
  return MakeTable(std::move(paths), std::move(options), s3_io);
}

Result<plan::TableSourcePtr> MakeReadJson(const std::vector<plan::TableFunctionArg>& args,
                                          const FileIOSource& s3_io) {
  constexpr std::string_view kFunction = "read_json";
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> paths, Paths(args, kFunction));
  TextTableOptions options;
  options.scan.source = std::string(kFunction);
  options.scan.records.format = TextFormat::kJson;
  options.scan.records.max_record_bytes = 16 << 20;
  options.detect_json_layout = true;
  std::vector<std::string> seen;
  for (const plan::TableFunctionArg& arg : args) {
    if (arg.name.empty()) continue;
    const std::string& name = arg.name;
    FLOE_RETURN_NOT_OK(Repeated(&seen, name, kFunction));
    if (name == "format") {
      FLOE_ASSIGN_OR_RAISE(std::string format, TextArgument(arg, kFunction));
      if (format == "auto") {
        options.detect_json_layout = true;
      } else if (format == "newline_delimited" || format == "nd" || format == "lines") {
        options.detect_json_layout = false;
        options.scan.records.json_layout = JsonLayout::kLines;
      } else if (format == "array") {
        options.detect_json_layout = false;
        options.scan.records.json_layout = JsonLayout::kArray;
      } else {
        return Status::Invalid(
            "read_json: format must be 'auto', 'newline_delimited' or 'array', got '{}'", format);
      }
    } else if (name == "columns") {
      FLOE_ASSIGN_OR_RAISE(std::string text, TextArgument(arg, kFunction));
      FLOE_ASSIGN_OR_RAISE(options.columns, ParseColumnList(text, kFunction));
    } else if (name == "sample_size") {
      FLOE_ASSIGN_OR_RAISE(options.sample_rows, SampleSize(arg, kFunction));
    } else if (name == "ignore_errors") {
      FLOE_ASSIGN_OR_RAISE(options.scan.errors.ignore_errors, BoolArgument(arg, kFunction));
    } else if (name == "maximum_object_size") {
      FLOE_ASSIGN_OR_RAISE(options.scan.records.max_record_bytes, RecordLimit(arg, kFunction));
    } else {
      return Status::Invalid(
          "read_json has no argument named \"{}\" (format, columns, sample_size, ignore_errors, "
          "maximum_object_size)",
          name);
    }
  }
  return MakeTable(std::move(paths), std::move(options), s3_io);
}

}  // namespace floe::connector
