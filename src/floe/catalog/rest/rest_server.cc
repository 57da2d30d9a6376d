#include "floe/catalog/rest/rest_server.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/common/ascii.h"
#include "floe/common/base64.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/sts_client.h"

namespace floe::catalog {

using nlohmann::json;
using Clock = std::chrono::system_clock;

namespace {

constexpr const char* kAccessTokenType = "urn:ietf:params:oauth:token-type:access_token";
constexpr const char* kTokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
// At most this many live tokens: a client that asks for tokens in a loop cannot grow the
// server without bound (expired ones are dropped first).
constexpr size_t kMaxLiveTokens = 100000;

io::HttpServerResponse JsonAnswer(int status, const json& body) {
  io::HttpServerResponse response;
  response.status = status;
  response.body = body.dump();
  return response;
}

io::HttpServerResponse NoContent() {
  io::HttpServerResponse response;
  response.status = 204;
  return response;
}

// The spec's ErrorModel.
io::HttpServerResponse ErrorAnswer(int status, std::string_view type, std::string_view message) {
  return JsonAnswer(status,
                    json{{"error", {{"message", message}, {"type", type}, {"code", status}}}});
}

// An OAuth2 error (RFC 6749 section 5.2).
io::HttpServerResponse OAuthError(int status, std::string_view error,
                                  std::string_view description) {
  return JsonAnswer(status, json{{"error", error}, {"error_description", description}});
}

// ---------------------------------------------------------------------------------------
// Request bodies: each field read with an error that names it.

class Fields {
 public:
  Fields(const json& object, std::string what) : object_(object), what_(std::move(what)) {}

  static Result<json> Parse(const std::string& body, const std::string& what) {
    json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Status::Invalid("{}: the body is not valid JSON", what);
    if (!parsed.is_object()) return Status::Invalid("{}: the body must be a JSON object", what);
    return parsed;
  }

  const json* Find(std::string_view field) const {
    auto it = object_.find(field);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }
  Result<const json*> Require(std::string_view field) const {
    const json* value = Find(field);
    if (value == nullptr) return Status::Invalid("{}: field '{}' is missing", what_, field);
    return value;
  }
  Status Wrong(std::string_view field, std::string_view expected) const {
    return Status::Invalid("{}: field '{}' must be {}", what_, field, expected);
  }

