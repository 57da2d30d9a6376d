#include "floe/catalog/rest/rest_catalog.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/common/ascii.h"
#include "floe/common/base64.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/sigv4.h"

namespace floe::catalog {

using nlohmann::json;
using Clock = std::chrono::system_clock;

// ---------------------------------------------------------------------------------------
// Calls and sessions

struct RestCatalog::Call {
  std::string method = "GET";
  /// After <uri>/v1/ (the prefix included by the caller).
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  std::optional<json> body;
  /// Ask for vended credentials (table loads).
  bool delegation = false;
  /// A commit: 500, 502 and 504 mean its outcome is unknown, so nothing is retried but 429.
  bool commit = false;
  /// For messages: "load table db.t".
  std::string what;
};

// The authentication state: the bearer token, when it expires, and how to get a new one.
struct RestCatalog::Session {
  std::mutex mutex;
  std::string token;
  std::optional<Clock::time_point> expires_at;
  std::chrono::seconds lifetime{0};
  // OAuth2 client credentials ("id:secret", or a secret alone); empty: no refresh possible.
  std::string credential;
  std::string scope = "catalog";
  std::string token_uri;
  std::vector<std::pair<std::string, std::string>> headers;

  // Refresh the token before it runs out (`token-refresh-enabled`), and first by an RFC 8693
  // token exchange of the current token (`token-exchange-enabled`), as the Java client does.
  bool refresh = true;
  bool exchange = true;

  // A new token, and when it runs out: by token exchange of the current one when
  // `exchange_first` and that is enabled, else (or when the exchange is refused) with the
  // client credentials. Requires the mutex (or that no other thread has the session yet).
  Status Refresh(const io::HttpClient& http, const std::string& catalog, Clock::time_point now,
                 bool exchange_first);
  // Whether a refresh is possible at all.
  bool CanRefresh() const { return !credential.empty() || (exchange && !token.empty()); }
  // Notes the token's end: `expires_in` seconds from `now`, else the `exp` claim of a JWT.
  void SetExpiry(int64_t expires_in, Clock::time_point now);
};

namespace {

constexpr const char* kVendedCredentials = "vended-credentials";

// The endpoints a server that lists none is taken to serve (the spec's v1 core, without
// the HEAD checks and multi-table commits, which servers added later).
const std::set<std::string>& DefaultEndpoints() {
  static const std::set<std::string> endpoints = {
      "GET /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces",
      "GET /v1/{prefix}/namespaces/{namespace}",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/tables/rename",
  };
  return endpoints;
}

std::string Encode(std::string_view text) { return io::sigv4::UriEncode(text, false); }

// The server's error: "<type>: <message>" from an ErrorModel body, the OAuth2 error form,
// or the status alone.
std::string ServerMessage(const io::HttpResponse& r) {
  json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const json& e = body["error"];
    std::string type = e.value("type", "");
    std::string message = e.value("message", "");
    if (!type.empty() && !message.empty()) return fmt::format("{}: {}", type, message);
    if (!type.empty() || !message.empty()) return type + message;
  }
  if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    std::string description = body.value("error_description", "");
    return body["error"].get<std::string>() + (description.empty() ? "" : ": " + description);
  }
  return fmt::format("HTTP {}", r.status);
}

std::string ServerErrorType(const io::HttpResponse& r) {
  json body = json::parse(r.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    return body["error"].value("type", "");
  }
  return "";
}

// What a call was about, for mapping its errors.
struct ErrorContext {
  explicit ErrorContext(std::string what_, std::optional<Namespace> ns_ = std::nullopt,
                        std::optional<TableIdentifier> table_ = std::nullopt)
      : what(std::move(what_)), ns(std::move(ns_)), table(std::move(table_)) {}
  std::string what;
  std::optional<Namespace> ns;
  std::optional<TableIdentifier> table;
  bool commit = false;
  /// What a 409 means for this call (kConstraint: it exists / is not empty).
  std::string conflict;
};

