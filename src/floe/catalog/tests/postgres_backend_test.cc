// The PostgreSQL backend on its own: URIs in libpq's, SQLAlchemy's and the JDBC driver's
// forms (without a server), `?` placeholders, then on the test executable's server:
// parameters and NULLs, changed-row counts, errors naming the database and the purpose,
// transactions, the write lock and its timeout, passwords (right, wrong, from PGPASSWORD
// and from a password file) never shown, and connections lost before, during and after a
// commit (through a proxy that cuts them): a write is repeated only when it certainly did
// not commit, and kCommitStateUnknown when no connection can tell.

#include "floe/catalog/postgres_backend.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/postgres_backend_internal.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/catalog/tests/tcp_proxy.h"
#include "floe/testing/matchers.h"
#include "floe/testing/postgres_server.h"
#include "floe/testing/scoped_env.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::TcpProxy;
using ::floe::catalog::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::PostgresSchema;
using ::floe::testing::PostgresServer;
using ::floe::testing::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::Not;
using Rows = std::vector<std::vector<std::string>>;
using Params = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------
// URIs and placeholders (no server)
// ---------------------------------------------------------------------------------------

TEST(PostgresUriTest, TellsPostgresUrisFromOthers) {
  for (const char* uri :
       {"postgresql://h/db", "postgres://h/db", "POSTGRESQL://h/db", "postgresql+psycopg2://h/db",
        "postgresql+pg8000://u@h/db", "jdbc:postgresql://h/db", "jdbc:postgresql:db",
        "postgresql:///db?host=/run/postgresql"}) {
    EXPECT_TRUE(IsPostgresUri(uri)) << uri;
  }
  for (const char* uri : {"sqlite:///x.db", "jdbc:sqlite:x.db", "postgresql:db", "postgresqlx://h",
                          "postgresql+://h", "hadoop:/w", "mysql://h/db", ""}) {
    EXPECT_FALSE(IsPostgresUri(uri)) << uri;
  }
}

TEST(PostgresUriTest, LibpqAndSqlalchemyForms) {
  ASSERT_OK_AND_ASSIGN(
      PostgresConnection c,
      ParsePostgresUri("postgresql://ana:p%40ss@db.example.com:6543/lake?sslmode=verify-full&"
                       "sslrootcert=/etc/ca.pem&connect_timeout=3"));
  // In libpq's order of its keywords.
  EXPECT_EQ(c.params, (Params{{"user", "ana"},
                              {"password", "p@ss"},
                              {"connect_timeout", "3"},
                              {"dbname", "lake"},
                              {"host", "db.example.com"},
                              {"port", "6543"},
                              {"sslmode", "verify-full"},
                              {"sslrootcert", "/etc/ca.pem"}}));
  EXPECT_EQ(c.Get("password"), "p@ss");
  EXPECT_EQ(c.Redacted(),
            "postgresql://ana@db.example.com:6543/lake?connect_timeout=3&sslmode=verify-full&"
            "sslrootcert=/etc/ca.pem");
  // pyiceberg's SQLAlchemy URI: the driver is dropped.
  ASSERT_OK_AND_ASSIGN(PostgresConnection sa,
                       ParsePostgresUri("postgresql+psycopg2://ana:pw@db.example.com/lake"));
  EXPECT_EQ(sa.Get("host"), "db.example.com");
  EXPECT_EQ(sa.Get("password"), "pw");
  EXPECT_EQ(sa.Redacted(), "postgresql://ana@db.example.com/lake");
  // A socket directory, and no password at all (libpq then asks PGPASSWORD and ~/.pgpass).
  ASSERT_OK_AND_ASSIGN(PostgresConnection socket,
                       ParsePostgresUri("postgres:///lake?host=/run/postgresql&user=ana"));
  EXPECT_EQ(socket.Get("password"), "");
  EXPECT_EQ(socket.Redacted(), "postgresql://ana@/lake?host=/run/postgresql");
  // The TLS password is a secret too.
  ASSERT_OK_AND_ASSIGN(PostgresConnection tls,
                       ParsePostgresUri("postgresql://h/lake?sslpassword=k3y-pass&sslkey=/k.pem"));
  EXPECT_EQ(tls.Redacted(), "postgresql://h/lake?sslkey=/k.pem");
}

