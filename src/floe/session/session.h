#pragma once

// A SQL session: settings, the catalog, and running statements end to end
// (parse -> bind -> optimize -> physical plan -> enforce -> stages -> scheduler).
// The CLI (floe sql, floe shell, floe sqllogictest) talks only to this.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/session_config.h"
#include "floe/scheduler/query_cluster.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/stage_planner.h"

namespace floe::session {

struct SessionOptions {
  /// The warehouse directory of the embedded catalog (tables created by SQL live here);
  /// used when `catalog` is not given.
  std::string warehouse = "warehouse";
  /// The catalog SQL names resolve in. nullptr: the embedded SQLite catalog
  /// (`<warehouse>/catalog.db`), opened when a statement first needs it.
  catalog::CatalogPtr catalog;
  /// Worker threads; 0 = the hardware threads. Without a cluster, also the default
  /// target_partitions (with one, the cluster's slots are).
  int threads = 0;
  /// Runs the session's queries across processes (dist/ under MPI); nullptr: in this
  /// process alone.
  std::shared_ptr<scheduler::QueryCluster> cluster;
};

/// The result of one statement: a stream of rows (empty schema for statements that
/// return none) and PostgreSQL's command tag ("SELECT 3", "SET", "CREATE TABLE").
class QueryResult {
 public:
  virtual ~QueryResult() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// The next batch, or nullptr at the end. Errors of the running query surface here.
  virtual Result<RecordBatchPtr> Next() = 0;
  /// Valid once Next() returned nullptr.
  virtual std::string command_tag() const = 0;
  /// Stops the query (the remaining tasks are cancelled, spill files removed).
  virtual void Cancel() = 0;
  /// Rows produced so far (for a progress line).
  virtual int64_t rows_produced() const = 0;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> Make(SessionOptions options = {});
  virtual ~Session() = default;

  /// Runs exactly one statement (kInvalidArgument when `sql` holds more than one; a script
  /// is split by sql::SplitStatements). Errors name what is wrong and where (see sql/parser.h,
  /// plan/binder.h).
  virtual Result<std::unique_ptr<QueryResult>> Execute(std::string_view sql) = 0;

  /// Plans one SELECT or INSERT without running it: the stages it would run (an INSERT's
  /// stages end in its commit; nothing is written). kNotSupported for other statements.
  virtual Result<scheduler::StagePlan> PlanStatement(std::string_view sql) = 0;

  virtual const exec::SessionConfig& config() const = 0;
  virtual exec::SessionConfig& mutable_config() = 0;
};

}  // namespace floe::session