Status MapError(const io::HttpResponse& r, const ErrorContext& c) {
  const std::string server = ServerMessage(r);
  const std::string type = ServerErrorType(r);
  switch (r.status) {
    case 400:
      return Status::Invalid("{}: the catalog refused the request ({})", c.what, server);
    case 401:
    case 419:
      return Status::Invalid("{}: not authorized by the catalog ({}); check token or credential",
                             c.what, server);
    case 403:
      return Status::Invalid("{}: forbidden by the catalog ({})", c.what, server);
    case 404:
      if (type == "NoSuchNamespaceException" && c.ns.has_value()) {
        return Status::NotFound("namespace {} does not exist ({})", NamespaceToString(*c.ns),
                                server);
      }
      if (c.table.has_value() && type != "NoSuchNamespaceException") {
        return Status::NotFound("table {} does not exist ({})", c.table->ToString(), server);
      }
      if (c.ns.has_value()) {
        return Status::NotFound("namespace {} does not exist ({})", NamespaceToString(*c.ns),
                                server);
      }
      return Status::NotFound("{}: not found ({})", c.what, server);
    case 406:
      return Status::NotSupported("{}: the catalog does not support it ({})", c.what, server);
    case 409:
      if (c.commit) return Status::CommitConflict("{}: conflict ({})", c.what, server);
      return Status::Constraint("{} ({})", c.conflict.empty() ? c.what + ": conflict" : c.conflict,
                                server);
    case 503:
      return Status::IOError("{}: the catalog is unavailable ({})", c.what, server);
    case 500:
    case 502:
    case 504:
      if (c.commit) {
        return Status::CommitStateUnknown(
            "{}: the commit's outcome is unknown (HTTP {}: {}); the files it wrote are kept",
            c.what, r.status, server);
      }
      return Status::IOError("{}: the catalog failed ({})", c.what, server);
    default:
      return Status::IOError("{}: unexpected answer ({})", c.what, server);
  }
}

Result<json> ParseBody(const io::HttpResponse& r, const std::string& what) {
  json body = json::parse(r.body, nullptr, false);
  if (body.is_discarded()) {
    return Status::IOError("{}: the catalog's answer is not JSON (HTTP {})", what, r.status);
  }
  return body;
}

json IdentifierJson(const TableIdentifier& id) {
  return json{{"namespace", id.ns}, {"name", id.name}};
}

Result<json> CommitRequestJson(const TableIdentifier& id,
                               const std::vector<iceberg::TableRequirement>& requirements,
                               const std::vector<iceberg::TableUpdate>& updates) {
  json request = {{"identifier", IdentifierJson(id)},
                  {"requirements", json::array()},
                  {"updates", json::array()}};
  for (const auto& requirement : requirements) {
    request["requirements"].push_back(iceberg::TableRequirementToJson(requirement));
  }
  for (const auto& update : updates) {
    FLOE_ASSIGN_OR_RAISE(json u, iceberg::TableUpdateToJson(update));
    request["updates"].push_back(std::move(u));
  }
  return request;
}

std::map<std::string, std::string> StringMap(const json& object) {
  std::map<std::string, std::string> out;
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
  }
  return out;
}

}  // namespace

Result<std::map<std::string, std::string>> MergeRestConfig(
    const json& config, const std::map<std::string, std::string>& client) {
  if (!config.is_object()) return Status::Invalid("the catalog's config is not a JSON object");
  for (const char* key : {"defaults", "overrides"}) {
    if (config.contains(key) && !config[key].is_object() && !config[key].is_null()) {
      return Status::Invalid("the catalog's config has a '{}' that is not an object", key);
    }
  }
  std::map<std::string, std::string> merged = config.contains("defaults")
                                                  ? StringMap(config["defaults"])
                                                  : std::map<std::string, std::string>{};
  for (const auto& [key, value] : client) merged[key] = value;
  if (config.contains("overrides")) {
    for (const auto& [key, value] : StringMap(config["overrides"])) merged[key] = value;
  }
  return merged;
}

