#include "floe/cli/parquet_commands.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "floe/batch/pretty_print.h"
#include "floe/batch/value_format.h"
#include "floe/cli/parquet_inspect.h"
#include "floe/cli/row_output.h"
#include "floe/common/thread_pool.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file.h"

namespace floe::cli {

namespace {

using parquet::ParquetFileReader;

/// Output goes through std::cout in large chunks; a failed stream is an IOError.
Status CheckStdout() {
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

/// Reads and decodes the footer without mapping the schema, so that `meta` and
/// `schema` work on files whose types floe cannot read.
Result<parquet::FileMetaData> ReadFooter(const std::string& path) {
  FLOE_ASSIGN_OR_RAISE(auto file, io::OpenLocalFile(path));
  const int64_t size = file->size();
  if (size < static_cast<int64_t>(parquet::kParquetMagic.size() + parquet::kFooterTrailerSize)) {
    return Status::Corrupt("'{}' has {} bytes, too few for a Parquet file", path, size);
  }
  FLOE_ASSIGN_OR_RAISE(BufferPtr head, file->ReadAt(0, parquet::kParquetMagic.size()));
  if (std::string_view(reinterpret_cast<const char*>(head->data()),
                       parquet::kParquetMagic.size()) != parquet::kParquetMagic) {
    return Status::Corrupt("'{}' is not a Parquet file: bad magic at byte offset 0", path);
  }
  int64_t tail_size = std::min<int64_t>(size, parquet::kDefaultFooterReadSize);
  FLOE_ASSIGN_OR_RAISE(BufferPtr tail, file->ReadAt(size - tail_size, tail_size));
  auto span = [](const BufferPtr& b) {
    return std::span<const uint8_t>(b->data(), static_cast<size_t>(b->size()));
  };
  Result<uint32_t> footer_length =
      parquet::ReadFooterLength(span(tail), static_cast<uint64_t>(size));
  if (!footer_length.ok()) return footer_length.status().WithPrefix(fmt::format("'{}': ", path));
  const int64_t needed =
      int64_t{*footer_length} + static_cast<int64_t>(parquet::kFooterTrailerSize);
  if (needed > tail_size) {
    tail_size = needed;
    FLOE_ASSIGN_OR_RAISE(tail, file->ReadAt(size - tail_size, tail_size));
  }
  Result<parquet::FileMetaData> md = parquet::DecodeFooter(span(tail), static_cast<uint64_t>(size));
  if (!md.ok()) return md.status().WithPrefix(fmt::format("'{}': ", path));
  return md;
}

/// Reads the whole top-level column selection from names; nullopt selects all.
Result<std::optional<std::vector<int>>> SelectColumns(const ParquetFileReader& reader,
                                                      const std::vector<std::string>& names) {
  if (names.empty()) return std::optional<std::vector<int>>();
  FLOE_ASSIGN_OR_RAISE(std::vector<int> idx, reader.ColumnsByName(names));
  return std::optional<std::vector<int>>(std::move(idx));
}

/// The schema of the selected columns.
SchemaPtr ProjectSchema(const Schema& schema, const std::optional<std::vector<int>>& columns) {
  if (!columns) return std::make_shared<Schema>(schema);
  std::vector<Field> fields;
  for (int i : *columns) fields.push_back(schema.field(i));
  return std::make_shared<Schema>(std::move(fields));
}

/// Bytes of Arrow buffers an array holds, children included.
int64_t DecodedBytes(const Array& array) {
  int64_t n = 0;
  for (const BufferPtr& b : array.buffers()) {
    if (b) n += b->size();
  }
  for (const ArrayPtr& child : array.children()) n += DecodedBytes(*child);
  return n;
}

/// Compressed bytes of the column chunks of the given top-level columns in row group
/// `rg` (all columns when `columns` is nullopt).
int64_t ChunkBytes(const ParquetFileReader& reader, int rg,
                   const std::optional<std::vector<int>>& columns) {
  const parquet::FileMetaData& md = reader.metadata();
  const Schema& schema = *reader.schema();
  int64_t n = 0;
  for (const parquet::ColumnChunk& cc : md.row_groups[static_cast<size_t>(rg)].columns) {
    Result<const parquet::ColumnMetaData*> meta = cc.GetMetaData();
    if (!meta.ok() || (*meta)->path_in_schema.empty()) continue;
    if (columns) {
      const std::string& top = (*meta)->path_in_schema[0];
      bool selected = std::any_of(columns->begin(), columns->end(),
                                  [&](int i) { return schema.field(i).name() == top; });
      if (!selected) continue;
    }
    n += (*meta)->total_compressed_size;
  }
  return n;
}

}  // namespace

Status RunSchema(const std::string& file) {
  FLOE_ASSIGN_OR_RAISE(parquet::FileMetaData md, ReadFooter(file));
  Result<std::string> text = ParquetSchemaToText(md);
  if (!text.ok()) return text.status().WithPrefix(fmt::format("'{}': ", file));
  std::cout << *text;
  std::cout.flush();
  return CheckStdout();
}

Status RunMeta(const std::string& file) {
  FLOE_ASSIGN_OR_RAISE(parquet::FileMetaData md, ReadFooter(file));
  Result<std::string> json = FooterToJson(file, md);
  if (!json.ok()) return json.status().WithPrefix(fmt::format("'{}': ", file));
  std::cout << *json << '\n';
  std::cout.flush();
  return CheckStdout();
}

Status RunCat(const CatOptions& options) {
  parquet::ReaderOptions reader_options;
  if (options.limit) {
    if (*options.limit < 0) return Status::Invalid("--limit must not be negative");
    // A small limit decodes small batches, so that little more than the limit is read.
    reader_options.batch_size = std::clamp<int64_t>(*options.limit, 1, reader_options.batch_size);
  }
  reader_options.verify_page_checksums = options.verify_checksums;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::OpenPath(options.file, reader_options));
  parquet::ReadRequest request;
  FLOE_ASSIGN_OR_RAISE(request.columns, SelectColumns(*reader, options.columns));
  SchemaPtr schema = ProjectSchema(*reader->schema(), request.columns);

