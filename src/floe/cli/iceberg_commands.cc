#include "floe/cli/iceberg_commands.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/catalog_config.h"
#include "floe/cli/catalog_options.h"
#include "floe/cli/iceberg_write_commands.h"
#include "floe/cli/row_output.h"
#include "floe/cli/snapshot_options.h"
#include "floe/common/thread_pool.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/spec_text.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"

namespace floe::cli {

namespace {

using iceberg::ScanTaskGroup;
using iceberg::Table;
using iceberg::TableScan;

// The catalog TABLE is a table of: the one given (--catalog or --warehouse), else, when
// TABLE is not a path on disk, the configuration's default catalog or the embedded default
// catalog (./warehouse/catalog.db) when it exists. nullopt: TABLE is a table directory or
// metadata file.
Result<std::optional<catalog::CatalogPtr>> CatalogOfTable(const IcebergTableOptions& options) {
  if (options.catalog.has_value() || !options.warehouse.empty()) {
    FLOE_ASSIGN_OR_RAISE(
        catalog::CatalogPtr catalog,
        OpenCatalogFromOptions(CatalogOptions{options.catalog.value_or(""), options.warehouse}));
    return std::optional<catalog::CatalogPtr>(std::move(catalog));
  }
  std::error_code ec;
  if (options.table.find('/') != std::string::npos || std::filesystem::exists(options.table, ec)) {
    return std::optional<catalog::CatalogPtr>();
  }
  FLOE_ASSIGN_OR_RAISE(std::optional<catalog::CatalogPtr> configured, catalog::ResolveCatalog(""));
  if (configured.has_value()) return configured;
  if (!std::filesystem::exists(std::filesystem::path("warehouse") / "catalog.db", ec)) {
    return std::optional<catalog::CatalogPtr>();
  }
  FLOE_ASSIGN_OR_RAISE(catalog::CatalogPtr embedded, catalog::OpenDefaultCatalog());
  return std::optional<catalog::CatalogPtr>(std::move(embedded));
}

Result<Table> OpenTableFromOptions(const IcebergTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(std::optional<catalog::CatalogPtr> catalog, CatalogOfTable(options));
  if (catalog.has_value()) {
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id,
                         catalog::TableIdentifier::Parse(options.table));
    return (*catalog)->LoadTable(id);
  }
  FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::LocalFileIO> local,
                       io::LocalFileIO::Make(options.path_map, options.base));
  // A table on S3 (s3://bucket/table) is reached with the AWS environment's settings.
  FLOE_ASSIGN_OR_RAISE(auto io, io::MakeResolvingFileIO(local->options(), {}));
  return iceberg::OpenTable(options.table, std::move(io));
}

Result<iceberg::SnapshotSelector> SelectorFromOptions(const IcebergTableOptions& options) {
  iceberg::SnapshotSelector selector;
  selector.snapshot_id = options.snapshot_id;
  if (options.snapshot_text) {
    FLOE_ASSIGN_OR_RAISE(selector.snapshot_id, ParseSnapshotId(*options.snapshot_text));
  }
  selector.ref = options.ref;
  if (options.as_of) {
    FLOE_ASSIGN_OR_RAISE(int64_t ms, ParseAsOf(*options.as_of));
    selector.as_of_timestamp_ms = ms;
  }
  return selector;
}

std::string FormatTimestampMs(int64_t ms) {
  using namespace std::chrono;
  sys_time<milliseconds> t{milliseconds{ms}};
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss hms{t - day};
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:03d}", int(ymd.year()),
                     unsigned(ymd.month()), unsigned(ymd.day()), hms.hours().count(),
                     hms.minutes().count(), hms.seconds().count(), hms.subseconds().count());
}

std::string ContentName(iceberg::FileContent content) {
  switch (content) {
    case iceberg::FileContent::kData:
      return "data";
    case iceberg::FileContent::kPositionDeletes:
      return "position-deletes";
    case iceberg::FileContent::kEqualityDeletes:
      return "equality-deletes";
  }
  return "unknown";
}

