#include "floe/connector/parquet/parquet_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string_view>
#include <utility>

#include "floe/format/parquet/metadata.h"
#include "floe/io/s3_file_io.h"
#include "fmt/format.h"

namespace floe::connector {

namespace {

// For every top-level column of the file, the index of its leaf column chunk, or -1 when
// the column is nested.
std::vector<int> TopLevelLeaves(const parquet::FileMetaData& metadata) {
  std::vector<int> out;
  const std::vector<parquet::SchemaElement>& elements = metadata.schema;
  if (elements.empty()) return out;
  size_t next = 1;
  int leaf = 0;
  // Skips the subtree at `next`, counting its leaves; returns whether it was one leaf.
  std::function<bool()> walk = [&]() -> bool {
    const parquet::SchemaElement& e = elements[next++];
    int children = e.num_children.value_or(0);
    if (!e.num_children || children == 0) {
      if (!e.num_children) {
        ++leaf;
        return true;
      }
      return false;
    }
    for (int c = 0; c < children && next < elements.size(); ++c) walk();
    return false;
  };
  int top = elements[0].num_children.value_or(0);
  for (int c = 0; c < top && next < elements.size(); ++c) {
    int first = leaf;
    bool is_leaf = walk();
    out.push_back(is_leaf ? first : -1);
  }
  return out;
}

// A footer statistics value as a scalar of `type`, for the simple representations only.
std::optional<Scalar> DecodeBound(const parquet::SchemaElement& element, const TypePtr& type,
                                  const std::string& bytes) {
  if (!element.type) return std::nullopt;
  parquet::Type physical = *element.type;
  switch (type->id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate: {
      if (physical != parquet::Type::kInt32 || bytes.size() != 4) return std::nullopt;
      int32_t v;
      std::memcpy(&v, bytes.data(), 4);
      return Scalar::Make(type, v);
    }
    case TypeId::kInt64: {
      if (physical != parquet::Type::kInt64 || bytes.size() != 8) return std::nullopt;
      int64_t v;
      std::memcpy(&v, bytes.data(), 8);
      return Scalar::Make(type, v);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      if (physical != parquet::Type::kInt64 || bytes.size() != 8 || !element.logical_type ||
          element.logical_type->kind != parquet::LogicalType::Kind::kTimestamp ||
          element.logical_type->unit != parquet::TimeUnit::kMicros) {
        return std::nullopt;
      }
      int64_t v;
      std::memcpy(&v, bytes.data(), 8);
      return Scalar::Make(type, v);
    }
    case TypeId::kFloat32: {
      if (physical != parquet::Type::kFloat || bytes.size() != 4) return std::nullopt;
      float v;
      std::memcpy(&v, bytes.data(), 4);
      if (std::isnan(v)) return std::nullopt;
      return Scalar::Make(type, v);
    }
    case TypeId::kFloat64: {
      if (physical != parquet::Type::kDouble || bytes.size() != 8) return std::nullopt;
      double v;
      std::memcpy(&v, bytes.data(), 8);
      if (std::isnan(v)) return std::nullopt;
      return Scalar::Make(type, v);
    }
    case TypeId::kString:
      if (physical != parquet::Type::kByteArray) return std::nullopt;
      return Scalar::Make(type, bytes);
    default:
      return std::nullopt;
  }
}

bool Less(const Scalar& a, const Scalar& b) {
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return false;
        } else {
          const T* y = std::get_if<T>(&b.value());
          return y != nullptr && x < *y;
        }
      },
      a.value());
}

struct ColumnBounds {
  std::optional<Scalar> min;
  std::optional<Scalar> max;
  bool bounds_known = true;
  int64_t nulls = 0;
  bool nulls_known = true;
  int64_t uncompressed_bytes = 0;  // of the column's chunks, all files
  bool bytes_known = true;
  // The most distinct values a row group's statistics count, and the fewest rows of a row
  // group; distinct_known while every row group counts its distinct values.
  int64_t most_distinct = 0;
  int64_t fewest_rows = INT64_MAX;
  bool distinct_known = true;
};

// A column's distinct values in the whole table when its row groups' counts show it
// saturated: every row group counts them and the most any counts is at most a tenth of the
// smallest row group's rows (TPC-H's p_size, 50 in every row group of 122,880 parts), so
// the row groups hold the same few values. nullopt otherwise (a count per row group says
// little about the table's when the values differ from group to group).
std::optional<int64_t> SaturatedDistinct(const ColumnBounds& column) {
  if (!column.distinct_known || column.most_distinct <= 0 || column.fewest_rows == INT64_MAX ||
      column.most_distinct * 10 > column.fewest_rows) {
    return std::nullopt;
  }
  return column.most_distinct;
}