  Result<std::string> String(std::string_view field) const {
    FLOE_ASSIGN_OR_RAISE(const json* value, Require(field));
    if (!value->is_string()) return Wrong(field, "a string");
    return value->get<std::string>();
  }
  Result<std::optional<std::string>> OptionalString(std::string_view field) const {
    const json* value = Find(field);
    if (value == nullptr) return std::optional<std::string>();
    if (!value->is_string()) return Wrong(field, "a string");
    return std::optional<std::string>(value->get<std::string>());
  }
  Result<bool> Bool(std::string_view field, bool fallback) const {
    const json* value = Find(field);
    if (value == nullptr) return fallback;
    if (!value->is_boolean()) return Wrong(field, "true or false");
    return value->get<bool>();
  }
  Result<std::vector<std::string>> Strings(std::string_view field, bool required) const {
    const json* value = Find(field);
    if (value == nullptr) {
      if (required) return Status::Invalid("{}: field '{}' is missing", what_, field);
      return std::vector<std::string>();
    }
    if (!value->is_array()) return Wrong(field, "an array of strings");
    std::vector<std::string> out;
    for (const json& item : *value) {
      if (!item.is_string()) return Wrong(field, "an array of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  Result<std::map<std::string, std::string>> StringMap(std::string_view field) const {
    const json* value = Find(field);
    std::map<std::string, std::string> out;
    if (value == nullptr) return out;
    if (!value->is_object()) return Wrong(field, "an object of strings");
    for (const auto& [key, item] : value->items()) {
      if (!item.is_string()) {
        return Status::Invalid("{}: field '{}': the value of '{}' must be a string", what_, field,
                               key);
      }
      out[key] = item.get<std::string>();
    }
    return out;
  }
  Result<Namespace> NamespaceField(std::string_view field) const {
    FLOE_ASSIGN_OR_RAISE(std::vector<std::string> levels, Strings(field, true));
    Namespace ns(levels.begin(), levels.end());
    Status valid = ValidateNamespace(ns);
    if (!valid.ok()) return Status::Invalid("{}: field '{}': {}", what_, field, valid.message());
    return ns;
  }
  Result<TableIdentifier> Identifier(std::string_view field) const {
    FLOE_ASSIGN_OR_RAISE(const json* value, Require(field));
    if (!value->is_object()) return Wrong(field, "an object with 'namespace' and 'name'");
    Fields inner(*value, fmt::format("{}: field '{}'", what_, field));
    TableIdentifier id;
    FLOE_ASSIGN_OR_RAISE(id.ns, inner.NamespaceField("namespace"));
    FLOE_ASSIGN_OR_RAISE(id.name, inner.String("name"));
    if (id.name.empty()) return Status::Invalid("{}: field '{}.name' is empty", what_, field);
    return id;
  }
  Result<const json*> Array(std::string_view field) const {
    FLOE_ASSIGN_OR_RAISE(const json* value, Require(field));
    if (!value->is_array()) return Wrong(field, "an array");
    return value;
  }
  const std::string& what() const { return what_; }

 private:
  const json& object_;
  std::string what_;
};

// A part of a request parsed by the metadata readers, which call what they cannot read
// corrupt: in a request it is a bad request.
template <typename T>
Result<T> RequestPart(Result<T> parsed) {
  if (!parsed.ok() && parsed.status().code() == StatusCode::kCorrupt) {
    return Status::Invalid("{}", parsed.status().message());
  }
  return parsed;
}

// Calls `fn` on each field id of a type in JSON form: struct field ids, list element ids,
// map key and value ids, nested types included.
void ForEachFieldId(json& type, const std::function<void(json&)>& fn) {
  if (!type.is_object()) return;
  if (auto fields = type.find("fields"); fields != type.end() && fields->is_array()) {
    for (json& field : *fields) {
      if (!field.is_object()) continue;
      if (auto id = field.find("id"); id != field.end()) fn(*id);
      if (auto nested = field.find("type"); nested != field.end()) ForEachFieldId(*nested, fn);
    }
  }
  for (const char* key : {"element-id", "key-id", "value-id"}) {
    if (auto id = type.find(key); id != type.end()) fn(*id);
  }
  for (const char* key : {"element", "key", "value"}) {
    if (auto nested = type.find(key); nested != type.end()) ForEachFieldId(*nested, fn);
  }
}

// The field ids of a create table request are placeholders: the server numbers the new
// table's columns afresh (iceberg::NewTableMetadata), and the partition spec and sort order
// follow their source columns. Clients number them as they please, Spark from 0, an id no
// Iceberg schema holds; so when one is 0, every id of the request moves up by one: distinct
// ids stay distinct and each source still names its column.
void MovePlaceholderIdsAboveZero(json& request) {
  auto schema = request.find("schema");
  if (schema == request.end()) return;
  bool zero = false;
  ForEachFieldId(*schema, [&](json& id) { zero = zero || (id.is_number_integer() && id == 0); });
  if (!zero) return;
  auto up = [](json& id) {
    if (id.is_number_integer()) id = id.get<int64_t>() + 1;
  };
  ForEachFieldId(*schema, up);
  if (auto ids = schema->find("identifier-field-ids"); ids != schema->end() && ids->is_array()) {
    for (json& id : *ids) up(id);
  }
  for (const char* part : {"partition-spec", "write-order"}) {
    auto object = request.find(part);
    if (object == request.end() || !object->is_object()) continue;
    auto fields = object->find("fields");
    if (fields == object->end() || !fields->is_array()) continue;
    for (json& field : *fields) {
      if (!field.is_object()) continue;
      if (auto id = field.find("source-id"); id != field.end()) up(*id);
      if (auto ids = field.find("source-ids"); ids != field.end() && ids->is_array()) {
        for (json& id : *ids) up(id);
      }
    }
  }
}

json IdentifierJson(const TableIdentifier& id) {
  return json{{"namespace", id.ns}, {"name", id.name}};
}

// A namespace as a path segment: its levels joined by the unit separator, percent-decoded.
Result<Namespace> NamespaceFromSegment(const std::string& decoded) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    const size_t end = decoded.find('\x1f', start);
    ns.push_back(decoded.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  FLOE_RETURN_NOT_OK(ValidateNamespace(ns));
  return ns;
}

// A page of `items` (sorted keys) after the request's pageToken, of its pageSize; the
// token of the next page is the last key returned. Without a pageSize, everything.
template <typename T, typename KeyFn>
Result<std::pair<std::vector<T>, std::optional<std::string>>> Page(
    const io::HttpServerRequest& request, std::vector<T> items, KeyFn key) {
  std::optional<size_t> size;
  if (const std::string* text = request.Query("pageSize")) {
    size_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value == 0) {
      return Status::Invalid("query parameter 'pageSize' must be a positive integer, not '{}'",
                             *text);
    }
    size = value;
  }
  size_t from = 0;
  if (const std::string* token = request.Query("pageToken"); token != nullptr && !token->empty()) {
    from = std::upper_bound(items.begin(), items.end(), *token,
                            [&](const std::string& t, const T& item) { return t < key(item); }) -
           items.begin();
  }
  std::optional<std::string> next;
  size_t to = items.size();
  if (size.has_value() && items.size() - from > *size) {
    to = from + *size;
    next = key(items[to - 1]);
  }
  return std::make_pair(std::vector<T>(items.begin() + from, items.begin() + to), next);
}

std::string RandomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

// A client-supplied name as it may appear in a log line: at most 64 characters, control
// characters as '?', so that no request can forge or break log lines.
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 64)) {
    out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  }
  if (text.size() > 64) out += "...";
  return out;
}

bool SecretsEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Tokens

struct RestCatalogService::Tokens {
  struct Grant {
    std::string client;
    Clock::time_point expires_at;
  };
  std::mutex mutex;
  std::unordered_map<std::string, Grant> live;

  // The client a live token was granted to, or nullopt.
  std::optional<std::string> Check(const std::string& token, Clock::time_point now) {
    std::lock_guard lock(mutex);
    auto it = live.find(token);
    if (it == live.end()) return std::nullopt;
    if (it->second.expires_at <= now) {
      live.erase(it);
      return std::nullopt;
    }
    return it->second.client;
  }

  Result<std::string> Grant(const std::string& client, Clock::time_point now,
                            std::chrono::seconds ttl) {
    std::string token = RandomToken();
    if (token.empty()) return Status::IOError("no random bytes for a token");
    std::lock_guard lock(mutex);
    if (live.size() >= kMaxLiveTokens) {
      std::erase_if(live, [&](const auto& entry) { return entry.second.expires_at <= now; });
      if (live.size() >= kMaxLiveTokens) {
        return Status::IOError("too many live tokens ({}); try again later", live.size());
      }
    }
    live[token] = {client, now + ttl};
    return token;
  }
};