  FLOE_ASSIGN_OR_RAISE(auto printer, RowPrinter::Make(options.format, schema, &std::cout));

  int64_t remaining = options.limit.value_or(INT64_MAX);
  if (remaining > 0) {
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
    FLOE_RETURN_NOT_OK(printer->WriteStream(*stream, &remaining));
  }
  return printer->Finish();
}

Status RunScan(const ScanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const int threads = options.threads > 0 ? options.threads : ThreadPool::DefaultThreads();
  parquet::ReaderOptions reader_options;
  reader_options.verify_page_checksums = options.verify_checksums;
  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::OpenPath(options.file, reader_options));
  parquet::ReadRequest base;
  FLOE_ASSIGN_OR_RAISE(base.columns, SelectColumns(*reader, options.columns));

  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> decoded{0};
  auto scan_row_group = [&](int64_t rg) -> Status {
    parquet::ReadRequest request = base;
    request.row_groups = std::vector<int>{static_cast<int>(rg)};
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
    int64_t n = 0;
    int64_t d = 0;
    for (;;) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      n += batch->num_rows();
      for (const ArrayPtr& column : batch->columns()) d += DecodedBytes(*column);
    }
    rows += n;
    decoded += d;
    bytes += ChunkBytes(*reader, static_cast<int>(rg), base.columns);
    return Status::OK();
  };

  const int num_row_groups = reader->num_row_groups();
  if (threads == 1 || num_row_groups <= 1) {
    for (int rg = 0; rg < num_row_groups; ++rg) FLOE_RETURN_NOT_OK(scan_row_group(rg));
  } else {
    // ParallelFor runs on the pool's workers and on this thread: threads - 1 workers.
    FLOE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads - 1));
    FLOE_RETURN_NOT_OK(pool->ParallelFor(num_row_groups, scan_row_group));
  }
  if (rows.load() != reader->num_rows()) {
    return Status::Corrupt("'{}': decoded {} rows, the footer says {}", options.file, rows.load(),
                           reader->num_rows());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format(
      "rows={} bytes={} decoded_bytes={} seconds={:.6f} threads={} row_groups={}\n", rows.load(),
      bytes.load(), decoded.load(), seconds, threads, num_row_groups);
  std::cout.flush();
  return CheckStdout();
}

Status RunCopy(const CopyOptions& options) {
  std::error_code ec;
  if (std::filesystem::equivalent(options.input, options.output, ec)) {
    return Status::Invalid("'{}': input and output are the same file", options.output);
  }
  parquet::WriterOptions writer_options;
  writer_options.compression = options.compression;
  if (options.row_group_rows) {
    if (*options.row_group_rows < 1) return Status::Invalid("--row-group-rows must be positive");
    writer_options.row_group_max_rows = *options.row_group_rows;
  }
  if (options.page_size) {
    if (*options.page_size < 1) return Status::Invalid("--page-size must be positive");
    writer_options.page_size_bytes = *options.page_size;
  }
  writer_options.enable_dictionary = !options.no_dictionary;
  writer_options.data_page_version = options.data_page_version;

  FLOE_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::OpenPath(options.input));
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(parquet::ReadRequest{}));
  FLOE_ASSIGN_OR_RAISE(auto out, io::CreateLocalFile(options.output));
  auto copy = [&]() -> Status {
    FLOE_ASSIGN_OR_RAISE(auto writer, parquet::ParquetFileWriter::Open(
                                          std::move(out), reader->schema(), writer_options));
    for (;;) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      FLOE_RETURN_NOT_OK(writer->Write(*batch));
    }
    return writer->Close().status();
  };
  Status st = copy();
  if (!st.ok()) {
    std::filesystem::remove(options.output, ec);
    if (st.message().find(options.output) == std::string::npos &&
        st.message().find(options.input) == std::string::npos) {
      st = st.WithPrefix(fmt::format("writing '{}': ", options.output));
    }
  }
  return st;
}