void AddFileStatistics(const parquet::ParquetFileReader& reader, const Schema& schema,
                       std::vector<ColumnBounds>* columns) {
  const parquet::FileMetaData& metadata = reader.metadata();
  std::vector<int> leaves = TopLevelLeaves(metadata);
  // Element index of each leaf, to find its SchemaElement.
  std::vector<size_t> leaf_elements;
  for (size_t e = 1; e < metadata.schema.size(); ++e) {
    if (!metadata.schema[e].num_children) leaf_elements.push_back(e);
  }
  for (int c = 0; c < schema.num_fields(); ++c) {
    ColumnBounds& bounds = (*columns)[static_cast<size_t>(c)];
    int file_column = reader.schema()->GetFieldIndex(schema.field(c).name());
    int leaf = file_column >= 0 && static_cast<size_t>(file_column) < leaves.size()
                   ? leaves[static_cast<size_t>(file_column)]
                   : -1;
    if (leaf < 0 || static_cast<size_t>(leaf) >= leaf_elements.size()) {
      bounds.bounds_known = false;
      bounds.nulls_known = false;
      bounds.bytes_known = false;
      bounds.distinct_known = false;
      continue;
    }
    const parquet::SchemaElement& element =
        metadata.schema[leaf_elements[static_cast<size_t>(leaf)]];
    for (const parquet::RowGroup& rg : metadata.row_groups) {
      const parquet::ColumnChunk& chunk = rg.columns[static_cast<size_t>(leaf)];
      if (chunk.meta_data) {
        bounds.uncompressed_bytes += chunk.meta_data->total_uncompressed_size;
      } else {
        bounds.bytes_known = false;
      }
      const std::optional<parquet::Statistics>* stats = nullptr;
      if (chunk.meta_data) stats = &chunk.meta_data->statistics;
      if (stats == nullptr || !*stats) {
        bounds.bounds_known = false;
        bounds.nulls_known = false;
        bounds.distinct_known = false;
        continue;
      }
      const parquet::Statistics& s = **stats;
      if (s.distinct_count) {
        bounds.most_distinct = std::max(bounds.most_distinct, *s.distinct_count);
        bounds.fewest_rows = std::min(bounds.fewest_rows, rg.num_rows);
      } else {
        bounds.distinct_known = false;
      }
      if (s.null_count) {
        bounds.nulls += *s.null_count;
      } else {
        bounds.nulls_known = false;
      }
      bool all_null = s.null_count && *s.null_count == rg.num_rows;
      if (all_null) continue;
      if (!s.min_value || !s.max_value) {
        bounds.bounds_known = false;
        continue;
      }
      std::optional<Scalar> lo = DecodeBound(element, schema.field(c).type(), *s.min_value);
      std::optional<Scalar> hi = DecodeBound(element, schema.field(c).type(), *s.max_value);
      if (!lo || !hi) {
        bounds.bounds_known = false;
        continue;
      }
      if (!bounds.min || Less(*lo, *bounds.min)) bounds.min = std::move(lo);
      if (!bounds.max || Less(*bounds.max, *hi)) bounds.max = std::move(hi);
    }
  }
}

}  // namespace