std::map<std::string, std::string> VendedTableProperties(const json& load_result,
                                                         const std::string& location) {
  std::map<std::string, std::string> out;
  if (load_result.contains("config")) out = StringMap(load_result["config"]);
  const json* best = nullptr;
  size_t best_length = 0;
  if (load_result.contains("storage-credentials") &&
      load_result["storage-credentials"].is_array()) {
    for (const json& credential : load_result["storage-credentials"]) {
      if (!credential.is_object()) continue;
      const std::string prefix = credential.value("prefix", "");
      if (location.compare(0, prefix.size(), prefix) != 0) continue;
      if (best == nullptr || prefix.size() > best_length) {
        best = &credential;
        best_length = prefix.size();
      }
    }
  }
  if (best != nullptr && best->contains("config")) {
    for (const auto& [key, value] : StringMap((*best)["config"])) out[key] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Connecting

RestCatalog::RestCatalog(RestCatalogOptions options)
    : options_(std::move(options)), session_(std::make_unique<Session>()) {}

RestCatalog::~RestCatalog() = default;

Result<std::shared_ptr<RestCatalog>> RestCatalog::Make(RestCatalogOptions options) {
  if (options.uri.empty()) return Status::Invalid("rest catalog {}: no uri", options.name);
  const std::string scheme = AsciiLower(options.uri.substr(0, options.uri.find("://")));
  if (options.uri.find("://") == std::string::npos || (scheme != "http" && scheme != "https")) {
    return Status::Invalid("rest catalog {}: uri '{}' is not http(s)://host[:port][/path]",
                           options.name, io::RedactUri(options.uri));
  }
  if (!options.clock) options.clock = [] { return Clock::now(); };
  std::shared_ptr<RestCatalog> catalog(new RestCatalog(std::move(options)));
  FLOE_RETURN_NOT_OK(catalog->Initialize());
  return catalog;
}

std::string RestCatalog::Url(const std::string& path) const { return base_ + "/v1/" + path; }

namespace {

constexpr const char* kAccessTokenType = "urn:ietf:params:oauth:token-type:access_token";

// The client-credentials grant's form.
std::string ClientCredentialsForm(const std::string& credential, const std::string& scope) {
  const size_t colon = credential.find(':');
  std::string form = "grant_type=client_credentials";
  if (colon != std::string::npos) {
    form += "&client_id=" + Encode(credential.substr(0, colon));
    form += "&client_secret=" + Encode(credential.substr(colon + 1));
  } else {
    form += "&client_secret=" + Encode(credential);
  }
  return form + "&scope=" + Encode(scope);
}

// The RFC 8693 token-exchange form that trades `token` for a fresh one.
std::string TokenExchangeForm(const std::string& token, const std::string& scope) {
  return "grant_type=" + Encode("urn:ietf:params:oauth:grant-type:token-exchange") +
         "&subject_token=" + Encode(token) + "&subject_token_type=" + Encode(kAccessTokenType) +
         "&scope=" + Encode(scope);
}

// POSTs a grant `form` to the token endpoint (with `bearer` as the Authorization when not
// empty); the token and its lifetime (0: none given).
Result<std::pair<std::string, int64_t>> FetchToken(const io::HttpClient& http,
                                                   const std::string& token_uri,
                                                   const std::string& form,
                                                   const std::string& bearer,
                                                   const std::string& catalog_name) {
  io::HttpRequest request;
  request.method = "POST";
  request.url = token_uri;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                     {"Accept", "application/json"}};
  if (!bearer.empty()) request.headers.emplace_back("Authorization", "Bearer " + bearer);
  request.body = form;
  request.what = fmt::format("rest catalog {}: OAuth2 token request to {}", catalog_name,
                             io::RedactUri(token_uri));
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, http.Send(request));
  if (r.status != 200) {
    return Status::Invalid("{}: refused ({}); check credential and scope", request.what,
                           ServerMessage(r));
  }
  FLOE_ASSIGN_OR_RAISE(json body, ParseBody(r, request.what));
  if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string()) {
    return Status::IOError("{}: the answer holds no access_token", request.what);
  }
  int64_t expires_in = 0;
  if (body.contains("expires_in") && body["expires_in"].is_number_integer()) {
    expires_in = body["expires_in"].get<int64_t>();
  }
  return std::make_pair(body["access_token"].get<std::string>(), expires_in);
}

}  // namespace

namespace {

// The `exp` claim (seconds since the epoch) of a JWT, or nullopt for another token.
std::optional<int64_t> JwtExpiry(const std::string& token) {
  const size_t first = token.find('.');
  const size_t second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos) return std::nullopt;
  std::optional<std::string> claims =
      Base64Decode(std::string_view(token).substr(first + 1, second - first - 1));
  if (!claims) return std::nullopt;
  json body = json::parse(*claims, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("exp") || !body["exp"].is_number()) return std::nullopt;
  return body["exp"].get<int64_t>();
}

}  // namespace

void RestCatalog::Session::SetExpiry(int64_t expires_in, Clock::time_point now) {
  expires_at.reset();
  lifetime = std::chrono::seconds(0);
  if (expires_in > 0) {
    lifetime = std::chrono::seconds(expires_in);
    expires_at = now + lifetime;
  } else if (std::optional<int64_t> exp = JwtExpiry(token)) {
    expires_at = Clock::time_point(std::chrono::seconds(*exp));
    lifetime = std::chrono::duration_cast<std::chrono::seconds>(*expires_at - now);
  }
}

Status RestCatalog::Session::Refresh(const io::HttpClient& http, const std::string& catalog,
                                     Clock::time_point now, bool exchange_first) {
  Result<std::pair<std::string, int64_t>> fresh =
      Status::Invalid("rest catalog {}: the token cannot be refreshed", catalog);
  if (exchange_first && exchange && !token.empty()) {
    fresh = FetchToken(http, token_uri, TokenExchangeForm(token, scope), token, catalog);
  }
  if (!fresh.ok() && !credential.empty()) {
    fresh = FetchToken(http, token_uri, ClientCredentialsForm(credential, scope), "", catalog);
  }
  if (!fresh.ok()) return fresh.status();
  token = fresh->first;
  SetExpiry(fresh->second, now);
  return Status::OK();
}

