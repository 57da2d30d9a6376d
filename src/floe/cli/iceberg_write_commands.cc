#include "floe/cli/iceberg_write_commands.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "floe/batch/builder.h"
#include "floe/catalog/catalog_config.h"
#include "floe/cli/catalog_options.h"
#include "floe/cli/snapshot_options.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/parquet_import.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/spec_text.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file.h"

namespace floe::cli {

namespace {

using catalog::CatalogPtr;
using catalog::TableIdentifier;
using iceberg::DataFile;
using iceberg::Table;

constexpr std::string_view kNameMappingProperty = "schema.name-mapping.default";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Status CheckStdout() {
  std::cout.flush();
  if (!std::cout) return Status::IOError("writing to standard output failed");
  return Status::OK();
}

struct LoadedTable {
  CatalogPtr catalog;
  TableIdentifier id;
  Table table;
  iceberg::TableOperationsPtr ops;
};

Result<LoadedTable> LoadTableFromCatalog(const CatalogOptions& options, const std::string& name) {
  LoadedTable out;
  FLOE_ASSIGN_OR_RAISE(out.catalog, OpenCatalogFromOptions(options));
  FLOE_ASSIGN_OR_RAISE(out.id, TableIdentifier::Parse(name));
  FLOE_ASSIGN_OR_RAISE(out.table, out.catalog->LoadTable(out.id));
  out.ops = out.catalog->TableOps(out.id);
  return out;
}

// Table operations that add updates to every commit (so that a property change lands
// atomically with the snapshot a producer commits).
class ExtraUpdatesOps final : public iceberg::TableOperations {
 public:
  ExtraUpdatesOps(iceberg::TableOperationsPtr inner, std::vector<iceberg::TableUpdate> extra)
      : inner_(std::move(inner)), extra_(std::move(extra)) {}

  Result<Table> Refresh() const override { return inner_->Refresh(); }
  Result<Table> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                       const std::vector<iceberg::TableUpdate>& updates) override {
    std::vector<iceberg::TableUpdate> all = updates;
    all.insert(all.end(), extra_.begin(), extra_.end());
    return inner_->Commit(requirements, all);
  }
  std::shared_ptr<const io::FileIO> io() const override { return inner_->io(); }
  std::string name() const override { return inner_->name(); }