void AddParquetCommands(CLI::App* app, CommandAction* action) {
  CLI::App* parquet = app->add_subcommand("parquet", "Inspect, print, scan and copy Parquet files");
  parquet->require_subcommand(1);

  {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = parquet->add_subcommand("schema", "Print the Parquet schema of FILE");
    cmd->add_option("FILE", *file, "Parquet file")->required();
    cmd->callback([action, file] { *action = [file] { return RunSchema(*file); }; });
  }
  {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = parquet->add_subcommand(
        "meta",
        "Print the footer of FILE as JSON: row groups, column chunks, codecs, encodings, "
        "statistics, field ids");
    cmd->add_option("FILE", *file, "Parquet file")->required();
    cmd->callback([action, file] { *action = [file] { return RunMeta(*file); }; });
  }
  {
    auto o = std::make_shared<CatOptions>();
    auto limit = std::make_shared<int64_t>(-1);
    CLI::App* cmd = parquet->add_subcommand("cat", "Print the rows of FILE");
    cmd->add_option("FILE", o->file, "Parquet file")->required();
    cmd->add_option("--columns", o->columns, "Top-level columns to print, comma-separated")
        ->delimiter(',');
    cmd->add_option("--limit", *limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"table", "csv", "jsonl"}))
        ->capture_default_str();
    cmd->add_flag(
        "--no-verify-checksums", [o](int64_t) { o->verify_checksums = false; },
        "Do not check the CRC of pages that carry one");
    cmd->callback([action, o, limit] {
      if (*limit >= 0) o->limit = *limit;
      *action = [o] { return RunCat(*o); };
    });
  }
  {
    auto o = std::make_shared<ScanOptions>();
    CLI::App* cmd = parquet->add_subcommand(
        "scan", "Decode the selected columns of FILE and print rows, bytes and seconds");
    cmd->add_option("FILE", o->file, "Parquet file")->required();
    cmd->add_option("--columns", o->columns, "Top-level columns to decode, comma-separated")
        ->delimiter(',');
    cmd->add_option("--threads", o->threads,
                    "Threads decoding row groups (default: hardware threads; 1: this thread)")
        ->check(CLI::Range(1, 1024));
    cmd->add_flag(
        "--no-verify-checksums", [o](int64_t) { o->verify_checksums = false; },
        "Do not check the CRC of pages that carry one");
    cmd->callback([action, o] { *action = [o] { return RunScan(*o); }; });
  }
  {
    auto o = std::make_shared<CopyOptions>();
    auto row_group_rows = std::make_shared<int64_t>(0);
    auto page_size = std::make_shared<int64_t>(0);
    CLI::App* cmd = parquet->add_subcommand(
        "copy", "Read IN with floe's reader and write its rows to OUT with floe's writer");
    cmd->add_option("IN", o->input, "Parquet file to read")->required();
    cmd->add_option("OUT", o->output, "Parquet file to write")->required();
    cmd->add_option("--compression", o->compression, "Codec of the written pages")
        ->check(CLI::IsMember({"zstd", "snappy", "gzip", "lz4_raw", "brotli", "uncompressed"}))
        ->capture_default_str();
    cmd->add_option("--row-group-rows", *row_group_rows, "Rows per row group at most")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--page-size", *page_size, "Target data page size in bytes")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--no-dictionary", o->no_dictionary, "Do not use dictionary encoding");
    cmd->add_option("--data-page-version", o->data_page_version, "Data page version")
        ->check(CLI::IsMember({1, 2}))
        ->capture_default_str();
    cmd->callback([action, o, row_group_rows, page_size] {
      if (*row_group_rows > 0) o->row_group_rows = *row_group_rows;
      if (*page_size > 0) o->page_size = *page_size;
      *action = [o] { return RunCopy(*o); };
    });
  }
}

}  // namespace floe::cli
