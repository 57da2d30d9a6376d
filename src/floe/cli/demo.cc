#include "floe/cli/demo.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>

#include <CLI/CLI.hpp>

#include "floe/batch/builder.h"
#include "floe/batch/pretty_print.h"
#include "floe/common/thread_pool.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/writer.h"

namespace floe::cli {

namespace {

constexpr int64_t kBatchRows = 64 * 1024;
constexpr const char* kKinds[] = {"click", "view", "purchase", "signup", "refund"};
// 2026-01-01 00:00:00 UTC in microseconds.
constexpr int64_t kStartMicros = 1767225600LL * 1000000;

SchemaPtr EventSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      Field("id", Int64(), false, 1),
      Field("ts", TimestampTz(), true, 2),
      Field("kind", String(), true, 3),
      Field("amount", Decimal(12, 2), true, 4),
      Field("tags", List(Field("element", String(), true, 6)), true, 5),
  });
}

// A deterministic stream of pseudo-random numbers (splitmix64).
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

Result<RecordBatchPtr> MakeEvents(const SchemaPtr& schema, int64_t first_id, int64_t n) {
  Int64Builder ids(Int64());
  Int64Builder ts(TimestampTz());
  BinaryBuilder kinds(String());
  DecimalBuilder amounts(Decimal(12, 2));
  ListBuilder tags(schema->field(4).type());
  auto* tag_values = static_cast<BinaryBuilder*>(tags.value_builder());
  FLOE_RETURN_NOT_OK(ids.Reserve(n));
  FLOE_RETURN_NOT_OK(ts.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t id = first_id + i;
    uint64_t r = Mix(static_cast<uint64_t>(id));
    ids.UnsafeAppend(id);
    ts.UnsafeAppend(kStartMicros + static_cast<int64_t>(r % (90ULL * 86400 * 1000000)));
    FLOE_RETURN_NOT_OK(kinds.Append(kKinds[(r >> 20) % 5]));
    if ((r >> 40) % 10 == 0) {
      FLOE_RETURN_NOT_OK(amounts.AppendNull());
    } else {
      FLOE_RETURN_NOT_OK(amounts.Append(static_cast<Int128>((r >> 8) % 100000)));
    }
    FLOE_RETURN_NOT_OK(tags.Append());
    for (uint64_t t = 0; t < (r >> 50) % 3; ++t) {
      FLOE_RETURN_NOT_OK(tag_values->Append(t == 0 ? "mobile" : "eu"));
    }
  }
  std::vector<ArrayPtr> columns(5);
  FLOE_ASSIGN_OR_RAISE(columns[0], ids.Finish());
  FLOE_ASSIGN_OR_RAISE(columns[1], ts.Finish());
  FLOE_ASSIGN_OR_RAISE(columns[2], kinds.Finish());
  FLOE_ASSIGN_OR_RAISE(columns[3], amounts.Finish());
  FLOE_ASSIGN_OR_RAISE(columns[4], tags.Finish());
  return RecordBatch::Make(schema, n, std::move(columns));
}

Status WriteFile(const std::string& path, const SchemaPtr& schema, int64_t first_id,
                 int64_t rows) {
  FLOE_ASSIGN_OR_RAISE(auto out, io::CreateLocalFile(path));
  FLOE_ASSIGN_OR_RAISE(auto writer, parquet::ParquetFileWriter::Open(std::move(out), schema));
  for (int64_t done = 0; done < rows; done += kBatchRows) {
    FLOE_ASSIGN_OR_RAISE(auto batch,
                         MakeEvents(schema, first_id + done, std::min(kBatchRows, rows - done)));
    FLOE_RETURN_NOT_OK(writer->Write(*batch));
  }
  return writer->Close().status();
}

struct KindTotals {
  int64_t count = 0;
  Int128 amount = 0;
};