 private:
  iceberg::TableOperationsPtr inner_;
  std::vector<iceberg::TableUpdate> extra_;
};

// ---------------------------------------------------------------------------------------
// append

// Widens int -> long and float -> double (Iceberg's type promotions) for input columns whose
// type is narrower than the table's; other arrays are returned as they are.
Result<ArrayPtr> WidenToTableType(const ArrayPtr& array, const TypePtr& to) {
  const TypeId from = array->type_id();
  if (from == TypeId::kInt32 && to->id() == TypeId::kInt64) {
    NumericBuilder<int64_t> builder(to);
    FLOE_RETURN_NOT_OK(builder.Reserve(array->length()));
    for (int64_t i = 0; i < array->length(); ++i) {
      if (array->IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      } else {
        builder.UnsafeAppend(array->Value<int32_t>(i));
      }
    }
    return builder.Finish();
  }
  if (from == TypeId::kFloat32 && to->id() == TypeId::kFloat64) {
    NumericBuilder<double> builder(to);
    FLOE_RETURN_NOT_OK(builder.Reserve(array->length()));
    for (int64_t i = 0; i < array->length(); ++i) {
      if (array->IsNull(i)) {
        FLOE_RETURN_NOT_OK(builder.AppendNull());
      } else {
        builder.UnsafeAppend(static_cast<double>(array->Value<float>(i)));
      }
    }
    return builder.Finish();
  }
  return array;
}

// How the columns of one input file map to the table's top-level columns.
struct InputMapping {
  // Per table column: the index into the read request's columns, or -1 (NULLs).
  std::vector<int> source;
  std::vector<int> read_columns;
};

Result<InputMapping> MapInputColumns(const std::string& file, const floe::Schema& file_schema,
                                     const iceberg::Schema& table_schema) {
  InputMapping mapping;
  std::map<std::string, int> by_lower_name;
  for (int i = 0; i < file_schema.num_fields(); ++i) {
    std::string key = Lower(file_schema.field(i).name());
    if (!by_lower_name.emplace(key, i).second) {
      return Status::Invalid("{}: columns '{}' and '{}' differ only in case", file,
                             file_schema.field(by_lower_name[key]).name(),
                             file_schema.field(i).name());
    }
  }
  std::vector<bool> used(static_cast<size_t>(file_schema.num_fields()), false);
  for (const Field& field : table_schema.fields()) {
    auto it = by_lower_name.find(Lower(field.name()));
    if (it == by_lower_name.end()) {
      if (!field.nullable()) {
        return Status::Invalid("{}: the file has no column '{}', which the table requires", file,
                               field.name());
      }
      mapping.source.push_back(-1);
      continue;
    }
    used[static_cast<size_t>(it->second)] = true;
    mapping.source.push_back(static_cast<int>(mapping.read_columns.size()));
    mapping.read_columns.push_back(it->second);
  }
  for (int i = 0; i < file_schema.num_fields(); ++i) {
    if (!used[static_cast<size_t>(i)]) {
      return Status::Invalid("{}: column '{}' is not a column of the table", file,
                             file_schema.field(i).name());
    }
  }
  return mapping;
}

// Reads one file's rows into `writer`; returns the number of rows.
Result<int64_t> WriteFileRows(const std::string& file, const iceberg::Schema& table_schema,
                              iceberg::PartitionedWriter* writer) {
  FLOE_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::OpenPath(file));
  FLOE_ASSIGN_OR_RAISE(InputMapping mapping,
                       MapInputColumns(file, *reader->schema(), table_schema));
  parquet::ReadRequest request;
  request.columns = mapping.read_columns;
  FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(request));
  int64_t rows = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, stream->Next());
    if (batch == nullptr) break;
    std::vector<Field> fields;
    std::vector<ArrayPtr> columns;
    for (size_t c = 0; c < mapping.source.size(); ++c) {
      const Field& table_field = table_schema.fields()[c];
      ArrayPtr column;
      if (mapping.source[c] < 0) {
        FLOE_ASSIGN_OR_RAISE(column, Array::MakeNull(table_field.type(), batch->num_rows()));
      } else {
        FLOE_ASSIGN_OR_RAISE(
            column, WidenToTableType(batch->column(mapping.source[c]), table_field.type()));
      }
      fields.emplace_back(table_field.name(), column->type(), true);
      columns.push_back(std::move(column));
    }
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr conformed,
                         RecordBatch::Make(std::make_shared<floe::Schema>(std::move(fields)),
                                           batch->num_rows(), std::move(columns)));
    Status st = writer->Write(*conformed);
    if (!st.ok()) return st.WithPrefix(file + ": ");
    rows += batch->num_rows();
  }
  return rows;
}

}  // namespace

Result<std::map<std::string, std::string>> ParseProperties(const std::vector<std::string>& items,
                                                           std::string_view option) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("{} '{}' is not key=value", option, item);
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

Status RunCreateNamespace(const CreateNamespaceOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(catalog::Namespace ns, catalog::ParseNamespace(options.ns));
  FLOE_ASSIGN_OR_RAISE(auto properties, ParseProperties(options.properties, "--property"));
  FLOE_RETURN_NOT_OK(catalog->CreateNamespace(ns, properties));
  std::cout << "created namespace " << catalog::NamespaceToString(ns) << '\n';
  return CheckStdout();
}

