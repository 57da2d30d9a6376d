#include "floe/connector/parquet/parquet_scan_exec.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "floe/batch/value_format.h"
#include "floe/codec/file_io_codec.h"
#include "floe/codec/iceberg.pb.h"
#include "floe/codec/value_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/format/parquet/metadata.h"
#include "floe/io/s3_file_io.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

using Op = parquet::ColumnPredicate::Op;

bool IsPrimitive(const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      return false;
    default:
      return true;
  }
}

bool IsFloating(const DataType& type) {
  return type.id() == TypeId::kFloat32 || type.id() == TypeId::kFloat64;
}

bool IsNaN(const Scalar& value) {
  if (value.is_null()) return false;
  if (const double* d = std::get_if<double>(&value.value())) return std::isnan(*d);
  if (const float* f = std::get_if<float>(&value.value())) return std::isnan(*f);
  return false;
}

// The column index when `e` is a top-level primitive column of `schema`, else -1.
int PrunableColumn(const expr::Expr& e, const Schema& schema) {
  if (e.kind != expr::ExprKind::kColumn) return -1;
  if (e.column < 0 || e.column >= schema.num_fields()) return -1;
  const Field& field = schema.field(e.column);
  if (!IsPrimitive(*field.type()) || !field.type()->Equals(*e.type)) return -1;
  return e.column;
}

// A non-NULL constant of exactly `type`.
bool IsConstantOf(const expr::Expr& e, const DataType& type) {
  return e.kind == expr::ExprKind::kLiteral && !e.literal.is_null() && e.literal.type() &&
         e.literal.type()->Equals(type);
}

std::optional<Op> ComparisonOp(const std::string& name, bool flipped) {
  if (name == "eq") return Op::kEq;
  if (name == "lt") return flipped ? Op::kGt : Op::kLt;
  if (name == "le") return flipped ? Op::kGe : Op::kLe;
  if (name == "gt") return flipped ? Op::kLt : Op::kGt;
  if (name == "ge") return flipped ? Op::kLe : Op::kGe;
  return std::nullopt;
}

std::string OpText(Op op) {
  switch (op) {
    case Op::kEq:
      return "=";
    case Op::kLt:
      return "<";
    case Op::kLe:
      return "<=";
    case Op::kGt:
      return ">";
    case Op::kGe:
      return ">=";
    case Op::kIsNull:
      return "IS NULL";
    case Op::kIsNotNull:
      return "IS NOT NULL";
    case Op::kIn:
      return "IN";
  }
  return "?";
}

// Batches of no columns carrying only row counts (a projection of no columns: count(*)).
class RowCountStream final : public exec::BatchStream {
 public:
  RowCountStream(SchemaPtr schema, int64_t rows, int64_t batch_size)
      : schema_(std::move(schema)),
        remaining_(rows),
        batch_size_(std::max<int64_t>(batch_size, 1)) {}
  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (remaining_ <= 0) return RecordBatchPtr();
    int64_t n = std::min(remaining_, batch_size_);
    remaining_ -= n;
    return RecordBatch::Make(schema_, n, {});
  }

 private:
  SchemaPtr schema_;
  int64_t remaining_;
  int64_t batch_size_;
};

class ParquetScanStream final : public exec::BatchStream {
 public:
  ParquetScanStream(const ParquetScanExec* node, const std::vector<ParquetFileRange>* ranges,
                    std::optional<int64_t> limit, int64_t batch_size, bool verify_checksums,
                    MemoryPool* pool, exec::TaskContextPtr ctx)
      : node_(node),
        ctx_(std::move(ctx)),
        ranges_(ranges),
        remaining_(limit),
        batch_size_(batch_size),
        verify_checksums_(verify_checksums),
        pool_(pool) {
    for (int c : node_->projection()) names_.push_back(node_->file_schema()->field(c).name());
  }