std::string FormatCents(Int128 cents) {
  return fmt::format("{}.{:02}", static_cast<int64_t>(cents / 100),
                     static_cast<int64_t>(cents % 100));
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Status RunDemo(const DemoOptions& options) {
  if (options.rows < 0 || options.files < 1) {
    return Status::Invalid("demo needs rows >= 0 and files >= 1");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) return Status::IOError("creating '{}': {}", options.dir, ec.message());
  int threads = options.threads > 0 ? options.threads : ThreadPool::DefaultThreads();
  FLOE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  SchemaPtr schema = EventSchema();

  std::vector<std::string> paths;
  for (int f = 0; f < options.files; ++f) {
    paths.push_back(fmt::format("{}/events-{:03}.parquet", options.dir, f));
  }
  int64_t per_file = (options.rows + options.files - 1) / options.files;
  auto write_start = std::chrono::steady_clock::now();
  FLOE_RETURN_NOT_OK(pool->ParallelFor(options.files, [&](int64_t f) {
    int64_t first = f * per_file;
    int64_t rows = std::max<int64_t>(0, std::min(per_file, options.rows - first));
    return WriteFile(paths[static_cast<size_t>(f)], schema, first, rows);
  }));
  double write_seconds = SecondsSince(write_start);
  int64_t bytes = 0;
  for (const auto& p : paths) bytes += static_cast<int64_t>(std::filesystem::file_size(p));

  std::cout << "floe demo: wrote " << options.rows << " rows into " << options.files
            << " Parquet files (zstd) under " << options.dir << " in "
            << fmt::format("{:.2f}", write_seconds) << " s on " << threads << " threads ("
            << fmt::format("{:.1f}", bytes / 1e6) << " MB)\n\n";

  // Read everything back in parallel and aggregate amount per kind.
  std::mutex mu;
  std::map<std::string, KindTotals> totals;
  std::atomic<int64_t> rows_read{0};
  RecordBatchPtr head;
  auto read_start = std::chrono::steady_clock::now();
  FLOE_RETURN_NOT_OK(pool->ParallelFor(options.files, [&](int64_t f) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto reader,
                         parquet::ParquetFileReader::OpenPath(paths[static_cast<size_t>(f)]));
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(parquet::ReadRequest{}));
    std::vector<std::pair<std::string, KindTotals>> local;
    for (;;) {
      FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
      if (!batch) break;
      if (f == 0 && !head) {
        std::lock_guard<std::mutex> lock(mu);
        head = batch->Slice(0, std::min<int64_t>(5, batch->num_rows()));
      }
      const Array& kind = *batch->column(2);
      const Array& amount = *batch->column(3);
      // A handful of distinct kinds: a linear probe beats hashing each string.
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        std::string_view k = kind.BytesValue(i);
        auto it = std::find_if(local.begin(), local.end(),
                               [&](const auto& entry) { return entry.first == k; });
        if (it == local.end()) it = local.insert(local.end(), {std::string(k), KindTotals{}});
        ++it->second.count;
        if (amount.IsValid(i)) it->second.amount += amount.DecimalValue(i);
      }
      rows_read += batch->num_rows();
    }
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [k, t] : local) {
      totals[k].count += t.count;
      totals[k].amount += t.amount;
    }
    return Status::OK();
  }));
  double read_seconds = SecondsSince(read_start);
  if (rows_read.load() != options.rows) {
    return Status::Internal("demo read {} rows back, wrote {}", rows_read.load(), options.rows);
  }

  std::cout << "schema:\n" << schema->ToString() << "\nfirst rows:\n";
  if (head) std::cout << PrettyPrint(*head) << "\n";
  std::cout << "kind      |   count | sum(amount)\n----------+---------+--------------\n";
  for (const auto& [k, t] : totals) {
    std::cout << fmt::format("{:<9} | {:>7} | {:>12}\n", k, t.count, FormatCents(t.amount));
  }
  std::cout << fmt::format("\nread {} rows back in {:.2f} s ({:.1f} M rows/s)\n",
                           rows_read.load(), read_seconds,
                           read_seconds > 0 ? rows_read.load() / read_seconds / 1e6 : 0.0);
  return Status::OK();
}

void AddDemoCommand(CLI::App* app, std::function<Status()>* action) {
  auto o = std::make_shared<DemoOptions>();
  CLI::App* cmd = app->add_subcommand(
      "demo", "Write generated events to Parquet files in parallel, read them back, aggregate");
  cmd->add_option("--dir", o->dir, "Directory for the demo's files")->capture_default_str();
  cmd->add_option("--rows", o->rows, "Rows to write")->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--files", o->files, "Files written in parallel")->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([action, o] { *action = [o] { return RunDemo(*o); }; });
}

}  // namespace floe::cli
