#include "floe/catalog/postgres_backend.h"

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "floe/catalog/postgres_backend_internal.h"
#include "floe/common/ascii.h"

namespace floe::catalog {

// ---------------------------------------------------------------------------------------
// Placeholders
// ---------------------------------------------------------------------------------------

namespace internal {
namespace {

bool IsIdentifierChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         u >= 0x80;
}

// Where a quoted run that starts at `begin` (on its opening quote) ends: just past its
// closing quote, or the end of `sql`. A doubled quote is a quote inside; with
// `backslash_escapes`, a backslash takes the next character as it is.
size_t QuotedEnd(std::string_view sql, size_t begin, bool backslash_escapes) {
  const char quote = sql[begin];
  size_t i = begin + 1;
  while (i < sql.size()) {
    if (backslash_escapes && sql[i] == '\\') {
      i += 2;
    } else if (sql[i] == quote) {
      if (i + 1 < sql.size() && sql[i + 1] == quote) {
        i += 2;
      } else {
        return i + 1;
      }
    } else {
      ++i;
    }
  }
  return sql.size();
}

// Where a dollar-quoted string starting at `begin` ends, or npos when `$` does not open one
// there ($tag$ with a tag of identifier characters not starting with a digit, or $$).
size_t DollarQuotedEnd(std::string_view sql, size_t begin) {
  if (begin > 0 && IsIdentifierChar(sql[begin - 1])) return std::string_view::npos;
  size_t i = begin + 1;
  while (i < sql.size() && IsIdentifierChar(sql[i])) ++i;
  if (i >= sql.size() || sql[i] != '$') return std::string_view::npos;
  if (i > begin + 1 && sql[begin + 1] >= '0' && sql[begin + 1] <= '9') {
    return std::string_view::npos;  // $1: a parameter, not a quote
  }
  std::string_view tag = sql.substr(begin, i - begin + 1);
  size_t close = sql.find(tag, i + 1);
  return close == std::string_view::npos ? sql.size() : close + tag.size();
}

// Where a block comment starting at `begin` ends (comments nest in PostgreSQL).
size_t BlockCommentEnd(std::string_view sql, size_t begin) {
  int depth = 0;
  size_t i = begin;
  while (i + 1 < sql.size()) {
    if (sql[i] == '/' && sql[i + 1] == '*') {
      ++depth;
      i += 2;
    } else if (sql[i] == '*' && sql[i + 1] == '/') {
      i += 2;
      if (--depth == 0) return i;
    } else {
      ++i;
    }
  }
  return sql.size();
}

}  // namespace

std::string NumberPlaceholders(std::string_view sql, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    size_t end = std::string_view::npos;
    if (c == '?') {
      out += fmt::format("${}", ++n);
      ++i;
      continue;
    }
    if (c == '\'') {
      const bool escapes = i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
                           (i < 2 || !IsIdentifierChar(sql[i - 2]));
      end = QuotedEnd(sql, i, escapes);
    } else if (c == '"') {
      end = QuotedEnd(sql, i, /*backslash_escapes=*/false);
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      end = sql.find('\n', i);
      if (end == std::string_view::npos) end = sql.size();
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      end = BlockCommentEnd(sql, i);
    } else if (c == '$') {
      end = DollarQuotedEnd(sql, i);
    }
    if (end == std::string_view::npos) {
      out.push_back(c);
      ++i;
    } else {
      out.append(sql.substr(i, end - i));
      i = end;
    }
  }
  *count = n;
  return out;
}

}  // namespace internal

// ---------------------------------------------------------------------------------------
// URIs
// ---------------------------------------------------------------------------------------

namespace {

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         EqualsIgnoreAsciiCase(text.substr(0, prefix.size()), prefix);
}

