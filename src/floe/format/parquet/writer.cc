#include "floe/format/parquet/writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/common/ascii.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/column_writer_internal.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/writer_internal.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "0.0.0"
#endif
#ifndef FLOE_BUILD_ID
#define FLOE_BUILD_ID "dev"
#endif

namespace floe::parquet {

using internal::CapacityBytes;
using internal::ChunkIndex;
using internal::ColumnWriter;
using internal::LeafColumn;
using internal::LeafLevels;
using internal::WriteContext;

std::string WriterCreatedBy() {
  return fmt::format("floe version {} (build {})", FLOE_VERSION, FLOE_BUILD_ID);
}

namespace {

struct CodecChoice {
  CompressionCodec parquet;
  compression::CodecKind kind;
};

Result<CodecChoice> ParseCodec(const std::string& name) {
  const std::string n = AsciiLower(name);
  if (n == "zstd") return CodecChoice{CompressionCodec::kZstd, compression::CodecKind::kZstd};
  if (n == "snappy") {
    return CodecChoice{CompressionCodec::kSnappy, compression::CodecKind::kSnappy};
  }
  if (n == "gzip") return CodecChoice{CompressionCodec::kGzip, compression::CodecKind::kGzip};
  if (n == "lz4_raw") {
    return CodecChoice{CompressionCodec::kLz4Raw, compression::CodecKind::kLz4Raw};
  }
  if (n == "brotli") {
    return CodecChoice{CompressionCodec::kBrotli, compression::CodecKind::kBrotli};
  }
  if (n == "uncompressed" || n == "none") {
    return CodecChoice{CompressionCodec::kUncompressed, compression::CodecKind::kUncompressed};
  }
  return Status::Invalid(
      "unknown Parquet compression codec '{}' (expected zstd, snappy, gzip, lz4_raw, brotli or "
      "uncompressed)",
      name);
}

class FileWriterImpl final : public ParquetFileWriter {
 public:
  FileWriterImpl(std::unique_ptr<io::OutputStream> out, SchemaPtr schema, WriterOptions options,
                 internal::ParquetSchema pschema, CodecChoice codec)
      : out_(std::move(out)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        pschema_(std::move(pschema)) {
    ctx_.options = &options_;
    ctx_.codec = codec.parquet;
    levels_.resize(pschema_.leaves.size());
    for (const LeafColumn& leaf : pschema_.leaves) {
      columns_.push_back(ColumnWriter::Make(leaf, &ctx_));
    }
    entry_cursor_.resize(pschema_.leaves.size());
  }

  Status Init(CodecChoice codec) {
    if (codec.kind != compression::CodecKind::kUncompressed) {
      FLOE_ASSIGN_OR_RAISE(ctx_.compressor,
                           compression::Compressor::Make(codec.kind, options_.compression_level));
    }
    return Write(kParquetMagic);
  }

  Status Write(const RecordBatch& batch) override {
    FLOE_RETURN_NOT_OK(CheckUsable());
    if (!batch.schema()->Equals(*schema_)) {
      return Status::Invalid("{}: batch schema {} differs from the writer's schema {}",
                             out_->path(), batch.schema()->ToString(), schema_->ToString());
    }
    const int64_t n = batch.num_rows();
    if (n == 0) return Status::OK();
    // Levels for the whole batch first: a null in a required column fails here, before
    // anything of the batch is written.
    for (size_t c = 0; c < pschema_.roots.size(); ++c) {
      FLOE_RETURN_NOT_OK(internal::GenerateLevels(pschema_.roots[c], pschema_.leaves,
                                                  batch.column(static_cast<int>(c)), num_rows_,
                                                  &levels_));
    }
    for (size_t k = 0; k < columns_.size(); ++k) {
      if (pschema_.leaves[k].precision > 0) {
        FLOE_RETURN_NOT_OK(internal::ValidateDecimals(pschema_.leaves[k], levels_[k], num_rows_));
      }
    }
    for (size_t k = 0; k < columns_.size(); ++k) {
      columns_[k]->BeginBatch();
      entry_cursor_[k] = 0;
    }
    int64_t row = 0;
    while (row < n) {
      int64_t step = std::min(n - row, options_.row_group_max_rows - rg_rows_);
      if (rg_rows_ > 0) {
        // Aim at the row group size from the bytes per row seen so far.
        int64_t est = RowGroupEstimate();
        int64_t per_row = std::max<int64_t>(1, est / rg_rows_);
        int64_t to_target = (options_.row_group_size_bytes - est + per_row - 1) / per_row;
        step = std::min(step, std::max<int64_t>(1, to_target));
      }
      // The first rows of a row group are a small probe that measures the bytes per row.
      step = std::min<int64_t>(step, rg_rows_ == 0 ? 1024 : 64 * 1024);
      Status st = AppendRows(step);
      if (!st.ok()) return Fail(std::move(st));
      row += step;
      rg_rows_ += step;
      num_rows_ += step;
      if (rg_rows_ >= options_.row_group_max_rows ||
          RowGroupEstimate() >= options_.row_group_size_bytes) {
        FLOE_RETURN_NOT_OK(FlushRowGroup());
      }
    }
    return Status::OK();
  }

  Status FlushRowGroup() override {
    FLOE_RETURN_NOT_OK(CheckUsable());
    if (rg_rows_ == 0) return Status::OK();
    RowGroup rg;
    rg.num_rows = rg_rows_;
    rg.file_offset = out_->position();
    rg.ordinal = static_cast<int16_t>(std::min<size_t>(row_groups_.size(), INT16_MAX));
    std::vector<ChunkIndex> indexes(columns_.size());
    int64_t start = out_->position();
    for (size_t k = 0; k < columns_.size(); ++k) {
      ColumnChunk chunk;
      Status st = columns_[k]->Flush(out_.get(), &chunk, &indexes[k]);
      if (!st.ok()) return Fail(std::move(st));
      rg.total_byte_size += chunk.meta_data->total_uncompressed_size;
      rg.columns.push_back(std::move(chunk));
    }
    rg.total_compressed_size = out_->position() - start;
    row_groups_.push_back(std::move(rg));
    page_indexes_.push_back(std::move(indexes));
    rg_rows_ = 0;
    return Status::OK();
  }

  Result<std::shared_ptr<const FileMetaData>> Close() override {
    FLOE_RETURN_NOT_OK(CheckUsable());
    FLOE_RETURN_NOT_OK(FlushRowGroup());
    Status st = WriteTail();
    if (!st.ok()) return Fail(std::move(st));
    closed_ = true;
    return metadata_;
  }

  int64_t EstimatedFileSize() const override { return out_->position() + RowGroupEstimate(); }
  int64_t MemoryBytes() const override {
    auto bytes = static_cast<int64_t>(CapacityBytes(ctx_.scratch));
    for (const auto& column : columns_) bytes += column->MemoryBytes();
    return bytes;
  }
  int64_t num_rows() const override { return num_rows_; }

 private:
  Status Write(std::string_view bytes) { return out_->Write(bytes); }

  Status CheckUsable() const {
    if (!failed_.ok()) return failed_;
    if (closed_) return Status::Invalid("{}: the Parquet writer is closed", out_->path());
    return Status::OK();
  }

  Status Fail(Status st) {
    failed_ = st;
    return st;
  }

  int64_t RowGroupEstimate() const {
    int64_t total = 0;
    for (const auto& c : columns_) total += c->EstimatedSize();
    return total;
  }

  // Appends the next `rows` rows of the current batch's levels to every column.
  Status AppendRows(int64_t rows) {
    for (size_t k = 0; k < columns_.size(); ++k) {
      const LeafLevels& l = levels_[k];
      int64_t begin = entry_cursor_[k];
      int64_t end;
      if (pschema_.leaves[k].max_rep == 0) {
        end = begin + rows;
      } else {
        // The entry where record `rows` (counted from `begin`) starts.
        int64_t seen = 0;
        end = begin;
        while (end < l.num_entries) {
          if (l.rep[static_cast<size_t>(end)] == 0) {
            if (seen == rows) break;
            ++seen;
          }
          ++end;
        }
      }
      FLOE_RETURN_NOT_OK(columns_[k]->Append(l, begin, end));
      entry_cursor_[k] = end;
    }
    return Status::OK();
  }

  Status WriteTail() {
    auto md = std::make_shared<FileMetaData>();
    md->version = options_.data_page_version == 2 ? 2 : 1;
    md->schema = pschema_.elements;
    md->num_rows = num_rows_;
    md->row_groups = std::move(row_groups_);
    if (options_.write_page_index) {
      // PageIndex.md: the column indexes, then the offset indexes, after the last row group.
      std::string buf;
      for (size_t g = 0; g < md->row_groups.size(); ++g) {
        for (size_t k = 0; k < columns_.size(); ++k) {
          const auto& ci = page_indexes_[g][k].column_index;
          if (!ci) continue;
          buf.clear();
          ThriftCompactWriter w(&buf);
          FLOE_RETURN_NOT_OK(EncodeThrift(*ci, &w));
          ColumnChunk& chunk = md->row_groups[g].columns[k];
          chunk.column_index_offset = out_->position();
          chunk.column_index_length = static_cast<int32_t>(buf.size());
          FLOE_RETURN_NOT_OK(Write(buf));
        }
      }
      for (size_t g = 0; g < md->row_groups.size(); ++g) {
        for (size_t k = 0; k < columns_.size(); ++k) {
          buf.clear();
          ThriftCompactWriter w(&buf);
          FLOE_RETURN_NOT_OK(EncodeThrift(page_indexes_[g][k].offset_index, &w));
          ColumnChunk& chunk = md->row_groups[g].columns[k];
          chunk.offset_index_offset = out_->position();
          chunk.offset_index_length = static_cast<int32_t>(buf.size());
          FLOE_RETURN_NOT_OK(Write(buf));
        }
      }
    }
    if (!options_.key_value_metadata.empty()) {
      std::vector<KeyValue> kv;
      for (const auto& [k, v] : options_.key_value_metadata) kv.push_back({k, v});
      md->key_value_metadata = std::move(kv);
    }
    md->created_by = WriterCreatedBy();
    md->column_orders = std::vector<ColumnOrder>(pschema_.leaves.size());
    std::string footer;
    FLOE_RETURN_NOT_OK(EncodeFooter(*md, &footer));
    FLOE_RETURN_NOT_OK(Write(footer));
    FLOE_RETURN_NOT_OK(out_->Close());
    metadata_ = std::move(md);
    return Status::OK();
  }

  std::unique_ptr<io::OutputStream> out_;
  SchemaPtr schema_;
  WriterOptions options_;
  internal::ParquetSchema pschema_;
  WriteContext ctx_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<LeafLevels> levels_;
  std::vector<int64_t> entry_cursor_;
  std::vector<RowGroup> row_groups_;
  std::vector<std::vector<ChunkIndex>> page_indexes_;
  int64_t rg_rows_ = 0;
  int64_t num_rows_ = 0;
  bool closed_ = false;
  Status failed_;
  std::shared_ptr<const FileMetaData> metadata_;
};

}  // namespace

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(
    std::unique_ptr<io::OutputStream> out, SchemaPtr schema, WriterOptions options) {
  if (!out || !schema) return Status::Invalid("Parquet writer: null stream or schema");
  const std::string& path = out->path();
  if (options.row_group_size_bytes <= 0 || options.row_group_max_rows <= 0 ||
      options.page_size_bytes <= 0 || options.dictionary_page_size_limit < 0 ||
      options.statistics_truncate_length < 0) {
    return Status::Invalid("{}: Parquet writer sizes must be positive", path);
  }
  if (options.data_page_version != 1 && options.data_page_version != 2) {
    return Status::Invalid("{}: data_page_version must be 1 or 2, not {}", path,
                           options.data_page_version);
  }
  FLOE_ASSIGN_OR_RAISE(CodecChoice codec, ParseCodec(options.compression));
  auto pschema = internal::ToParquetSchema(*schema);
  if (!pschema.ok()) return pschema.status().WithPrefix(path + ": ");
  auto writer = std::make_unique<FileWriterImpl>(std::move(out), std::move(schema),
                                                 std::move(options), std::move(*pschema), codec);
  FLOE_RETURN_NOT_OK(writer->Init(codec));
  return std::unique_ptr<ParquetFileWriter>(std::move(writer));
}

}  // namespace floe::parquet