// ---------------------------------------------------------------------------------------
// Routes

// What a request is about: its path after /v1/, decoded, and the namespace and table it
// names (for mapping errors to the spec's exception types).
struct RestCatalogService::Route {
  std::vector<std::string> segments;
  std::optional<Namespace> ns;
  std::optional<TableIdentifier> table;
  // Whether `table` is the one the path names (load, commit, drop, ...), rather than one a
  // request creates, registers or renames.
  bool table_in_path = false;
  // The type of a 409 for kConstraint.
  std::string conflict_type = "AlreadyExistsException";
};

RestCatalogService::RestCatalogService(CatalogPtr catalog, RestServerOptions options)
    : catalog_(std::move(catalog)),
      options_(std::move(options)),
      tokens_(std::make_unique<Tokens>()) {
  if (!options_.clock) options_.clock = [] { return Clock::now(); };
}

RestCatalogService::~RestCatalogService() = default;

RestServerStats RestCatalogService::stats() const {
  RestServerStats stats;
  stats.requests = requests_.load();
  stats.token_grants = token_grants_.load();
  stats.unauthorized = unauthorized_.load();
  stats.credentials_vended = credentials_vended_.load();
  return stats;
}

Result<std::map<std::string, std::string>> RestCatalogService::Vend(const TableIdentifier& id,
                                                                    const std::string& location,
                                                                    std::string_view how) {
  FLOE_ASSIGN_OR_RAISE(auto credentials, options_.vendor->Vend(id, location));
  credentials_vended_.fetch_add(1);
  if (options_.log && !credentials.empty()) {
    options_.log(fmt::format("vended storage credentials for table {} ({}, access key {})",
                             id.ToString(), how, credentials["s3.access-key-id"]));
  }
  return credentials;
}

io::HttpServerResponse RestCatalogService::Handle(const io::HttpServerRequest& request) {
  requests_.fetch_add(1);
  constexpr std::string_view kVersion = "/v1/";
  if (request.path.compare(0, kVersion.size(), kVersion) != 0) {
    return ErrorAnswer(404, "NotFoundException",
                       fmt::format("no such endpoint: {} {}", request.method, request.path));
  }
  Route route;
  std::string_view rest = std::string_view(request.path).substr(kVersion.size());
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    Result<std::string> segment = io::PercentDecode(rest.substr(0, slash), false);
    if (!segment.ok()) return ErrorAnswer(400, "BadRequestException", segment.status().message());
    route.segments.push_back(std::move(*segment));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }

  if (route.segments == std::vector<std::string>{"oauth", "tokens"}) {
    if (request.method != "POST") {
      return ErrorAnswer(405, "MethodNotAllowedException", "the token endpoint takes POST");
    }
    return GrantToken(request);
  }
  if (std::optional<io::HttpServerResponse> refused = Authenticate(request)) return *refused;

  Result<io::HttpServerResponse> answer = Dispatch(request, route);
  if (answer.ok()) return std::move(*answer);
  const Status& status = answer.status();
  const std::string message = status.message();
  switch (status.code()) {
    case StatusCode::kNotFound: {
      // A table the path names is missing, whether or not its namespace exists: the spec's
      // answer to a load, commit or drop is NoSuchTableException, as Iceberg's server gives
      // it (Spark's catalog reads metadata table db.t.snapshots only after table 'snapshots'
      // of namespace 'db.t' was not found). A table created or registered in a missing
      // namespace is NoSuchNamespaceException.
      if (route.table.has_value() && !route.table_in_path) {
        Result<bool> ns_exists = catalog_->NamespaceExists(route.table->ns);
        if (ns_exists.ok() && !*ns_exists) {
          return ErrorAnswer(404, "NoSuchNamespaceException", message);
        }
      }
      if (route.table.has_value()) return ErrorAnswer(404, "NoSuchTableException", message);
      if (route.ns.has_value()) return ErrorAnswer(404, "NoSuchNamespaceException", message);
      return ErrorAnswer(404, "NotFoundException", message);
    }
    case StatusCode::kConstraint:
      return ErrorAnswer(409, route.conflict_type, message);
    case StatusCode::kCommitConflict:
      return ErrorAnswer(409, "CommitFailedException", message);
    case StatusCode::kCommitStateUnknown:
      if (options_.log) options_.log(fmt::format("commit state unknown: {}", message));
      return ErrorAnswer(500, "CommitStateUnknownException", message);
    case StatusCode::kSyntax:
    case StatusCode::kBind:
    case StatusCode::kInvalidArgument:
      return ErrorAnswer(400, "BadRequestException", message);
    case StatusCode::kNotSupported:
      return ErrorAnswer(406, "UnsupportedOperationException", message);
    case StatusCode::kIOError:
      if (options_.log)
        options_.log(fmt::format("{} {}: {}", request.method, request.path, message));
      return ErrorAnswer(503, "ServiceUnavailableException", message);
    default:
      if (options_.log)
        options_.log(fmt::format("{} {}: {}", request.method, request.path, message));
      return ErrorAnswer(500, "ServiceFailureException", message);
  }
}

std::optional<io::HttpServerResponse> RestCatalogService::Authenticate(
    const io::HttpServerRequest& request) {
  if (options_.clients.empty()) return std::nullopt;
  const std::string* authorization = request.Header("authorization");
  constexpr std::string_view kBearer = "bearer ";
  if (authorization == nullptr || authorization->size() <= kBearer.size() ||
      AsciiLower(authorization->substr(0, kBearer.size())) != kBearer) {
    unauthorized_.fetch_add(1);
    return ErrorAnswer(401, "NotAuthorizedException",
                       "a bearer token is required (POST /v1/oauth/tokens grants one)");
  }
  if (!tokens_->Check(authorization->substr(kBearer.size()), options_.clock())) {
    unauthorized_.fetch_add(1);
    return ErrorAnswer(401, "NotAuthorizedException", "the bearer token is unknown or expired");
  }
  return std::nullopt;
}