// A data file's partition tuple and column metrics, keyed by partition field and column
// names of the table's current schema, values in their text forms.
void AddFileDetails(const iceberg::DataFile& file, const iceberg::TableMetadata& md,
                    nlohmann::json* out) {
  nlohmann::json partition = nlohmann::json::object();
  if (iceberg::PartitionSpecPtr spec = md.SpecById(file.spec_id)) {
    for (size_t i = 0; i < spec->fields().size() && i < file.partition.size(); ++i) {
      partition[spec->fields()[i].name] =
          spec->fields()[i].transform.ToHumanString(file.partition[i]);
    }
  }
  (*out)["partition"] = std::move(partition);
  iceberg::SchemaPtr schema = md.CurrentSchema();
  auto column_name = [&](int32_t id) {
    std::optional<std::string> name = schema ? schema->FindColumnName(id) : std::nullopt;
    return name ? *name : fmt::format("#{}", id);
  };
  auto counts = [&](const std::map<int32_t, int64_t>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [id, n] : m) j[column_name(id)] = n;
    return j;
  };
  auto bounds = [&](const std::map<int32_t, std::string>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [id, bytes] : m) {
      const Field* field = schema ? schema->FindFieldById(id) : nullptr;
      if (field == nullptr) continue;
      Result<Scalar> value = iceberg::DeserializeValue(field->type(), bytes);
      j[column_name(id)] = value.ok() ? FormatScalar(*value) : std::string("(undecodable)");
    }
    return j;
  };
  (*out)["column_sizes"] = counts(file.column_sizes);
  (*out)["value_counts"] = counts(file.value_counts);
  (*out)["null_value_counts"] = counts(file.null_value_counts);
  (*out)["nan_value_counts"] = counts(file.nan_value_counts);
  (*out)["lower_bounds"] = bounds(file.lower_bounds);
  (*out)["upper_bounds"] = bounds(file.upper_bounds);
  (*out)["split_offsets"] = file.split_offsets;
}

// One task as JSON: its file, range, deletes, residual, partition and metrics.
nlohmann::json TaskToJson(const iceberg::FileScanTask& task, const iceberg::TableMetadata& md) {
  nlohmann::json deletes = nlohmann::json::array();
  for (const iceberg::DataFilePtr& d : task.delete_files) {
    nlohmann::json del = {{"path", d->file_path},
                          {"content", d->is_deletion_vector() ? std::string("deletion-vector")
                                                              : ContentName(d->content)},
                          {"record_count", d->record_count}};
    deletes.push_back(std::move(del));
  }
  nlohmann::json t = {{"path", task.data_file->file_path},
                      {"start", task.start},
                      {"length", task.length},
                      {"file_size", task.data_file->file_size_in_bytes},
                      {"record_count", task.data_file->record_count},
                      {"estimated_rows", task.estimated_row_count},
                      {"data_sequence_number", task.data_sequence_number},
                      {"spec_id", task.data_file->spec_id},
                      {"deletes", std::move(deletes)}};
  if (task.residual != nullptr) t["residual"] = task.residual->ToString();
  AddFileDetails(*task.data_file, md, &t);
  return t;
}

// Writes `value` as nlohmann's dump(2) would inside a document, `depth` levels deep.
void WriteIndented(std::ostream& out, const nlohmann::json& value, int depth) {
  const std::string text = value.dump(2);
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  size_t from = 0;
  while (true) {
    const size_t newline = text.find('\n', from);
    if (newline == std::string::npos) {
      out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
      return;
    }
    out.write(text.data() + from, static_cast<std::streamsize>(newline + 1 - from));
    out << pad;
    from = newline + 1;
  }
}