bool IsSecretKeyword(std::string_view keyword) {
  return keyword == "password" || keyword == "sslpassword";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A JDBC URL's component decoded as the JDBC driver decodes it (form encoding: %XX and '+'
// for a space). nullopt for a malformed escape.
std::optional<std::string> FormDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The raw password of a `scheme://user:password@host` URI, to mask in parser messages.
std::string RawUserinfoPassword(std::string_view uri) {
  size_t start = uri.find("://");
  if (start == std::string_view::npos) return "";
  start += 3;
  size_t end = uri.find_first_of("/?#", start);
  std::string_view authority = uri.substr(start, end == std::string_view::npos ? end : end - start);
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return "";
  std::string_view userinfo = authority.substr(0, at);
  size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return "";
  return std::string(userinfo.substr(colon + 1));
}

// The secrets of a URI as written (and %-decoded): its userinfo password and the values of
// its password and sslpassword parameters, to mask in parser messages.
std::vector<std::string> RawSecrets(std::string_view uri) {
  std::vector<std::string> secrets = {RawUserinfoPassword(uri)};
  size_t query = uri.find('?');
  std::string_view params = query == std::string_view::npos ? "" : uri.substr(query + 1);
  while (!params.empty()) {
    size_t amp = params.find('&');
    std::string_view param = params.substr(0, amp);
    params = amp == std::string_view::npos ? std::string_view() : params.substr(amp + 1);
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = param.substr(0, eq);
    if (key != "password" && key != "sslpassword") continue;
    secrets.emplace_back(param.substr(eq + 1));
  }
  const size_t raw = secrets.size();
  for (size_t i = 0; i < raw; ++i) {
    if (std::optional<std::string> decoded = FormDecode(secrets[i])) secrets.push_back(*decoded);
  }
  return secrets;
}

// `text` with every occurrence of each secret (of at least 3 bytes: shorter ones would mask
// ordinary words) replaced by "***".
std::string MaskSecrets(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.size() < 3) continue;
    size_t pos = 0;
    while ((pos = text.find(secret, pos)) != std::string::npos) {
      text.replace(pos, secret.size(), "***");
      pos += 3;
    }
  }
  return text;
}

std::string TrimRight(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

Result<PostgresConnection> ParseLibpqUri(std::string_view uri, std::string_view shown) {
  const std::string text(uri);
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error != nullptr ? TrimRight(error) : "out of memory";
    if (error != nullptr) PQfreemem(error);
    reason = MaskSecrets(std::move(reason), RawSecrets(uri));
    return Status::Invalid("catalog URI '{}' is not a valid PostgreSQL URI: {}", shown, reason);
  }
  PostgresConnection connection;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) connection.params.emplace_back(o->keyword, o->val);
  }
  PQconninfoFree(options);
  return connection;
}