  const SchemaPtr& schema() const override { return node_->schema(); }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (remaining_ && *remaining_ <= 0) {
        current_.reset();
        return RecordBatchPtr();
      }
      if (!current_) {
        if (next_range_ >= ranges_->size()) return RecordBatchPtr();
        FLOE_RETURN_NOT_OK(Open((*ranges_)[next_range_++]));
        continue;
      }
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, current_->Next());
      if (!batch) {
        current_.reset();
        file_.reset();
        continue;
      }
      if (batch->num_rows() == 0) continue;
      int64_t rows = batch->num_rows();
      if (remaining_) {
        rows = std::min(rows, *remaining_);
        *remaining_ -= rows;
      }
      if (batch->num_columns() != schema()->num_fields()) {
        return Status::Internal("ParquetScanExec: the reader returned {} columns, not {}",
                                batch->num_columns(), schema()->num_fields());
      }
      std::vector<ArrayPtr> columns;
      if (rows == batch->num_rows()) {
        columns = batch->columns();
      } else {
        columns.reserve(static_cast<size_t>(batch->num_columns()));
        for (const ArrayPtr& column : batch->columns()) columns.push_back(column->Slice(0, rows));
      }
      auto out = RecordBatch::Make(schema(), rows, std::move(columns));
      if (!out.ok()) {
        return out.status().WithPrefix(fmt::format("'{}': ", current_path_));
      }
      return out;
    }
  }

 private:
  Status Open(const ParquetFileRange& range) {
    if (range.row_groups.empty()) return Status::OK();
    current_path_ = range.path;
    if (range.planned) {
      // The plan's row groups come from the footer read at planning: the file must
      // still be that one.
      const PlannedParquetFile& planned = *range.planned;
      FLOE_ASSIGN_OR_RAISE(FileIdentity now, FileIdentity::Of(range.path, node_->io().get()));
      if (now != planned.identity) {
        return Status::IOError(
            "'{}' changed after the query was planned (size {} -> {} bytes, or it was "
            "replaced or modified)",
            range.path, planned.identity.size, now.size);
      }
    }
    if (range.planned && range.planned->reader && range.planned->batch_size == batch_size_ &&
        range.planned->reader->options().verify_page_checksums == verify_checksums_ &&
        pool_ == DefaultMemoryPool()) {
      file_ = range.planned->reader;
    } else {
      parquet::ReaderOptions options;
      options.batch_size = batch_size_;
      options.verify_page_checksums = verify_checksums_;
      options.pool = pool_;
      FLOE_ASSIGN_OR_RAISE(file_, OpenParquetFile(range.path, node_->io().get(), options));
    }
    std::vector<parquet::ColumnPredicate> predicates;
    for (const ParquetScanExec::NamedPredicate& named : node_->predicates()) {
      int column = file_->schema()->GetFieldIndex(named.column);
      if (column < 0) {
        return Status::Invalid("'{}' has no column named \"{}\"", range.path, named.column);
      }
      parquet::ColumnPredicate predicate = named.predicate;
      predicate.column = column;
      predicates.push_back(std::move(predicate));
    }
    // The keys a join above holds, once it has published them: a list or a bitmap of keys
    // drops rows (and row groups, pages); a range only row groups (as a row filter it would cost a
    // comparison per row for the few rows a join's range of keys usually leaves out).
    std::vector<parquet::ColumnPredicate> ranges;
    for (const exec::DynamicFilterUse& use : node_->dynamic_filters()) {
      std::shared_ptr<const exec::DynamicFilter> filter = ctx_->FindDynamicFilter(use.id);
      if (filter == nullptr) continue;
      if (!filter->min) {
        // The join's build side holds no key: no row of this range can match.
        current_.reset();
        return Status::OK();
      }
      const std::string& name = names_[static_cast<size_t>(use.column)];
      int column = file_->schema()->GetFieldIndex(name);
      if (column < 0 || !file_->schema()->field(column).type()->Equals(*filter->type)) continue;
      if (filter->bitmap) {
        predicates.push_back(parquet::ColumnPredicate{
            column, parquet::ColumnPredicate::Op::kIn, {}, /*sorted=*/false, filter->bitmap});
      } else if (filter->listed) {
        predicates.push_back(parquet::ColumnPredicate{column, parquet::ColumnPredicate::Op::kIn,
                                                      filter->values, /*sorted=*/true});
      } else {
        ranges.push_back(
            parquet::ColumnPredicate{column, parquet::ColumnPredicate::Op::kGe, {*filter->min}});
        ranges.push_back(
            parquet::ColumnPredicate{column, parquet::ColumnPredicate::Op::kLe, {*filter->max}});
      }
    }
    for (size_t i = 0; i < range.row_groups.size(); ++i) {
      const int rg = range.row_groups[i];
      if (rg < 0 || rg >= file_->num_row_groups()) {
        return Status::Invalid("'{}' has no row group {} ({} row groups)", range.path, rg,
                               file_->num_row_groups());
      }
      if (!range.row_group_rows.empty()) {
        const auto [begin, end] = range.row_group_rows[i];
        const int64_t rows = file_->metadata().row_groups[static_cast<size_t>(rg)].num_rows;
        if (begin < 0 || begin >= end || end > rows) {
          return Status::Invalid("'{}': rows [{}, {}) of row group {}, which has {} rows",
                                 range.path, begin, end, rg, rows);
        }
      }
    }
    // Keeps the row groups whose statistics do not rule `pruning` out.
    std::vector<int> row_groups = range.row_groups;
    auto keep_matching = [&](const std::vector<parquet::ColumnPredicate>& pruning) -> Status {
      if (pruning.empty()) return Status::OK();
      FLOE_ASSIGN_OR_RAISE(std::vector<int> kept, file_->PruneRowGroups(pruning));
      std::vector<int> both;
      std::set_intersection(row_groups.begin(), row_groups.end(), kept.begin(), kept.end(),
                            std::back_inserter(both));
      row_groups = std::move(both);
      return Status::OK();
    };
    FLOE_RETURN_NOT_OK(keep_matching(ranges));
    if (row_groups.empty()) {
      current_.reset();
      return Status::OK();
    }
    // The rows of each kept row group this range reads (all, unless it holds a part).
    auto rows_of = [&](const std::vector<int>& kept) {
      std::vector<std::pair<int64_t, int64_t>> rows;
      size_t at = 0;
      for (int rg : kept) {
        while (range.row_groups[at] != rg) ++at;  // kept is an ascending subset
        rows.push_back(
            range.row_group_rows.empty()
                ? std::make_pair(int64_t{0},
                                 file_->metadata().row_groups[static_cast<size_t>(rg)].num_rows)
                : range.row_group_rows[at]);
      }
      return rows;
    };
    if (names_.empty()) {
      FLOE_RETURN_NOT_OK(keep_matching(predicates));
      int64_t rows = 0;
      for (const auto& [begin, end] : rows_of(row_groups)) rows += end - begin;
      current_ = std::make_unique<RowCountStream>(schema(), rows, batch_size_);
      return Status::OK();
    }
    parquet::ReadRequest request;
    FLOE_ASSIGN_OR_RAISE(request.columns, file_->ColumnsByName(names_));
    if (!range.row_group_rows.empty()) request.row_group_rows = rows_of(row_groups);
    request.row_groups = std::move(row_groups);
    request.predicates = std::move(predicates);
    // The filters stay above the scan, so batches may drop rows that fail them early.
    request.filter_rows = true;
    FLOE_ASSIGN_OR_RAISE(current_, file_->Read(request));
    return Status::OK();
  }

  const ParquetScanExec* node_;
  exec::TaskContextPtr ctx_;
  const std::vector<ParquetFileRange>* ranges_;
  std::optional<int64_t> remaining_;
  int64_t batch_size_;
  bool verify_checksums_;
  MemoryPool* pool_;
  std::vector<std::string> names_;
  size_t next_range_ = 0;
  std::string current_path_;
  std::shared_ptr<const parquet::ParquetFileReader> file_;
  std::unique_ptr<RecordBatchReader> current_;
};

}  // namespace