Status RunList(const ListOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  catalog::Namespace parent;
  if (!options.ns.empty()) {
    FLOE_ASSIGN_OR_RAISE(parent, catalog::ParseNamespace(options.ns));
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog->NamespaceExists(parent));
    if (!exists) return Status::NotFound("namespace '{}' does not exist", options.ns);
  }
  FLOE_ASSIGN_OR_RAISE(std::vector<catalog::Namespace> children, catalog->ListNamespaces(parent));
  for (const catalog::Namespace& ns : children) {
    std::cout << catalog::NamespaceToString(ns) << '\n';
  }
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RAISE(std::vector<TableIdentifier> tables, catalog->ListTables(parent));
    for (const TableIdentifier& id : tables) std::cout << id.ToString() << '\n';
  }
  return CheckStdout();
}

Status RunCreateTable(const CreateTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(options.table));
  catalog::CreateTableRequest request;
  FLOE_ASSIGN_OR_RAISE(request.schema, iceberg::ParseSchemaText(options.schema));
  if (!options.partition.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.spec,
                         iceberg::ParsePartitionSpecText(options.partition, *request.schema));
  }
  if (!options.sort.empty()) {
    FLOE_ASSIGN_OR_RAISE(request.sort_order,
                         iceberg::ParseSortOrderText(options.sort, *request.schema));
  }
  FLOE_ASSIGN_OR_RAISE(request.properties, ParseProperties(options.properties, "--property"));
  if (!options.location.empty()) {
    std::error_code ec;
    std::filesystem::path location = std::filesystem::absolute(options.location, ec);
    if (ec) return Status::IOError("--location '{}': {}", options.location, ec.message());
    request.location = location.lexically_normal().string();
    while (request.location.size() > 1 && request.location.back() == '/') {
      request.location.pop_back();
    }
  }
  request.format_version = options.format_version;
  FLOE_ASSIGN_OR_RAISE(Table table, catalog->CreateTable(id, request));
  std::cout << "created " << id.ToString() << " at " << io::RedactUri(table.metadata->location)
            << '\n';
  return CheckStdout();
}

Status RunDropTable(const DropTableOptions& options) {
  FLOE_ASSIGN_OR_RAISE(CatalogPtr catalog, OpenCatalogFromOptions(options.catalog));
  FLOE_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(options.table));
  FLOE_RETURN_NOT_OK(catalog->DropTable(id, options.purge));
  std::cout << (options.purge ? "dropped and purged " : "dropped ") << id.ToString() << '\n';
  return CheckStdout();
}

Status RunAddFiles(const AddFilesOptions& options) {
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  std::vector<iceberg::DataFilePtr> files;
  std::set<std::string> seen;
  bool needs_name_mapping = false;
  for (const std::string& name : options.files) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(name, ec);
    if (ec) return Status::IOError("{}: {}", name, ec.message());
    std::string path = absolute.lexically_normal().string();
    if (!seen.insert(path).second) return Status::Invalid("{} is named twice", path);
    FLOE_ASSIGN_OR_RAISE(std::shared_ptr<io::RandomAccessFile> input, io::OpenLocalFile(path));
    FLOE_ASSIGN_OR_RAISE(
        DataFile file,
        iceberg::DataFileFromParquet(path, input, *loaded.table.metadata, &needs_name_mapping));
    files.push_back(std::make_shared<const DataFile>(std::move(file)));
  }
  // Files already in the table would be read twice.
  {
    iceberg::ScanOptions scan_options;
    FLOE_ASSIGN_OR_RAISE(
        auto scan, iceberg::TableScan::Make(loaded.table.metadata, loaded.table.io, scan_options));
    FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    for (const iceberg::FileScanTask& task : tasks) {
      if (seen.count(task.data_file->file_path) > 0) {
        return Status::Invalid("{} is already a data file of {}", task.data_file->file_path,
                               loaded.id.ToString());
      }
    }
  }
  const iceberg::TableMetadata& md = *loaded.table.metadata;
  iceberg::TableOperationsPtr ops = loaded.ops;
  if (needs_name_mapping && md.properties.count(std::string(kNameMappingProperty)) == 0) {
    // Files without field ids are read through the table's name mapping (spec, "Column
    // Projection"); the table gets one for its current schema in the same commit.
    iceberg::update::SetProperties set;
    set.updates[std::string(kNameMappingProperty)] =
        iceberg::NameMapping::FromSchema(*md.CurrentSchema()).ToJsonString();
    ops = std::make_shared<ExtraUpdatesOps>(loaded.ops, std::vector<iceberg::TableUpdate>{set});
  }
  auto append = iceberg::FastAppend::Make(ops);
  int64_t rows = 0;
  for (const iceberg::DataFilePtr& file : files) {
    rows += file->record_count;
    append->AppendFile(file);
  }
  FLOE_ASSIGN_OR_RAISE(Table committed, append->Commit());
  (void)committed;
  std::cout << fmt::format("added {} files with {} rows (snapshot {})\n", files.size(), rows,
                           append->snapshot_id());
  return CheckStdout();
}

