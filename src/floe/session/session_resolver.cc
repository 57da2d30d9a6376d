#include "floe/session/session_resolver.h"

#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/connector/builtin/generate_series.h"
#include "floe/connector/iceberg/iceberg_metadata_tables.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/connector/text/text_table.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"
#include "floe/session/ddl_statements.h"

namespace floe::session {

namespace {

std::string JoinName(const std::vector<std::string>& name) {
  std::string joined;
  for (const std::string& part : name) joined += (joined.empty() ? "" : ".") + part;
  return joined;
}

std::string TypeName(const Scalar& value) {
  return value.type() ? value.type()->ToString() : std::string("unknown");
}

}  // namespace

SessionResolver::SessionResolver(std::function<Result<catalog::Catalog*>()> catalog,
                                 connector::FileIOSource files_io, std::string search_path,
                                 std::string path_map, std::string temp_namespace)
    : catalog_(std::move(catalog)),
      files_io_(std::move(files_io)),
      search_path_(std::move(search_path)),
      path_map_(std::move(path_map)),
      temp_namespace_(std::move(temp_namespace)) {}

Result<std::pair<catalog::TableIdentifier, iceberg::Table>> SessionResolver::LoadTable(
    const std::vector<std::string>& name) {
  FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, catalog_());
  if (catalog == nullptr) return Status::NotFound("table \"{}\" does not exist", JoinName(name));
  CatalogNames names(catalog, search_path_, temp_namespace_);
  FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(name));
  // One statement sees one version of each table, however many times and in whatever
  // form (t, "t$files", iceberg_scan('t')) it names it.
  auto cached = loaded_.find(id.ToString());
  if (cached != loaded_.end()) return std::make_pair(std::move(id), cached->second);
  FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog->LoadTable(id));
  if (!path_map_.empty()) {
    // The metadata's paths are rewritten for this session (tables registered from
    // elsewhere); the metadata file itself was found through the catalog.
    io::LocalFileIOOptions options;
    size_t start = 0;
    while (start <= path_map_.size()) {
      size_t end = path_map_.find(';', start);
      if (end == std::string::npos) end = path_map_.size();
      std::string_view rule = std::string_view(path_map_).substr(start, end - start);
      if (!rule.empty()) {
        FLOE_ASSIGN_OR_RAISE(io::PathMapRule parsed, io::ParsePathMapRule(rule));
        options.path_map.push_back(std::move(parsed));
      }
      start = end + 1;
    }
    // The table's S3 settings, if it has any, stay: only local paths are remapped.
    std::optional<io::S3FileIOOptions> s3;
    if (const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(table.io.get())) {
      s3 = resolving->s3_options();
    }
    table.io = std::make_shared<io::ResolvingFileIO>(std::move(options), std::move(s3));
  }
  loaded_.emplace(id.ToString(), table);
  return std::make_pair(std::move(id), std::move(table));
}

Result<plan::TableSourcePtr> SessionResolver::ResolveTable(const std::vector<std::string>& name) {
  if (!name.empty()) {
    if (auto split = connector::SplitMetadataTableName(name.back())) {
      Result<connector::MetadataTableKind> kind =
          connector::ParseMetadataTableKind(split->second, JoinName(name));
      if (kind.ok()) {
        std::vector<std::string> base = name;
        base.back() = split->first;
        FLOE_ASSIGN_OR_RAISE(auto loaded, LoadTable(base));
        FLOE_ASSIGN_OR_RAISE(auto source, connector::IcebergMetadataTable::Make(
                                              loaded.first.ToString() + "$" + split->second, *kind,
                                              std::move(loaded.second)));
        return plan::TableSourcePtr(std::move(source));
      }
      // Not a metadata table: a table whose own name holds a '$', else the unknown kind.
      auto loaded = LoadTable(name);
      if (!loaded.ok()) {
        if (loaded.status().code() == StatusCode::kNotFound) return kind.status();
        return loaded.status();
      }
      FLOE_ASSIGN_OR_RAISE(auto source, connector::IcebergTable::Make(loaded->first.ToString(),
                                                                      std::move(loaded->second)));
      return plan::TableSourcePtr(std::move(source));
    }
  }
  FLOE_ASSIGN_OR_RAISE(auto loaded, LoadTable(name));
  FLOE_ASSIGN_OR_RAISE(auto source, connector::IcebergTable::Make(loaded.first.ToString(),
                                                                  std::move(loaded.second)));
  return plan::TableSourcePtr(std::move(source));
}