Result<PostgresConnection> ParseJdbcUri(std::string_view uri, std::string_view shown) {
  std::string_view rest = uri.substr(std::string_view("jdbc:postgresql:").size());
  auto invalid = [&](std::string_view why) {
    return Status::Invalid("catalog URI '{}' is not a valid PostgreSQL JDBC URI: {}", shown, why);
  };
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::vector<std::string> hosts;
  std::vector<std::string> ports;
  std::string_view database;
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    database = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (authority.find('@') != std::string_view::npos) {
      return invalid("user and password go in its parameters (?user=...&password=...)");
    }
    while (!authority.empty()) {
      size_t comma = authority.find(',');
      std::string_view entry = authority.substr(0, comma);
      authority =
          comma == std::string_view::npos ? std::string_view() : authority.substr(comma + 1);
      std::string_view host = entry;
      std::string_view port;
      if (!entry.empty() && entry[0] == '[') {
        size_t close = entry.find(']');
        if (close == std::string_view::npos) return invalid("an IPv6 address without ']'");
        host = entry.substr(1, close - 1);
        std::string_view after = entry.substr(close + 1);
        if (!after.empty()) {
          if (after[0] != ':') return invalid("text after an IPv6 address");
          port = after.substr(1);
        }
      } else if (size_t colon = entry.rfind(':'); colon != std::string_view::npos) {
        host = entry.substr(0, colon);
        port = entry.substr(colon + 1);
      }
      if (!port.empty() &&
          !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return invalid(fmt::format("port '{}' is not a number", port));
      }
      hosts.emplace_back(host.empty() ? "localhost" : host);
      ports.emplace_back(port.empty() ? "5432" : port);
    }
  } else {
    database = rest;
  }
  // Without a host the JDBC driver connects to localhost:5432.
  if (hosts.empty()) {
    hosts.emplace_back("localhost");
    ports.emplace_back("5432");
  }
  PostgresConnection connection;
  connection.params.emplace_back("host", fmt::format("{}", fmt::join(hosts, ",")));
  connection.params.emplace_back("port", fmt::format("{}", fmt::join(ports, ",")));
  if (!database.empty()) {
    std::optional<std::string> name = FormDecode(database);
    if (!name.has_value()) return invalid("a malformed %-escape in the database name");
    connection.params.emplace_back("dbname", *name);
  }
  bool ssl = false;
  bool has_sslmode = false;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    size_t eq = param.find('=');
    std::optional<std::string> key = FormDecode(param.substr(0, eq));
    std::optional<std::string> value =
        FormDecode(eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1));
    if (!key.has_value() || key->empty()) return invalid("a parameter without a name");
    if (!value.has_value()) {
      return invalid(fmt::format("a malformed %-escape in parameter {}", *key));
    }
    if (*key == "ssl") {
      ssl = AsciiLower(*value) == "true" || value->empty();
    } else if (*key == "connectTimeout") {
      connection.params.emplace_back("connect_timeout", *value);
    } else if (*key == "ApplicationName") {
      connection.params.emplace_back("application_name", *value);
    } else if (*key == "currentSchema") {
      connection.params.emplace_back("options", "-c search_path=" + *value);
    } else {
      if (*key == "sslmode") has_sslmode = true;
      connection.params.emplace_back(*key, *value);
    }
  }
  // The JDBC driver's ssl=true verifies the server's certificate and host name.
  if (ssl && !has_sslmode) connection.params.emplace_back("sslmode", "verify-full");
  return connection;
}

// What a URI shows in messages before it is parsed: the password of its userinfo and the
// values of its password parameters masked.
std::string ShownUri(std::string_view uri) {
  std::string shown = MaskSecrets(std::string(uri), RawSecrets(uri));
  for (std::string_view key : {"password=", "sslpassword="}) {
    size_t pos = 0;
    while ((pos = shown.find(key, pos)) != std::string::npos) {
      size_t value = pos + key.size();
      size_t end = shown.find('&', value);
      if (end == std::string::npos) end = shown.size();
      shown.replace(value, end - value, "***");
      pos = value + 3;
    }
  }
  return shown;
}

}  // namespace

std::string PostgresConnection::Get(std::string_view keyword) const {
  for (const auto& [key, value] : params) {
    if (key == keyword) return value;
  }
  return "";
}

std::string PostgresConnection::Redacted() const {
  std::string out = "postgresql://";
  const std::string user = Get("user");
  if (!user.empty()) out += user + "@";
  const std::string host = Get("host");
  const std::string port = Get("port");
  // A socket directory is not a host name: it goes among the parameters.
  const bool socket = !host.empty() && host[0] == '/';
  if (!socket) {
    out += host;
    if (!port.empty()) out += ":" + port;
  }
  out += "/" + Get("dbname");
  char separator = '?';
  for (const auto& [key, value] : params) {
    if (IsSecretKeyword(key) || key == "user" || key == "dbname" ||
        (!socket && (key == "host" || key == "port"))) {
      continue;
    }
    out += fmt::format("{}{}={}", separator, key, value);
    separator = '&';
  }
  return out;
}