Result<FileIdentity> FileIdentity::Of(const std::string& path, const io::FileIO* io) {
  if (io::IsS3Path(path)) {
    const io::LocalFileIO local;
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file,
                         (io ? io : &local)->NewInputFile(path));
    FileIdentity out;
    out.size = file->size();
    return out;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return Status::IOError("cannot stat '{}': {}", path, std::strerror(errno));
  }
  FileIdentity out;
  out.device = static_cast<uint64_t>(st.st_dev);
  out.inode = static_cast<uint64_t>(st.st_ino);
  out.size = static_cast<int64_t>(st.st_size);
  out.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return out;
}

Result<std::unique_ptr<parquet::ParquetFileReader>> OpenParquetFile(const std::string& path,
                                                                    const io::FileIO* io,
                                                                    parquet::ReaderOptions options,
                                                                    FileIdentity* identity) {
  if (!io::IsS3Path(path)) {
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<parquet::ParquetFileReader> reader,
                         parquet::ParquetFileReader::OpenPath(path, options));
    if (identity != nullptr) {
      FLOE_ASSIGN_OR_RAISE(*identity, FileIdentity::Of(path));
    }
    return reader;
  }
  const io::LocalFileIO local;
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<io::RandomAccessFile> file,
                       (io ? io : &local)->NewInputFile(path));
  if (identity != nullptr) {
    *identity = FileIdentity{};
    identity->size = file->size();
  }
  return parquet::ParquetFileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file)),
                                          options);
}

