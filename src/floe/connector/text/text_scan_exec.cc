#include "floe/connector/text/text_scan_exec.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "floe/codec/file_io_codec.h"
#include "floe/codec/text.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/task_context.h"
#include "floe/io/s3_file_io.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

// A batch ends at batch_size rows or at this many bytes of text, whichever comes first, so
// that long records cannot make a batch hold batch_size times their length.
constexpr int64_t kMaxBatchTextBytes = 32 << 20;

class TextScanStream final : public exec::BatchStream {
 public:
  TextScanStream(const TextScanExec* node, int partition, const exec::TaskContextPtr& ctx,
                 std::unique_ptr<TextBatchBuilder> builder)
      : node_(node),
        partition_(partition),
        ctx_(ctx),
        ranges_(&node->groups()[static_cast<size_t>(partition)]),
        remaining_(node->limit()),
        batch_size_(std::max<int64_t>(1, ctx->config().batch_size())),
        builder_(std::move(builder)) {}

  ~TextScanStream() override { Report(); }

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (done_ || (remaining_ && *remaining_ <= 0)) {
        Report();
        return RecordBatchPtr();
      }
      bool exhausted = false;
      while (builder_->rows() < batch_size_ && builder_->bytes() < kMaxBatchTextBytes) {
        if (!reader_) {
          if (next_range_ >= ranges_->size()) {
            exhausted = true;
            break;
          }
          const TextFileRange& range = (*ranges_)[next_range_++];
          FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> file,
                               OpenTextFile(range.path, node_->io().get()));
          FLOE_ASSIGN_OR_RAISE(reader_, TextRecordReader::Open(std::move(file), range,
                                                               node_->options().records));
        }
        FLOE_ASSIGN_OR_RAISE(bool more, reader_->Next());
        if (!more) {
          reader_.reset();
          continue;
        }
        FLOE_RETURN_NOT_OK(builder_->Append(*reader_));
      }
      if (exhausted) done_ = true;
      if (builder_->rows() == 0) continue;
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, builder_->Finish());
      if (batch->num_rows() == 0) continue;
      if (remaining_) {
        if (batch->num_rows() > *remaining_) batch = batch->Slice(0, *remaining_);
        *remaining_ -= batch->num_rows();
      }
      return batch;
    }
  }

 private:
  // Tells once how many rows were left out for errors: in the query's metrics (EXPLAIN
  // ANALYZE) and as a notice on standard error.
  void Report() {
    if (reported_) return;
    reported_ = true;
    const int64_t rejected = builder_->rejected();
    if (rejected == 0) return;
    if (exec::QueryMetrics* metrics = ctx_->metrics()) {
      metrics->For(node_, partition_).rejected_rows += rejected;
    }
    std::string notice = fmt::format(
        "NOTICE:  {}: {} {} with errors skipped in partition {} (the first: {})\n",
        node_->options().source, rejected, rejected == 1 ? "row" : "rows", partition_,
        builder_->first_rejection());
    std::fputs(notice.c_str(), stderr);
  }

  const TextScanExec* node_;
  int partition_;
  exec::TaskContextPtr ctx_;
  const std::vector<TextFileRange>* ranges_;
  std::optional<int64_t> remaining_;
  int64_t batch_size_;
  std::unique_ptr<TextBatchBuilder> builder_;
  std::unique_ptr<TextRecordReader> reader_;
  size_t next_range_ = 0;
  bool done_ = false;
  bool reported_ = false;
};

std::string DialectChar(char c) {
  if (c == '\0') return "none";
  if (c == '\t') return "\\t";
  return std::string(1, c);
}

}  // namespace

Result<std::shared_ptr<io::RandomAccessFile>> OpenTextFile(const std::string& path,
                                                           const io::FileIO* io) {
  if (!io::IsS3Path(path)) {
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file, io::OpenLocalFile(path));
    return std::shared_ptr<io::RandomAccessFile>(std::move(file));
  }
  const io::LocalFileIO local;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file,
                       (io ? io : &local)->NewInputFile(path));
  return std::shared_ptr<io::RandomAccessFile>(std::move(file));
}