io::HttpServerResponse RestCatalogService::GrantToken(const io::HttpServerRequest& request) {
  if (options_.clients.empty()) {
    return OAuthError(400, "unsupported_grant_type",
                      "this server runs without authentication: no token is needed");
  }
  auto form = io::ParseFormEncoded(request.body);
  if (!form.ok()) return OAuthError(400, "invalid_request", form.status().message());
  std::map<std::string, std::string> fields(form->begin(), form->end());
  auto field = [&](const std::string& name) -> const std::string* {
    auto it = fields.find(name);
    return it == fields.end() ? nullptr : &it->second;
  };
  const std::string* grant = field("grant_type");
  if (grant == nullptr) return OAuthError(400, "invalid_request", "grant_type is missing");

  std::string client;
  if (*grant == "client_credentials") {
    std::string id = field("client_id") ? *field("client_id") : "";
    std::string secret = field("client_secret") ? *field("client_secret") : "";
    // HTTP Basic carries them instead of the form (RFC 6749 section 2.3.1).
    const std::string* authorization = request.Header("authorization");
    constexpr std::string_view kBasic = "basic ";
    if (secret.empty() && authorization != nullptr && authorization->size() > kBasic.size() &&
        AsciiLower(authorization->substr(0, kBasic.size())) == kBasic) {
      std::optional<std::string> pair = Base64Decode(authorization->substr(kBasic.size()));
      const size_t colon = pair ? pair->find(':') : std::string::npos;
      if (colon != std::string::npos) {
        auto decoded_id = io::PercentDecode(pair->substr(0, colon), true);
        auto decoded_secret = io::PercentDecode(pair->substr(colon + 1), true);
        if (decoded_id.ok() && decoded_secret.ok()) {
          id = *decoded_id;
          secret = *decoded_secret;
        }
      }
    }
    auto it = id.empty() ? options_.clients.end() : options_.clients.find(id);
    // A secret alone (credential without "id:") names no client: it must match exactly one.
    if (id.empty()) {
      for (auto c = options_.clients.begin(); c != options_.clients.end(); ++c) {
        if (SecretsEqual(c->second, secret)) it = c;
      }
    }
    if (it == options_.clients.end() || !SecretsEqual(it->second, secret)) {
      unauthorized_.fetch_add(1);
      if (options_.log) {
        options_.log(
            fmt::format("refused a token to client '{}' from {}: wrong client id or "
                        "secret",
                        Printable(id), request.peer));
      }
      return OAuthError(401, "invalid_client", "unknown client or wrong client secret");
    }
    client = it->first;
  } else if (*grant == kTokenExchangeGrant) {
    const std::string* subject = field("subject_token");
    if (subject == nullptr) return OAuthError(400, "invalid_request", "subject_token is missing");
    const std::string* type = field("subject_token_type");
    if (type != nullptr && *type != kAccessTokenType) {
      return OAuthError(400, "invalid_request",
                        fmt::format("subject_token_type '{}' is not supported", *type));
    }
    std::optional<std::string> owner = tokens_->Check(*subject, options_.clock());
    if (!owner.has_value()) {
      unauthorized_.fetch_add(1);
      return OAuthError(400, "invalid_grant", "the subject token is unknown or expired");
    }
    if (const std::string* actor = field("actor_token")) {
      if (!tokens_->Check(*actor, options_.clock()).has_value()) {
        unauthorized_.fetch_add(1);
        return OAuthError(400, "invalid_grant", "the actor token is unknown or expired");
      }
    }
    client = *owner;
  } else {
    return OAuthError(400, "unsupported_grant_type",
                      fmt::format("grant_type '{}' is not supported", *grant));
  }
  Result<std::string> token = tokens_->Grant(client, options_.clock(), options_.token_ttl);
  if (!token.ok()) return OAuthError(503, "temporarily_unavailable", token.status().message());
  token_grants_.fetch_add(1);
  if (options_.log) {
    options_.log(
        fmt::format("granted a token to client '{}' ({}, expires in {} s)", client,
                    *grant == "client_credentials" ? "client credentials" : "token exchange",
                    options_.token_ttl.count()));
  }
  return JsonAnswer(200, json{{"access_token", *token},
                              {"token_type", "bearer"},
                              {"expires_in", options_.token_ttl.count()},
                              {"issued_token_type", kAccessTokenType}});
}