TEST(PostgresUriTest, JdbcForm) {
  ASSERT_OK_AND_ASSIGN(
      PostgresConnection c,
      ParsePostgresUri("jdbc:postgresql://h1:5433,h2/lake?user=ana&password=p%26w+x&ssl=true&"
                       "connectTimeout=5&ApplicationName=spark&currentSchema=cat"));
  EXPECT_EQ(c.params, (Params{{"host", "h1,h2"},
                              {"port", "5433,5432"},
                              {"dbname", "lake"},
                              {"user", "ana"},
                              {"password", "p&w x"},
                              {"connect_timeout", "5"},
                              {"application_name", "spark"},
                              {"options", "-c search_path=cat"},
                              {"sslmode", "verify-full"}}));
  EXPECT_EQ(c.Redacted(),
            "postgresql://ana@h1,h2:5433,5432/lake?connect_timeout=5&application_name=spark&"
            "options=-c search_path=cat&sslmode=verify-full");
  ASSERT_OK_AND_ASSIGN(PostgresConnection explicit_mode,
                       ParsePostgresUri("jdbc:postgresql://h/db?ssl=true&sslmode=require"));
  EXPECT_EQ(explicit_mode.Get("sslmode"), "require");
  ASSERT_OK_AND_ASSIGN(PostgresConnection local, ParsePostgresUri("jdbc:postgresql:lake"));
  EXPECT_EQ(local.Redacted(), "postgresql://localhost:5432/lake");
  ASSERT_OK_AND_ASSIGN(PostgresConnection v6, ParsePostgresUri("jdbc:postgresql://[::1]:5440/x"));
  EXPECT_EQ(v6.Get("host"), "::1");
  EXPECT_EQ(v6.Get("port"), "5440");
}

TEST(PostgresUriTest, MalformedUrisNeverShowThePassword) {
  for (const char* uri :
       {"postgresql://ana:hunter2@h/db?nosuch=1", "postgresql://ana:hunter2@h/db?sslmode",
        "postgresql://ana:hunter2%zz@h/db", "postgresql://h/db?password=hunter2%zz",
        "jdbc:postgresql://ana:hunter2@h/db", "jdbc:postgresql://h/db?password=hunter2&x=%zz",
        "jdbc:postgresql://h:port/db?password=hunter2",
        "jdbc:postgresql://[::1/db?password=hunter2"}) {
    SCOPED_TRACE(uri);
    Result<PostgresConnection> parsed = ParsePostgresUri(uri);
    EXPECT_THAT(parsed, IsError(StatusCode::kInvalidArgument));
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("hunter2")));
  }
  EXPECT_THAT(ParsePostgresUri("postgresql://ana:hunter2@h/db?nosuch=1"),
              IsErrorWith(StatusCode::kInvalidArgument, "invalid URI query parameter"));
  EXPECT_THAT(ParsePostgresUri("jdbc:postgresql://ana:hunter2@h/db"),
              IsErrorWith(StatusCode::kInvalidArgument, "user and password go in its parameters"));
  EXPECT_THAT(ParsePostgresUri("sqlite:x.db"), IsError(StatusCode::kInvalidArgument));
}

TEST(PostgresUriTest, PlaceholdersOutsideLiteralsAreNumbered) {
  int count = 0;
  EXPECT_EQ(
      internal::NumberPlaceholders("SELECT a FROM t WHERE b = ? AND c LIKE ? ESCAPE '!'", &count),
      "SELECT a FROM t WHERE b = $1 AND c LIKE $2 ESCAPE '!'");
  EXPECT_EQ(count, 2);
  EXPECT_EQ(internal::NumberPlaceholders(
                "SELECT '?', 'it''s ?', E'\\'?', \"col?\", $$?$$, $tag$ ? $x$ ? $tag$, ?", &count),
            "SELECT '?', 'it''s ?', E'\\'?', \"col?\", $$?$$, $tag$ ? $x$ ? $tag$, $1");
  EXPECT_EQ(count, 1);
  EXPECT_EQ(internal::NumberPlaceholders("? -- a ? comment\n/* ? /* nested ? */ ? */ ?", &count),
            "$1 -- a ? comment\n/* ? /* nested ? */ ? */ $2");
  EXPECT_EQ(count, 2);
  // A $n parameter and an identifier with a $ are not dollar quotes.
  EXPECT_EQ(internal::NumberPlaceholders("SELECT a$b, ? FROM t", &count), "SELECT a$b, $1 FROM t");
  EXPECT_EQ(count, 1);
  // An unterminated literal runs to the end.
  EXPECT_EQ(internal::NumberPlaceholders("SELECT ?, 'open ?", &count), "SELECT $1, 'open ?");
  EXPECT_EQ(count, 1);
}