Status RestCatalog::Initialize() {
  base_ = options_.uri;
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
  // `ssl.cabundle` (pyiceberg's name): the authorities an https:// catalog is checked against.
  if (auto ca = options_.properties.find("ssl.cabundle"); ca != options_.properties.end()) {
    options_.http.ca_file = ca->second;
  }
  http_ = std::make_unique<io::HttpClient>(options_.http);
  const auto& props = options_.properties;
  auto get = [&](const std::string& key) {
    auto it = props.find(key);
    return it == props.end() ? std::string() : it->second;
  };
  session_->token = get("token");
  session_->credential = get("credential");
  if (!get("scope").empty()) session_->scope = get("scope");
  session_->token_uri = get("oauth2-server-uri");
  if (session_->token_uri.empty()) session_->token_uri = base_ + "/v1/oauth/tokens";
  for (const auto& [key, value] : props) {
    if (key.rfind("header.", 0) == 0 && key.size() > 7) {
      session_->headers.emplace_back(key.substr(7), value);
    }
  }
  session_->refresh = AsciiLower(get("token-refresh-enabled")) != "false";
  session_->exchange = AsciiLower(get("token-exchange-enabled")) != "false";
  if (!session_->token.empty()) {
    // A given token is used as it is (its end from its JWT `exp` claim, if it has one); the
    // credential, if any, is for refreshing it.
    session_->SetExpiry(0, options_.clock());
  } else if (!session_->credential.empty()) {
    FLOE_RETURN_NOT_OK(
        session_->Refresh(*http_, options_.name, options_.clock(), /*exchange_first=*/false));
  }

  Call config;
  config.path = "config";
  if (!options_.warehouse.empty()) config.query.emplace_back("warehouse", options_.warehouse);
  config.what =
      fmt::format("rest catalog {}: GET {}/v1/config", options_.name, io::RedactUri(base_));
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(config));
  if (r.status != 200) return MapError(r, ErrorContext(config.what));
  FLOE_ASSIGN_OR_RAISE(json body, ParseBody(r, config.what));
  std::map<std::string, std::string> client = props;
  if (!options_.warehouse.empty()) client["warehouse"] = options_.warehouse;
  FLOE_ASSIGN_OR_RAISE(properties_, MergeRestConfig(body, client));
  if (auto it = properties_.find("uri"); it != properties_.end() && !it->second.empty()) {
    base_ = it->second;
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }
  if (auto it = properties_.find("prefix"); it != properties_.end() && !it->second.empty()) {
    prefix_ = it->second;
    while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
    prefix_ += "/";
  }
  if (body.contains("endpoints") && body["endpoints"].is_array()) {
    for (const json& e : body["endpoints"]) {
      if (e.is_string()) endpoints_.insert(e.get<std::string>());
    }
  } else {
    endpoints_ = DefaultEndpoints();
  }
  FLOE_ASSIGN_OR_RAISE(io_, io::MakeResolvingFileIO(options_.local, properties_));
  return Status::OK();
}

bool RestCatalog::Serves(const std::string& endpoint) const {
  return endpoints_.count(endpoint) > 0;
}

std::string RestCatalog::ToString() const {
  std::vector<std::string> shown;
  for (const auto& [key, value] : io::RedactProperties(properties_)) {
    shown.push_back(key + "=" + value);
  }
  return fmt::format("rest catalog {} at {} {{{}}}", options_.name, io::RedactUri(base_),
                     fmt::join(shown, ", "));
}

Result<io::HttpResponse> RestCatalog::Send(const Call& call) const {
  std::string body_text;
  if (call.body.has_value()) body_text = call.body->dump();
  for (int attempt = 0;; ++attempt) {
    std::string token;
    {
      std::lock_guard<std::mutex> lock(session_->mutex);
      // A token with a lifetime is refreshed before it runs out: within a tenth of its
      // lifetime (at most five minutes) of the end, in milliseconds, so that a token of a
      // few seconds is renewed before its end too.
      if (session_->refresh && session_->CanRefresh() && session_->expires_at.has_value()) {
        const auto margin = std::min<std::chrono::milliseconds>(
            std::chrono::minutes(5),
            std::chrono::duration_cast<std::chrono::milliseconds>(session_->lifetime) / 10);
        if (options_.clock() + margin >= *session_->expires_at) {
          FLOE_RETURN_NOT_OK(session_->Refresh(*http_, options_.name, options_.clock(),
                                               /*exchange_first=*/true));
        }
      }
      token = session_->token;
    }
    io::HttpRequest request;
    request.method = call.method;
    request.url = Url(call.path);
    for (size_t i = 0; i < call.query.size(); ++i) {
      request.url += i == 0 ? '?' : '&';
      request.url += Encode(call.query[i].first) + "=" + Encode(call.query[i].second);
    }
    request.headers = {{"Accept", "application/json"}, {"X-Client-Version", "floe"}};
    if (call.body.has_value()) request.headers.emplace_back("Content-Type", "application/json");
    if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
    if (call.delegation) {
      request.headers.emplace_back("X-Iceberg-Access-Delegation", kVendedCredentials);
    }
    for (const auto& header : session_->headers) request.headers.push_back(header);
    request.body = body_text;
    request.accept_compressed = true;
    // A commit's 503 is an answer to map, not to retry: the spec leaves its outcome open.
    request.retry_statuses = call.commit ? std::vector<long>{429} : std::vector<long>{429, 503};
    request.what = call.what;
    FLOE_ASSIGN_OR_RAISE(io::HttpResponse response, http_->Send(request));
    // 401 (or 419, the expired-token status some servers send): a new token, then once more.
    if ((response.status == 401 || response.status == 419) && attempt == 0 &&
        !session_->credential.empty()) {
      std::lock_guard<std::mutex> lock(session_->mutex);
      if (session_->token == token) {
        // The token was refused: exchanging it cannot help; the credentials can.
        FLOE_RETURN_NOT_OK(session_->Refresh(*http_, options_.name, options_.clock(),
                                             /*exchange_first=*/false));
      }
      continue;
    }
    return response;
  }
}