Status RunAppend(const AppendOptions& options) {
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  const iceberg::TableMetadata& md = *loaded.table.metadata;
  iceberg::SchemaPtr schema = md.CurrentSchema();
  if (schema == nullptr) return Status::Invalid("{} has no current schema", loaded.id.ToString());
  FLOE_ASSIGN_OR_RAISE(iceberg::PartitionedWriterOptions writer_options,
                       iceberg::WriterOptionsForTable(md, loaded.ops->io()));
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::PartitionedWriter> writer,
                       iceberg::MakePartitionedWriter(std::move(writer_options), options.fanout));
  auto fail = [&](Status st) {
    (void)writer->Abort();
    return st;
  };
  int64_t rows = 0;
  for (const std::string& file : options.files) {
    Result<int64_t> n = WriteFileRows(file, *schema, writer.get());
    if (!n.ok()) return fail(n.status());
    rows += *n;
  }
  Result<std::vector<DataFile>> files = writer->Close();
  if (!files.ok()) return fail(files.status());
  auto append = iceberg::MergeAppend::Make(loaded.ops);
  for (DataFile& file : *files) append->AppendFile(std::make_shared<const DataFile>(file));
  Result<Table> committed = append->Commit();
  if (!committed.ok()) {
    // The commit did not happen: the data files belong to nothing and are removed. When
    // its outcome is unknown they may belong to the table and are kept.
    if (committed.status().code() != StatusCode::kCommitStateUnknown) {
      for (const DataFile& file : *files) (void)loaded.ops->io()->Delete(file.file_path);
    }
    return fail(committed.status());
  }
  std::cout << fmt::format("appended {} rows in {} files (snapshot {})\n", rows, files->size(),
                           append->snapshot_id());
  return CheckStdout();
}

Status RunExpireSnapshots(const ExpireSnapshotsOptions& options) {
  FLOE_ASSIGN_OR_RAISE(int64_t older_than, ParseAsOf(options.older_than));
  FLOE_ASSIGN_OR_RAISE(LoadedTable loaded, LoadTableFromCatalog(options.catalog, options.table));
  auto expire = iceberg::ExpireSnapshots::Make(loaded.ops);
  expire->ExpireOlderThan(older_than);
  if (options.retain_last) expire->RetainLast(*options.retain_last);
  FLOE_ASSIGN_OR_RAISE(iceberg::ExpireSnapshotsResult result, expire->Commit());
  std::cout << fmt::format(
      "expired {} snapshots; deleted {} data files, {} manifests, {} manifest lists\n",
      result.expired_snapshot_ids.size(), result.deleted_files.size(),
      result.deleted_manifests.size(), result.deleted_manifest_lists.size());
  if (!result.cleanup_status.ok()) {
    std::cout << "cleanup skipped: " << result.cleanup_status.ToString() << '\n';
  }
  return CheckStdout();
}