// ---------------------------------------------------------------------------------------
// On the server
// ---------------------------------------------------------------------------------------

class PostgresBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(schema_, PostgresSchema::Make());
    ASSERT_OK_AND_ASSIGN(backend_, OpenPostgresBackend(schema_->uri()));
    ASSERT_OK(backend_->Run([](SqlSession& s) {
      return s.Execute("create", "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)").status();
    }));
  }

  Rows Sql(const std::string& sql) {
    auto rows = schema_->Sql(sql);
    EXPECT_OK(rows.status());
    return rows.ok() ? *rows : Rows{};
  }

  // A backend through a proxy that can cut its connections.
  Result<SqlBackendPtr> Proxied(PostgresOptions options = {}) {
    FLOE_ASSIGN_OR_RAISE(proxy_, TcpProxy::Start(schema_->server().port()));
    std::string uri = schema_->uri();
    const std::string from = fmt::format("127.0.0.1:{}/", schema_->server().port());
    uri.replace(uri.find(from), from.size(), fmt::format("127.0.0.1:{}/", proxy_->port()));
    return OpenPostgresBackend(uri, options);
  }

  std::unique_ptr<PostgresSchema> schema_;
  SqlBackendPtr backend_;
  std::unique_ptr<TcpProxy> proxy_;
};

Status Insert(SqlSession& s, const std::string& k, const std::string& v) {
  return s.Execute("insert", "INSERT INTO kv VALUES (?, ?)", {k, v}).status();
}

TEST_F(PostgresBackendTest, ParametersNullsAndChangedRows) {
  ASSERT_OK(backend_->Run([](SqlSession& s) -> Status {
    FLOE_ASSIGN_OR_RAISE(int64_t n, s.Execute("insert", "INSERT INTO kv VALUES (?, ?), (?, ?)",
                                              {"a", "1", "b", std::nullopt}));
    EXPECT_EQ(n, 2);
    FLOE_ASSIGN_OR_RAISE(n, s.Execute("update", "UPDATE kv SET v = ? WHERE k = ?", {"x", "zz"}));
    EXPECT_EQ(n, 0);
    // Quotes, a '?' in a value and in a literal, and UTF-8 go through unchanged.
    FLOE_ASSIGN_OR_RAISE(
        n, s.Execute("insert", "INSERT INTO kv VALUES (?, ? || '?')", {"c", "it's caf\xc3\xa9 ?"}));
    EXPECT_EQ(n, 1);
    FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("select", "SELECT k, v FROM kv ORDER BY k"));
    EXPECT_EQ(rows,
              (std::vector<SqlRow>{{"a", "1"}, {"b", std::nullopt}, {"c", "it's caf\xc3\xa9 ??"}}));
    FLOE_ASSIGN_OR_RAISE(n, s.Execute("delete", "DELETE FROM kv WHERE k <> ?", {"a"}));
    EXPECT_EQ(n, 2);
    return Status::OK();
  }));
  // PostgreSQL text holds no NUL byte: refused before it is sent.
  EXPECT_THAT(backend_->Run([](SqlSession& s) { return Insert(s, "d", std::string("a\0b", 3)); }),
              IsErrorWith(StatusCode::kInvalidArgument, "a value holds a NUL byte"));
}

TEST_F(PostgresBackendTest, ErrorsNameTheDatabaseAndThePurpose) {
  const std::string target = "PostgreSQL catalog postgresql://floe@127.0.0.1:";
  EXPECT_THAT(backend_->ToString(), HasSubstr(target));
  EXPECT_THAT(backend_->ToString(), Not(HasSubstr(PostgresServer::kPassword)));
  Status status = backend_->Run([](SqlSession& s) {
    return s.Execute("insert twice", "INSERT INTO kv VALUES ('a', '1'), ('a', '2')").status();
  });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kConstraint, "insert twice failed: duplicate key"));
  EXPECT_THAT(status.message(), HasSubstr("(SQLSTATE 23505)"));
  EXPECT_THAT(status.message(), HasSubstr(backend_->ToString() + ": insert twice failed"));
  status = backend_->Run([](SqlSession& s) { return s.Query("read a typo", "SELEC 1").status(); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kIOError, "read a typo failed: syntax error"));
  EXPECT_THAT(status.message(), HasSubstr("(SQLSTATE 42601)"));
  EXPECT_THAT(status.message(), Not(HasSubstr(PostgresServer::kPassword)));
  status = backend_->Run(
      [](SqlSession& s) { return s.Query("count parameters", "SELECT ?", {}).status(); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kInternal, "1 parameters, 0 given"));
  // After errors the pooled connections still work.
  ASSERT_OK(backend_->Run([](SqlSession& s) { return Insert(s, "b", "2"); }));
  EXPECT_EQ(Sql("SELECT k FROM kv"), (Rows{{"b"}}));
}