// ---------------------------------------------------------------------------------------
// Namespaces

namespace {

// A namespace as one path segment or query value: its levels joined by the separator
// (0x1F unless the server's config names another), each part percent-encoded.
std::string NamespacePath(const Namespace& ns, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += Encode(separator);
    out += Encode(ns[i]);
  }
  return out;
}

std::string NamespaceParam(const Namespace& ns, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += separator;
    out += ns[i];
  }
  return out;
}

// Decodes %XX escapes (the separator property is given encoded, "%1F").
std::string PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const std::string hex = text.substr(i + 1, 2);
      char* end = nullptr;
      const long value = std::strtol(hex.c_str(), &end, 16);
      if (end == hex.c_str() + 2) {
        out.push_back(static_cast<char>(value));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace

namespace {
std::string Separator(const std::map<std::string, std::string>& properties) {
  auto it = properties.find("namespace-separator");
  if (it == properties.end() || it->second.empty()) return "\x1f";
  return PercentDecode(it->second);
}
}  // namespace

Status RestCatalog::CreateNamespace(const Namespace& ns,
                                    const std::map<std::string, std::string>& properties) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  for (const std::string& level : ns) {
    FLOE_RETURN_NOT_OK(ValidatePathSegment("namespace level", level));
  }
  Call call;
  call.method = "POST";
  call.path = prefix_ + "namespaces";
  call.body = json{{"namespace", ns}, {"properties", properties}};
  call.what = "create namespace " + NamespaceToString(ns);
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  ErrorContext c(call.what, ns);
  c.conflict = fmt::format("namespace {} already exists", NamespaceToString(ns));
  return MapError(r, c);
}

Result<std::vector<json>> RestCatalog::AllPages(
    Call call, const std::string& key,
    const std::function<Status(const io::HttpResponse&)>& refused) const {
  if (auto it = properties_.find("rest-page-size"); it != properties_.end()) {
    call.query.emplace_back("pageSize", it->second);
  }
  const size_t fixed = call.query.size();
  std::vector<json> items;
  std::string page;
  while (true) {
    call.query.resize(fixed);
    if (!page.empty()) call.query.emplace_back("pageToken", page);
    FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
    if (r.status != 200) return refused(r);
    FLOE_ASSIGN_OR_RAISE(json body, ParseBody(r, call.what));
    if (!body.is_object() || !body.contains(key) || !body[key].is_array()) {
      return Status::IOError("{}: the answer has no {} list", call.what, key);
    }
    for (json& item : body[key]) items.push_back(std::move(item));
    page = body.contains("next-page-token") && body["next-page-token"].is_string()
               ? body["next-page-token"].get<std::string>()
               : "";
    if (page.empty()) return items;
  }
}