namespace {

// The endpoints of the spec this server serves.
std::vector<std::string> Endpoints(bool transactions, bool credentials) {
  std::vector<std::string> endpoints = {
      "GET /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces",
      "GET /v1/{prefix}/namespaces/{namespace}",
      "HEAD /v1/{prefix}/namespaces/{namespace}",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      "POST /v1/{prefix}/tables/rename",
  };
  if (transactions) endpoints.push_back("POST /v1/{prefix}/transactions/commit");
  if (credentials) {
    endpoints.push_back("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials");
  }
  return endpoints;
}

// A table's metadata as the spec's LoadTableResult / CommitTableResponse.
Result<json> MetadataResult(const std::string& metadata_location,
                            const iceberg::TableMetadata& metadata) {
  FLOE_ASSIGN_OR_RAISE(json body, iceberg::TableMetadataToJson(metadata));
  json result = {{"metadata", std::move(body)}};
  if (!metadata_location.empty()) result["metadata-location"] = metadata_location;
  return result;
}

Result<std::vector<iceberg::TableRequirement>> ParseRequirements(const Fields& fields) {
  FLOE_ASSIGN_OR_RAISE(const json* items, fields.Array("requirements"));
  std::vector<iceberg::TableRequirement> requirements;
  for (size_t i = 0; i < items->size(); ++i) {
    Result<iceberg::TableRequirement> requirement = iceberg::TableRequirementFromJson((*items)[i]);
    if (!requirement.ok()) {
      return Status::Invalid("{}: field 'requirements[{}]': {}", fields.what(), i,
                             requirement.status().message());
    }
    requirements.push_back(std::move(*requirement));
  }
  return requirements;
}

// The updates of a commit request. A new spec or sort order names its source columns by
// id, resolved against the table's current schema (or one the same commit adds): only then
// is the table loaded here. Otherwise the catalog's commit reads the base once, so that a
// commit racing another is decided by the catalog's compare-and-set alone.
Result<std::vector<iceberg::TableUpdate>> ParseUpdates(const Catalog& catalog,
                                                       const TableIdentifier& id,
                                                       const Fields& fields) {
  FLOE_ASSIGN_OR_RAISE(const json* items, fields.Array("updates"));
  bool needs_schema = false;
  for (const json& item : *items) {
    if (item.is_object() && item.contains("action") && item["action"].is_string()) {
      const std::string action = item["action"].get<std::string>();
      needs_schema = needs_schema || action == "add-spec" || action == "add-sort-order";
    }
  }
  iceberg::TableMetadataPtr loaded;
  if (needs_schema) {
    Result<iceberg::Table> table = catalog.LoadTable(id);
    if (table.ok()) {
      loaded = table->metadata;
    } else if (table.status().code() != StatusCode::kNotFound) {
      return table.status();
    }
  }
  const iceberg::TableMetadata* current = loaded.get();
  std::vector<iceberg::TableUpdate> updates;
  iceberg::SchemaPtr last_added;
  for (size_t i = 0; i < items->size(); ++i) {
    Result<iceberg::TableUpdate> update =
        iceberg::TableUpdateFromJson((*items)[i], current, last_added.get());
    if (!update.ok()) {
      return Status::Invalid("{}: field 'updates[{}]': {}", fields.what(), i,
                             update.status().message());
    }
    if (auto* added = std::get_if<iceberg::update::AddSchema>(&*update)) {
      // The table's last-column-id is the larger of its own and the schema's highest id,
      // whatever the request says: Iceberg's server ignores the field (its Java client sends
      // the schema's highest id, below the table's once REPLACE TABLE drops columns).
      added->last_column_id.reset();
      last_added = added->schema;
    }
    updates.push_back(std::move(*update));
  }
  return updates;
}

}  // namespace