TEST_F(PostgresBackendTest, TransactionsCommitOrRollBack) {
  ASSERT_OK(backend_->Transact("commit both", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(Insert(s, "a", "1"));
    return Insert(s, "b", "2");
  }));
  Status failed = backend_->Transact("roll back", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(Insert(s, "c", "3"));
    return Status::Invalid("changed my mind");
  });
  EXPECT_THAT(failed, IsErrorWith(StatusCode::kInvalidArgument, "changed my mind"));
  // A failed statement aborts the transaction: its error is returned, nothing is kept.
  failed = backend_->Transact("duplicate", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(Insert(s, "e", "5"));
    return Insert(s, "a", "again");
  });
  EXPECT_THAT(failed, IsErrorWith(StatusCode::kConstraint, "duplicate key"));
  // A transaction whose failed statement was ignored is not committed either.
  failed = backend_->Transact("ignore a failure", [](SqlSession& s) -> Status {
    FLOE_RETURN_NOT_OK(Insert(s, "f", "6"));
    (void)Insert(s, "a", "again");
    return Status::OK();
  });
  EXPECT_THAT(failed, IsErrorWith(StatusCode::kInternal, "rolled back at its commit"));
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}}));
  // The connections went back to the pool outside any transaction.
  ASSERT_OK(backend_->Transact("again", [](SqlSession& s) { return Insert(s, "d", "4"); }));
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}, {"d"}}));
}

TEST_F(PostgresBackendTest, WritersWaitForTheWriteLockThenGiveUp) {
  PostgresOptions impatient_options;
  impatient_options.lock_timeout = std::chrono::milliseconds(200);
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr impatient,
                       OpenPostgresBackend(schema_->uri(), impatient_options));
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr patient, OpenPostgresBackend(schema_->uri()));
  std::promise<void> holding;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread holder([&] {
    EXPECT_OK(backend_->Transact("hold the lock", [&](SqlSession& s) -> Status {
      FLOE_RETURN_NOT_OK(Insert(s, "h", "1"));
      holding.set_value();
      released.wait();
      return Status::OK();
    }));
  });
  holding.get_future().wait();
  auto start = std::chrono::steady_clock::now();
  Status status =
      impatient->Transact("take the lock", [](SqlSession& s) { return Insert(s, "x", "y"); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kIOError,
                                  "take the lock failed: waited 200 ms for the catalog's write "
                                  "lock, which another writer holds"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
  // Readers are not blocked by the writer, and do not see its uncommitted row.
  ASSERT_OK(impatient->Run([](SqlSession& s) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("read", "SELECT k FROM kv"));
    EXPECT_TRUE(rows.empty());
    return Status::OK();
  }));
  // A writer that waits long enough gets the lock once the holder commits, and then reads
  // what the holder wrote.
  std::thread waiter([&] {
    EXPECT_OK(patient->Transact("wait for the lock", [](SqlSession& s) -> Status {
      FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("read", "SELECT v FROM kv WHERE k = 'h'"));
      EXPECT_EQ(rows, (std::vector<SqlRow>{{"1"}}));
      return Insert(s, "w", "2");
    }));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  release.set_value();
  holder.join();
  waiter.join();
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"h"}, {"w"}}));
}