Result<exec::PlanPtr> TextScanExec::Make(SchemaPtr file_schema,
                                         std::vector<std::vector<TextFileRange>> groups,
                                         std::vector<int> projection, TextScanOptions options,
                                         std::optional<int64_t> limit,
                                         std::shared_ptr<const io::FileIO> io) {
  if (!file_schema) return Status::Internal("TextScanExec: no file schema");
  if (file_schema->num_fields() == 0) return Status::Internal("TextScanExec: no columns");
  std::vector<Field> fields;
  for (int c : projection) {
    if (c < 0 || c >= file_schema->num_fields()) {
      return Status::Internal("TextScanExec: projected column {} out of range ({} columns)", c,
                              file_schema->num_fields());
    }
    const Field& field = file_schema->field(c);
    fields.emplace_back(field.name(), field.type(), true);
  }
  if (limit && *limit < 0) return Status::Internal("TextScanExec: negative limit {}", *limit);
  const TextRecordOptions& records = options.records;
  if (records.max_record_bytes <= 0) {
    return Status::Internal("TextScanExec: a record limit of {} bytes", records.max_record_bytes);
  }
  if (records.format == TextFormat::kCsv) {
    const CsvDialect& d = records.csv;
    if (d.delimiter == '\0' || d.delimiter == '\n' || d.delimiter == '\r' ||
        (d.quote != '\0' && (d.quote == d.delimiter || d.quote == '\n' || d.quote == '\r'))) {
      return Status::Internal("TextScanExec: delimiter and quote must differ and not be line breaks");
    }
  }
  for (const std::vector<TextFileRange>& group : groups) {
    for (const TextFileRange& range : group) {
      if (range.path.empty() || range.begin < 0 || (range.end >= 0 && range.end < range.begin) ||
          range.first_line < 1) {
        return Status::Internal("TextScanExec: bad range [{}, {}) of '{}'", range.begin,
                                range.end, range.path);
      }
    }
  }
  // The columns' conversions are checked here, where a plan is made or decoded.
  FLOE_RETURN_NOT_OK(
      TextBatchBuilder::Make(file_schema, projection, records.format, options.errors,
                             DefaultMemoryPool())
          .status());
  auto node = std::shared_ptr<TextScanExec>(new TextScanExec());
  if (groups.empty()) groups.emplace_back();
  node->properties_.schema = std::make_shared<const Schema>(std::move(fields));
  node->properties_.partitioning = exec::Partitioning::Unknown(static_cast<int>(groups.size()));
  node->file_schema_ = std::move(file_schema);
  node->groups_ = std::move(groups);
  node->projection_ = std::move(projection);
  node->options_ = std::move(options);
  node->limit_ = limit;
  node->io_ = std::move(io);
  return exec::PlanPtr(std::move(node));
}

Result<exec::PlanPtr> TextScanExec::WithNewChildren(std::vector<exec::PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("TextScanExec takes no children");
  return Make(file_schema_, groups_, projection_, options_, limit_, io_);
}

Result<exec::BatchStreamPtr> TextScanExec::Execute(int partition,
                                                   const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= static_cast<int>(groups_.size())) {
    return Status::Internal("TextScanExec: no partition {}", partition);
  }
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<TextBatchBuilder> builder,
                       TextBatchBuilder::Make(file_schema_, projection_, options_.records.format,
                                              options_.errors, ctx->pool()));
  return exec::BatchStreamPtr(
      std::make_unique<TextScanStream>(this, partition, ctx, std::move(builder)));
}

std::string TextScanExec::ToString() const {
  std::set<std::string> files;
  size_t ranges = 0;
  for (const std::vector<TextFileRange>& group : groups_) {
    for (const TextFileRange& range : group) {
      files.insert(range.path);
      ++ranges;
    }
  }
  const TextRecordOptions& r = options_.records;
  std::string out = fmt::format("TextScanExec: {} format={} files={} ranges={}", options_.source,
                                TextFormatName(r.format), files.size(), ranges);
  if (r.format == TextFormat::kCsv) {
    out += fmt::format(" delimiter={} quote={}", DialectChar(r.csv.delimiter),
                       DialectChar(r.csv.quote));
    if (r.csv.escape != r.csv.quote) out += " escape=" + DialectChar(r.csv.escape);
    if (r.header) out += " header";
  } else {
    out += r.json_layout == JsonLayout::kArray ? " layout=array" : " layout=lines";
  }
  out += " projection=[";
  for (size_t i = 0; i < projection_.size(); ++i) {
    if (i > 0) out += ", ";
    out += file_schema_->field(projection_[i]).name();
  }
  out += "]";
  if (options_.errors.ignore_errors) out += " ignore_errors";
  if (limit_) out += fmt::format(" limit={}", *limit_);
  return out;
}

// ---------------------------------------------------------------------------------------
// Codec (exec/plan_codec.h; the message is in codec/text.proto)

namespace pb = codec::proto;