bool IsPostgresUri(std::string_view uri) {
  if (StartsWithIgnoreCase(uri, "jdbc:postgresql:")) return true;
  for (std::string_view scheme : {"postgresql", "postgres"}) {
    if (!StartsWithIgnoreCase(uri, scheme)) continue;
    std::string_view rest = uri.substr(scheme.size());
    if (rest.substr(0, 3) == "://") return true;
    // postgresql+psycopg2:// (SQLAlchemy: the dialect, a '+', the driver).
    size_t end = rest.find("://");
    if (!rest.empty() && rest[0] == '+' && end != std::string_view::npos && end > 1) return true;
  }
  return false;
}

Result<PostgresConnection> ParsePostgresUri(std::string_view uri) {
  const std::string shown = ShownUri(uri);
  if (!IsPostgresUri(uri)) {
    return Status::Invalid("catalog URI '{}' is not a PostgreSQL URI", shown);
  }
  if (StartsWithIgnoreCase(uri, "jdbc:postgresql:")) return ParseJdbcUri(uri, shown);
  // The driver of a SQLAlchemy URI is pyiceberg's business; libpq takes the rest.
  size_t scheme_end = uri.find("://");
  std::string libpq_uri = "postgresql" + std::string(uri.substr(scheme_end));
  return ParseLibpqUri(libpq_uri, shown);
}

// ---------------------------------------------------------------------------------------
// The backend
// ---------------------------------------------------------------------------------------

namespace {

struct ConnectionCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;

struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ResultClearer>;

// The key of floe's catalog write lock (pg_advisory_xact_lock): "FloeCat" in ASCII. Advisory
// locks are per database, so one key serialises the catalog writers of one database.
constexpr int64_t kWriteLockKey = 0x466c6f6543617400;

// The server's NOTICEs ("relation already exists, skipping") are not for the user.
void IgnoreNotice(void*, const char*) {}

// What became of a transaction whose connection was lost.
enum class Outcome { kCommitted, kAborted, kUnknown };

class PostgresBackend;

class PostgresSession final : public SqlSession {
 public:
  enum class Mode { kAutocommit, kTransaction };

  PostgresSession(const PostgresBackend& backend, Connection conn, Mode mode)
      : backend_(backend), conn_(std::move(conn)), mode_(mode) {}

  Result<std::vector<SqlRow>> Query(std::string_view purpose, const std::string& sql,
                                    const std::vector<SqlValue>& params) override;
  Result<int64_t> Execute(std::string_view purpose, const std::string& sql,
                          const std::vector<SqlValue>& params) override;

  // Opens the transaction of a Transact: BEGIN, the write lock, the transaction id.
  Status BeginLocked(std::string_view purpose);
  // COMMITs the open transaction. OK when it committed; kCommitStateUnknown when the
  // connection was lost and no new one could tell; an error with `*retry` set when the
  // connection was lost and the transaction certainly did not commit.
  Status Commit(std::string_view purpose, bool* retry);
  // Rolls back the open transaction (its errors are secondary to the one that caused it).
  void Rollback();
  // After a lost connection inside a transaction, which cannot have committed (no COMMIT
  // was sent): ends the server's side of it, so that its locks go now.
  void EndLost();

  bool lost() const { return lost_; }
  Connection Take() { return std::move(conn_); }

 private:
  // Runs one statement; a lost connection sets lost_.
  Result<PgResult> Exec(std::string_view purpose, const std::string& sql,
                        const std::vector<SqlValue>& params);
  // Runs text with no parameters (several statements; the last one's result).
  Result<PgResult> ExecText(std::string_view purpose, const char* text);
  Result<PgResult> Check(std::string_view purpose, PgResult result);
  Status Reconnect();
  Status BeginTracked(std::string_view purpose, const char* text);

  const PostgresBackend& backend_;
  Connection conn_;
  Mode mode_;
  bool lost_ = false;
  // The open transaction's id (text of an xid8) and its server process.
  std::string xid_;
  int pid_ = 0;
};

class PostgresBackend final : public SqlBackend {
 public:
  PostgresBackend(PostgresConnection connection, PostgresOptions options)
      : connection_(std::move(connection)),
        options_(options),
        target_("PostgreSQL catalog " + connection_.Redacted()) {
    for (const auto& [key, value] : connection_.params) {
      if (IsSecretKeyword(key)) secrets_.push_back(value);
    }
  }