TEST_F(PostgresBackendTest, PasswordsFromTheUriTheEnvironmentOrAPasswordFile) {
  PostgresServer& server = schema_->server();
  TempDir dir;
  // No password anywhere: libpq's reason, clearly.
  ScopedEnv no_env("PGPASSWORD", std::nullopt);
  ScopedEnv no_file("PGPASSFILE", dir.path() + "/none");
  EXPECT_THAT(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "", false)),
              IsErrorWith(StatusCode::kIOError,
                          "cannot connect: connection to server at "
                          "\"127.0.0.1\""));
  // A wrong one: the error says so and does not show it.
  Result<SqlBackendPtr> wrong = OpenPostgresBackend(fmt::format(
      "postgresql://floe:wrong-pw-4711@127.0.0.1:{}/{}", server.port(), PostgresServer::kDatabase));
  EXPECT_THAT(
      wrong, IsErrorWith(StatusCode::kIOError, "password authentication failed for user \"floe\""));
  EXPECT_THAT(wrong.status().message(), HasSubstr("postgresql://floe@127.0.0.1:"));
  EXPECT_THAT(wrong.status().message(), Not(HasSubstr("wrong-pw-4711")));
  // The same in the JDBC form.
  wrong = OpenPostgresBackend(
      fmt::format("jdbc:postgresql://127.0.0.1:{}/{}?user=floe&password=wrong-pw-4711",
                  server.port(), PostgresServer::kDatabase));
  EXPECT_THAT(wrong, IsErrorWith(StatusCode::kIOError, "password authentication failed"));
  EXPECT_THAT(wrong.status().message(), Not(HasSubstr("wrong-pw-4711")));
  // The right one in each form.
  for (const std::string& uri :
       {server.Uri(),
        fmt::format("postgresql+psycopg2://floe:{}@127.0.0.1:{}/{}", PostgresServer::kPassword,
                    server.port(), PostgresServer::kDatabase),
        fmt::format("jdbc:postgresql://127.0.0.1:{}/{}?user=floe&password={}", server.port(),
                    PostgresServer::kDatabase, PostgresServer::kPassword)}) {
    SCOPED_TRACE(uri);
    ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, OpenPostgresBackend(uri));
    EXPECT_THAT(backend->ToString(), Not(HasSubstr(PostgresServer::kPassword)));
  }
  // From PGPASSWORD.
  {
    ScopedEnv env("PGPASSWORD", PostgresServer::kPassword);
    ASSERT_OK(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "", false)));
  }
  // From a password file (libpq ignores one that others may read).
  const std::string pgpass = dir.path() + "/pgpass";
  std::ofstream(pgpass) << fmt::format("127.0.0.1:{}:*:floe:{}\n", server.port(),
                                       PostgresServer::kPassword);
  chmod(pgpass.c_str(), 0600);
  ScopedEnv file("PGPASSFILE", pgpass);
  ASSERT_OK(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "", false)));
}

// The test server has no certificate: TLS parameters reach libpq when asking for TLS fails.
TEST_F(PostgresBackendTest, TlsParametersReachLibpq) {
  PostgresServer& server = schema_->server();
  ASSERT_OK(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "?sslmode=disable")));
  ASSERT_OK(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "?sslmode=prefer")));
  for (const std::string& uri :
       {server.Uri(PostgresServer::kDatabase, "?sslmode=require"),
        fmt::format("jdbc:postgresql://127.0.0.1:{}/{}?user=floe&password={}&ssl=true",
                    server.port(), PostgresServer::kDatabase, PostgresServer::kPassword)}) {
    SCOPED_TRACE(uri);
    Result<SqlBackendPtr> tls = OpenPostgresBackend(uri);
    EXPECT_THAT(tls, IsErrorWith(StatusCode::kIOError, "SSL"));
    EXPECT_THAT(tls.status().message(), Not(HasSubstr(PostgresServer::kPassword)));
  }
  EXPECT_THAT(OpenPostgresBackend(server.Uri(PostgresServer::kDatabase, "?sslmode=verify-full")),
              IsErrorWith(StatusCode::kIOError, "sslmode=verify-full: cannot connect"));
}

TEST_F(PostgresBackendTest, AnUnreachableServerIsAClearError) {
  PostgresOptions options;
  // A port nothing listens on: the proxy's, once it is gone.
  ASSERT_OK_AND_ASSIGN(auto proxy, TcpProxy::Start(schema_->server().port()));
  const int port = proxy->port();
  proxy.reset();
  Result<SqlBackendPtr> unreachable = OpenPostgresBackend(
      fmt::format("postgresql://floe:hunter2@127.0.0.1:{}/x?connect_timeout=2", port), options);
  EXPECT_THAT(unreachable, IsErrorWith(StatusCode::kIOError,
                                       fmt::format("PostgreSQL catalog postgresql://floe@127.0.0.1:"
                                                   "{}/x?connect_timeout=2: cannot connect",
                                                   port)));
  EXPECT_THAT(unreachable.status().message(), Not(HasSubstr("hunter2")));
}

// ---------------------------------------------------------------------------------------
// Lost connections
// ---------------------------------------------------------------------------------------