Result<io::HttpServerResponse> RestCatalogService::Dispatch(const io::HttpServerRequest& request,
                                                            Route& route) {
  const std::vector<std::string>& s = route.segments;
  const std::string& method = request.method;
  auto body = [&](const std::string& what) -> Result<json> {
    return Fields::Parse(request.body, what);
  };
  auto not_allowed = [&]() -> Result<io::HttpServerResponse> {
    return ErrorAnswer(405, "MethodNotAllowedException",
                       fmt::format("{} is not served on {}", method, request.path));
  };
  // Load results: the metadata, and storage credentials when vended and asked for.
  auto load_result = [&](const TableIdentifier& id, const std::string& metadata_location,
                         const iceberg::TableMetadata& metadata) -> Result<json> {
    FLOE_ASSIGN_OR_RAISE(json result, MetadataResult(metadata_location, metadata));
    result["config"] = json::object();
    const std::string* delegation = request.Header("x-iceberg-access-delegation");
    if (options_.vendor != nullptr && delegation != nullptr &&
        delegation->find("vended-credentials") != std::string::npos) {
      FLOE_ASSIGN_OR_RAISE(auto credentials, Vend(id, metadata.location, "table load"));
      result["config"] = credentials;
      result["storage-credentials"] =
          json::array({json{{"prefix", metadata.location}, {"config", credentials}}});
    }
    return result;
  };

  if (s == std::vector<std::string>{"config"}) {
    if (method != "GET") return not_allowed();
    return JsonAnswer(200, json{{"defaults", options_.defaults},
                                {"overrides", json::object()},
                                {"endpoints", Endpoints(catalog_->SupportsTransactions(),
                                                        options_.vendor != nullptr)}});
  }
  if (s == std::vector<std::string>{"tables", "rename"}) {
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("rename table request"));
    Fields fields(parsed, "rename table request");
    FLOE_ASSIGN_OR_RAISE(TableIdentifier from, fields.Identifier("source"));
    FLOE_ASSIGN_OR_RAISE(TableIdentifier to, fields.Identifier("destination"));
    route.table = from;
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(from));
    if (!exists) return Status::NotFound("table {} does not exist", from.ToString());
    FLOE_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(to.ns));
    if (!ns_exists) {
      return ErrorAnswer(404, "NoSuchNamespaceException",
                         fmt::format("namespace {} does not exist", NamespaceToString(to.ns)));
    }
    FLOE_RETURN_NOT_OK(catalog_->RenameTable(from, to));
    return NoContent();
  }
  if (s == std::vector<std::string>{"transactions", "commit"}) {
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("commit transaction request"));
    Fields fields(parsed, "commit transaction request");
    FLOE_ASSIGN_OR_RAISE(const json* changes, fields.Array("table-changes"));
    std::vector<TableCommit> commits;
    for (size_t i = 0; i < changes->size(); ++i) {
      const json& change = (*changes)[i];
      const std::string what = fmt::format("commit transaction request: table-changes[{}]", i);
      if (!change.is_object()) return Status::Invalid("{} must be an object", what);
      Fields table_fields(change, what);
      TableCommit commit;
      FLOE_ASSIGN_OR_RAISE(commit.id, table_fields.Identifier("identifier"));
      FLOE_ASSIGN_OR_RAISE(commit.requirements, ParseRequirements(table_fields));
      FLOE_ASSIGN_OR_RAISE(commit.updates, ParseUpdates(*catalog_, commit.id, table_fields));
      commits.push_back(std::move(commit));
    }
    FLOE_RETURN_NOT_OK(catalog_->CommitTransaction(commits));
    return NoContent();
  }
  if (s.empty() || s[0] != "namespaces") {
    return ErrorAnswer(404, "NotFoundException",
                       fmt::format("no such endpoint: {} {}", method, request.path));
  }

  // /v1/namespaces
  if (s.size() == 1) {
    if (method == "GET") {
      Namespace parent;
      if (const std::string* text = request.Query("parent"); text != nullptr && !text->empty()) {
        FLOE_ASSIGN_OR_RAISE(parent, NamespaceFromSegment(*text));
        route.ns = parent;
      }
      FLOE_ASSIGN_OR_RAISE(std::vector<Namespace> all, catalog_->ListNamespaces(parent));
      FLOE_ASSIGN_OR_RAISE(auto page, Page(request, std::move(all), [](const Namespace& ns) {
                             return NamespaceToString(ns);
                           }));
      json answer = {{"namespaces", page.first}};
      if (page.second.has_value()) answer["next-page-token"] = *page.second;
      return JsonAnswer(200, answer);
    }
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("create namespace request"));
    Fields fields(parsed, "create namespace request");
    FLOE_ASSIGN_OR_RAISE(Namespace ns, fields.NamespaceField("namespace"));
    FLOE_ASSIGN_OR_RAISE(auto properties, fields.StringMap("properties"));
    route.conflict_type = "AlreadyExistsException";
    FLOE_RETURN_NOT_OK(catalog_->CreateNamespace(ns, properties));
    FLOE_ASSIGN_OR_RAISE(auto stored, catalog_->LoadNamespaceProperties(ns));
    return JsonAnswer(200, json{{"namespace", ns}, {"properties", stored}});
  }

  FLOE_ASSIGN_OR_RAISE(Namespace ns, NamespaceFromSegment(s[1]));
  route.ns = ns;
  if (s.size() == 2) {
    if (method == "GET") {
      FLOE_ASSIGN_OR_RAISE(auto properties, catalog_->LoadNamespaceProperties(ns));
      return JsonAnswer(200, json{{"namespace", ns}, {"properties", properties}});
    }
    if (method == "HEAD") {
      FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->NamespaceExists(ns));
      if (!exists) return Status::NotFound("namespace {} does not exist", NamespaceToString(ns));
      return NoContent();
    }
    if (method == "DELETE") {
      route.conflict_type = "NamespaceNotEmptyException";
      FLOE_RETURN_NOT_OK(catalog_->DropNamespace(ns));
      return NoContent();
    }
    return not_allowed();
  }
  if (s.size() == 3 && s[2] == "properties") {
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("update namespace properties request"));
    Fields fields(parsed, "update namespace properties request");
    FLOE_ASSIGN_OR_RAISE(std::vector<std::string> removals, fields.Strings("removals", false));
    FLOE_ASSIGN_OR_RAISE(auto updates, fields.StringMap("updates"));
    FLOE_ASSIGN_OR_RAISE(auto before, catalog_->LoadNamespaceProperties(ns));
    std::set<std::string> removal_set(removals.begin(), removals.end());
    FLOE_RETURN_NOT_OK(catalog_->UpdateNamespaceProperties(ns, removal_set, updates));
    json removed = json::array(), missing = json::array(), updated = json::array();
    for (const std::string& key : removal_set) {
      (before.count(key) ? removed : missing).push_back(key);
    }
    for (const auto& [key, value] : updates) updated.push_back(key);
    return JsonAnswer(200, json{{"updated", updated}, {"removed", removed}, {"missing", missing}});
  }
  if (s.size() == 3 && s[2] == "register") {
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("register table request"));
    Fields fields(parsed, "register table request");
    TableIdentifier id{ns, ""};
    FLOE_ASSIGN_OR_RAISE(id.name, fields.String("name"));
    FLOE_ASSIGN_OR_RAISE(std::string location, fields.String("metadata-location"));
    FLOE_ASSIGN_OR_RAISE(bool overwrite, fields.Bool("overwrite", false));
    if (overwrite) {
      return Status::NotSupported("register table request: 'overwrite' is not supported");
    }
    route.table = id;
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_->RegisterTable(id, location));
    FLOE_ASSIGN_OR_RAISE(json result, load_result(id, table.metadata_location, *table.metadata));
    return JsonAnswer(200, result);
  }
  if (s.size() == 3 && s[2] == "tables") {
    if (method == "GET") {
      FLOE_ASSIGN_OR_RAISE(std::vector<TableIdentifier> all, catalog_->ListTables(ns));
      FLOE_ASSIGN_OR_RAISE(auto page, Page(request, std::move(all),
                                           [](const TableIdentifier& id) { return id.name; }));
      json identifiers = json::array();
      for (const TableIdentifier& id : page.first) identifiers.push_back(IdentifierJson(id));
      json answer = {{"identifiers", identifiers}};
      if (page.second.has_value()) answer["next-page-token"] = *page.second;
      return JsonAnswer(200, answer);
    }
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("create table request"));
    MovePlaceholderIdsAboveZero(parsed);
    Fields fields(parsed, "create table request");
    TableIdentifier id{ns, ""};
    FLOE_ASSIGN_OR_RAISE(id.name, fields.String("name"));
    route.table = id;
    CreateTableRequest create;
    FLOE_ASSIGN_OR_RAISE(const json* schema, fields.Require("schema"));
    FLOE_ASSIGN_OR_RAISE(create.schema, RequestPart(iceberg::SchemaFromJson(
                                            *schema, "create table request: field 'schema'")));
    if (const json* spec = fields.Find("partition-spec")) {
      FLOE_ASSIGN_OR_RAISE(
          create.spec, RequestPart(iceberg::PartitionSpecFromJson(
                           *spec, *create.schema, "create table request: field 'partition-spec'")));
    }
    if (const json* order = fields.Find("write-order")) {
      FLOE_ASSIGN_OR_RAISE(create.sort_order, RequestPart(iceberg::SortOrderFromJson(
                                                  *order, *create.schema,
                                                  "create table request: field 'write-order'")));
    }
    FLOE_ASSIGN_OR_RAISE(std::optional<std::string> location, fields.OptionalString("location"));
    if (location.has_value()) create.location = *location;
    FLOE_ASSIGN_OR_RAISE(create.properties, fields.StringMap("properties"));
    FLOE_ASSIGN_OR_RAISE(bool stage, fields.Bool("stage-create", false));
    if (!stage) {
      FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_->CreateTable(id, create));
      FLOE_ASSIGN_OR_RAISE(json result, load_result(id, table.metadata_location, *table.metadata));
      return JsonAnswer(200, result);
    }
    // A staged create: the metadata the table would start with, nothing written; the
    // client commits it later with an assert-create requirement.
    FLOE_RETURN_NOT_OK(ValidateNewIdentifier(id));
    FLOE_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(ns));
    if (!ns_exists) return Status::NotFound("namespace {} does not exist", NamespaceToString(ns));
    FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(id));
    if (exists) return Status::Constraint("table {} already exists", id.ToString());
    iceberg::NewTableOptions options;
    options.schema = create.schema;
    options.spec = create.spec;
    options.sort_order = create.sort_order;
    if (create.location.empty()) {
      FLOE_ASSIGN_OR_RAISE(options.location, catalog_->DefaultTableLocation(id));
    } else {
      options.location = create.location;
    }
    options.properties = create.properties;
    options.format_version = create.format_version;
    const int64_t now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(options_.clock().time_since_epoch())
            .count();
    FLOE_ASSIGN_OR_RAISE(iceberg::TableMetadataPtr metadata,
                         iceberg::NewTableMetadata(options, now_ms));
    FLOE_ASSIGN_OR_RAISE(json result, load_result(id, "", *metadata));
    return JsonAnswer(200, result);
  }

  if (s[2] != "tables" || s.size() < 4) {
    return ErrorAnswer(404, "NotFoundException",
                       fmt::format("no such endpoint: {} {}", method, request.path));
  }
  TableIdentifier id{ns, s[3]};
  route.table = id;
  route.table_in_path = true;
  if (id.name.empty()) return Status::Invalid("the table name in the path is empty");
  if (s.size() == 4) {
    if (method == "GET") {
      if (const std::string* snapshots = request.Query("snapshots")) {
        if (*snapshots != "all" && *snapshots != "refs") {
          return Status::Invalid("query parameter 'snapshots' must be 'all' or 'refs', not '{}'",
                                 *snapshots);
        }
      }
      FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_->LoadTable(id));
      FLOE_ASSIGN_OR_RAISE(json result, load_result(id, table.metadata_location, *table.metadata));
      return JsonAnswer(200, result);
    }
    if (method == "HEAD") {
      FLOE_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(id));
      if (!exists) return Status::NotFound("table {} does not exist", id.ToString());
      return NoContent();
    }
    if (method == "DELETE") {
      bool purge = false;
      if (const std::string* text = request.Query("purgeRequested")) {
        // In any case, as the reference server reads it: pyiceberg sends "True".
        const std::string value = AsciiLower(*text);
        if (value != "true" && value != "false") {
          return Status::Invalid("query parameter 'purgeRequested' must be true or false");
        }
        purge = value == "true";
      }
      FLOE_RETURN_NOT_OK(catalog_->DropTable(id, purge));
      return NoContent();
    }
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("commit table request"));
    Fields fields(parsed, "commit table request");
    if (fields.Find("identifier") != nullptr) {
      FLOE_ASSIGN_OR_RAISE(TableIdentifier named, fields.Identifier("identifier"));
      if (named != id) {
        return Status::Invalid("commit table request: field 'identifier' names {}, the path {}",
                               named.ToString(), id.ToString());
      }
    }
    FLOE_ASSIGN_OR_RAISE(auto requirements, ParseRequirements(fields));
    FLOE_ASSIGN_OR_RAISE(auto updates, ParseUpdates(*catalog_, id, fields));
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_->CommitTable(id, requirements, updates));
    FLOE_ASSIGN_OR_RAISE(json result, MetadataResult(table.metadata_location, *table.metadata));
    return JsonAnswer(200, result);
  }
  if (s.size() == 5 && s[4] == "metrics") {
    if (method != "POST") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(json parsed, body("report metrics request"));
    (void)parsed;  // accepted and dropped: floe keeps no scan reports
    return NoContent();
  }
  if (s.size() == 5 && s[4] == "credentials" && options_.vendor != nullptr) {
    if (method != "GET") return not_allowed();
    FLOE_ASSIGN_OR_RAISE(iceberg::Table table, catalog_->LoadTable(id));
    FLOE_ASSIGN_OR_RAISE(auto credentials,
                         Vend(id, table.metadata->location, "credentials endpoint"));
    return JsonAnswer(
        200,
        json{{"storage-credentials",
              json::array({json{{"prefix", table.metadata->location}, {"config", credentials}}})}});
  }
  return ErrorAnswer(404, "NotFoundException",
                     fmt::format("no such endpoint: {} {}", method, request.path));
}