Result<std::shared_ptr<const ParquetTable>> ParquetTable::Make(
    std::vector<std::string> paths_or_globs, std::shared_ptr<const io::FileIO> io) {
  if (paths_or_globs.empty()) {
    return Status::Invalid("read_parquet needs at least one path or glob pattern");
  }
  const io::LocalFileIO local;
  const io::FileIO& files = io ? *io : local;
  FLOE_ASSIGN_OR_RAISE(std::vector<std::string> paths,
                       io::ExpandPathPatterns(files, paths_or_globs, "read_parquet"));

  auto table = std::shared_ptr<ParquetTable>(new ParquetTable());
  table->io_ = std::move(io);
  std::vector<ColumnBounds> bounds;
  int64_t rows = 0;
  int64_t bytes = 0;
  for (const std::string& path : paths) {
    FileIdentity identity;
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<parquet::ParquetFileReader> reader,
                         OpenParquetFile(path, table->io_.get(), {}, &identity));
    const SchemaPtr& schema = reader->schema();
    if (!table->schema_) {
      // Field ids and metadata of the file are not part of the relation's schema.
      std::vector<Field> fields;
      for (const Field& field : schema->fields()) {
        fields.emplace_back(field.name(), field.type(), field.nullable());
      }
      table->schema_ = std::make_shared<const Schema>(std::move(fields));
      bounds.resize(static_cast<size_t>(schema->num_fields()));
    } else {
      const Schema& first = *table->schema_;
      const std::string& first_path = table->files_[0].path;
      if (schema->num_fields() != first.num_fields()) {
        return Status::Invalid("'{}' has {} columns but '{}' has {}", path, schema->num_fields(),
                               first_path, first.num_fields());
      }
      for (int c = 0; c < first.num_fields(); ++c) {
        const Field& field = schema->field(c);
        if (field.name() != first.field(c).name()) {
          return Status::Invalid("column {} of '{}' is \"{}\" but \"{}\" in '{}'", c + 1, path,
                                 field.name(), first.field(c).name(), first_path);
        }
        if (!field.type()->Equals(*first.field(c).type())) {
          return Status::Invalid("column \"{}\" of '{}' is {} but {} in '{}'", field.name(), path,
                                 field.type()->ToString(), first.field(c).type()->ToString(),
                                 first_path);
        }
        if (field.nullable() && !first.field(c).nullable()) {
          std::vector<Field> fields = first.fields();
          fields[static_cast<size_t>(c)] = fields[static_cast<size_t>(c)].WithNullable(true);
          table->schema_ = std::make_shared<const Schema>(std::move(fields));
        }
      }
    }
    File file;
    file.path = path;
    for (const parquet::RowGroup& rg : reader->metadata().row_groups) {
      file.row_group_rows.push_back(rg.num_rows);
      int64_t compressed = 0;
      if (rg.total_compressed_size) {
        compressed = *rg.total_compressed_size;
      } else {
        for (const parquet::ColumnChunk& chunk : rg.columns) {
          if (chunk.meta_data) compressed += chunk.meta_data->total_compressed_size;
        }
      }
      file.row_group_bytes.push_back(compressed);
      bytes += rg.total_byte_size;
    }
    rows += reader->num_rows();
    AddFileStatistics(*reader, *table->schema_, &bounds);
    file.reader = std::move(reader);
    auto planned = std::make_shared<PlannedParquetFile>();
    planned->reader = file.reader;
    planned->batch_size = parquet::ReaderOptions{}.batch_size;
    planned->identity = identity;
    file.planned = std::move(planned);
    table->files_.push_back(std::move(file));
  }
  plan::Statistics& statistics = table->statistics_;
  statistics.row_count = rows;
  statistics.total_bytes = bytes;
  statistics.exact = true;
  for (size_t c = 0; c < bounds.size(); ++c) {
    ColumnBounds& column = bounds[c];
    plan::ColumnStatistics out;
    // Bytes per value in memory: the type's width, or for strings and binary the
    // encoded bytes per row (at least the bounds' mean length) plus a 4-byte offset.
    const int fixed = table->schema_->field(static_cast<int>(c)).type()->byte_width();
    if (fixed > 0) {
      out.avg_width = fixed;
    } else if (column.bytes_known && rows > 0) {
      double width = static_cast<double>(column.uncompressed_bytes) / static_cast<double>(rows);
      if (column.bounds_known && column.min && column.max) {
        auto length = [](const Scalar& s) {
          const auto* v = std::get_if<std::string>(&s.value());
          return v ? static_cast<double>(v->size()) : 0.0;
        };
        width = std::max(width, (length(*column.min) + length(*column.max)) / 2);
      }
      out.avg_width = width + 4;
    }
    if (column.bounds_known && column.min && column.max) {
      out.min = std::move(column.min);
      out.max = std::move(column.max);
    }
    if (column.nulls_known) out.null_count = column.nulls;
    out.distinct_count = SaturatedDistinct(column);
    statistics.columns.push_back(std::move(out));
  }
  return std::shared_ptr<const ParquetTable>(std::move(table));
}

bool ParquetTable::SameSource(const plan::TableSource& other) const {
  if (this == &other) return true;
  const auto* o = dynamic_cast<const ParquetTable*>(&other);
  if (o == nullptr || o->io_ != io_ || o->files_.size() != files_.size() ||
      !o->schema_->Equals(*schema_)) {
    return false;
  }
  for (size_t i = 0; i < files_.size(); ++i) {
    const File& a = files_[i];
    const File& b = o->files_[i];
    if (a.path != b.path || a.row_group_rows != b.row_group_rows ||
        a.row_group_bytes != b.row_group_bytes) {
      return false;
    }
  }
  return true;
}