TEST_F(PostgresBackendTest, ReadsRunAgainOnANewConnection) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied());
  ASSERT_OK(backend->Run([](SqlSession& s) { return Insert(s, "a", "1"); }));
  proxy_->CutAll();
  ASSERT_OK(backend->Run([](SqlSession& s) -> Status {
    FLOE_ASSIGN_OR_RAISE(auto rows, s.Query("read", "SELECT v FROM kv"));
    EXPECT_EQ(rows, (std::vector<SqlRow>{{"1"}}));
    return Status::OK();
  }));
}

TEST_F(PostgresBackendTest, ATransactionLostBeforeItsCommitRunsAgain) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied());
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kBeforeCommit);
  int runs = 0;
  ASSERT_OK(backend->Transact("insert", [&](SqlSession& s) {
    ++runs;
    return Insert(s, "a", "1");
  }));
  EXPECT_EQ(proxy_->commit_cuts(), 1);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(Sql("SELECT k, v FROM kv"), (Rows{{"a", "1"}}));
}

TEST_F(PostgresBackendTest, ATransactionLostAfterItsCommitIsNotRunAgain) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied());
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kAfterCommit);
  int runs = 0;
  ASSERT_OK(backend->Transact("insert", [&](SqlSession& s) {
    ++runs;
    return Insert(s, "a", "1");
  }));
  EXPECT_EQ(proxy_->commit_cuts(), 1);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(Sql("SELECT k, v FROM kv"), (Rows{{"a", "1"}}));
}

TEST_F(PostgresBackendTest, ATransactionLostMidwayRunsAgain) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied());
  int runs = 0;
  ASSERT_OK(backend->Transact("insert two", [&](SqlSession& s) -> Status {
    ++runs;
    FLOE_RETURN_NOT_OK(Insert(s, "a", "1"));
    if (runs == 1) proxy_->CutAll();
    return Insert(s, "b", "2");
  }));
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}}));
  // The lost transaction is over: its row lock and the write lock are free.
  ASSERT_OK(backend_->Transact("after", [](SqlSession& s) {
    return s.Execute("update", "UPDATE kv SET v = 'x' WHERE k = 'a'").status();
  }));
}

TEST_F(PostgresBackendTest, AWriteOnItsOwnLostAtItsCommitIsResolved) {
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied());
  for (TcpProxy::CommitCut cut :
       {TcpProxy::CommitCut::kBeforeCommit, TcpProxy::CommitCut::kAfterCommit}) {
    const std::string key = cut == TcpProxy::CommitCut::kBeforeCommit ? "before" : "after";
    proxy_->CutAtNextCommit(cut);
    ASSERT_OK(backend->Run([&](SqlSession& s) -> Status {
      FLOE_ASSIGN_OR_RAISE(int64_t n, s.Execute("insert", "INSERT INTO kv VALUES (?, '1')", {key}));
      EXPECT_EQ(n, 1);
      return Status::OK();
    }));
  }
  EXPECT_EQ(proxy_->commit_cuts(), 2);
  // Each row once: the write lost before its commit ran again, the other did not.
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"after"}, {"before"}}));
}

TEST_F(PostgresBackendTest, ACommitNoConnectionCanResolveIsUnknown) {
  PostgresOptions options;
  options.resolve_timeout = std::chrono::milliseconds(150);
  ASSERT_OK_AND_ASSIGN(SqlBackendPtr backend, Proxied(options));
  // The pooled connection is in use; every new one (to learn the outcome) is refused.
  proxy_->SetRefusing(true);
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kAfterCommit);
  Status status = backend->Transact("insert", [](SqlSession& s) { return Insert(s, "a", "1"); });
  EXPECT_THAT(status, IsErrorWith(StatusCode::kCommitStateUnknown,
                                  "insert: the connection was lost while committing"));
  EXPECT_THAT(status.message(), HasSubstr("could not be learned"));
  EXPECT_THAT(status.message(), Not(HasSubstr(PostgresServer::kPassword)));
  // It did commit.
  EXPECT_EQ(Sql("SELECT k FROM kv"), (Rows{{"a"}}));
  // A write on its own too.
  ASSERT_OK_AND_ASSIGN(backend, Proxied(options));
  proxy_->SetRefusing(true);
  proxy_->CutAtNextCommit(TcpProxy::CommitCut::kAfterCommit);
  EXPECT_THAT(backend->Run([](SqlSession& s) { return Insert(s, "b", "2"); }),
              IsError(StatusCode::kCommitStateUnknown));
  proxy_->SetRefusing(false);
  EXPECT_EQ(Sql("SELECT k FROM kv ORDER BY k"), (Rows{{"a"}, {"b"}}));
}

}  // namespace
}  // namespace floe::catalog
