#pragma once

// How a statement's relation names resolve in a session: catalog tables (loaded once per
// statement, by the binder's contract), their metadata tables ("t$snapshots", ...), and
// the built-in table functions (read_parquet, generate_series, iceberg_scan).

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/iceberg/table.h"
#include "floe/plan/binder.h"

namespace floe::session {

class SessionResolver final : public plan::RelationResolver {
 public:
  /// `catalog` returns the session's catalog, or nullptr when there is none yet (no table
  /// can exist then). `files_io` returns the FileIO that reads files named by path on S3
  /// (read_parquet), asked for only when a statement names one. `path_map` is the
  /// iceberg.path_map setting ("FROM=TO;..."). `temp_namespace` holds the session's temporary
  /// tables (empty: none; see CatalogNames).
  SessionResolver(std::function<Result<catalog::Catalog*>()> catalog,
                  connector::FileIOSource files_io, std::string search_path, std::string path_map,
                  std::string temp_namespace = {});

  /// A catalog table, or a metadata table when the last part ends in "$<kind>" ("t$files",
  /// "db.t$snapshots"): kNotFound naming an unknown metadata table and listing the known
  /// ones (a table whose own name holds a '$' still resolves).
  Result<plan::TableSourcePtr> ResolveTable(const std::vector<std::string>& name) override;
  /// read_parquet, generate_series, and iceberg_scan('db.t' [, snapshot_id => N |
  /// as_of => TIMESTAMP '...' | ref => 'name']): the table at that snapshot, read with the
  /// snapshot's schema. kInvalidArgument naming a bad, repeated or unknown argument or
  /// two selectors; kNotFound for an unknown table, snapshot or ref, or a time before the
  /// table's first snapshot.
  Result<plan::TableSourcePtr> ResolveTableFunction(
      const std::string& name, const std::vector<plan::TableFunctionArg>& args) override;

  /// Loads a catalog table with the session's path map applied to its FileIO; a table
  /// already loaded by this resolver (this statement) is returned as it was then, so a
  /// statement that loads its target first sees that version wherever it names it.
  Result<std::pair<catalog::TableIdentifier, iceberg::Table>> LoadTable(
      const std::vector<std::string>& name);

 private:
  Result<plan::TableSourcePtr> ResolveIcebergScan(const std::vector<plan::TableFunctionArg>& args);

  std::function<Result<catalog::Catalog*>()> catalog_;
  connector::FileIOSource files_io_;
  std::string search_path_;
  std::string path_map_;
  std::string temp_namespace_;
  // Tables loaded so far, by identifier ("db.t").
  std::map<std::string, iceberg::Table> loaded_;
};

}  // namespace floe::session
