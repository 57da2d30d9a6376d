// CREATE and DROP (schema and table) through session::Session never block or deadlock on floe's
// own thread pools: with a session pool of 1, 2 and 4 threads, on the embedded SQLite catalog,
// the SQL catalog on PostgreSQL and a Hadoop catalog, from the main thread, from several threads at
// once, while a query of the same session holds the pool, and from inside tasks of the process-wide
// pool. Every body runs under a time limit, so a deadlock fails the test instead of hanging it.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/catalog/catalog.h"
#include "floe/common/thread_pool.h"
#include "floe/session/session.h"
#include "floe/testing/matchers.h"
#include "floe/testing/postgres_server.h"
#include "floe/testing/scratch_dir.h"

namespace floe::session {
namespace {

using namespace std::chrono_literals;

// Generous: the statements take milliseconds; the machine may be busy with other builds.
constexpr auto kTimeLimit = 120s;

// Runs `body` on another thread and waits at most kTimeLimit. A body that does not finish is
// a deadlock: the test binary reports it and exits (a thread that is stuck cannot be joined,
// and waiting for it would hang the test run).
void RunWithTimeLimit(const std::string& what, std::function<void()> body) {
  auto future = std::async(std::launch::async, std::move(body));
  if (future.wait_for(kTimeLimit) != std::future_status::ready) {
    std::cerr << "DEADLOCK: " << what << " did not finish within "
              << std::chrono::duration_cast<std::chrono::seconds>(kTimeLimit).count() << " s"
              << std::endl;
    ADD_FAILURE() << what << " did not finish (deadlock)";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  future.get();
}

// Runs one statement to its end; returns its command tag.
Result<std::string> Run(session::Session& session, const std::string& sql) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session.Execute(sql));
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
  }
  return result->command_tag();
}

// One value of a one-row, one-column query, as text.
Result<std::string> Scalar(session::Session& session, const std::string& sql) {
  FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::QueryResult> result, session.Execute(sql));
  std::string value;
  int64_t rows = 0;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (rows++ == 0) value = FormatValue(*batch->column(0), r);
    }
  }
  if (rows != 1) return Status::Internal("{} returned {} rows, expected 1", sql, rows);
  return value;
}

// The DDL round trip of one name: schema, two tables (one with rows), drops (one with
// PURGE), and checks that each step is visible.
void CreateAndDrop(session::Session& session, const std::string& name) {
  const std::string schema = "s_" + name;
  Result<std::string> created = Run(session, "CREATE SCHEMA " + schema);
  ASSERT_OK(created) << schema;
  ASSERT_EQ(*created, "CREATE SCHEMA");
  ASSERT_OK(Run(session, fmt::format("CREATE TABLE {}.t (id int NOT NULL, name text)", schema)));
  ASSERT_OK(Run(session, fmt::format("CREATE TABLE {}.u (x bigint)", schema)));
  // Rows, so that the PURGE below has files to find (on the process-wide pool) and delete.
  ASSERT_OK(Run(session, fmt::format("INSERT INTO {}.u VALUES (1), (2), (3)", schema)));
  ASSERT_OK_AND_ASSIGN(std::string sum,
                       Scalar(session, fmt::format("SELECT sum(x) FROM {}.u", schema)));
  EXPECT_EQ(sum, "6");
  ASSERT_OK_AND_ASSIGN(std::string count,
                       Scalar(session, fmt::format("SELECT count(*) FROM {}.t", schema)));
  EXPECT_EQ(count, "0");
  ASSERT_THAT(Run(session, fmt::format("DROP TABLE {}.t", schema)),
              ::testing::Optional(std::string("DROP TABLE")));
  ASSERT_OK(Run(session, fmt::format("DROP TABLE {}.u PURGE", schema)));
  EXPECT_THAT(Run(session, fmt::format("SELECT * FROM {}.t", schema)),
              ::floe::testing::IsErrorWith(StatusCode::kNotFound,
                                           fmt::format("table \"{}.t\" does not exist", schema)));
  ASSERT_THAT(Run(session, "DROP SCHEMA " + schema),
              ::testing::Optional(std::string("DROP SCHEMA")));
}

enum class CatalogKind { kEmbedded, kPostgres, kHadoop };

std::string KindName(CatalogKind kind) {
  switch (kind) {
    case CatalogKind::kEmbedded:
      return "sqlite";
    case CatalogKind::kPostgres:
      return "postgres";
    case CatalogKind::kHadoop:
      return "hadoop";
  }
  return "?";
}