std::optional<parquet::ColumnPredicate> ToParquetPredicate(const expr::Expr& conjunct,
                                                           const Schema& file_schema) {
  if (conjunct.kind != expr::ExprKind::kCall) return std::nullopt;
  const std::string& name = conjunct.name;
  const std::vector<expr::ExprPtr>& args = conjunct.args;
  parquet::ColumnPredicate predicate;
  if ((name == "is_null" || name == "is_not_null") && args.size() == 1) {
    int column = PrunableColumn(*args[0], file_schema);
    if (column < 0) return std::nullopt;
    predicate.column = column;
    predicate.op = name == "is_null" ? Op::kIsNull : Op::kIsNotNull;
    return predicate;
  }
  if (name == "in_list" && args.size() >= 2) {
    int column = PrunableColumn(*args[0], file_schema);
    if (column < 0) return std::nullopt;
    const DataType& type = *file_schema.field(column).type();
    predicate.column = column;
    predicate.op = Op::kIn;
    for (size_t i = 1; i < args.size(); ++i) {
      const expr::Expr& value = *args[i];
      // A NULL in the list can never make the IN true, so it needs no row group.
      if (value.kind == expr::ExprKind::kLiteral && value.literal.is_null()) continue;
      if (!IsConstantOf(value, type) || IsNaN(value.literal)) return std::nullopt;
      predicate.values.push_back(value.literal);
    }
    if (predicate.values.empty()) return std::nullopt;
    return predicate;
  }
  if (args.size() != 2) return std::nullopt;
  bool flipped = false;
  int column = PrunableColumn(*args[0], file_schema);
  const expr::Expr* constant = args[1].get();
  if (column < 0) {
    column = PrunableColumn(*args[1], file_schema);
    constant = args[0].get();
    flipped = true;
  }
  if (column < 0) return std::nullopt;
  std::optional<Op> op = ComparisonOp(name, flipped);
  if (!op) return std::nullopt;
  const DataType& type = *file_schema.field(column).type();
  if (!IsConstantOf(*constant, type) || IsNaN(constant->literal)) return std::nullopt;
  // NaN is greater than every number in SQL, but footers leave NaNs out of min/max: a
  // row group whose max is below the constant may still hold NaNs that pass > or >=.
  if (IsFloating(type) && (*op == Op::kGt || *op == Op::kGe)) return std::nullopt;
  predicate.column = column;
  predicate.op = *op;
  predicate.values.push_back(constant->literal);
  return predicate;
}

Result<exec::PlanPtr> ParquetScanExec::Make(SchemaPtr file_schema,
                                            std::vector<std::vector<ParquetFileRange>> groups,
                                            std::vector<int> projection,
                                            std::vector<expr::ExprPtr> filters,
                                            std::optional<int64_t> limit,
                                            std::shared_ptr<const io::FileIO> io) {
  if (!file_schema) return Status::Internal("ParquetScanExec: no file schema");
  std::vector<Field> fields;
  for (int c : projection) {
    if (c < 0 || c >= file_schema->num_fields()) {
      return Status::Internal("ParquetScanExec: projected column {} out of range ({} columns)", c,
                              file_schema->num_fields());
    }
    fields.push_back(file_schema->field(c));
  }
  if (limit && *limit < 0) return Status::Internal("ParquetScanExec: negative limit {}", *limit);
  auto node = std::shared_ptr<ParquetScanExec>(new ParquetScanExec());
  for (const expr::ExprPtr& filter : filters) {
    if (!filter) return Status::Internal("ParquetScanExec: null filter");
    std::optional<parquet::ColumnPredicate> predicate = ToParquetPredicate(*filter, *file_schema);
    if (!predicate) continue;
    node->predicates_.push_back(
        NamedPredicate{file_schema->field(predicate->column).name(), std::move(*predicate)});
  }
  for (const std::vector<ParquetFileRange>& group : groups) {
    for (const ParquetFileRange& range : group) {
      if (!range.row_group_rows.empty() && range.row_group_rows.size() != range.row_groups.size()) {
        return Status::Internal("ParquetScanExec: '{}' has {} row ranges for {} row groups",
                                range.path, range.row_group_rows.size(), range.row_groups.size());
      }
    }
  }
  if (groups.empty()) groups.emplace_back();
  node->properties_.schema = std::make_shared<const Schema>(std::move(fields));
  node->properties_.partitioning = exec::Partitioning::Unknown(static_cast<int>(groups.size()));
  node->file_schema_ = std::move(file_schema);
  node->groups_ = std::move(groups);
  node->projection_ = std::move(projection);
  node->filters_ = std::move(filters);
  node->limit_ = limit;
  node->io_ = std::move(io);
  return exec::PlanPtr(std::move(node));
}