Result<bool> RestCatalog::Exists(
    Call call, const std::string& head_endpoint,
    const std::function<Status(const io::HttpResponse&)>& refused) const {
  if (Serves(head_endpoint)) call.method = "HEAD";
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return true;
  if (r.status == 404) return false;
  return refused(r);
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces(const Namespace& parent) const {
  if (!parent.empty()) FLOE_RETURN_NOT_OK(ValidateNamespace(parent));
  Call call;
  call.path = prefix_ + "namespaces";
  if (!parent.empty()) {
    call.query.emplace_back("parent", NamespaceParam(parent, Separator(properties_)));
  }
  call.what =
      parent.empty() ? "list namespaces" : "list namespaces in " + NamespaceToString(parent);
  FLOE_ASSIGN_OR_RAISE(std::vector<json> items,
                       AllPages(call, "namespaces", [&](const io::HttpResponse& r) {
                         ErrorContext c(call.what);
                         if (!parent.empty()) c.ns = parent;
                         return MapError(r, c);
                       }));
  std::vector<Namespace> out;
  for (const json& ns : items) {
    if (!ns.is_array()) return Status::IOError("{}: a namespace is not a list", call.what);
    out.push_back(ns.get<Namespace>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  Call call;
  call.path = prefix_ + "namespaces/" + NamespacePath(ns, Separator(properties_));
  call.what = "check namespace " + NamespaceToString(ns);
  return Exists(call, "HEAD /v1/{prefix}/namespaces/{namespace}", [&](const io::HttpResponse& r) {
    return MapError(r, ErrorContext(call.what, ns));
  });
}

Result<std::map<std::string, std::string>> RestCatalog::LoadNamespaceProperties(
    const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  Call call;
  call.path = prefix_ + "namespaces/" + NamespacePath(ns, Separator(properties_));
  call.what = "load namespace " + NamespaceToString(ns);
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) return MapError(r, ErrorContext(call.what, ns));
  FLOE_ASSIGN_OR_RAISE(json body, ParseBody(r, call.what));
  return StringMap(body.is_object() && body.contains("properties") ? body["properties"] : json());
}

Status RestCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                              const std::set<std::string>& removals,
                                              const std::map<std::string, std::string>& updates) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  for (const std::string& key : removals) {
    if (updates.count(key) > 0) {
      return Status::Invalid("namespace {}: property '{}' is both updated and removed",
                             NamespaceToString(ns), key);
    }
  }
  Call call;
  call.method = "POST";
  call.path = prefix_ + "namespaces/" + NamespacePath(ns, Separator(properties_)) + "/properties";
  call.body = json{{"removals", removals}, {"updates", updates}};
  call.what = "update properties of namespace " + NamespaceToString(ns);
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  return MapError(r, ErrorContext(call.what, ns));
}

Status RestCatalog::DropNamespace(const Namespace& ns) {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  Call call;
  call.method = "DELETE";
  call.path = prefix_ + "namespaces/" + NamespacePath(ns, Separator(properties_));
  call.what = "drop namespace " + NamespaceToString(ns);
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  ErrorContext c(call.what, ns);
  const std::string name = NamespaceToString(ns);
  if (r.status == 409) {
    // Said as the other catalogs say it: what the namespace still holds.
    c.conflict = fmt::format("namespace {} is not empty", name);
    auto tables = ListTables(ns);
    if (tables.ok() && !tables->empty()) {
      c.conflict +=
          fmt::format(": it holds {} table{}", tables->size(), tables->size() == 1 ? "" : "s");
    } else if (auto children = ListNamespaces(ns); children.ok() && !children->empty()) {
      c.conflict += ": it holds namespace " + NamespaceToString(children->front());
    }
  }
  return MapError(r, c);
}

// ---------------------------------------------------------------------------------------
// Tables