// The plan as one JSON document, written as it goes (a task at a time: a plan of 100k
// files with their metrics is hundreds of MB as a document tree), in the layout of
// nlohmann's dump(2) of the whole: keys sorted, two-space indents. `head` holds the
// top-level keys other than "groups".
void WritePlanJson(std::ostream& out, const nlohmann::json& head,
                   const std::vector<ScanTaskGroup>& groups, const iceberg::TableMetadata& md) {
  out << "{\n";
  bool first_key = true;
  auto key = [&](const std::string& name) {
    if (!first_key) out << ",\n";
    first_key = false;
    out << "  " << nlohmann::json(name).dump() << ": ";
  };
  bool groups_written = false;
  auto write_groups = [&] {
    key("groups");
    out << "[\n";
    for (size_t g = 0; g < groups.size(); ++g) {
      const ScanTaskGroup& group = groups[g];
      out << "    {\n      \"bytes\": " << group.total_bytes
          << ",\n      \"estimated_rows\": " << group.estimated_row_count << ",\n      \"tasks\": ";
      if (group.tasks.empty()) {
        out << "[]";
      } else {
        out << "[\n";
        for (size_t t = 0; t < group.tasks.size(); ++t) {
          out << "        ";
          WriteIndented(out, TaskToJson(group.tasks[t], md), 4);
          out << (t + 1 < group.tasks.size() ? ",\n" : "\n");
        }
        out << "      ]";
      }
      out << "\n    }" << (g + 1 < groups.size() ? ",\n" : "\n");
    }
    out << "  ]";
    groups_written = true;
  };
  for (const auto& [name, value] : head.items()) {
    if (!groups_written && name > "groups") write_groups();
    key(name);
    WriteIndented(out, value, 1);
  }
  if (!groups_written) write_groups();
  out << "\n}\n";
}

Status CheckStdout() {
  std::cout.flush();
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

}  // namespace

Status RunIcebergScan(const IcebergScanOptions& options) {
  FLOE_ASSIGN_OR_RAISE(Table table, OpenTableFromOptions(options.table));
  iceberg::ScanOptions scan_options;
  FLOE_ASSIGN_OR_RAISE(scan_options.snapshot, SelectorFromOptions(options.table));
  scan_options.projected_names = options.columns;
  scan_options.pool = DefaultThreadPool();
  FLOE_ASSIGN_OR_RAISE(auto scan, TableScan::Make(table.metadata, table.io, scan_options));
  FLOE_ASSIGN_OR_RAISE(std::vector<ScanTaskGroup> groups, scan->PlanGroups(1));

  iceberg::TaskReaderOptions reader_options;
  if (options.limit) {
    reader_options.batch_size = std::clamp<int64_t>(*options.limit, 1, reader_options.batch_size);
  }
  FLOE_ASSIGN_OR_RAISE(auto reader, iceberg::MakeTaskReader(table, *scan, reader_options));
  FLOE_ASSIGN_OR_RAISE(auto printer,
                       RowPrinter::Make(options.format, reader->output_schema(), &std::cout));
  int64_t remaining = options.limit.value_or(INT64_MAX);
  for (const ScanTaskGroup& group : groups) {
    if (remaining <= 0) break;
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(group));
    FLOE_RETURN_NOT_OK(printer->WriteStream(*stream, &remaining));
  }
  return printer->Finish();
}

