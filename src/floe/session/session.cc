#include "floe/session/session.h"
#include "floe/session/plan_codecs.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/common/ascii.h"
#include "floe/common/thread_pool.h"
#include "floe/connector/builtin/generate_series.h"
#include "floe/connector/iceberg/declared_types.h"
#include "floe/connector/iceberg/iceberg_delta_write_exec.h"
#include "floe/connector/iceberg/iceberg_table.h"
#include "floe/connector/iceberg/iceberg_write.h"
#include "floe/connector/parquet/parquet_table.h"
#include "floe/exec/enforce.h"
#include "floe/exec/exchange_service.h"
#include "floe/exec/physical_planner.h"
#include "floe/exec/plan_codec.h"
#include "floe/exec/spill.h"
#include "floe/iceberg/in_flight_files.h"
#include "floe/iceberg/metadata_columns.h"
#include "floe/iceberg/partitioned_writer.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_scan.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/s3_client.h"
#include "floe/io/s3_file_io.h"
#include "floe/plan/binder.h"
#include "floe/plan/optimizer.h"
#include "floe/scheduler/local_exchange.h"
#include "floe/scheduler/scheduler.h"
#include "floe/scheduler/stage_planner.h"
#include "floe/session/copy_statement.h"
#include "floe/session/ddl_statements.h"
#include "floe/session/explain.h"
#include "floe/session/row_level.h"
#include "floe/session/session_resolver.h"
#include "floe/session/user_types.h"
#include "floe/sql/parser.h"

namespace floe::session {

namespace {

// ---------------------------------------------------------------------------------------
// Results

/// Rows known up front (SET, SHOW, EXPLAIN).
class MaterializedResult final : public QueryResult {
 public:
  MaterializedResult(SchemaPtr schema, std::vector<RecordBatchPtr> batches, std::string tag)
      : schema_(std::move(schema)), batches_(std::move(batches)), tag_(std::move(tag)) {}

  const SchemaPtr& schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr();
    rows_ += batches_[next_]->num_rows();
    return batches_[next_++];
  }
  std::string command_tag() const override { return tag_; }
  void Cancel() override { next_ = batches_.size(); }
  int64_t rows_produced() const override { return rows_; }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  std::string tag_;
  size_t next_ = 0;
  int64_t rows_ = 0;
};

SchemaPtr EmptySchema() { return std::make_shared<const Schema>(); }

std::unique_ptr<QueryResult> CommandResult(std::string tag) {
  return std::make_unique<MaterializedResult>(EmptySchema(), std::vector<RecordBatchPtr>{},
                                              std::move(tag));
}

/// A result of text columns, one row per entry of `rows`.
Result<std::unique_ptr<QueryResult>> TextResult(const std::vector<std::string>& names,
                                                const std::vector<std::vector<std::string>>& rows,
                                                std::string tag) {
  std::vector<Field> fields;
  for (const std::string& name : names) fields.emplace_back(name, String(), true);
  auto schema = std::make_shared<const Schema>(std::move(fields));
  std::vector<ArrayPtr> columns;
  for (size_t c = 0; c < names.size(); ++c) {
    std::unique_ptr<ArrayBuilder> builder = MakeBuilder(String());
    for (const auto& row : rows) FLOE_RETURN_NOT_OK(builder->AppendScalar(Scalar::Str(row[c])));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, builder->Finish());
    columns.push_back(std::move(column));
  }
  std::vector<RecordBatchPtr> batches;
  if (!rows.empty()) {
    FLOE_ASSIGN_OR_RAISE(
        RecordBatchPtr batch,
        RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns)));
    batches.push_back(std::move(batch));
  }
  return std::unique_ptr<QueryResult>(
      std::make_unique<MaterializedResult>(schema, std::move(batches), std::move(tag)));
}

/// Everything one running query holds, in the order it must be torn down
/// (members are destroyed last to first: the scheduler waits for its tasks,
/// then the context drops the exchange and its files, then the directory goes).
struct RunningQuery {
  std::unique_ptr<exec::SpillDirectory> spill;
  exec::TaskContextPtr ctx;
  std::unique_ptr<scheduler::QueryScheduler> scheduler;

  ~RunningQuery() {
    scheduler.reset();
    ctx.reset();
    spill.reset();
  }
};

/// A SELECT's rows, streamed from the final stage.
class StreamingResult final : public QueryResult {
 public:
  explicit StreamingResult(std::unique_ptr<RunningQuery> query) : query_(std::move(query)) {}

  const SchemaPtr& schema() const override { return query_->scheduler->schema(); }
  Result<RecordBatchPtr> Next() override {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, query_->scheduler->Next());
    if (batch) rows_.fetch_add(batch->num_rows(), std::memory_order_relaxed);
    return batch;
  }
  std::string command_tag() const override { return "SELECT " + std::to_string(rows_.load()); }
  void Cancel() override { query_->scheduler->Cancel(); }
  int64_t rows_produced() const override { return rows_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<RunningQuery> query_;
  std::atomic<int64_t> rows_{0};
};

std::string Indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += pad + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::vector<std::vector<std::string>> Lines(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    rows.push_back({text.substr(start, end - start)});
    start = end + 1;
  }
  return rows;
}

// ---------------------------------------------------------------------------------------
// The session

// Numbers the queries of the process (every session's), so that their spill directories
// never collide.
int64_t NextQueryNumber() {
  static std::atomic<int64_t> next{0};
  return next.fetch_add(1);
}

class SessionImpl final : public Session {
 public:
  SessionImpl(SessionOptions options, std::unique_ptr<ThreadPool> threads)
      : options_(std::move(options)),
        catalog_(options_.catalog),
        threads_(std::move(threads)),
        temp_namespace_(NewTempNamespaceName()) {}

  // The temporary tables go with the session, files and all, and their namespace with them.
  ~SessionImpl() override {
    if (!temp_used_ || !catalog_) return;
    const catalog::Namespace ns{temp_namespace_};
    auto tables = catalog_->ListTables(ns);
    if (tables.ok()) {
      for (const catalog::TableIdentifier& id : *tables) (void)catalog_->DropTable(id, true);
    }
    (void)catalog_->DropNamespace(ns);
  }

  const exec::SessionConfig& config() const override { return config_; }
  exec::SessionConfig& mutable_config() override { return config_; }

  Result<std::unique_ptr<QueryResult>> Execute(std::string_view sql) override {
    FLOE_ASSIGN_OR_RAISE(std::vector<sql::Statement> statements, sql::Parse(sql, ParseOptions()));
    if (statements.empty()) return Status::Invalid("no statement to execute");
    if (statements.size() > 1) {
      return Status::Invalid("{} statements given where one was expected (split the script first)",
                             statements.size());
    }
    return ExecuteStatement(statements[0]);
  }