  // "PostgreSQL catalog postgresql://user@host:port/db": how messages name the database.
  const std::string& target() const { return target_; }
  const PostgresOptions& options() const { return options_; }

  // A message with every secret of the connection masked.
  std::string Masked(std::string message) const {
    return MaskSecrets(std::move(message), secrets_);
  }

  // A new connection.
  Result<Connection> Connect() const {
    std::vector<const char*> keywords;
    std::vector<const char*> values;
    auto has = [&](std::string_view keyword) {
      return std::any_of(connection_.params.begin(), connection_.params.end(),
                         [&](const auto& p) { return p.first == keyword; });
    };
    for (const auto& [key, value] : connection_.params) {
      keywords.push_back(key.c_str());
      values.push_back(value.c_str());
    }
    // Defaults that the URI may override: a bounded wait for an unreachable server, a name
    // in pg_stat_activity, and UTF-8 text whatever the database's encoding.
    const std::pair<const char*, const char*> defaults[] = {
        {"connect_timeout", "10"}, {"application_name", "floe"}, {"client_encoding", "UTF8"}};
    for (const auto& [key, value] : defaults) {
      if (!has(key)) {
        keywords.push_back(key);
        values.push_back(value);
      }
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    Connection conn(PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/0));
    if (conn == nullptr) return Status::OutOfMemory("{}: cannot connect: out of memory", target_);
    if (PQstatus(conn.get()) != CONNECTION_OK) {
      return Status::IOError("{}: cannot connect: {}", target_,
                             Masked(TrimRight(PQerrorMessage(conn.get()))));
    }
    PQsetNoticeProcessor(conn.get(), IgnoreNotice, nullptr);
    return conn;
  }