Result<exec::PlanPtr> ParquetScanExec::WithNewChildren(std::vector<exec::PlanPtr> children) const {
  if (!children.empty()) return Status::Internal("ParquetScanExec takes no children");
  FLOE_ASSIGN_OR_RAISE(exec::PlanPtr made,
                       Make(file_schema_, groups_, projection_, filters_, limit_, io_));
  made = exec::WithDynamicFilters(std::move(made), dynamic_filters_);
  if (made == nullptr) return Status::Internal("ParquetScanExec: a dynamic filter it cannot read");
  return made;
}

Result<exec::BatchStreamPtr> ParquetScanExec::Execute(int partition,
                                                      const exec::TaskContextPtr& ctx) const {
  if (partition < 0 || partition >= static_cast<int>(groups_.size())) {
    return Status::Internal("ParquetScanExec: no partition {}", partition);
  }
  return exec::BatchStreamPtr(std::make_unique<ParquetScanStream>(
      this, &groups_[static_cast<size_t>(partition)], limit_, ctx->config().batch_size(),
      ctx->config().parquet_verify_page_checksums(), ctx->pool(), ctx));
}

exec::PlanPtr ParquetScanExec::WithDynamicFilter(int id, int column) const {
  if (limit_ || column < 0 || column >= static_cast<int>(projection_.size()) ||
      !exec::DynamicFilter::Supports(*schema()->field(column).type())) {
    return nullptr;
  }
  auto copy = std::shared_ptr<ParquetScanExec>(new ParquetScanExec(*this));
  copy->dynamic_filters_.push_back(exec::DynamicFilterUse{id, column});
  return copy;
}

std::string ParquetScanExec::ToString() const {
  size_t files = 0;
  size_t row_groups = 0;
  size_t row_ranges = 0;
  std::string first_path;
  for (const std::vector<ParquetFileRange>& group : groups_) {
    for (const ParquetFileRange& range : group) {
      if (first_path.empty()) first_path = range.path;
      ++files;
      row_groups += range.row_groups.size();
      row_ranges += range.row_group_rows.size();
    }
  }
  std::string out = fmt::format("ParquetScanExec: file_ranges={} row_groups={}", files, row_groups);
  // Row groups some partitions share: each partition reads rows of them.
  if (row_ranges > 0) out += fmt::format(" row_ranges={}", row_ranges);
  out += " projection=[";
  for (size_t i = 0; i < projection_.size(); ++i) {
    if (i > 0) out += ", ";
    out += file_schema_->field(projection_[i]).name();
  }
  out += "]";
  if (!predicates_.empty()) {
    out += " predicates=[";
    for (size_t i = 0; i < predicates_.size(); ++i) {
      if (i > 0) out += ", ";
      const NamedPredicate& named = predicates_[i];
      out += fmt::format("{} {}", named.column, OpText(named.predicate.op));
      if (named.predicate.op == Op::kIn) {
        out += " (";
        for (size_t v = 0; v < named.predicate.values.size(); ++v) {
          if (v > 0) out += ", ";
          out += FormatScalar(named.predicate.values[v]);
        }
        out += ")";
      } else if (!named.predicate.values.empty()) {
        out += " " + FormatScalar(named.predicate.values[0]);
      }
    }
    out += "]";
  }
  if (limit_) out += fmt::format(" limit={}", *limit_);
  return out + exec::DynamicFilterUsesToString(dynamic_filters_, *schema());
}

// ---------------------------------------------------------------------------------------
// Codec (exec/plan_codec.h; the message is in codec/iceberg.proto)

namespace pb = codec::proto;