namespace {
std::string TablePath(const std::string& prefix, const TableIdentifier& id,
                      const std::string& separator) {
  return prefix + "namespaces/" + NamespacePath(id.ns, separator) + "/tables/" + Encode(id.name);
}
}  // namespace

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) const {
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  Call call;
  call.path = prefix_ + "namespaces/" + NamespacePath(ns, Separator(properties_)) + "/tables";
  call.what = "list tables in " + NamespaceToString(ns);
  FLOE_ASSIGN_OR_RAISE(std::vector<json> items,
                       AllPages(call, "identifiers", [&](const io::HttpResponse& r) {
                         return MapError(r, ErrorContext(call.what, ns));
                       }));
  std::vector<TableIdentifier> out;
  for (const json& id : items) {
    if (!id.is_object() || !id.contains("namespace") || !id.contains("name")) {
      return Status::IOError("{}: an identifier without namespace and name", call.what);
    }
    out.push_back({id["namespace"].get<Namespace>(), id["name"].get<std::string>()});
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> RestCatalog::TableExists(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  Call call;
  call.path = TablePath(prefix_, id, Separator(properties_));
  call.what = "check table " + id.ToString();
  return Exists(
      call, "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      [&](const io::HttpResponse& r) { return MapError(r, ErrorContext(call.what, id.ns, id)); });
}

Result<std::shared_ptr<const io::FileIO>> RestCatalog::TableIo(const TableIdentifier& id,
                                                               const std::string& location,
                                                               const json& result) const {
  // The vended settings over the catalog's, one FileIO per distinct setting; credentials
  // that expire are renewed through this catalog while it is open (held weakly: a table
  // may outlive its catalog, and the catalog holds the FileIOs it made).
  io::CredentialsRenewal renewal;
  renewal.what = fmt::format("table {} of rest catalog {}", id.ToString(), options_.name);
  renewal.clock = options_.clock;
  renewal.refresh = [catalog = weak_from_this(), id, location, what = renewal.what](
                        const io::ExpiringCredentials&) -> Result<io::ExpiringCredentials> {
    std::shared_ptr<const RestCatalog> open = catalog.lock();
    if (open == nullptr) {
      return Status::Invalid(
          "{}: its S3 credentials expire and cannot be renewed: the catalog "
          "is closed",
          what);
    }
    return open->RenewCredentials(id, location);
  };
  return io::TableFileIO(io_, VendedTableProperties(result, location), &renewal);
}

Result<io::ExpiringCredentials> RestCatalog::RenewCredentials(const TableIdentifier& id,
                                                              const std::string& location) const {
  Call call;
  call.path = TablePath(prefix_, id, Separator(properties_));
  if (Serves("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials")) {
    call.path += "/credentials";
    call.what = "renew the S3 credentials of table " + id.ToString();
  } else {
    call.delegation = true;
    call.what = "load table " + id.ToString() + " to renew its S3 credentials";
  }
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) return MapError(r, ErrorContext(call.what, std::nullopt, id));
  FLOE_ASSIGN_OR_RAISE(json result, ParseBody(r, call.what));
  if (!result.is_object()) return Status::IOError("{}: the answer is not an object", call.what);
  // A new load may find the table moved: its credentials are for where it is now.
  std::string at = location;
  if (result.contains("metadata") && result["metadata"].is_object() &&
      result["metadata"].contains("location") && result["metadata"]["location"].is_string()) {
    at = result["metadata"]["location"].get<std::string>();
  }
  // The credentials answer has the load result's `storage-credentials`, longest prefix first.
  return io::ExpiringCredentialsFrom(VendedTableProperties(result, at),
                                     fmt::format("{} (at {})", call.what, io::RedactUri(at)));
}

Result<iceberg::Table> RestCatalog::TableFromLoadResult(const TableIdentifier& id,
                                                        const json& result,
                                                        const std::string& what) const {
  if (!result.is_object() || !result.contains("metadata") || !result["metadata"].is_object()) {
    return Status::IOError("{}: the answer holds no table metadata", what);
  }
  iceberg::Table table;
  if (result.contains("metadata-location") && result["metadata-location"].is_string()) {
    table.metadata_location = result["metadata-location"].get<std::string>();
  }
  FLOE_ASSIGN_OR_RAISE(table.metadata, iceberg::TableMetadataFromJson(
                                           result["metadata"], table.metadata_location.empty()
                                                                   ? "metadata of " + id.ToString()
                                                                   : table.metadata_location));
  FLOE_ASSIGN_OR_RAISE(table.io, TableIo(id, table.metadata->location, result));
  return table;
}

Result<iceberg::Table> RestCatalog::CreateTable(const TableIdentifier& id,
                                                const CreateTableRequest& request) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  for (const std::string& level : id.ns) {
    FLOE_RETURN_NOT_OK(ValidatePathSegment("namespace level", level));
  }
  FLOE_RETURN_NOT_OK(ValidatePathSegment("table name", id.name));
  if (request.schema == nullptr) {
    return Status::Invalid("create table {}: no schema given", id.ToString());
  }
  FLOE_ASSIGN_OR_RAISE(json schema, iceberg::SchemaToJson(*request.schema));
  json body = {{"name", id.name}, {"schema", std::move(schema)}};
  if (!request.location.empty()) body["location"] = request.location;
  if (request.spec != nullptr) body["partition-spec"] = iceberg::PartitionSpecToJson(*request.spec);
  if (request.sort_order != nullptr) {
    body["write-order"] = iceberg::SortOrderToJson(*request.sort_order);
  }
  std::map<std::string, std::string> properties = request.properties;
  properties.emplace("format-version", std::to_string(request.format_version));
  body["properties"] = properties;
  Call call;
  call.method = "POST";
  call.path = prefix_ + "namespaces/" + NamespacePath(id.ns, Separator(properties_)) + "/tables";
  call.body = std::move(body);
  call.delegation = true;
  call.what = "create table " + id.ToString();
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) {
    ErrorContext c(call.what, id.ns);
    c.conflict = fmt::format("table {} already exists", id.ToString());
    return MapError(r, c);
  }
  FLOE_ASSIGN_OR_RAISE(json result, ParseBody(r, call.what));
  return TableFromLoadResult(id, result, call.what);
}

Result<iceberg::Table> RestCatalog::LoadTable(const TableIdentifier& id) const {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  Call call;
  call.path = TablePath(prefix_, id, Separator(properties_));
  call.delegation = true;
  call.what = "load table " + id.ToString();
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) return MapError(r, ErrorContext(call.what, std::nullopt, id));
  FLOE_ASSIGN_OR_RAISE(json result, ParseBody(r, call.what));
  return TableFromLoadResult(id, result, call.what);
}