  // Takes an idle connection or opens a new one.
  Result<Connection> Acquire() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        Connection conn = std::move(idle_.back());
        idle_.pop_back();
        return conn;
      }
    }
    return Connect();
  }

  // Returns a connection to the pool when it is healthy and outside any transaction.
  void Release(Connection conn) const {
    if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK ||
        PQtransactionStatus(conn.get()) != PQTRANS_IDLE) {
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int>(idle_.size()) < options_.max_idle_connections) {
      idle_.push_back(std::move(conn));
    }
  }

  // Drops every idle connection (after one was found broken, the others likely are too).
  void DropIdle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.clear();
  }

  Status Run(const std::function<Status(SqlSession&)>& fn) const override {
    FLOE_ASSIGN_OR_RAISE(Connection conn, Acquire());
    PostgresSession session(*this, std::move(conn), PostgresSession::Mode::kAutocommit);
    Status status = fn(session);
    Release(session.Take());
    return status;
  }

  Status Transact(std::string_view purpose,
                  const std::function<Status(SqlSession&)>& fn) const override {
    for (int attempt = 0;; ++attempt) {
      const bool may_retry = attempt < options_.max_reconnects;
      FLOE_ASSIGN_OR_RAISE(Connection conn, Acquire());
      PostgresSession session(*this, std::move(conn), PostgresSession::Mode::kTransaction);
      Status status = session.BeginLocked(purpose);
      if (!status.ok()) {
        if (session.lost()) {
          DropIdle();
          if (may_retry) continue;
        } else {
          session.Rollback();
          Release(session.Take());
        }
        return status;
      }
      status = fn(session);
      if (session.lost()) {
        // Nothing was committed: no COMMIT was sent.
        session.EndLost();
        DropIdle();
        if (may_retry) continue;
        return status.ok() ? Status::IOError("{}: {}: the connection was lost", target_, purpose)
                           : status;
      }
      if (!status.ok()) {
        session.Rollback();
        Release(session.Take());
        return status;
      }
      bool retry = false;
      status = session.Commit(purpose, &retry);
      if (retry) {
        DropIdle();
        if (may_retry) continue;
      }
      Release(session.Take());
      return status;
    }
  }

  std::string ToString() const override { return target_; }

  // What became of transaction `xid` (of server process `pid`) after its connection was
  // lost: asked through new connections until resolve_timeout. A transaction still in
  // progress (its server process has not noticed that the client is gone) is ended.
  Outcome Resolve(const std::string& xid, int pid, std::string* why) const {
    const auto deadline = std::chrono::steady_clock::now() + options_.resolve_timeout;
    const std::string pid_text = std::to_string(pid);
    Connection conn;
    std::string last = "no answer";
    for (int round = 0;; ++round) {
      if (conn == nullptr) {
        Result<Connection> opened = Connect();
        if (opened.ok()) {
          conn = std::move(*opened);
        } else {
          last = opened.status().message();
        }
      }
      if (conn != nullptr) {
        const char* status_params[] = {xid.c_str()};
        PgResult status(PQexecParams(conn.get(), "SELECT pg_xact_status($1::xid8)", 1, nullptr,
                                     status_params, nullptr, nullptr, 0));
        if (PQresultStatus(status.get()) == PGRES_TUPLES_OK && PQntuples(status.get()) == 1) {
          if (PQgetisnull(status.get(), 0, 0)) {
            *why = fmt::format("the status of transaction {} is no longer kept", xid);
            return Outcome::kUnknown;
          }
          const std::string state = PQgetvalue(status.get(), 0, 0);
          if (state == "committed") return Outcome::kCommitted;
          if (state == "aborted") return Outcome::kAborted;
          const char* end_params[] = {pid_text.c_str(), xid.c_str()};
          PgResult ended(PQexecParams(conn.get(),
                                      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                      "WHERE pid = $1::int AND backend_xid = xid($2::xid8)",
                                      2, nullptr, end_params, nullptr, nullptr, 0));
          last = fmt::format("transaction {} is still in progress", xid);
        } else if (PQstatus(conn.get()) != CONNECTION_OK) {
          last = Masked(TrimRight(PQerrorMessage(conn.get())));
          conn.reset();
        } else {
          *why = Masked(TrimRight(PQresultErrorMessage(status.get())));
          return Outcome::kUnknown;
        }
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        *why = last;
        return Outcome::kUnknown;
      }
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::min(10 << std::min(round, 4), 100)));
    }
  }

 private:
  PostgresConnection connection_;
  PostgresOptions options_;
  std::string target_;
  std::vector<std::string> secrets_;
  mutable std::mutex mutex_;
  mutable std::vector<Connection> idle_;
};

Result<PgResult> PostgresSession::Check(std::string_view purpose, PgResult result) {
  const ExecStatusType status =
      result != nullptr ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    lost_ = true;
    return Status::IOError("{}: {} failed: the connection was lost: {}", backend_.target(), purpose,
                           backend_.Masked(TrimRight(PQerrorMessage(conn_.get()))));
  }
  const char* state =
      result != nullptr ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
  const char* primary =
      result != nullptr ? PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = fmt::format(
      "{}: {} failed: {}{}", backend_.target(), purpose,
      primary != nullptr ? std::string(primary) : TrimRight(PQerrorMessage(conn_.get())),
      state != nullptr ? fmt::format(" (SQLSTATE {})", state) : "");
  message = backend_.Masked(std::move(message));
  // 23505: unique_violation (a primary key among them).
  if (state != nullptr && std::strcmp(state, "23505") == 0) {
    return Status::Constraint(std::move(message));
  }
  return Status::IOError(std::move(message));
}