Status ParquetScanExec::Encode(codec::PlanEncoder& out) const {
  pb::ParquetScanNode m;
  codec::EncodeSchema(*file_schema_, m.mutable_file_schema());
  for (const std::vector<ParquetFileRange>& group : groups_) {
    pb::ParquetGroup* g = m.add_groups();
    for (const ParquetFileRange& range : group) {
      pb::ParquetFileRange* r = g->add_ranges();
      r->set_path(range.path);
      for (int row_group : range.row_groups) r->add_row_groups(row_group);
      r->set_bytes(range.bytes);
      for (const auto& [begin, end] : range.row_group_rows) {
        r->add_row_begin(begin);
        r->add_row_end(end);
      }
    }
  }
  for (int c : projection_) m.add_projection(c);
  for (const expr::ExprPtr& filter : filters_) {
    FLOE_RETURN_NOT_OK(codec::EncodeExpr(*filter, m.add_filters()));
  }
  if (limit_) m.mutable_limit()->set_value(*limit_);
  if (io_) FLOE_RETURN_NOT_OK(codec::EncodeFileIO(io_, "read_parquet", m.mutable_io()));
  exec::EncodeDynamicFilterUses(dynamic_filters_, m.mutable_dynamic_filters());
  return out.SetPayload(m);
}

Result<exec::PlanPtr> ParquetScanExec::Decode(codec::PlanDecoder& in,
                                              std::vector<exec::PlanPtr> children) {
  FLOE_RETURN_NOT_OK(exec::ExpectChildren(in, children, 0));
  pb::ParquetScanNode m;
  FLOE_RETURN_NOT_OK(in.ReadPayload(&m));
  Result<SchemaPtr> schema = codec::DecodeSchema(m.file_schema());
  if (!schema.ok()) return exec::DecodeError(in, schema.status());
  std::vector<std::vector<ParquetFileRange>> groups;
  for (const pb::ParquetGroup& g : m.groups()) {
    std::vector<ParquetFileRange> group;
    for (const pb::ParquetFileRange& r : g.ranges()) {
      ParquetFileRange range;
      if (r.path().empty()) return in.Corrupt("a file range without a path");
      range.path = r.path();
      for (int32_t row_group : r.row_groups()) {
        if (row_group < 0 || (!range.row_groups.empty() && row_group <= range.row_groups.back())) {
          return in.Corrupt(
              fmt::format("file {}: row groups are not ascending at {}", r.path(), row_group));
        }
        range.row_groups.push_back(row_group);
      }
      if (r.bytes() < 0) return in.Corrupt(fmt::format("file {}: negative bytes", r.path()));
      range.bytes = r.bytes();
      if (r.row_begin_size() != r.row_end_size() ||
          (r.row_begin_size() != 0 && r.row_begin_size() != r.row_groups_size())) {
        return in.Corrupt(fmt::format("file {}: {} row ranges ({} ends) for {} row groups",
                                      r.path(), r.row_begin_size(), r.row_end_size(),
                                      r.row_groups_size()));
      }
      for (int i = 0; i < r.row_begin_size(); ++i) {
        if (r.row_begin(i) < 0 || r.row_begin(i) >= r.row_end(i)) {
          return in.Corrupt(fmt::format("file {}: rows [{}, {}) of row group {}", r.path(),
                                        r.row_begin(i), r.row_end(i), r.row_groups(i)));
        }
        range.row_group_rows.emplace_back(r.row_begin(i), r.row_end(i));
      }
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
  FLOE_ASSIGN_OR_RAISE(std::vector<expr::ExprPtr> filters,
                       exec::DecodeNodeFilters(in, m.filters(), *schema));
  FLOE_ASSIGN_OR_RAISE(std::optional<int64_t> limit,
                       exec::DecodeNodeLimit(in, m.has_limit(), m.limit()));
  std::shared_ptr<const io::FileIO> io;
  if (m.has_io()) {
    FLOE_ASSIGN_OR_RAISE(io, codec::DecodeFileIO(in, m.io()));
  }
  Result<exec::PlanPtr> plan = Make(std::move(*schema), std::move(groups), std::move(projection),
                                    std::move(filters), limit, std::move(io));
  if (!plan.ok()) return exec::DecodeError(in, plan.status());
  exec::PlanPtr out =
      exec::WithDynamicFilters(*plan, exec::DecodeDynamicFilterUses(m.dynamic_filters()));
  if (out == nullptr) return in.Corrupt("a dynamic filter over a column that cannot take one");
  return out;
}

void RegisterParquetPlanCodecs(exec::PlanCodecRegistry* registry) {
  exec::RegisterPlanCodec<ParquetScanExec>(registry);
}

}  // namespace floe::connector