  Result<scheduler::StagePlan> PlanStatement(std::string_view sql) override {
    FLOE_ASSIGN_OR_RAISE(std::vector<sql::Statement> statements, sql::Parse(sql, ParseOptions()));
    if (statements.size() != 1) {
      return Status::Invalid("{} statements given where one was expected", statements.size());
    }
    const sql::Statement& statement = statements[0];
    if (const auto* select = std::get_if<sql::SelectStatement>(&statement.body)) {
      FLOE_ASSIGN_OR_RAISE(PlannedQuery planned, PlanSelect(*select->query, statement.text));
      return std::move(planned.stages);
    }
    if (const auto* insert = std::get_if<sql::InsertStatement>(&statement.body)) {
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanInsert(*insert, statement.text));
      return std::move(planned.query.stages);
    }
    if (const std::vector<std::string>* table = RowLevelTable(statement.body)) {
      FLOE_ASSIGN_OR_RAISE(std::unique_ptr<RowLevelStatement> st,
                           PrepareRowLevel(*table, RowLevelChanges(statement.body),
                                           RowLevelTargetWhere(statement.body), statement.text));
      if (!st->settings.merge_on_read) {
        return Status::NotSupported(
            "a copy-on-write {} runs a query to find the files it rewrites before its write can "
            "be planned",
            st->changes.tag());
      }
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanMergeOnRead(*st, statement.text));
      return std::move(planned.query.stages);
    }
    return Status::NotSupported(
        "only SELECT, INSERT and merge-on-read DELETE, UPDATE and MERGE can be planned without "
        "running them");
  }

  // The target of a row-level statement (DELETE with WHERE or USING, UPDATE, MERGE), or null.
  static const std::vector<std::string>* RowLevelTable(const sql::StatementBody& body) {
    if (const auto* del = std::get_if<sql::DeleteStatement>(&body)) {
      if (del->truncate || (del->where == nullptr && del->using_items.empty())) return nullptr;
      return &del->table;
    }
    if (const auto* update = std::get_if<sql::UpdateStatement>(&body)) return &update->table;
    if (const auto* merge = std::get_if<sql::MergeStatement>(&body)) return &merge->table;
    return nullptr;
  }

  // The WHERE of a row-level statement that reads the target alone (DELETE without USING,
  // UPDATE without FROM), as TargetFilterQuery takes it; nullopt otherwise.
  struct TargetWhere {
    const sql::DeleteStatement* del = nullptr;  // set for a DELETE
    std::string alias;
    sql::ParsedExprPtr where;
  };
  static std::optional<TargetWhere> RowLevelTargetWhere(const sql::StatementBody& body) {
    if (const auto* del = std::get_if<sql::DeleteStatement>(&body)) {
      if (!del->using_items.empty()) return std::nullopt;
      return TargetWhere{del, del->alias, del->where};
    }
    if (const auto* update = std::get_if<sql::UpdateStatement>(&body)) {
      if (!update->from.empty()) return std::nullopt;
      return TargetWhere{nullptr, update->alias, update->where};
    }
    return std::nullopt;
  }

  // The change query builder of a row-level statement (row_level.h); `body` must outlive it.
  static std::function<Result<RowChanges>(const iceberg::Schema&, ChangeColumns)> RowLevelChanges(
      const sql::StatementBody& body) {
    return [&body](const iceberg::Schema& schema, ChangeColumns columns) -> Result<RowChanges> {
      if (const auto* del = std::get_if<sql::DeleteStatement>(&body)) {
        return DeleteChanges(*del, columns);
      }
      if (const auto* update = std::get_if<sql::UpdateStatement>(&body)) {
        return UpdateChanges(*update, schema, columns, update->table.back());
      }
      const auto& merge = std::get<sql::MergeStatement>(body);
      return MergeChanges(merge, schema, columns, merge.table.back());
    };
  }

 private:
  struct PlannedQuery {
    plan::LogicalPlanPtr logical;
    exec::PlanPtr physical;  // enforced
    scheduler::StagePlan stages;
  };

  Result<std::unique_ptr<QueryResult>> ExecuteStatement(const sql::Statement& statement) {
    const sql::StatementBody& body = statement.body;
    if (const auto* select = std::get_if<sql::SelectStatement>(&body)) {
      FLOE_ASSIGN_OR_RAISE(PlannedQuery planned, PlanSelect(*select->query, statement.text));
      FLOE_ASSIGN_OR_RAISE(auto running, Run(std::move(planned.stages), false));
      return std::unique_ptr<QueryResult>(std::make_unique<StreamingResult>(std::move(running)));
    }
    if (const auto* set = std::get_if<sql::SetStatement>(&body)) return ExecuteSet(*set);
    if (const auto* insert = std::get_if<sql::InsertStatement>(&body)) {
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanInsert(*insert, statement.text));
      FLOE_ASSIGN_OR_RAISE(int64_t rows, RunWrite(std::move(planned)));
      return CommandResult("INSERT 0 " + std::to_string(rows));
    }
    if (const auto* create = std::get_if<sql::CreateTableStatement>(&body);
        create && create->as_query) {
      return ExecuteCreateTableAs(*create, statement.text);
    }
    if (const auto* call = std::get_if<sql::CallStatement>(&body);
        call && IsWriteProcedure(*call)) {
      return ExecuteWriteProcedure(*call, statement.text);
    }
    if (const auto* create = std::get_if<sql::CreateTypeStatement>(&body)) {
      FLOE_RETURN_NOT_OK(user_types_.Create(*create, statement.text));
      return CommandResult("CREATE TYPE");
    }
    if (const auto* create = std::get_if<sql::CreateDomainStatement>(&body)) {
      FLOE_RETURN_NOT_OK(user_types_.CreateDomain(*create, statement.text, MakeBindOptions()));
      return CommandResult("CREATE DOMAIN");
    }
    if (const auto* drop = std::get_if<sql::DropStatement>(&body);
        drop && (drop->object == sql::DropStatement::ObjectKind::kType ||
                 drop->object == sql::DropStatement::ObjectKind::kDomain)) {
      FLOE_RETURN_NOT_OK(user_types_.Drop(*drop));
      return CommandResult(drop->object == sql::DropStatement::ObjectKind::kType ? "DROP TYPE"
                                                                                 : "DROP DOMAIN");
    }
    if (IsCatalogStatement(body)) {
      FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/true));
      if (const auto* create = std::get_if<sql::CreateTableStatement>(&body);
          create && create->temporary) {
        temp_used_ = true;
      }
      FLOE_ASSIGN_OR_RAISE(CatalogStatementResult result,
                           ExecuteCatalogStatement(*catalog, statement, config_.search_path(),
                                                   TempNamespace(), user_types_.types()));
      if (result.columns.empty()) return CommandResult(std::move(result.tag));
      return TextResult(result.columns, result.rows, std::move(result.tag));
    }
    if (const auto* show = std::get_if<sql::ShowStatement>(&body)) return ExecuteShow(*show);
    if (const auto* copy = std::get_if<sql::CopyStatement>(&body)) {
      return ExecuteCopy(*copy, statement.text);
    }
    if (const auto* del = std::get_if<sql::DeleteStatement>(&body);
        del && (del->truncate || (del->where == nullptr && del->using_items.empty()))) {
      return ExecuteDelete(*del);
    }
    if (const std::vector<std::string>* table = RowLevelTable(body)) {
      return ExecuteRowLevel(*table, statement.text, RowLevelChanges(body),
                             RowLevelTargetWhere(body));
    }
    if (const auto* explain = std::get_if<std::shared_ptr<sql::ExplainStatement>>(&body)) {
      return ExecuteExplain(**explain);
    }
    return Status::NotSupported("{} is not supported yet", StatementName(body));
  }

  // A name no other session picks (PostgreSQL's pg_temp_<backend>): the session's temporary
  // tables are real tables of its catalog, so that every process of a query can read them.
  static std::string NewTempNamespaceName() {
    std::random_device device;
    std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device() ^
                           static_cast<uint64_t>(getpid()));
    return fmt::format("pg_temp_{:016x}", random());
  }

  // The temporary namespace once the session has made a temporary table, else "".
  std::string TempNamespace() const { return temp_used_ ? temp_namespace_ : std::string(); }

  static bool IsCatalogStatement(const sql::StatementBody& body) {
    if (const auto* create = std::get_if<sql::CreateTableStatement>(&body)) {
      return create->as_query == nullptr;
    }
    return std::holds_alternative<sql::CreateSchemaStatement>(body) ||
           std::holds_alternative<sql::DropStatement>(body) ||
           std::holds_alternative<sql::AlterTableStatement>(body) ||
           std::holds_alternative<sql::ShowObjectsStatement>(body) ||
           std::holds_alternative<sql::CallStatement>(body);
  }

  // The session's catalog, opened on first use (a query over files never touches it).
  // Without `create`, a missing embedded catalog is not made: the result is nullptr.
  Result<catalog::Catalog*> Catalog(bool create) {
    std::lock_guard<std::mutex> lock(catalog_mutex_);
    if (!catalog_) {
      std::error_code ec;
      std::filesystem::path warehouse = std::filesystem::absolute(options_.warehouse, ec);
      if (!create && !ec && !std::filesystem::exists(warehouse / "catalog.db", ec)) {
        return nullptr;
      }
      if (!ec) std::filesystem::create_directories(warehouse, ec);
      if (ec) {
        return Status::IOError("cannot create the warehouse directory {}: {}", options_.warehouse,
                               ec.message());
      }
      FLOE_ASSIGN_OR_RAISE(catalog_,
                           catalog::OpenCatalog("sqlite:" + (warehouse / "catalog.db").string(),
                                                warehouse.string(), "default"));
    }
    return catalog_.get();
  }

  // The FileIO that reads files named by path (read_parquet on S3): the configured catalog's
  // when it resolves S3 paths (its s3.* properties, then the AWS environment and files),
  // else one with the settings of the AWS environment and files, made on first use.
  Result<std::shared_ptr<const io::FileIO>> FilesIO() {
    std::lock_guard<std::mutex> lock(catalog_mutex_);
    if (!files_io_) {
      if (options_.catalog != nullptr &&
          dynamic_cast<const io::ResolvingFileIO*>(options_.catalog->io().get()) != nullptr) {
        files_io_ = options_.catalog->io();
      } else {
        FLOE_ASSIGN_OR_RAISE(files_io_, io::MakeResolvingFileIO(io::LocalFileIOOptions{}, {}));
      }
    }
    return files_io_;
  }

  static std::string StatementName(const sql::StatementBody& body) {
    switch (body.index()) {
      case 1:
        return "INSERT";
      case 2:
        return "DELETE";
      case 3:
        return "CREATE SCHEMA";
      case 4:
        return std::get<sql::CreateTableStatement>(body).as_query ? "CREATE TABLE AS"
                                                                  : "CREATE TABLE";
      case 5:
        switch (std::get<sql::DropStatement>(body).object) {
          case sql::DropStatement::ObjectKind::kTable:
            return "DROP TABLE";
          case sql::DropStatement::ObjectKind::kSchema:
            return "DROP SCHEMA";
          case sql::DropStatement::ObjectKind::kView:
            return "DROP VIEW";
          case sql::DropStatement::ObjectKind::kType:
            return "DROP TYPE";
          case sql::DropStatement::ObjectKind::kDomain:
            return "DROP DOMAIN";
        }
        return "DROP";
      case 6:
        return "ALTER TABLE";
      case 10:
        return "CALL";
      case 12:
        return "COPY";
      case 11:
        switch (std::get<sql::ShowObjectsStatement>(body).kind) {
          case sql::ShowObjectsStatement::Kind::kTables:
            return "SHOW TABLES";
          case sql::ShowObjectsStatement::Kind::kSchemas:
            return "SHOW SCHEMAS";
          case sql::ShowObjectsStatement::Kind::kDescribe:
            return "DESCRIBE";
          case sql::ShowObjectsStatement::Kind::kCreateTable:
            return "SHOW CREATE TABLE";
        }
        return "SHOW";
      default:
        return "this statement";
    }
  }

  sql::ParseOptions ParseOptions() const {
    sql::ParseOptions options;
    options.standard_conforming_strings = config_.standard_conforming_strings();
    return options;
  }

  plan::BindOptions MakeBindOptions() const {
    plan::BindOptions options;
    options.statement_time_micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
    options.time_zone = config_.time_zone();
    options.user_types = user_types_.types();
    return options;
  }

  Result<PlannedQuery> PlanSelect(const sql::SelectStmt& query, std::string_view text) {
    SessionResolver resolver = MakeResolver();
    PlannedQuery planned;
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr bound,
                         plan::BindQuery(query, text, resolver, MakeBindOptions()));
    FLOE_ASSIGN_OR_RAISE(planned.logical, plan::Optimize(bound));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr physical,
                         exec::CreatePhysicalPlan(planned.logical, config_));
    FLOE_ASSIGN_OR_RAISE(planned.physical, exec::EnforceRequirements(physical, config_));
    FLOE_ASSIGN_OR_RAISE(planned.stages, scheduler::PlanStages(planned.physical));
    return planned;
  }

  // -------------------------------------------------------------------------------------
  // Writes: INSERT and CREATE TABLE AS

  struct PlannedWrite {
    connector::IcebergWriteTargetPtr target;
    PlannedQuery query;
  };

  SessionResolver MakeResolver() {
    return SessionResolver([this] { return Catalog(/*create=*/false); },
                           [this] { return FilesIO(); }, config_.search_path(),
                           config_.iceberg_path_map(), TempNamespace());
  }

  // The table `id` of the session's catalog as the target of a write, loaded fresh for this
  // statement (the commit validates against it).
  Result<connector::IcebergWriteTargetPtr> LoadWriteTarget(
      catalog::Catalog& catalog, const catalog::TableIdentifier& id,
      connector::IcebergWriteTarget::Mode mode) {
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog.LoadTable(id));
    return connector::MakeWriteTarget(id.ToString(), std::move(table), catalog.TableOps(id), mode);
  }

  // Plans writing the rows of `query` into the table `id` of the session's catalog.
  Result<PlannedWrite> PlanWrite(
      catalog::Catalog& catalog, const catalog::TableIdentifier& id, const sql::SelectStmt& query,
      std::string_view text, const std::vector<std::string>& columns,
      connector::IcebergWriteTarget::Mode mode = connector::IcebergWriteTarget::Mode::kAppend) {
    FLOE_ASSIGN_OR_RAISE(connector::IcebergWriteTargetPtr target,
                         LoadWriteTarget(catalog, id, mode));
    SessionResolver resolver = MakeResolver();
    plan::BindOptions options = MakeBindOptions();
    options.insert_value_types = connector::InsertTargetTypes(
        *target->table.metadata->CurrentSchema(), target->table.metadata->properties, columns);
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr bound,
                         plan::BindQuery(query, text, resolver, options));
    return PlanWriteOf(std::move(target), std::move(bound), columns);
  }

  // Plans writing the rows of `bound` (assigned to `columns`, or to every column in order)
  // into `target`.
  Result<PlannedWrite> PlanWriteOf(connector::IcebergWriteTargetPtr target,
                                   plan::LogicalPlanPtr bound,
                                   const std::vector<std::string>& columns) {
    PlannedWrite planned;
    planned.target = std::move(target);
    FLOE_ASSIGN_OR_RAISE(
        bound, connector::ConformInsertInput(std::move(bound),
                                             *planned.target->table.metadata->CurrentSchema(),
                                             planned.target->table.metadata->properties, columns,
                                             planned.target->table_name));
    FLOE_ASSIGN_OR_RAISE(planned.query.logical, plan::Optimize(bound));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr input,
                         exec::CreatePhysicalPlan(planned.query.logical, config_));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr write,
                         connector::PlanIcebergWrite(planned.target, std::move(input)));
    FLOE_ASSIGN_OR_RAISE(planned.query.physical, exec::EnforceRequirements(write, config_));
    FLOE_ASSIGN_OR_RAISE(planned.query.stages, scheduler::PlanStages(planned.query.physical));
    return planned;
  }

  Result<PlannedWrite> PlanInsert(const sql::InsertStatement& insert, std::string_view text) {
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/false));
    if (catalog == nullptr) {
      std::string joined;
      for (const std::string& part : insert.table) joined += (joined.empty() ? "" : ".") + part;
      return Status::NotFound("table \"{}\" does not exist", joined);
    }
    CatalogNames names(catalog, config_.search_path(), TempNamespace());
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(insert.table));
    return PlanWrite(*catalog, id, *insert.query, text, insert.columns);
  }

  // Runs a planned write to its end and returns the rows written. On any error the files
  // the statement wrote are deleted (nothing was committed).
  Result<int64_t> RunWrite(PlannedWrite planned, bool collect_metrics = false,
                           std::unique_ptr<RunningQuery>* keep = nullptr) {
    // Until the commit begins, a terminating process deletes the statement's files, whichever
    // process wrote them (iceberg::InFlightFiles).
    const connector::IcebergWriteTarget& target = *planned.target;
    const iceberg::TableMetadata& metadata = *target.table.metadata;
    FLOE_ASSIGN_OR_RAISE(iceberg::WriterProperties where,
                         iceberg::WriterProperties::Make(metadata.properties, metadata.location));
    iceberg::InFlightFiles::Process().AddOperation(target.operation_id, target.table.io,
                                                   where.data_location);
    struct Unregister {
      std::string id;
      ~Unregister() { iceberg::InFlightFiles::Process().SealOperation(id); }
    } unregister{target.operation_id};
    FLOE_ASSIGN_OR_RAISE(auto running, Run(std::move(planned.query.stages), collect_metrics));
    Result<int64_t> rows = SumCounts(*running);
    if (!rows.ok()) {
      // Every task has stopped: what the journal holds is all the statement wrote.
      auto journal = connector::WriteJournal::For(running->ctx, planned.target.get());
      if (journal.ok()) (void)(*journal)->DeleteUncommitted(*planned.target->table.io);
      return rows.status();
    }
    if (keep != nullptr) *keep = std::move(running);
    return rows;
  }

  // -------------------------------------------------------------------------------------
  // DELETE

  // DELETE FROM t without WHERE, and TRUNCATE t: every live data and delete file of the
  // current snapshot leaves the table in one "delete" snapshot, without writing a file; the
  // rows are counted at that snapshot, as PostgreSQL reports them (DELETE n). Rows appended
  // concurrently stay (they were not there when the statement began); a file another commit
  // removed meanwhile fails the commit. A WHERE needs row-level deletes, which floe does not
  // write yet.
  Result<std::unique_ptr<QueryResult>> ExecuteDelete(const sql::DeleteStatement& del) {
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/false));
    std::string joined;
    for (const std::string& part : del.table) joined += (joined.empty() ? "" : ".") + part;
    if (catalog == nullptr) return Status::NotFound("table \"{}\" does not exist", joined);
    CatalogNames names(catalog, config_.search_path(), TempNamespace());
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(del.table));
    if (del.where) {
      return Status::NotSupported(
          "DELETE with a WHERE clause is not supported yet (row-level deletes); DELETE FROM {} "
          "without WHERE removes every row",
          id.ToString());
    }
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog->LoadTable(id));
    const iceberg::Snapshot* snapshot = table.metadata->CurrentSnapshot();
    const std::string tag = del.truncate ? "TRUNCATE TABLE" : "DELETE ";
    auto done = [&](int64_t rows) {
      return CommandResult(del.truncate ? tag : tag + std::to_string(rows));
    };
    if (snapshot == nullptr) return done(0);
    const int64_t snapshot_id = snapshot->snapshot_id;
    iceberg::ScanOptions options;
    options.snapshot.snapshot_id = snapshot_id;
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan,
                         iceberg::TableScan::Make(table.metadata, table.io, options));
    FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    std::set<std::string> files;
    for (const iceberg::FileScanTask& task : tasks) {
      files.insert(task.data_file->file_path);
      for (const iceberg::DataFilePtr& file : task.delete_files) files.insert(file->file_path);
    }
    // TRUNCATE reports no count, so it reads no file.
    int64_t rows = 0;
    if (!del.truncate) {
      FLOE_ASSIGN_OR_RAISE(rows, CountRows(id.ToString(), table, snapshot_id));
    }
    if (files.empty()) return done(0);
    std::unique_ptr<iceberg::DeleteFiles> commit =
        iceberg::DeleteFiles::Make(catalog->TableOps(id));
    for (const std::string& path : files) commit->DeleteFile(path);
    FLOE_RETURN_NOT_OK(commit->Commit().status());
    return done(rows);
  }

  // -------------------------------------------------------------------------------------
  // Row-level changes: DELETE ... WHERE / USING, UPDATE, MERGE (row_level.h)

  using ChangesOf = std::function<Result<RowChanges>(const iceberg::Schema&, ChangeColumns)>;

  // A row-level statement ready to plan: its target loaded (every reference to it in the
  // statement reads this version), its change query, the table's strategy and the write
  // target.
  struct RowLevelStatement {
    explicit RowLevelStatement(SessionResolver r) : resolver(std::move(r)) {}
    SessionResolver resolver;
    catalog::TableIdentifier id;
    iceberg::Table table;
    iceberg::SchemaPtr schema;
    RowChanges changes;
    RowLevelSettings settings;
    std::shared_ptr<connector::IcebergWriteTarget> target;
    // TargetFilterQuery bound, for a statement whose WHERE reads the target alone.
    plan::LogicalPlanPtr target_filter;
  };

  Result<std::unique_ptr<RowLevelStatement>> PrepareRowLevel(
      const std::vector<std::string>& name, const ChangesOf& changes_of,
      const std::optional<TargetWhere>& target_where, std::string_view text) {
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/false));
    std::string joined;
    for (const std::string& part : name) joined += (joined.empty() ? "" : ".") + part;
    if (catalog == nullptr) return Status::NotFound("table \"{}\" does not exist", joined);
    auto st = std::make_unique<RowLevelStatement>(MakeResolver());
    FLOE_ASSIGN_OR_RAISE(auto loaded, st->resolver.LoadTable(name));
    st->id = std::move(loaded.first);
    st->table = std::move(loaded.second);
    const iceberg::TableMetadata& metadata = *st->table.metadata;
    st->schema = metadata.CurrentSchema();
    if (st->schema == nullptr) {
      return Status::Corrupt("table {} has no current schema", st->id.ToString());
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr unified, iceberg::UnifiedPartitionType(metadata));
    ChangeColumns columns;
    columns.partition = unified != nullptr;
    columns.row_id = metadata.format_version >= 3;
    FLOE_ASSIGN_OR_RAISE(st->changes, changes_of(*st->schema, columns));
    FLOE_ASSIGN_OR_RAISE(st->settings, SettingsFor(st->changes.command, metadata.properties));
    if (st->settings.merge_on_read && metadata.format_version < 2) {
      return Status::Invalid(
          "table {}: write.{}.mode is merge-on-read, which needs format version 2 or later "
          "(the table is v{})",
          st->id.ToString(), AsciiLower(std::string(st->changes.tag())), metadata.format_version);
    }
    using Mode = connector::IcebergWriteTarget::Mode;
    FLOE_ASSIGN_OR_RAISE(connector::IcebergWriteTargetPtr made,
                         connector::MakeWriteTarget(
                             st->id.ToString(), st->table, catalog->TableOps(st->id),
                             st->settings.merge_on_read ? Mode::kRowDelta : Mode::kRewriteFiles));
    st->target = std::make_shared<connector::IcebergWriteTarget>(*made);
    st->target->base_snapshot_id = metadata.current_snapshot_id;
    st->target->serializable = st->settings.serializable;
    st->target->row_lineage = columns.row_id;
    // Serializable isolation: only appends of rows the WHERE may match conflict.
    if (target_where.has_value() && target_where->where != nullptr) {
      FLOE_ASSIGN_OR_RAISE(
          st->target_filter,
          plan::BindQuery(*TargetFilterQuery(name, target_where->alias, target_where->where), text,
                          st->resolver, MakeBindOptions()));
      st->target->conflict_filter = ConflictFilter(st->target_filter);
    }
    return st;
  }

  // The change query bound, its values conformed to the table's columns.
  Result<plan::LogicalPlanPtr> BindChanges(RowLevelStatement& st, const sql::SelectStmt& query,
                                           std::string_view text) {
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr bound,
                         plan::BindQuery(query, text, st.resolver, MakeBindOptions()));
    if (!st.changes.writes_rows) return bound;
    return connector::ConformRowChanges(std::move(bound), st.changes.op_column() + 1, *st.schema,
                                        st.table.metadata->properties, st.id.ToString());
  }

  // Merge-on-read: the changes, written by IcebergDeltaWriteExec, committed as a row delta.
  Result<PlannedWrite> PlanMergeOnRead(RowLevelStatement& st, std::string_view text) {
    PlannedWrite planned;
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr bound, BindChanges(st, *st.changes.query, text));
    FLOE_ASSIGN_OR_RAISE(planned.query.logical, plan::Optimize(bound));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr input,
                         exec::CreatePhysicalPlan(planned.query.logical, config_));
    // Format version 3 keeps one deletion vector per data file: the writers merge the
    // deletes each data file has at the statement's snapshot into its new one.
    std::shared_ptr<connector::PreviousDeletes> previous;
    const iceberg::TableMetadata& metadata = *st.table.metadata;
    if (metadata.format_version >= 3 && metadata.CurrentSnapshot() != nullptr) {
      iceberg::ScanOptions options;
      options.snapshot.snapshot_id = metadata.current_snapshot_id;
      FLOE_ASSIGN_OR_RAISE(std::unique_ptr<iceberg::TableScan> scan,
                           iceberg::TableScan::Make(st.table.metadata, st.table.io, options));
      FLOE_ASSIGN_OR_RAISE(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
      previous = std::make_shared<connector::PreviousDeletes>();
      for (const iceberg::FileScanTask& task : tasks) {
        std::vector<iceberg::DataFilePtr> deletes;
        for (const iceberg::DataFilePtr& file : task.delete_files) {
          if (file->content == iceberg::FileContent::kPositionDeletes) deletes.push_back(file);
        }
        if (!deletes.empty()) (*previous)[task.data_file->file_path] = std::move(deletes);
      }
    }
    FLOE_ASSIGN_OR_RAISE(
        exec::PlanPtr write,
        connector::IcebergDeltaWriteExec::Make(
            st.target, std::move(input), st.changes.has_partition, st.changes.writes_rows,
            /*duplicate_is_error=*/st.changes.command == RowChanges::Command::kMerge,
            std::move(previous)));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr commit,
                         connector::IcebergCommitExec::Make(st.target, std::move(write)));
    planned.target = st.target;
    FLOE_ASSIGN_OR_RAISE(planned.query.physical, exec::EnforceRequirements(commit, config_));
    FLOE_ASSIGN_OR_RAISE(planned.query.stages, scheduler::PlanStages(planned.query.physical));
    return planned;
  }

  // Runs the change query of the statement on table `name` (built by `changes_of` from the
  // table's current schema) by the table's strategy, commits once, and reports
  // "<COMMAND> <rows>".
  // `target_where` is the WHERE of a statement that reads the target alone (a DELETE of
  // which may remove whole files instead).
  Result<std::unique_ptr<QueryResult>> ExecuteRowLevel(
      const std::vector<std::string>& name, std::string_view text, const ChangesOf& changes_of,
      const std::optional<TargetWhere>& target_where) {
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<RowLevelStatement> st,
                         PrepareRowLevel(name, changes_of, target_where, text));
    const RowChanges& changes = st->changes;
    const std::string tag = std::string(changes.tag()) + " ";
    // A DELETE whose filter covers whole data files removes them without reading them.
    if (target_where.has_value() && target_where->del != nullptr && st->target_filter) {
      FLOE_ASSIGN_OR_RAISE(std::optional<WholeFiles> whole, WholeFileDelete(st->target_filter));
      if (whole.has_value()) {
        if (whole->paths.empty()) return CommandResult(tag + "0");
        std::unique_ptr<iceberg::DeleteFiles> commit = iceberg::DeleteFiles::Make(st->target->ops);
        for (const std::string& path : whole->paths) commit->DeleteFile(path);
        if (st->target->serializable && st->target->base_snapshot_id) {
          commit->ValidateNoConflictingData(st->target->conflict_filter
                                                ? st->target->conflict_filter
                                                : iceberg::Expression::True(),
                                            *st->target->base_snapshot_id);
        }
        FLOE_RETURN_NOT_OK(commit->Commit().status());
        return CommandResult(tag + std::to_string(whole->rows));
      }
    }
    if (st->settings.merge_on_read) {
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanMergeOnRead(*st, text));
      FLOE_ASSIGN_OR_RAISE(int64_t rows, RunWrite(std::move(planned)));
      return CommandResult(tag + std::to_string(rows));
    }
    // Copy-on-write: which data files hold changed rows, and how many rows change.
    FLOE_ASSIGN_OR_RAISE(
        plan::LogicalPlanPtr counting,
        plan::BindQuery(*ChangedFilesQuery(changes), text, st->resolver, MakeBindOptions()));
    FLOE_ASSIGN_OR_RAISE(ChangedFiles changed, FindChangedFiles(counting));
    if (changed.duplicates && changes.command == RowChanges::Command::kMerge) {
      return Status::Invalid(
          "MERGE command cannot affect row a second time (HINT: Ensure that not more than one "
          "source row matches any one target row.)");
    }
    if (changed.files->empty() && changed.inserted == 0) return CommandResult(tag + "0");
    st->target->rewritten_files.assign(changed.files->begin(), changed.files->end());
    // UPDATE ... FROM that joined a row to several: one of them updates it.
    FLOE_ASSIGN_OR_RAISE(
        plan::LogicalPlanPtr bound,
        BindChanges(*st, changed.duplicates ? *DistinctChanges(changes) : *changes.query, text));
    FLOE_ASSIGN_OR_RAISE(
        auto rewritten_table,
        connector::IcebergTable::Make(st->id.ToString(), st->table, {}, changed.files));
    std::vector<int> projection;
    for (int c = 0; c < st->schema->num_fields(); ++c) projection.push_back(c);
    std::vector<const char*> metadata_columns = {"_file", "_pos"};
    if (changes.row_lineage) {
      metadata_columns.push_back("_row_id");
      metadata_columns.push_back("_last_updated_sequence_number");
    }
    for (const char* column : metadata_columns) {
      const SchemaPtr& columns = rewritten_table->schema();
      int found = -1;
      for (int c = columns->num_fields() - rewritten_table->hidden_columns();
           c < columns->num_fields(); ++c) {
        if (columns->field(c).name() == column) found = c;
      }
      if (found < 0) {
        return Status::NotSupported(
            "table {} has a column named {}, which hides the metadata column copy-on-write "
            "needs",
            st->id.ToString(), column);
      }
      projection.push_back(found);
    }
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr rows,
                         CopyOnWriteRows(plan::MakeScan(rewritten_table, std::move(projection)),
                                         std::move(bound), changes.op_column(), *st->schema,
                                         changes.writes_rows, changes.row_lineage));
    PlannedWrite planned;
    FLOE_ASSIGN_OR_RAISE(planned.query.logical, plan::Optimize(rows));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr input,
                         exec::CreatePhysicalPlan(planned.query.logical, config_));
    planned.target = st->target;
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr write,
                         connector::PlanIcebergWrite(st->target, std::move(input)));
    FLOE_ASSIGN_OR_RAISE(planned.query.physical, exec::EnforceRequirements(write, config_));
    FLOE_ASSIGN_OR_RAISE(planned.query.stages, scheduler::PlanStages(planned.query.physical));
    FLOE_RETURN_NOT_OK(RunWrite(std::move(planned)).status());
    return CommandResult(tag + std::to_string(changed.changed + changed.inserted));
  }

  // What copy-on-write's first query found.
  struct ChangedFiles {
    std::shared_ptr<std::set<std::string>> files = std::make_shared<std::set<std::string>>();
    int64_t changed = 0;      // distinct target rows deleted or updated
    int64_t inserted = 0;     // rows MERGE inserts
    bool duplicates = false;  // a target row named by more than one change
  };

  // Runs copy-on-write's first query (ChangedFilesQuery, bound) and reads its rows.
  Result<ChangedFiles> FindChangedFiles(const plan::LogicalPlanPtr& bound) {
    FLOE_ASSIGN_OR_RAISE(auto running, RunLogical(bound));
    ChangedFiles changed;
    FLOE_RETURN_NOT_OK(Drain(*running, [&](const RecordBatch& batch) {
      const Array& file = *batch.column(0);
      const Array& rows = *batch.column(1);
      const Array& positions = *batch.column(2);
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        if (file.IsNull(r)) {
          changed.inserted += rows.Value<int64_t>(r);
          continue;
        }
        changed.files->insert(std::string(file.BytesValue(r)));
        changed.changed += positions.Value<int64_t>(r);
        if (rows.Value<int64_t>(r) != positions.Value<int64_t>(r)) changed.duplicates = true;
      }
    }));
    return changed;
  }

  // The rows of `table` at snapshot `snapshot_id`: count(*) run as a query (answered from
  // the manifests when no delete file makes their counts estimates).
  Result<int64_t> CountRows(std::string name, iceberg::Table table, int64_t snapshot_id) {
    iceberg::SnapshotSelector selector;
    selector.snapshot_id = snapshot_id;
    FLOE_ASSIGN_OR_RAISE(
        std::shared_ptr<connector::IcebergTable> source,
        connector::IcebergTable::Make(std::move(name), std::move(table), selector));
    plan::AggregateCall count;
    FLOE_ASSIGN_OR_RAISE(count.function, expr::ResolveAggregate("count_star", {}, false));
    plan::LogicalPlanPtr bound = plan::MakeAggregate(plan::MakeScan(std::move(source), {}), {}, {},
                                                     {std::move(count)}, {"count"});
    FLOE_ASSIGN_OR_RAISE(auto running, RunLogical(bound));
    return SumCounts(*running);
  }

  // Optimizes, plans and starts a bound query (whose rows the session reads itself).
  Result<std::unique_ptr<RunningQuery>> RunLogical(const plan::LogicalPlanPtr& bound) {
    FLOE_ASSIGN_OR_RAISE(plan::LogicalPlanPtr logical, plan::Optimize(bound));
    FLOE_ASSIGN_OR_RAISE(exec::PlanPtr physical, exec::CreatePhysicalPlan(logical, config_));
    FLOE_ASSIGN_OR_RAISE(physical, exec::EnforceRequirements(physical, config_));
    FLOE_ASSIGN_OR_RAISE(scheduler::StagePlan stages, scheduler::PlanStages(physical));
    return Run(std::move(stages), false);
  }

  // Hands every batch of a running query to `consume`, then waits for every task; the first
  // error, if any.
  static Status Drain(RunningQuery& running,
                      const std::function<void(const RecordBatch&)>& consume) {
    Status status;
    while (true) {
      Result<RecordBatchPtr> batch = running.scheduler->Next();
      if (!batch.ok()) {
        status = batch.status();
        break;
      }
      if (!*batch) break;
      consume(**batch);
    }
    running.scheduler->Wait();
    return status;
  }

  // Pulls every batch of a query whose first column holds counts (a write's rows per task,
  // count(*)) and sums them, then waits for every task; the first error, if any.
  static Result<int64_t> SumCounts(RunningQuery& running) {
    int64_t rows = 0;
    FLOE_RETURN_NOT_OK(Drain(running, [&](const RecordBatch& batch) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) rows += batch.column(0)->Value<int64_t>(r);
    }));
    return rows;
  }

  // -------------------------------------------------------------------------------------
  // COPY (copy_statement.h)

  Result<std::unique_ptr<QueryResult>> ExecuteCopy(const sql::CopyStatement& copy,
                                                   std::string_view text) {
    if (copy.file.empty()) {
      return Status::NotSupported(
          copy.from ? "COPY FROM STDIN is not supported (name a file, or read it with read_csv)"
                    : "COPY TO STDOUT is not supported (name a file; floe sql --format csv "
                      "prints a query's rows)");
    }
    FLOE_ASSIGN_OR_RAISE(CopyOptions options, ParseCopyOptions(copy));
    std::shared_ptr<const io::FileIO> io;
    if (io::IsS3Path(copy.file)) {
      FLOE_ASSIGN_OR_RAISE(io, FilesIO());
    }
    if (copy.from) {
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanCopyFrom(copy, options, io));
      FLOE_ASSIGN_OR_RAISE(int64_t rows, RunWrite(std::move(planned)));
      return CommandResult("COPY " + std::to_string(rows));
    }
    return ExecuteCopyTo(copy, text, options, io.get());
  }

  // COPY t FROM 'file' is INSERT INTO t SELECT * FROM <the file, read as the columns of t>.
  Result<PlannedWrite> PlanCopyFrom(const sql::CopyStatement& copy, const CopyOptions& options,
                                    std::shared_ptr<const io::FileIO> io) {
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/false));
    if (catalog == nullptr) {
      std::string joined;
      for (const std::string& part : copy.table) joined += (joined.empty() ? "" : ".") + part;
      return Status::NotFound("table \"{}\" does not exist", joined);
    }
    CatalogNames names(catalog, config_.search_path(), TempNamespace());
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(copy.table));
    FLOE_ASSIGN_OR_RAISE(
        connector::IcebergWriteTargetPtr target,
        LoadWriteTarget(*catalog, id, connector::IcebergWriteTarget::Mode::kAppend));
    const iceberg::Schema& schema = *target->table.metadata->CurrentSchema();
    // The file's columns are the target columns, typed as they are: values convert once, and
    // a bad one names its line and column.
    const std::map<std::string, std::string>& properties = target->table.metadata->properties;
    std::vector<Field> columns;
    if (copy.columns.empty()) {
      const SchemaPtr declared = connector::ApplyDeclaredTypes(schema.columns(), properties);
      for (const Field& field : declared->fields()) {
        columns.emplace_back(field.name(), field.type(), true);
      }
    } else {
      const std::vector<TypePtr> types =
          connector::InsertTargetTypes(schema, properties, copy.columns);
      for (size_t i = 0; i < copy.columns.size(); ++i) {
        // An unknown column is ConformInsertInput's error.
        columns.emplace_back(copy.columns[i], types[i] ? types[i] : String(), true);
      }
    }
    FLOE_ASSIGN_OR_RAISE(plan::TableSourcePtr source,
                         CopySource(copy.file, options, columns, std::move(io)));
    std::vector<int> projection;
    if (options.format == CopyFormat::kParquet) {
      // A Parquet file names its columns: the target columns are read by name.
      FLOE_ASSIGN_OR_RAISE(projection, CopyColumnsByName(*source->schema(), columns, copy.file));
    } else {
      for (int c = 0; c < source->schema()->num_fields(); ++c) projection.push_back(c);
    }
    return PlanWriteOf(std::move(target), plan::MakeScan(source, std::move(projection)),
                       copy.columns);
  }

  // COPY (query) TO 'file' / COPY t [(columns)] TO 'file': the query's rows, written as they
  // are pulled from the final stage.
  Result<std::unique_ptr<QueryResult>> ExecuteCopyTo(const sql::CopyStatement& copy,
                                                     std::string_view text,
                                                     const CopyOptions& options,
                                                     const io::FileIO* io) {
    sql::SelectStmtPtr query = copy.query;
    std::string query_text;
    if (!query) {
      auto quote = [](const std::string& name) {
        std::string out = "\"";
        for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        return out + "\"";
      };
      std::string table;
      for (const std::string& part : copy.table) table += (table.empty() ? "" : ".") + quote(part);
      std::string columns;
      for (const std::string& c : copy.columns) columns += (columns.empty() ? "" : ", ") + quote(c);
      query_text = fmt::format("SELECT {} FROM {}", columns.empty() ? "*" : columns, table);
      FLOE_ASSIGN_OR_RAISE(std::vector<sql::Statement> parsed,
                           sql::Parse(query_text, ParseOptions()));
      query = std::get<sql::SelectStatement>(parsed.at(0).body).query;
    }
    FLOE_ASSIGN_OR_RAISE(PlannedQuery planned,
                         PlanSelect(*query, query_text.empty() ? text : query_text));
    FLOE_ASSIGN_OR_RAISE(
        std::unique_ptr<CopyFileWriter> writer,
        CopyFileWriter::Open(copy.file, options, planned.logical->schema, io,
                             static_cast<int>(config_.GetInt("extra_float_digits"))));
    FLOE_ASSIGN_OR_RAISE(auto running, Run(std::move(planned.stages), false));
    int64_t rows = 0;
    Status status;
    while (status.ok()) {
      Result<RecordBatchPtr> batch = running->scheduler->Next();
      if (!batch.ok()) {
        status = batch.status();
        break;
      }
      if (!*batch) break;
      rows += (*batch)->num_rows();
      status = writer->Write(**batch);
    }
    if (!status.ok()) {
      running->scheduler->Cancel();
      running->scheduler->Wait();
      return status.WithPrefix(fmt::format("COPY TO '{}': ", copy.file));
    }
    running->scheduler->Wait();
    FLOE_RETURN_NOT_OK(writer->Close().WithPrefix(fmt::format("COPY TO '{}': ", copy.file)));
    return CommandResult("COPY " + std::to_string(rows));
  }

  static bool IsWriteProcedure(const sql::CallStatement& call) {
    const std::vector<std::string>& names = call.call->names;
    return !names.empty() && (names.back() == "overwrite" || names.back() == "replace_partitions");
  }

  // CALL overwrite(table, query) replaces every row of the table with the query's rows;
  // CALL replace_partitions(table, query) replaces the partitions the query's rows fall
  // in. Both commit one snapshot (PostgreSQL has no INSERT OVERWRITE).
  Result<std::unique_ptr<QueryResult>> ExecuteWriteProcedure(const sql::CallStatement& call,
                                                             std::string_view text) {
    const std::string procedure = call.call->names.back();
    FLOE_ASSIGN_OR_RAISE(auto args, ProcedureArguments(*call.call, text, {"table", "query"}, 2));
    for (const char* name : {"table", "query"}) {
      if (args.at(name).type()->id() != TypeId::kString) {
        return Status::Invalid("{}: argument \"{}\" must be text", procedure, name);
      }
    }
    const std::string table = args.at("table").get<std::string>();
    const std::string query_text = args.at("query").get<std::string>();
    FLOE_ASSIGN_OR_RAISE(std::vector<sql::Statement> statements,
                         sql::Parse(query_text, ParseOptions()));
    if (statements.size() != 1 ||
        !std::holds_alternative<sql::SelectStatement>(statements[0].body)) {
      return Status::Invalid("{}: argument \"query\" must be one SELECT or VALUES statement",
                             procedure);
    }
    const sql::SelectStmt& query = *std::get<sql::SelectStatement>(statements[0].body).query;
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/false));
    if (catalog == nullptr) return Status::NotFound("table \"{}\" does not exist", table);
    Result<std::vector<std::string>> split = SplitTableName(table);
    if (!split.ok()) return split.status().WithPrefix(procedure + ": ");
    const std::vector<std::string> parts = std::move(*split);
    CatalogNames names(catalog, config_.search_path(), TempNamespace());
    FLOE_ASSIGN_OR_RAISE(catalog::TableIdentifier id, names.Existing(parts));
    const connector::IcebergWriteTarget::Mode mode =
        procedure == "overwrite" ? connector::IcebergWriteTarget::Mode::kOverwrite
                                 : connector::IcebergWriteTarget::Mode::kReplacePartitions;
    FLOE_ASSIGN_OR_RAISE(PlannedWrite planned,
                         PlanWrite(*catalog, id, query, statements[0].text, {}, mode));
    FLOE_ASSIGN_OR_RAISE(int64_t rows, RunWrite(std::move(planned)));
    return TextResult({"rows_written"}, {{std::to_string(rows)}}, "CALL");
  }

  Result<std::unique_ptr<QueryResult>> ExecuteCreateTableAs(const sql::CreateTableStatement& s,
                                                            std::string_view text) {
    if (!s.columns.empty()) {
      return Status::NotSupported("CREATE TABLE AS with a column list is not supported yet");
    }
    // The query binds first: a bad query creates nothing.
    FLOE_ASSIGN_OR_RAISE(PlannedQuery probe, PlanSelect(*s.as_query, text));
    std::vector<Field> columns;
    for (const Field& field : probe.logical->schema->fields()) {
      columns.emplace_back(field.name(), field.type(), true);
    }
    FLOE_ASSIGN_OR_RAISE(catalog::Catalog * catalog, Catalog(/*create=*/true));
    if (s.temporary) temp_used_ = true;
    CatalogNames names(catalog, config_.search_path(), TempNamespace());
    FLOE_ASSIGN_OR_RAISE(std::optional<catalog::TableIdentifier> id,
                         CreateTableWithColumns(*catalog, names, s.table, std::move(columns),
                                                s.options, s.if_not_exists, s.temporary));
    if (!id) return CommandResult("CREATE TABLE AS");
    Result<int64_t> rows = [&]() -> Result<int64_t> {
      FLOE_ASSIGN_OR_RAISE(PlannedWrite planned, PlanWrite(*catalog, *id, *s.as_query, text, {}));
      return RunWrite(std::move(planned));
    }();
    if (!rows.ok()) {
      // CREATE TABLE AS is one statement: the table goes away with the rows.
      (void)catalog->DropTable(*id, /*purge=*/true);
      return rows.status();
    }
    return CommandResult("SELECT " + std::to_string(*rows));
  }

  Result<std::unique_ptr<RunningQuery>> Run(scheduler::StagePlan stages, bool collect_metrics) {
    auto running = std::make_unique<RunningQuery>();
    FLOE_ASSIGN_OR_RAISE(
        running->spill,
        exec::SpillDirectory::Make(config_.spill_directory(), std::to_string(NextQueryNumber())));
    const std::string& dir = running->spill->path();
    auto memory = std::make_shared<exec::MemoryManager>(config_.memory_limit());
    std::shared_ptr<exec::ExchangeService> exchange;
    std::shared_ptr<scheduler::TaskRunner> runner;
    if (options_.cluster) {
      FLOE_ASSIGN_OR_RAISE(scheduler::QueryCluster::Query query,
                           options_.cluster->Begin(stages, config_, memory, dir, collect_metrics));
      exchange = std::move(query.exchange);
      runner = std::move(query.runner);
    } else {
      exchange = scheduler::MakeLocalExchange(memory, dir);
    }
    running->ctx =
        std::make_shared<exec::TaskContext>(config_, memory, threads_.get(), dir, exchange);
    running->ctx->set_collect_metrics(collect_metrics);
    if (runner) {
      running->ctx->set_seal_remote_writes([weak = std::weak_ptr<scheduler::TaskRunner>(runner)]() {
        std::shared_ptr<scheduler::TaskRunner> r = weak.lock();
        return r ? r->SealWrites() : Status::Cancelled("the query has ended");
      });
    }
    if (config_.codec_roundtrip()) {
      // Every stage runs as another process would rebuild it from its bytes.
      FLOE_ASSIGN_OR_RAISE(stages, stages.Rewrite([](const exec::PlanPtr& plan) {
        return exec::RoundTripPlan(plan, EnginePlanCodecs());
      }));
    }
    FLOE_ASSIGN_OR_RAISE(running->scheduler,
                         scheduler::QueryScheduler::Start(std::move(stages), running->ctx, runner));
    return running;
  }

  Result<std::unique_ptr<QueryResult>> ExecuteSet(const sql::SetStatement& set) {
    if (set.reset) {
      if (set.name == "all") {
        for (const exec::SettingInfo& info : exec::SessionConfig::Registered()) {
          FLOE_RETURN_NOT_OK(config_.Reset(info.name));
        }
      } else {
        FLOE_RETURN_NOT_OK(config_.Reset(set.name));
      }
      return CommandResult(set.set_default ? "SET" : "RESET");
    }
    std::string value;
    for (size_t i = 0; i < set.values.size(); ++i) {
      if (i > 0) value += ", ";
      value += set.values[i];
    }
    FLOE_RETURN_NOT_OK(config_.Set(set.name, value));
    return CommandResult("SET");
  }

  Result<std::unique_ptr<QueryResult>> ExecuteShow(const sql::ShowStatement& show) {
    if (show.name == "all") {
      std::vector<std::vector<std::string>> rows;
      for (const auto& [name, value] : config_.values()) rows.push_back({name, value});
      return TextResult({"name", "setting"}, rows, "SHOW");
    }
    FLOE_ASSIGN_OR_RAISE(std::string value, config_.Get(show.name));
    return TextResult({show.name}, {{value}}, "SHOW");
  }

  Result<std::unique_ptr<QueryResult>> ExecuteExplain(const sql::ExplainStatement& explain) {
    const sql::StatementBody& body = explain.statement.body;
    const auto* select = std::get_if<sql::SelectStatement>(&body);
    const auto* insert = std::get_if<sql::InsertStatement>(&body);
    if (select == nullptr && insert == nullptr) {
      return Status::NotSupported("EXPLAIN of {} is not supported yet", StatementName(body));
    }
    PlannedWrite write;
    PlannedQuery planned;
    // S3 requests from here on are the statement's (planning reads manifests).
    const io::S3RequestCounts s3_before = io::ProcessS3RequestCounts();
    if (select != nullptr) {
      FLOE_ASSIGN_OR_RAISE(planned, PlanSelect(*select->query, explain.statement.text));
    } else {
      FLOE_ASSIGN_OR_RAISE(write, PlanInsert(*insert, explain.statement.text));
      planned = write.query;
    }
    std::string text;
    if (!explain.analyze) {
      text += "Logical plan:\n" + Indent(planned.logical->ToString(), "  ");
      text += "Physical plan:\n" + Indent(exec::PlanToString(*planned.physical), "  ");
      text += "Stages:\n" + Indent(planned.stages.ToString(), "  ");
      return TextResult({"plan"}, Lines(text), "EXPLAIN");
    }
    std::unique_ptr<RunningQuery> running;
    int64_t rows = 0;
    const auto start = std::chrono::steady_clock::now();
    if (insert != nullptr) {
      // EXPLAIN ANALYZE runs the statement, as PostgreSQL does: the INSERT commits.
      FLOE_ASSIGN_OR_RAISE(rows, RunWrite(std::move(write), true, &running));
    } else {
      FLOE_ASSIGN_OR_RAISE(running, Run(std::move(planned.stages), true));
      while (true) {
        FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, running->scheduler->Next());
        if (!batch) break;
        rows += batch->num_rows();
      }
      running->scheduler->Wait();
    }
    const double millis =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    FLOE_ASSIGN_OR_RAISE(const exec::QueryMetrics* metrics, running->scheduler->CollectMetrics());
    const io::S3RequestCounts s3 = io::ProcessS3RequestCounts() - s3_before;
    running->ctx->metrics()->SetS3Requests(0, s3);
    text += "Physical plan (analyzed):\n";
    text += Indent(ExplainAnalyzeStages(running->scheduler->stages(), *metrics), "  ");
    text += fmt::format("Rows: {}, time: {:.3f} ms, peak memory: {} bytes\n", rows, millis,
                        running->ctx->memory()->peak());
    // One process: its S3 requests here (under MPI, each rank's line has its own).
    if (metrics->ranks() == 1 && s3.requests() > 0) text += "S3: " + s3.ToString() + "\n";
    return TextResult({"plan"}, Lines(text), "EXPLAIN");
  }

  SessionOptions options_;
  std::mutex catalog_mutex_;
  catalog::CatalogPtr catalog_;
  std::shared_ptr<const io::FileIO> files_io_;
  std::unique_ptr<ThreadPool> threads_;
  exec::SessionConfig config_;
  UserTypeRegistry user_types_;
  std::string temp_namespace_;
  // Set before the first temporary table is made, so that a failed CREATE still leaves its
  // namespace to the cleanup at the end.
  bool temp_used_ = false;
};

}  // namespace

Result<std::unique_ptr<Session>> Session::Make(SessionOptions options) {
  const int threads = options.threads > 0 ? options.threads : ThreadPool::DefaultThreads();
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<ThreadPool> pool, ThreadPool::Make(threads));
  const int partitions = options.cluster != nullptr ? options.cluster->slots() : threads;
  auto session = std::make_unique<SessionImpl>(std::move(options), std::move(pool));
  FLOE_RETURN_NOT_OK(session->mutable_config().SetDefault("target_partitions",
                                                          std::to_string(std::max(1, partitions))));
  return std::unique_ptr<Session>(std::move(session));
}

}  // namespace floe::session