Result<PgResult> PostgresSession::Exec(std::string_view purpose, const std::string& sql,
                                       const std::vector<SqlValue>& params) {
  if (conn_ == nullptr || lost_) {
    return Status::IOError("{}: {} failed: the connection was lost", backend_.target(), purpose);
  }
  int count = 0;
  const std::string text = internal::NumberPlaceholders(sql, &count);
  if (count != static_cast<int>(params.size())) {
    return Status::Internal("{}: {}: the statement has {} parameters, {} given", backend_.target(),
                            purpose, count, params.size());
  }
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const SqlValue& param : params) {
    if (param.has_value() && param->find('\0') != std::string::npos) {
      return Status::Invalid("{}: {}: a value holds a NUL byte, which PostgreSQL text cannot hold",
                             backend_.target(), purpose);
    }
    values.push_back(param.has_value() ? param->c_str() : nullptr);
  }
  PgResult result(PQexecParams(conn_.get(), text.c_str(), count, nullptr, values.data(), nullptr,
                               nullptr, /*resultFormat=*/0));
  return Check(purpose, std::move(result));
}

Result<PgResult> PostgresSession::ExecText(std::string_view purpose, const char* text) {
  if (conn_ == nullptr || lost_) {
    return Status::IOError("{}: {} failed: the connection was lost", backend_.target(), purpose);
  }
  return Check(purpose, PgResult(PQexec(conn_.get(), text)));
}

Status PostgresSession::Reconnect() {
  conn_.reset();
  FLOE_ASSIGN_OR_RAISE(conn_, backend_.Connect());
  lost_ = false;
  return Status::OK();
}

Result<std::vector<SqlRow>> PostgresSession::Query(std::string_view purpose, const std::string& sql,
                                                   const std::vector<SqlValue>& params) {
  for (int attempt = 0;; ++attempt) {
    Result<PgResult> result = Exec(purpose, sql, params);
    if (!result.ok()) {
      // A read on its own is safe to repeat on a new connection; inside a transaction the
      // whole transaction is (by Transact).
      if (lost_ && mode_ == Mode::kAutocommit && attempt < backend_.options().max_reconnects) {
        backend_.DropIdle();
        FLOE_RETURN_NOT_OK(Reconnect());
        continue;
      }
      return result.status();
    }
    const PGresult* r = result->get();
    const int rows = PQntuples(r);
    const int columns = PQnfields(r);
    std::vector<SqlRow> out;
    out.reserve(rows);
    for (int i = 0; i < rows; ++i) {
      SqlRow row;
      row.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r, i, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(PQgetvalue(r, i, c), PQgetlength(r, i, c)));
        }
      }
      out.push_back(std::move(row));
    }
    return out;
  }
}

Result<int64_t> PostgresSession::Execute(std::string_view purpose, const std::string& sql,
                                         const std::vector<SqlValue>& params) {
  if (mode_ == Mode::kTransaction) {
    FLOE_ASSIGN_OR_RAISE(PgResult result, Exec(purpose, sql, params));
    const char* tuples = PQcmdTuples(result.get());
    return static_cast<int64_t>(tuples[0] == '\0' ? 0 : std::atoll(tuples));
  }
  // A write on its own runs in a transaction of its own whose id is known, so that a
  // connection lost while it commits can be told apart from one lost before.
  for (int attempt = 0;; ++attempt) {
    const bool may_retry = attempt < backend_.options().max_reconnects;
    if (lost_ || conn_ == nullptr) {
      backend_.DropIdle();
      FLOE_RETURN_NOT_OK(Reconnect());
    }
    Status begun = BeginTracked(purpose, "BEGIN; SELECT pg_current_xact_id()");
    if (!begun.ok()) {
      if (lost_ && may_retry) continue;
      if (!lost_) Rollback();
      return begun;
    }
    Result<PgResult> result = Exec(purpose, sql, params);
    if (!result.ok()) {
      if (lost_) {
        EndLost();
        if (may_retry) continue;
      } else {
        Rollback();
      }
      return result.status();
    }
    const char* tuples = PQcmdTuples(result->get());
    const int64_t changed = tuples[0] == '\0' ? 0 : std::atoll(tuples);
    bool retry = false;
    Status committed = Commit(purpose, &retry);
    if (retry && may_retry) continue;
    FLOE_RETURN_NOT_OK(committed);
    return changed;
  }
}