// ---------------------------------------------------------------------------------------
// Vended credentials

namespace {

// The session policy that narrows credentials to the objects under s3://bucket/prefix.
std::string PrefixPolicy(const io::S3Location& at) {
  std::string prefix = at.key;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  const std::string objects = fmt::format("arn:aws:s3:::{}/{}/*", at.bucket, prefix);
  json policy = {
      {"Version", "2012-10-17"},
      {"Statement",
       json::array(
           {json{
                {"Effect", "Allow"},
                {"Action", json::array({"s3:GetObject", "s3:PutObject", "s3:DeleteObject",
                                        "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"})},
                {"Resource", objects}},
            json{{"Effect", "Allow"},
                 {"Action", json::array({"s3:ListBucket", "s3:ListBucketMultipartUploads"})},
                 {"Resource", fmt::format("arn:aws:s3:::{}", at.bucket)},
                 {"Condition",
                  {{"StringLike", {{"s3:prefix", json::array({prefix, prefix + "/*"})}}}}}}})}};
  return policy.dump();
}

class StsCredentialVendor final : public CredentialVendor {
 public:
  StsCredentialVendor(StsVendorOptions options, std::unique_ptr<io::StsClient> sts)
      : options_(std::move(options)), sts_(std::move(sts)) {}

  Result<std::map<std::string, std::string>> Vend(const TableIdentifier& id,
                                                  const std::string& location) override {
    Result<io::S3Location> at = io::ParseS3Uri(location);
    if (!at.ok()) return std::map<std::string, std::string>();  // local files: nothing to vend
    const Clock::time_point now = options_.clock();
    io::TemporaryCredentials credentials;
    {
      std::lock_guard lock(mutex_);
      auto it = cache_.find(location);
      if (it != cache_.end() && it->second.expiration - now > options_.duration / 2) {
        credentials = it->second;
      }
    }
    if (credentials.credentials.access_key_id.empty()) {
      if (options_.role_arn.empty()) {
        FLOE_ASSIGN_OR_RAISE(credentials, sts_->GetSessionToken(options_.duration));
      } else {
        FLOE_ASSIGN_OR_RAISE(credentials,
                             sts_->AssumeRole(options_.role_arn, "floe-" + id.ToString(),
                                              options_.duration, PrefixPolicy(*at)));
      }
      std::lock_guard lock(mutex_);
      constexpr size_t kMaxCached = 1024;
      if (cache_.size() >= kMaxCached) cache_.clear();
      cache_[location] = credentials;
    }
    std::map<std::string, std::string> properties = {
        {"s3.access-key-id", credentials.credentials.access_key_id},
        {"s3.secret-access-key", credentials.credentials.secret_access_key},
        {"s3.session-token", credentials.credentials.session_token},
        {"s3.session-token-expires-at-ms",
         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            credentials.expiration.time_since_epoch())
                            .count())},
        {"client.region", options_.s3.region},
        {"s3.path-style-access", options_.s3.path_style ? "true" : "false"},
    };
    if (!options_.s3.endpoint.empty()) properties["s3.endpoint"] = options_.s3.endpoint;
    return properties;
  }

 private:
  StsVendorOptions options_;
  std::unique_ptr<io::StsClient> sts_;
  std::mutex mutex_;
  std::map<std::string, io::TemporaryCredentials> cache_;
};

}  // namespace

