#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/cli/command.h"
#include "floe/common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace floe::cli {

/// Where a table lies and how the paths in its metadata map to local files.
struct IcebergTableOptions {
  /// A table name (ns.name) when `catalog` or `warehouse` is set, or when it is no path on
  /// disk and the configuration has a default catalog or the embedded catalog
  /// ./warehouse/catalog.db exists; otherwise a table directory or a metadata file.
  std::string table;
  /// --catalog NAME|URI: load `table` through this catalog instead of from the filesystem.
  std::optional<std::string> catalog;
  /// --warehouse DIR (with --catalog).
  std::string warehouse;
  /// --path-map FROM=TO rules (repeatable).
  std::vector<std::string> path_map;
  /// --base DIR: what relative paths in the metadata resolve against (default: the
  /// working directory).
  std::string base;
  /// --snapshot ID / --ref NAME / --as-of TIME (at most one).
  std::optional<int64_t> snapshot_id;
  /// --snapshot as typed (parsed by ParseSnapshotId when the command runs).
  std::optional<std::string> snapshot_text;
  std::optional<std::string> ref;
  std::optional<std::string> as_of;
};

/// Options of `floe iceberg scan`.
struct IcebergScanOptions {
  IcebergTableOptions table;
  /// Column names (dotted for nested fields); empty selects every column.
  std::vector<std::string> columns;
  std::optional<int64_t> limit;
  /// "table", "csv" or "jsonl".
  std::string format = "table";
};

/// Options of `floe iceberg plan`.
struct IcebergPlanOptions {
  IcebergTableOptions table;
  /// The most task groups to make (scan partitions).
  int partitions = 1;
  /// "text" or "json".
  std::string format = "text";
};

/// Prints the live rows of a table snapshot (deletes applied, schema evolution resolved).
Status RunIcebergScan(const IcebergScanOptions& options);
/// Prints the planned task groups of a table snapshot; the JSON form also shows each data
/// file's partition tuple and column metrics (by column name, bounds as text).
Status RunIcebergPlan(const IcebergPlanOptions& options);
/// Prints a table's schema, partition specs, sort orders, properties (secrets redacted),
/// refs and snapshots; `format` is "text" or "json" (one object with the same content,
/// snapshots with their full summaries).
Status RunIcebergInfo(const IcebergTableOptions& options, const std::string& format = "text");

/// Adds `floe iceberg scan|plan|info` and the catalog commands (iceberg_write_commands.h).
void AddIcebergCommands(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