class CatalogPoolTest : public ::floe::testing::ScratchDirTest,
                        public ::testing::WithParamInterface<std::tuple<int, CatalogKind>> {
 protected:
  CatalogPoolTest() : ScratchDirTest("floe_catalog_pool") {}

  void SetUp() override {
    ScratchDirTest::SetUp();
    ASSERT_OK_AND_ASSIGN(session_, MakeSession());
  }
  void TearDown() override {
    session_.reset();
    ScratchDirTest::TearDown();
  }

  int threads() const { return std::get<0>(GetParam()); }

  Result<std::unique_ptr<session::Session>> MakeSession() {
    session::SessionOptions options;
    options.threads = threads();
    options.warehouse = dir_ + "/warehouse";
    if (std::get<1>(GetParam()) == CatalogKind::kHadoop) {
      FLOE_ASSIGN_OR_RAISE(options.catalog, catalog::OpenCatalog("hadoop:" + dir_ + "/files"));
    } else if (std::get<1>(GetParam()) == CatalogKind::kPostgres) {
      // One schema of the shared server per test; every session of the test opens it.
      if (!postgres_) {
        FLOE_ASSIGN_OR_RAISE(postgres_, ::floe::testing::PostgresSchema::Make());
      }
      FLOE_ASSIGN_OR_RAISE(options.catalog,
                           catalog::OpenCatalog(postgres_->uri(), dir_ + "/warehouse"));
    }
    FLOE_ASSIGN_OR_RAISE(std::unique_ptr<session::Session> session,
                         session::Session::Make(options));
    // A spill directory of its own per session, inside the scratch directory: sessions name
    // their queries' spill directories by a counter of their own, so the first queries of
    // two sessions of one process would share (and race to create and remove) one directory.
    FLOE_RETURN_NOT_OK(session->mutable_config().Set(
        "spill_directory", fmt::format("{}/spill{}", dir_, sessions_made_++)));
    return session;
  }

  std::unique_ptr<::floe::testing::PostgresSchema> postgres_;  // declared first: outlives them
  std::unique_ptr<session::Session> session_;
  int sessions_made_ = 0;
};

INSTANTIATE_TEST_SUITE_P(Pools, CatalogPoolTest,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Values(CatalogKind::kEmbedded,
                                                              CatalogKind::kPostgres,
                                                              CatalogKind::kHadoop)),
                         [](const auto& info) {
                           return fmt::format("{}_threads_{}", std::get<0>(info.param),
                                              KindName(std::get<1>(info.param)));
                         });

TEST_P(CatalogPoolTest, FromTheMainThread) {
  RunWithTimeLimit("DDL from the main thread", [&] {
    for (int round = 0; round < 3; ++round) CreateAndDrop(*session_, "main");
  });
}

TEST_P(CatalogPoolTest, FromSeveralThreadsAtOnce) {
  constexpr int kThreads = 6;
  RunWithTimeLimit("DDL from several threads", [&] {
    std::vector<std::thread> workers;
    for (int i = 0; i < kThreads; ++i) {
      workers.emplace_back([&, i] {
        for (int round = 0; round < 3; ++round) CreateAndDrop(*session_, fmt::format("w{}", i));
      });
    }
    for (auto& worker : workers) worker.join();
  });
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<session::QueryResult> schemas,
                       session_->Execute("SHOW SCHEMAS"));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, schemas->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      EXPECT_THAT(FormatValue(*batch->column(0), r), ::testing::Not(::testing::StartsWith("s_w")));
      ++rows;
    }
  }
}

TEST_P(CatalogPoolTest, FromSeveralSessionsOnOneCatalogAtOnce) {
  constexpr int kSessions = 4;
  // The catalog file exists before the sessions race: connections that open a new SQLite
  // catalog file at the same moment can fail to switch it to WAL ("database is locked").
  ASSERT_OK(::floe::session::Run(*session_, "SHOW SCHEMAS"));
  std::vector<std::unique_ptr<session::Session>> sessions;
  for (int i = 0; i < kSessions; ++i) {
    ASSERT_OK_AND_ASSIGN(auto session, MakeSession());
    sessions.push_back(std::move(session));
  }
  RunWithTimeLimit("DDL from several sessions", [&] {
    std::vector<std::thread> workers;
    for (int i = 0; i < kSessions; ++i) {
      workers.emplace_back([&, i] { CreateAndDrop(*sessions[i], fmt::format("session{}", i)); });
    }
    for (auto& worker : workers) worker.join();
  });
}

// A streaming query that nobody drains holds the session's pool (its tasks wait for their
// consumer); a long aggregate keeps the pool busy. DDL goes on meanwhile, and the queries'
// results are still right.
TEST_P(CatalogPoolTest, WhileQueriesOfTheSessionHoldThePool) {
  RunWithTimeLimit("DDL while queries run", [&] {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<session::QueryResult> stalled,
                         session_->Execute("SELECT x FROM generate_series(1, 20000000) g(x)"));
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, stalled->Next());
    ASSERT_NE(first, nullptr);
    std::atomic<bool> aggregate_ok{false};
    std::thread aggregate([&] {
      auto sum = Scalar(*session_, "SELECT sum(x) FROM generate_series(1, 3000000) g(x)");
      ASSERT_OK(sum);
      EXPECT_EQ(*sum, "4500001500000");
      aggregate_ok = true;
    });
    CreateAndDrop(*session_, "during");
    std::vector<std::thread> workers;
    for (int i = 0; i < 3; ++i) {
      workers.emplace_back([&, i] { CreateAndDrop(*session_, fmt::format("during{}", i)); });
    }
    for (auto& worker : workers) worker.join();
    aggregate.join();
    EXPECT_TRUE(aggregate_ok.load());
    stalled->Cancel();
  });
}

// DDL issued from inside tasks of the process-wide pool (more tasks than it has threads, so
// every worker is busy with DDL): a DROP ... PURGE fans out on that same pool.
TEST_P(CatalogPoolTest, FromInsideTasksOfTheProcessPool) {
  const int tasks = DefaultThreadPool()->size() + 2;
  RunWithTimeLimit("DDL inside process-pool tasks", [&] {
    std::vector<std::future<void>> futures;
    for (int i = 0; i < tasks; ++i) {
      futures.push_back(DefaultThreadPool()->Submit(
          [&, i] { CreateAndDrop(*session_, fmt::format("task{}", i)); }));
    }
    for (auto& future : futures) future.get();
  });
}

}  // namespace
}  // namespace floe::session