Status PostgresSession::BeginTracked(std::string_view purpose, const char* text) {
  xid_.clear();
  FLOE_ASSIGN_OR_RAISE(PgResult result, ExecText(purpose, text));
  if (PQntuples(result.get()) != 1 || PQgetisnull(result.get(), 0, 0)) {
    return Status::Internal("{}: {}: no transaction id", backend_.target(), purpose);
  }
  xid_ = PQgetvalue(result.get(), 0, 0);
  pid_ = PQbackendPID(conn_.get());
  return Status::OK();
}

Status PostgresSession::BeginLocked(std::string_view purpose) {
  // One round trip: the transaction, how long to wait for the lock, the lock (held until
  // the transaction ends, in whichever way), the transaction's id.
  const std::string text = fmt::format(
      "BEGIN; SET LOCAL lock_timeout = {}; SELECT pg_advisory_xact_lock({}); "
      "SELECT pg_current_xact_id()",
      backend_.options().lock_timeout.count(), kWriteLockKey);
  Status status = BeginTracked(purpose, text.c_str());
  if (!status.ok() && !lost_ && status.message().find("(SQLSTATE 55P03)") != std::string::npos) {
    return Status::IOError(
        "{}: {} failed: waited {} ms for the catalog's write lock, which another writer holds",
        backend_.target(), purpose, backend_.options().lock_timeout.count());
  }
  return status;
}

Status PostgresSession::Commit(std::string_view purpose, bool* retry) {
  *retry = false;
  PgResult result(PQexec(conn_.get(), "COMMIT"));
  if (PQresultStatus(result.get()) == PGRES_COMMAND_OK) {
    // COMMIT of a transaction that an error had aborted rolls it back instead.
    if (std::strcmp(PQcmdStatus(result.get()), "ROLLBACK") == 0) {
      return Status::Internal(
          "{}: {}: the transaction was rolled back at its commit (one of "
          "its statements had failed)",
          backend_.target(), purpose);
    }
    return Status::OK();
  }
  if (PQstatus(conn_.get()) == CONNECTION_OK) {
    // The server refused the commit: the transaction is over, rolled back.
    return Check(purpose, std::move(result)).status();
  }
  lost_ = true;
  const std::string lost_because = backend_.Masked(TrimRight(PQerrorMessage(conn_.get())));
  std::string why;
  switch (backend_.Resolve(xid_, pid_, &why)) {
    case Outcome::kCommitted:
      return Status::OK();
    case Outcome::kAborted:
      *retry = true;
      return Status::IOError(
          "{}: {} failed: the connection was lost while committing and the transaction did not "
          "commit: {}",
          backend_.target(), purpose, lost_because);
    case Outcome::kUnknown:
      break;
  }
  return Status::CommitStateUnknown(
      "{}: {}: the connection was lost while committing ({}) and whether transaction {} "
      "committed could not be learned: {}",
      backend_.target(), purpose, lost_because, xid_, why);
}

void PostgresSession::Rollback() {
  if (conn_ == nullptr || PQstatus(conn_.get()) != CONNECTION_OK) return;
  PgResult result(PQexec(conn_.get(), "ROLLBACK"));
}

void PostgresSession::EndLost() {
  if (xid_.empty()) return;
  std::string why;
  (void)backend_.Resolve(xid_, pid_, &why);
  xid_.clear();
}

}  // namespace

Result<SqlBackendPtr> OpenPostgresBackend(PostgresConnection connection, PostgresOptions options) {
  auto backend = std::make_shared<PostgresBackend>(std::move(connection), options);
  FLOE_ASSIGN_OR_RAISE(Connection first, backend->Connect());
  backend->Release(std::move(first));
  return SqlBackendPtr(std::move(backend));
}

Result<SqlBackendPtr> OpenPostgresBackend(std::string_view uri, PostgresOptions options) {
  FLOE_ASSIGN_OR_RAISE(PostgresConnection connection, ParsePostgresUri(uri));
  return OpenPostgresBackend(std::move(connection), options);
}

}  // namespace floe::catalog