Status TextScanExec::Encode(codec::PlanEncoder& out) const {
  pb::TextScanNode m;
  codec::EncodeSchema(*file_schema_, m.mutable_file_schema());
  for (const std::vector<TextFileRange>& group : groups_) {
    pb::TextGroup* g = m.add_groups();
    for (const TextFileRange& range : group) {
      pb::TextFileRange* r = g->add_ranges();
      r->set_path(range.path);
      r->set_begin(range.begin);
      r->set_end(range.end);
      r->set_first_line(range.first_line);
      r->set_file_size(range.file_size);
    }
  }
  for (int c : projection_) m.add_projection(c);
  const TextRecordOptions& records = options_.records;
  m.set_format(std::string(TextFormatName(records.format)));
  m.set_delimiter(static_cast<uint8_t>(records.csv.delimiter));
  m.set_quote(static_cast<uint8_t>(records.csv.quote));
  m.set_escape(static_cast<uint8_t>(records.csv.escape));
  m.set_null_text(records.csv.null_text);
  m.set_header(records.header);
  m.set_json_layout(records.json_layout == JsonLayout::kArray ? "array" : "lines");
  m.set_max_record_bytes(records.max_record_bytes);
  m.set_ignore_errors(options_.errors.ignore_errors);
  m.set_inferred_hint(options_.errors.inferred_hint);
  if (limit_) m.mutable_limit()->set_value(*limit_);
  if (io_) FLOE_RETURN_NOT_OK(codec::EncodeFileIO(io_, options_.source, m.mutable_io()));
  m.set_source(options_.source);
  return out.SetPayload(m);
}

Result<exec::PlanPtr> TextScanExec::Decode(codec::PlanDecoder& in,
                                           std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  pb::TextScanNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  Result<SchemaPtr> schema = codec::DecodeSchema(m.file_schema());
  if (!schema.ok()) return exec::DecodeError(in, schema.status());
  std::vector<std::vector<TextFileRange>> groups;
  for (const pb::TextGroup& g : m.groups()) {
    std::vector<TextFileRange> group;
    for (const pb::TextFileRange& r : g.ranges()) {
      TextFileRange range;
      range.path = r.path();
      range.begin = r.begin();
      range.end = r.end();
      range.first_line = r.first_line();
      range.file_size = r.file_size();
      group.push_back(std::move(range));
    }
    groups.push_back(std::move(group));
  }
  std::vector<int> projection;
  for (int32_t c : m.projection()) {
    if (c < 0 || c >= (*schema)->num_fields()) {
      return in.Corrupt(fmt::format("projected column {} of {}", c, (*schema)->num_fields()));
    }
    projection.push_back(c);
  }
  TextScanOptions options;
  TextRecordOptions& records = options.records;
  if (m.format() == "csv") {
    records.format = TextFormat::kCsv;
  } else if (m.format() == "json") {
    records.format = TextFormat::kJson;
  } else {
    return in.Corrupt(fmt::format("unknown text format \"{}\"", m.format()));
  }
  for (uint32_t byte : {m.delimiter(), m.quote(), m.escape()}) {
    if (byte > 0xff) return in.Corrupt(fmt::format("a CSV character of code {}", byte));
  }
  records.csv.delimiter = static_cast<char>(m.delimiter());
  records.csv.quote = static_cast<char>(m.quote());
  records.csv.escape = static_cast<char>(m.escape());
  records.csv.null_text = m.null_text();
  records.header = m.header();
  if (m.json_layout() == "lines") {
    records.json_layout = JsonLayout::kLines;
  } else if (m.json_layout() == "array") {
    records.json_layout = JsonLayout::kArray;
  } else {
    return in.Corrupt(fmt::format("unknown JSON layout \"{}\"", m.json_layout()));
  }
  records.max_record_bytes = m.max_record_bytes();
  options.errors.ignore_errors = m.ignore_errors();
  options.errors.inferred_hint = m.inferred_hint();
  options.source = m.source();
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> limit,
                       exec::DecodeNodeLimit(in, m.has_limit(), m.limit()));
  std::shared_ptr<const io::FileIO> io;
  if (m.has_io()) {
    FLOE_ASSIGN_OR_RAISE(io, codec::DecodeFileIO(in, m.io()));
  }
  Result<exec::PlanPtr> plan = Make(std::move(*schema), std::move(groups), std::move(projection),
                                    std::move(options), limit, std::move(io));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  return plan;
}

void RegisterTextPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<TextScanExec>(registry);
}

}  // namespace floe::connector