Result<std::shared_ptr<CredentialVendor>> MakeStsCredentialVendor(StsVendorOptions options) {
  if (!options.clock) options.clock = [] { return Clock::now(); };
  if (options.duration.count() <= 0) {
    return Status::Invalid("vended credentials need a positive lifetime");
  }
  io::StsOptions sts;
  sts.endpoint = options.sts_endpoint.empty() ? options.s3.endpoint : options.sts_endpoint;
  sts.region = options.s3.region;
  sts.credentials = options.s3.credentials;
  FLOE_ASSIGN_OR_RAISE(auto client, io::StsClient::Make(std::move(sts)));
  return std::make_shared<StsCredentialVendor>(std::move(options), std::move(client));
}

// ---------------------------------------------------------------------------------------
// The server

Result<std::unique_ptr<RestCatalogServer>> RestCatalogServer::Start(CatalogPtr catalog,
                                                                    RestServerOptions options,
                                                                    io::HttpServerOptions http) {
  auto server = std::unique_ptr<RestCatalogServer>(new RestCatalogServer());
  server->service_ = std::make_unique<RestCatalogService>(std::move(catalog), std::move(options));
  RestCatalogService* service = server->service_.get();
  FLOE_ASSIGN_OR_RAISE(server->http_,
                       io::HttpServer::Start(std::move(http), [service](const auto& request) {
                         return service->Handle(request);
                       }));
  return server;
}

RestCatalogServer::~RestCatalogServer() {
  if (http_ != nullptr) http_->Stop();
}

}  // namespace floe::catalog