Status RunIcebergPlan(const IcebergPlanOptions& options) {
  FLOE_ASSIGN_OR_RAISE(Table table, OpenTableFromOptions(options.table));
  iceberg::ScanOptions scan_options;
  FLOE_ASSIGN_OR_RAISE(scan_options.snapshot, SelectorFromOptions(options.table));
  scan_options.pool = DefaultThreadPool();
  scan_options.collect_column_stats = options.format == "json";
  FLOE_ASSIGN_OR_RAISE(auto scan, TableScan::Make(table.metadata, table.io, scan_options));
  FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  iceberg::ScanStatistics stats = scan->Statistics(tasks);
  std::vector<ScanTaskGroup> groups = iceberg::GroupTasks(std::move(tasks), options.partitions);
  if (options.format == "json") {
    const nlohmann::json head = {
        {"metadata", table.metadata_location},
        {"snapshot_id", scan->snapshot() ? nlohmann::json(scan->snapshot()->snapshot_id)
                                         : nlohmann::json(nullptr)},
        {"row_count", stats.row_count},
        {"row_count_exact", stats.row_count_exact},
        {"files", stats.file_count},
        {"bytes", stats.total_bytes},
        {"delete_files", stats.delete_file_count}};
    WritePlanJson(std::cout, head, groups, *table.metadata);
    LeaveToExit(std::move(groups));
    return CheckStdout();
  }
  std::cout << fmt::format(
      "snapshot {}: {} files, {} bytes, {} rows{}, {} delete files, {} groups\n",
      scan->snapshot() ? std::to_string(scan->snapshot()->snapshot_id) : std::string("(none)"),
      stats.file_count, stats.total_bytes, stats.row_count,
      stats.row_count_exact ? "" : " (upper bound)", stats.delete_file_count, groups.size());
  // One formatted buffer written out a megabyte at a time: a 100,000-file plan is 100,000
  // lines, and a stream insertion per field costs more than formatting them.
  fmt::memory_buffer out;
  auto flush = [&out](size_t at_least) {
    if (out.size() < at_least) return;
    std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
    out.clear();
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    const ScanTaskGroup& group = groups[g];
    fmt::format_to(std::back_inserter(out), "group {}: {} tasks, {} bytes, ~{} rows\n", g,
                   group.tasks.size(), group.total_bytes, group.estimated_row_count);
    for (const iceberg::FileScanTask& task : group.tasks) {
      fmt::format_to(std::back_inserter(out), "  {} [{}, +{}) {} rows", task.data_file->file_path,
                     task.start, task.length, task.estimated_row_count);
      if (!task.delete_files.empty()) {
        fmt::format_to(std::back_inserter(out), ", {} delete files", task.delete_files.size());
      }
      if (task.residual != nullptr) {
        fmt::format_to(std::back_inserter(out), ", residual {}", task.residual->ToString());
      }
      out.push_back('\n');
      flush(1 << 20);
    }
  }
  flush(0);
  LeaveToExit(std::move(groups));
  return CheckStdout();
}

namespace {

nlohmann::json InfoToJson(const Table& table) {
  const iceberg::TableMetadata& md = *table.metadata;
  nlohmann::json out;
  out["metadata"] = table.metadata_location;
  out["format_version"] = md.format_version;
  out["table_uuid"] = md.table_uuid;
  out["location"] = io::RedactUri(md.location);
  out["last_updated_ms"] = md.last_updated_ms;
  out["current_schema_id"] = md.current_schema_id;
  iceberg::SchemaPtr schema = md.CurrentSchema();
  if (schema != nullptr) {
    out["schema"] = schema->ToString();
    if (iceberg::PartitionSpecPtr spec = md.DefaultSpec()) {
      out["partition"] = iceberg::PartitionSpecText(*spec, *schema);
    }
    if (iceberg::SortOrderPtr order = md.DefaultSortOrder()) {
      out["sort"] = iceberg::SortOrderText(*order, *schema);
    }
  }
  out["default_spec_id"] = md.default_spec_id;
  out["default_sort_order_id"] = md.default_sort_order_id;
  nlohmann::json properties = nlohmann::json::object();
  for (const auto& [key, value] : io::RedactProperties(md.properties)) properties[key] = value;
  out["properties"] = std::move(properties);
  out["current_snapshot_id"] =
      md.current_snapshot_id ? nlohmann::json(*md.current_snapshot_id) : nlohmann::json(nullptr);
  nlohmann::json refs = nlohmann::json::object();
  for (const auto& [name, ref] : md.refs) {
    refs[name] = {{"type", ref.is_branch() ? "branch" : "tag"}, {"snapshot_id", ref.snapshot_id}};
  }
  out["refs"] = std::move(refs);
  nlohmann::json snapshots = nlohmann::json::array();
  for (const iceberg::Snapshot& snapshot : md.snapshots) {
    nlohmann::json summary = nlohmann::json::object();
    for (const auto& [key, value] : snapshot.summary) summary[key] = value;
    snapshots.push_back({{"snapshot_id", snapshot.snapshot_id},
                         {"parent_snapshot_id", snapshot.parent_snapshot_id
                                                    ? nlohmann::json(*snapshot.parent_snapshot_id)
                                                    : nlohmann::json(nullptr)},
                         {"sequence_number", snapshot.sequence_number},
                         {"timestamp_ms", snapshot.timestamp_ms},
                         {"manifest_list", snapshot.manifest_list},
                         {"operation", snapshot.operation()},
                         {"summary", std::move(summary)}});
  }
  out["snapshots"] = std::move(snapshots);
  return out;
}

}  // namespace