std::string ParquetTable::display_name() const {
  if (files_.size() == 1) return fmt::format("read_parquet('{}')", files_[0].path);
  return fmt::format("read_parquet({} files)", files_.size());
}

ParquetTable::FilterPushdown ParquetTable::SupportsFilter(const expr::Expr& conjunct) const {
  return ToParquetPredicate(conjunct, *schema_) ? FilterPushdown::kInexact
                                                : FilterPushdown::kUnsupported;
}

Result<exec::PlanPtr> ParquetTable::Scan(const exec::ScanRequest& request,
                                         const exec::SessionConfig& config) const {
  std::vector<parquet::ColumnPredicate> predicates;
  for (const expr::ExprPtr& filter : request.filters) {
    if (!filter) continue;
    std::optional<parquet::ColumnPredicate> predicate = ToParquetPredicate(*filter, *schema_);
    if (predicate) predicates.push_back(std::move(*predicate));
  }
  struct Unit {
    size_t file;
    int row_group;
    int64_t bytes;
    int64_t rows;
  };
  std::vector<Unit> units;
  int64_t total_bytes = 0;
  int64_t total_rows = 0;
  for (size_t f = 0; f < files_.size(); ++f) {
    const File& file = files_[f];
    std::vector<int> kept;
    if (predicates.empty()) {
      for (int rg = 0; rg < static_cast<int>(file.row_group_rows.size()); ++rg) kept.push_back(rg);
    } else {
      std::vector<parquet::ColumnPredicate> mapped = predicates;
      for (parquet::ColumnPredicate& p : mapped) {
        p.column = file.reader->schema()->GetFieldIndex(schema_->field(p.column).name());
      }
      FLOE_ASSIGN_OR_RAISE(kept, file.reader->PruneRowGroups(mapped));
    }
    for (int rg : kept) {
      const int64_t rows = file.row_group_rows[static_cast<size_t>(rg)];
      if (rows == 0) continue;
      const int64_t bytes = file.row_group_bytes[static_cast<size_t>(rg)];
      units.push_back(Unit{f, rg, bytes, rows});
      total_bytes += bytes;
      total_rows += rows;
    }
  }
  const size_t wanted = static_cast<size_t>(std::max(1, config.target_partitions()));
  size_t n = std::max<size_t>(1, std::min(wanted, units.size()));
  // Largest row groups first, each to the group with the fewest bytes so far.
  std::vector<size_t> order(units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return units[a].bytes > units[b].bytes; });
  std::vector<int64_t> load(n, 0);
  std::vector<std::vector<size_t>> assigned(n);
  for (size_t i : order) {
    size_t target = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[target] += units[i].bytes;
    assigned[target].push_back(i);
  }
  std::vector<std::vector<ParquetFileRange>> groups;
  for (std::vector<size_t>& members : assigned) {
    std::sort(members.begin(), members.end());
    std::vector<ParquetFileRange> group;
    for (size_t i : members) {
      const Unit& unit = units[i];
      if (group.empty() || group.back().path != files_[unit.file].path) {
        group.push_back(ParquetFileRange{files_[unit.file].path, {}, 0, files_[unit.file].planned});
      }
      group.back().row_groups.push_back(unit.row_group);
      group.back().bytes += unit.bytes;
    }
    groups.push_back(std::move(group));
  }

  // Whole row groups leave partitions idle when there are fewer of them than partitions
  // (a file of one large row group). Then the partitions take equal shares of the rows in
  // file order instead, cutting row groups where a share ends. Only flat columns can be
  // cut, and a part is worth reading only where the reader can skip the pages outside it:
  // files with an offset index (a file without one may hold a row group's column in a
  // single page, which every partition would then decompress whole). Partitions that all
  // have work are not evened out: neighbouring parts both decompress the pages they share
  // (a megabyte each, as writers page), which costs more than the balance gains.
  bool flat = true;
  for (int c : request.projection) {
    if (schema_->field(c).type()->is_nested()) flat = false;
  }
  for (const Unit& unit : units) {
    const parquet::RowGroup& rg =
        files_[unit.file].reader->metadata().row_groups[static_cast<size_t>(unit.row_group)];
    for (const parquet::ColumnChunk& chunk : rg.columns) {
      if (!chunk.offset_index_offset || !chunk.offset_index_length) flat = false;
    }
  }
  const int64_t slices = std::min<int64_t>(static_cast<int64_t>(wanted),
                                           std::max<int64_t>(1, total_rows / kMinRowsPerPart));
  if (flat && slices > 1 && total_bytes > 0 && static_cast<size_t>(slices) > n) {
    groups.assign(static_cast<size_t>(slices), {});
    // Partition p ends once the rows taken reach (p + 1) / slices of them (rows, not
    // bytes: a row group's bytes are not known page by page).
    int64_t taken = 0;
    size_t p = 0;
    for (const Unit& unit : units) {
      int64_t begin = 0;
      while (begin < unit.rows) {
        const int64_t share_end = total_rows * static_cast<int64_t>(p + 1) / slices;
        int64_t end = unit.rows;
        if (p + 1 < groups.size() && taken + (unit.rows - begin) > share_end) {
          end = begin + (share_end - taken);
          // No part below kMinRowsPerPart / 2 rows: a short tail stays with this
          // partition, and a short head is not cut off (below).
          if (unit.rows - end < kMinRowsPerPart / 2) end = unit.rows;
        }
        if (end - begin < kMinRowsPerPart / 2 && end < unit.rows) {
          ++p;  // too little room left here: the row group starts the next partition
          continue;
        }
        std::vector<ParquetFileRange>& group = groups[p];
        const File& file = files_[unit.file];
        if (group.empty() || group.back().path != file.path) {
          group.push_back(ParquetFileRange{file.path, {}, 0, file.planned});
        }
        ParquetFileRange& range = group.back();
        range.row_groups.push_back(unit.row_group);
        range.row_group_rows.emplace_back(begin, end);
        range.bytes +=
            static_cast<int64_t>(static_cast<double>(unit.bytes) *
                                 static_cast<double>(end - begin) / static_cast<double>(unit.rows));
        taken += end - begin;
        begin = end;
        if (p + 1 < groups.size() && taken >= total_rows * static_cast<int64_t>(p + 1) / slices) {
          ++p;
        }
      }
    }
    // A range that reads each of its row groups whole needs no row ranges.
    std::map<std::string_view, const File*> by_path;
    for (const File& file : files_) by_path.emplace(file.path, &file);
    for (std::vector<ParquetFileRange>& group : groups) {
      for (ParquetFileRange& range : group) {
        const File& file = *by_path.at(range.path);
        bool whole = true;
        for (size_t i = 0; i < range.row_groups.size(); ++i) {
          whole = whole && range.row_group_rows[i].first == 0 &&
                  range.row_group_rows[i].second ==
                      file.row_group_rows[static_cast<size_t>(range.row_groups[i])];
        }
        if (whole) range.row_group_rows.clear();
      }
    }
    std::erase_if(groups, [](const std::vector<ParquetFileRange>& g) { return g.empty(); });
  }
  // The filters only prune, the rows still pass a filter above: a limit is safe only
  // without them.
  std::optional<int64_t> limit = request.filters.empty() ? request.limit : std::nullopt;
  return ParquetScanExec::Make(schema_, std::move(groups), request.projection, request.filters,
                               limit, io_);
}