Result<plan::TableSourcePtr> SessionResolver::ResolveTableFunction(
    const std::string& name, const std::vector<plan::TableFunctionArg>& args) {
  if (name == "read_parquet") return connector::MakeReadParquet(args, files_io_);
  if (name == "read_csv" || name == "read_csv_auto") return connector::MakeReadCsv(args, files_io_);
  if (name == "read_json" || name == "read_json_auto") {
    return connector::MakeReadJson(args, files_io_);
  }
  if (name == "generate_series") return connector::MakeGenerateSeries(args);
  if (name == "iceberg_scan") return ResolveIcebergScan(args);
  return Status::NotFound("table function \"{}\" does not exist", name);
}

Result<plan::TableSourcePtr> SessionResolver::ResolveIcebergScan(
    const std::vector<plan::TableFunctionArg>& args) {
  // Arguments: the table name (first, positional or `table =>`), then at most one selector.
  std::optional<std::string> table_name;
  iceberg::SnapshotSelector selector;
  std::vector<std::string> selectors;
  for (size_t i = 0; i < args.size(); ++i) {
    const plan::TableFunctionArg& arg = args[i];
    const std::string& arg_name = arg.name.empty() && i == 0 ? std::string("table") : arg.name;
    if (arg_name.empty()) {
      return Status::Invalid(
          "iceberg_scan: argument {} must be named (snapshot_id => ..., as_of => ... or "
          "ref => ...)",
          i + 1);
    }
    const bool known = arg_name == "table" || arg_name == "snapshot_id" || arg_name == "as_of" ||
                       arg_name == "ref";
    if (!known) {
      return Status::Invalid(
          "iceberg_scan has no argument named \"{}\" (expected table, snapshot_id, as_of or ref)",
          arg_name);
    }
    if (arg.value.is_null()) {
      return Status::Invalid("iceberg_scan: argument \"{}\" must not be NULL", arg_name);
    }
    const TypeId type = arg.value.type() ? arg.value.type()->id() : TypeId::kString;
    if (arg_name == "table") {
      if (table_name) return Status::Invalid("iceberg_scan: argument \"table\" given twice");
      if (type != TypeId::kString) {
        return Status::Invalid("iceberg_scan: argument \"table\" must be text ('db.t'), got {}",
                               TypeName(arg.value));
      }
      table_name = arg.value.get<std::string>();
      continue;
    }
    for (const std::string& seen : selectors) {
      if (seen == arg_name) {
        return Status::Invalid("iceberg_scan: argument \"{}\" given twice", arg_name);
      }
    }
    selectors.push_back(arg_name);
    if (arg_name == "snapshot_id") {
      if (type == TypeId::kInt8 || type == TypeId::kInt16 || type == TypeId::kInt32) {
        selector.snapshot_id = arg.value.get<int32_t>();
      } else if (type == TypeId::kInt64) {
        selector.snapshot_id = arg.value.get<int64_t>();
      } else {
        return Status::Invalid("iceberg_scan: argument \"snapshot_id\" must be an integer, got {}",
                               TypeName(arg.value));
      }
    } else if (arg_name == "as_of") {
      // A timestamp without time zone is taken as UTC. Snapshot times are milliseconds:
      // the snapshot current at T is the last one committed at or before floor(T / 1000).
      int64_t micros = 0;
      if (type == TypeId::kTimestamp || type == TypeId::kTimestampTz) {
        micros = arg.value.get<int64_t>();
      } else if (type == TypeId::kDate) {
        if (__builtin_mul_overflow(int64_t{arg.value.get<int32_t>()}, kMicrosPerDay, &micros)) {
          return Status::Invalid("iceberg_scan: argument \"as_of\" is out of the timestamp range");
        }
      } else {
        return Status::Invalid(
            "iceberg_scan: argument \"as_of\" must be a timestamp (TIMESTAMP '...' or "
            "TIMESTAMPTZ '...'), got {}",
            TypeName(arg.value));
      }
      selector.as_of_timestamp_ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
    } else {
      if (type != TypeId::kString) {
        return Status::Invalid("iceberg_scan: argument \"ref\" must be text, got {}",
                               TypeName(arg.value));
      }
      selector.ref = arg.value.get<std::string>();
    }
  }
  if (!table_name) {
    return Status::Invalid("iceberg_scan: the table argument is missing (iceberg_scan('db.t'))");
  }
  if (selectors.size() > 1) {
    return Status::Invalid(
        "iceberg_scan: select the snapshot by one of snapshot_id, as_of or ref, not by {} and {}",
        selectors[0], selectors[1]);
  }
  Result<std::vector<std::string>> split = SplitTableName(*table_name);
  if (!split.ok()) return split.status().WithPrefix("iceberg_scan: ");
  std::vector<std::string> parts = std::move(*split);
  // 'db.t$files' lists the files (manifests, partitions) of the selected snapshot.
  std::optional<connector::MetadataTableKind> metadata_kind;
  std::string metadata_suffix;
  Status unknown_kind;
  if (auto split = connector::SplitMetadataTableName(parts.back())) {
    Result<connector::MetadataTableKind> kind =
        connector::ParseMetadataTableKind(split->second, *table_name);
    if (kind.ok()) {
      metadata_kind = *kind;
      metadata_suffix = "$" + split->second;
      parts.back() = split->first;
    } else {
      unknown_kind = kind.status();
    }
  }
  auto loaded_or = LoadTable(parts);
  if (!loaded_or.ok()) {
    // A name with an unknown "$kind" that is no table either: report the kind.
    if (!unknown_kind.ok() && loaded_or.status().code() == StatusCode::kNotFound) {
      return unknown_kind;
    }
    return loaded_or.status();
  }
  auto loaded = std::move(*loaded_or);
  const std::string display = loaded.first.ToString();
  const iceberg::TableMetadata& metadata = *loaded.second.metadata;
  // Unknown selections fail here with the SQL name and the argument.
  const iceberg::Snapshot* selected = metadata.CurrentSnapshot();
  if (selector.snapshot_id) {
    selected = metadata.SnapshotById(*selector.snapshot_id);
    if (selected == nullptr) {
      return Status::NotFound("iceberg_scan: table {} has no snapshot {} (snapshot_id)", display,
                              *selector.snapshot_id);
    }
  }
  if (selector.ref) {
    Result<const iceberg::Snapshot*> by_ref = metadata.SnapshotByRef(*selector.ref);
    if (!by_ref.ok()) {
      return Status::NotFound("iceberg_scan: table {} has no branch or tag named '{}' (ref)",
                              display, *selector.ref);
    }
    selected = *by_ref;
  }
  if (selector.as_of_timestamp_ms) {
    Result<const iceberg::Snapshot*> as_of = metadata.SnapshotAsOf(*selector.as_of_timestamp_ms);
    if (!as_of.ok()) {
      std::string when;
      for (const plan::TableFunctionArg& arg : args) {
        if (arg.name == "as_of") when = FormatScalar(arg.value);
      }
      return Status::NotFound("iceberg_scan: table {} has no snapshot at or before {} (as_of)",
                              display, when);
    }
    selected = *as_of;
  }
  if (metadata_kind) {
    const bool per_snapshot = *metadata_kind == connector::MetadataTableKind::kManifests ||
                              *metadata_kind == connector::MetadataTableKind::kFiles ||
                              *metadata_kind == connector::MetadataTableKind::kPartitions;
    if (!selectors.empty() && !per_snapshot) {
      return Status::Invalid(
          "iceberg_scan: {}{} describes the whole table; only $manifests, $files and "
          "$partitions take a snapshot ({})",
          display, metadata_suffix, selectors[0]);
    }
    std::optional<int64_t> snapshot_id;
    if (!selectors.empty() && selected != nullptr) snapshot_id = selected->snapshot_id;
    FLOE_ASSIGN_OR_RAISE(auto source, connector::IcebergMetadataTable::Make(
                                          display + metadata_suffix, *metadata_kind,
                                          std::move(loaded.second), snapshot_id));
    return plan::TableSourcePtr(std::move(source));
  }
  FLOE_ASSIGN_OR_RAISE(auto source, connector::IcebergTable::Make(display, std::move(loaded.second),
                                                                  std::move(selector)));
  return plan::TableSourcePtr(std::move(source));
}

}  // namespace floe::session