Status RunIcebergInfo(const IcebergTableOptions& options, const std::string& format) {
  FLOE_ASSIGN_OR_RAISE(Table table, OpenTableFromOptions(options));
  if (format == "json") {
    std::cout << InfoToJson(table).dump(2) << '\n';
    return CheckStdout();
  }
  const iceberg::TableMetadata& md = *table.metadata;
  std::cout << "metadata: " << table.metadata_location << '\n';
  std::cout << "format-version: " << md.format_version << '\n';
  std::cout << "table-uuid: " << md.table_uuid << '\n';
  std::cout << "location: " << io::RedactUri(md.location) << '\n';
  std::cout << "last-updated: " << FormatTimestampMs(md.last_updated_ms) << '\n';
  std::cout << "current schema (id " << md.current_schema_id << "):\n";
  if (iceberg::SchemaPtr schema = md.CurrentSchema()) std::cout << schema->ToString() << '\n';
  for (const iceberg::PartitionSpecPtr& spec : md.partition_specs) {
    std::cout << "partition spec " << spec->spec_id()
              << (spec->spec_id() == md.default_spec_id ? " (default)" : "") << ": "
              << spec->ToString() << '\n';
  }
  for (const iceberg::SortOrderPtr& order : md.sort_orders) {
    std::cout << "sort order " << order->order_id()
              << (order->order_id() == md.default_sort_order_id ? " (default)" : "") << ": "
              << order->ToString() << '\n';
  }
  std::cout << "properties:\n";
  for (const auto& [key, value] : io::RedactProperties(md.properties)) {
    std::cout << "  " << key << " = " << value << '\n';
  }
  std::cout << "refs:\n";
  for (const auto& [name, ref] : md.refs) {
    std::cout << "  " << name << ": " << (ref.is_branch() ? "branch" : "tag") << " -> "
              << ref.snapshot_id << '\n';
  }
  std::cout << "snapshots:\n";
  for (const iceberg::Snapshot& snapshot : md.snapshots) {
    std::string current =
        md.current_snapshot_id == snapshot.snapshot_id ? " (current)" : std::string();
    auto total = snapshot.summary.find("total-records");
    std::cout << fmt::format(
        "  {}{}: {} seq {} {}{}{}\n", snapshot.snapshot_id, current,
        FormatTimestampMs(snapshot.timestamp_ms), snapshot.sequence_number,
        snapshot.operation().empty() ? "-" : snapshot.operation(),
        snapshot.parent_snapshot_id ? fmt::format(" parent {}", *snapshot.parent_snapshot_id)
                                    : std::string(),
        total != snapshot.summary.end() ? fmt::format(" total-records {}", total->second)
                                        : std::string());
  }
  return CheckStdout();
}