void AddIcebergWriteCommands(CLI::App* iceberg, CommandAction* action) {
  {
    auto o = std::make_shared<CreateNamespaceOptions>();
    CLI::App* cmd = iceberg->add_subcommand("create-namespace", "Create a namespace");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("NAMESPACE", o->ns, "Namespace (a or a.b)")->required();
    cmd->add_option("--property", o->properties, "Namespace property key=value (repeatable)");
    cmd->callback([action, o] { *action = [o] { return RunCreateNamespace(*o); }; });
  }
  {
    auto o = std::make_shared<ListOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "list", "List the namespaces under NAMESPACE (or the top-level ones) and its tables");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("NAMESPACE", o->ns, "Namespace");
    cmd->callback([action, o] { *action = [o] { return RunList(*o); }; });
  }
  {
    auto o = std::make_shared<CreateTableOptions>();
    CLI::App* cmd = iceberg->add_subcommand("create", "Create a table");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("--schema", o->schema,
                    "Columns: 'id bigint not null, ts timestamptz, name string'")
        ->required();
    cmd->add_option("--partition", o->partition, "Partitioning: 'day(ts), bucket(16, id)'");
    cmd->add_option("--sort", o->sort, "Sort order: 'id DESC NULLS LAST'");
    cmd->add_option("--property", o->properties, "Table property key=value (repeatable)");
    cmd->add_option("--location", o->location, "Table location (default: in the warehouse)");
    cmd->add_option("--format-version", o->format_version, "Iceberg format version")
        ->check(CLI::IsMember({1, 2}))
        ->capture_default_str();
    cmd->callback([action, o] { *action = [o] { return RunCreateTable(*o); }; });
  }
  {
    auto o = std::make_shared<DropTableOptions>();
    CLI::App* cmd = iceberg->add_subcommand("drop", "Remove a table from the catalog");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_flag("--purge", o->purge, "Also delete the table's data and metadata files");
    cmd->callback([action, o] { *action = [o] { return RunDropTable(*o); }; });
  }
  {
    auto o = std::make_shared<AddFilesOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "add-files", "Register existing Parquet files as data files of TABLE (one commit)");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("FILES", o->files, "Parquet files")->required();
    cmd->callback([action, o] { *action = [o] { return RunAddFiles(*o); }; });
  }
  {
    auto o = std::make_shared<AppendOptions>();
    CLI::App* cmd = iceberg->add_subcommand(
        "append", "Write the rows of Parquet files into TABLE's data files (one commit)");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("FILES", o->files, "Parquet files")->required();
    cmd->add_flag("--fanout,!--no-fanout", o->fanout,
                  "Fanout writer (default; any input order) or clustered writer (input grouped "
                  "by partition)");
    cmd->callback([action, o] { *action = [o] { return RunAppend(*o); }; });
  }
  {
    auto o = std::make_shared<ExpireSnapshotsOptions>();
    auto retain_last = std::make_shared<int>(0);
    CLI::App* cmd = iceberg->add_subcommand(
        "expire-snapshots", "Expire old snapshots of TABLE and delete the files only they used");
    AddCatalogOptions(cmd, &o->catalog);
    cmd->add_option("TABLE", o->table, "Table name (namespace.name)")->required();
    cmd->add_option("--older-than", o->older_than,
                    "Expire snapshots older than this (ms since the epoch, or "
                    "'YYYY-MM-DD HH:MM:SS' UTC)")
        ->required();
    cmd->add_option("--retain-last", *retain_last, "Keep at least this many newest snapshots")
        ->check(CLI::PositiveNumber);
    cmd->callback([action, o, retain_last, cmd] {
      if (cmd->count("--retain-last") > 0) o->retain_last = *retain_last;
      *action = [o] { return RunExpireSnapshots(*o); };
    });
  }
}

}  // namespace floe::cli