Result<iceberg::Table> RestCatalog::RegisterTable(const TableIdentifier& id,
                                                  const std::string& metadata_location) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  if (metadata_location.empty()) {
    return Status::Invalid("register table {}: no metadata file given", id.ToString());
  }
  Call call;
  call.method = "POST";
  call.path = prefix_ + "namespaces/" + NamespacePath(id.ns, Separator(properties_)) + "/register";
  call.body = json{{"name", id.name}, {"metadata-location", metadata_location}};
  call.delegation = true;
  call.what = "register table " + id.ToString();
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) {
    ErrorContext c(call.what, id.ns);
    c.conflict = fmt::format("table {} already exists", id.ToString());
    // A metadata file that is missing is the server's 404 too: say which.
    if (r.status == 404 && ServerErrorType(r) != "NoSuchNamespaceException") {
      return Status::NotFound("{}: {}", call.what, ServerMessage(r));
    }
    return MapError(r, c);
  }
  FLOE_ASSIGN_OR_RAISE(json result, ParseBody(r, call.what));
  return TableFromLoadResult(id, result, call.what);
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(from));
  FLOE_RETURN_NOT_OK(ValidateIdentifier(to));
  Call call;
  call.method = "POST";
  call.path = prefix_ + "tables/rename";
  call.body = json{{"source", IdentifierJson(from)}, {"destination", IdentifierJson(to)}};
  call.what = fmt::format("rename table {} to {}", from.ToString(), to.ToString());
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  ErrorContext c(call.what);
  if (ServerErrorType(r) == "NoSuchNamespaceException") {
    c.ns = to.ns;
  } else {
    c.table = from;
  }
  c.conflict = fmt::format("table {} already exists", to.ToString());
  return MapError(r, c);
}

Status RestCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  Call call;
  call.method = "DELETE";
  call.path = TablePath(prefix_, id, Separator(properties_));
  if (purge) call.query.emplace_back("purgeRequested", "true");
  call.what = fmt::format("drop table {}{}", id.ToString(), purge ? " (purge)" : "");
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  return MapError(r, ErrorContext(call.what, std::nullopt, id));
}

Result<iceberg::Table> RestCatalog::CommitTable(
    const TableIdentifier& id, const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_RETURN_NOT_OK(ValidateIdentifier(id));
  // The spec requires a snapshot summary's `operation`, and readers reject a snapshot
  // without one; the server may not check, so a commit that would break the table is
  // refused here.
  for (const iceberg::TableUpdate& update : updates) {
    if (const auto* add = std::get_if<iceberg::update::AddSnapshot>(&update);
        add != nullptr && add->snapshot.summary.count("operation") == 0) {
      return Status::Invalid("commit to table {}: snapshot {} has no 'operation' in its summary",
                             id.ToString(), add->snapshot.snapshot_id);
    }
  }
  Call call;
  call.method = "POST";
  call.path = TablePath(prefix_, id, Separator(properties_));
  FLOE_ASSIGN_OR_RAISE(call.body, CommitRequestJson(id, requirements, updates));
  call.commit = true;
  call.what = "commit to table " + id.ToString();
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status != 200) {
    ErrorContext c(call.what, id.ns, id);
    c.commit = true;
    return MapError(r, c);
  }
  FLOE_ASSIGN_OR_RAISE(json result, ParseBody(r, call.what));
  return TableFromLoadResult(id, result, call.what);
}

Status RestCatalog::CommitTransaction(const std::vector<TableCommit>& commits) {
  if (!Serves("POST /v1/{prefix}/transactions/commit")) {
    return Status::NotSupported("rest catalog {}: the server does not serve multi-table commits",
                                options_.name);
  }
  json changes = json::array();
  std::vector<std::string> names;
  for (const TableCommit& commit : commits) {
    FLOE_RETURN_NOT_OK(ValidateIdentifier(commit.id));
    FLOE_ASSIGN_OR_RAISE(json change,
                         CommitRequestJson(commit.id, commit.requirements, commit.updates));
    changes.push_back(std::move(change));
    names.push_back(commit.id.ToString());
  }
  Call call;
  call.method = "POST";
  call.path = prefix_ + "transactions/commit";
  call.body = json{{"table-changes", std::move(changes)}};
  call.commit = true;
  call.what = fmt::format("commit to tables {}", fmt::join(names, ", "));
  FLOE_ASSIGN_OR_RAISE(io::HttpResponse r, Send(call));
  if (r.status == 200 || r.status == 204) return Status::OK();
  ErrorContext c(call.what);
  c.commit = true;
  return MapError(r, c);
}

}  // namespace floe::catalog