Result<plan::TableSourcePtr> MakeReadParquet(const std::vector<plan::TableFunctionArg>& args,
                                             const FileIOSource& s3_io) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const plan::TableFunctionArg& arg = args[i];
    if (!arg.name.empty()) {
      return Status::Invalid("read_parquet has no argument named \"{}\"", arg.name);
    }
    if (arg.value.is_null() || !arg.value.type() || arg.value.type()->id() != TypeId::kString) {
      return Status::Invalid(
          "read_parquet: argument {} must be a text path or glob pattern, got {}", i + 1,
          arg.value.is_null() ? std::string("NULL") : arg.value.type()->ToString());
    }
    paths.push_back(arg.value.get<std::string>());
  }
  if (paths.empty()) return Status::Invalid("read_parquet needs at least one path or glob pattern");
  // Only files on S3 need the settings: a query over local files never looks for them.
  std::shared_ptr<const io::FileIO> io;
  if (s3_io && std::any_of(paths.begin(), paths.end(),
                           [](const std::string& p) { return io::IsS3Path(p); })) {
    FLOE_ASSIGN_OR_RAISE(io, s3_io());
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<const ParquetTable> table,
                       ParquetTable::Make(std::move(paths), std::move(io)));
  return plan::TableSourcePtr(std::move(table));
}

}  // namespace floe::connector