namespace {

void AddTableOptions(CLI::App* cmd, IcebergTableOptions* o, std::shared_ptr<std::string> snapshot,
                     std::shared_ptr<std::string> ref, std::shared_ptr<std::string> as_of,
                     bool with_snapshot) {
  cmd->add_option("TABLE", o->table,
                  "A table's name (ns.name) in --catalog, or, when TABLE is no path, in the "
                  "configuration's default catalog or ./warehouse/catalog.db when that exists; "
                  "else a table directory or metadata file")
      ->required();
  cmd->add_option("--catalog", o->catalog,
                  std::string("Load TABLE through this catalog. ") + kCatalogOptionHelp);
  cmd->add_option("--warehouse", o->warehouse,
                  "The catalog's warehouse directory (with a catalog URI, or for the embedded "
                  "catalog)");
  cmd->add_option("--path-map", o->path_map,
                  "Rewrite paths in the metadata that start with FROM to start with TO "
                  "(FROM=TO, repeatable)");
  cmd->add_option("--base", o->base,
                  "Directory that relative paths in the metadata resolve against "
                  "(default: the working directory)");
  if (!with_snapshot) return;
  cmd->add_option("--snapshot", *snapshot, "Read this snapshot id");
  cmd->add_option("--ref", *ref, "Read the snapshot of this branch or tag");
  cmd->add_option("--as-of", *as_of,
                  "Read the snapshot current at this time (ms since the epoch, or "
                  "'YYYY-MM-DD HH:MM:SS' UTC)");
}

void ApplySnapshotOptions(IcebergTableOptions* o, const CLI::App* cmd, const std::string& snapshot,
                          const std::string& ref, const std::string& as_of) {
  if (cmd->count("--snapshot") > 0) o->snapshot_text = snapshot;
  if (cmd->count("--ref") > 0) o->ref = ref;
  if (cmd->count("--as-of") > 0) o->as_of = as_of;
}

}  // namespace

void AddIcebergCommands(CLI::App* app, CommandAction* action) {
  CLI::App* iceberg =
      app->add_subcommand("iceberg",
                          "Read and write Iceberg tables, through a catalog or a table "
                          "directory");
  iceberg->require_subcommand(1);
  {
    auto o = std::make_shared<IcebergScanOptions>();
    auto limit = std::make_shared<int64_t>(-1);
    auto snapshot = std::make_shared<std::string>();
    auto ref = std::make_shared<std::string>();
    auto as_of = std::make_shared<std::string>();
    CLI::App* cmd = iceberg->add_subcommand("scan", "Print the live rows of TABLE");
    AddTableOptions(cmd, &o->table, snapshot, ref, as_of, true);
    cmd->add_option("--columns", o->columns, "Columns to print, comma-separated")->delimiter(',');
    cmd->add_option("--limit", *limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"table", "csv", "jsonl"}))
        ->capture_default_str();
    cmd->callback([action, o, limit, snapshot, ref, as_of, cmd] {
      if (*limit >= 0) o->limit = *limit;
      ApplySnapshotOptions(&o->table, cmd, *snapshot, *ref, *as_of);
      *action = [o] { return RunIcebergScan(*o); };
    });
  }
  {
    auto o = std::make_shared<IcebergPlanOptions>();
    auto snapshot = std::make_shared<std::string>();
    auto ref = std::make_shared<std::string>();
    auto as_of = std::make_shared<std::string>();
    CLI::App* cmd =
        iceberg->add_subcommand("plan", "Print the file task groups a scan of TABLE reads");
    AddTableOptions(cmd, &o->table, snapshot, ref, as_of, true);
    cmd->add_option("--partitions", o->partitions, "Most task groups to make")
        ->check(CLI::Range(1, 1 << 16))
        ->capture_default_str();
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    cmd->callback([action, o, snapshot, ref, as_of, cmd] {
      ApplySnapshotOptions(&o->table, cmd, *snapshot, *ref, *as_of);
      *action = [o] { return RunIcebergPlan(*o); };
    });
  }
  {
    auto o = std::make_shared<IcebergTableOptions>();
    auto format = std::make_shared<std::string>("text");
    CLI::App* cmd = iceberg->add_subcommand(
        "info", "Print TABLE's schema, partition specs, sort orders, properties and snapshots");
    AddTableOptions(cmd, o.get(), nullptr, nullptr, nullptr, false);
    cmd->add_option("--format", *format, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    cmd->callback(
        [action, o, format] { *action = [o, format] { return RunIcebergInfo(*o, *format); }; });
  }
  AddIcebergWriteCommands(iceberg, action);
}

}  // namespace floe::cli
