#include "floe/cli/catalog_commands.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "floe/catalog/rest/rest_server.h"
#include "floe/cli/catalog_options.h"
#include "floe/io/resolving_file_io.h"

namespace floe::cli {

namespace {

struct ServeOptions {
  CatalogOptions catalog;
  std::string listen = "127.0.0.1:8181";
  std::vector<std::string> credentials;
  int64_t token_ttl = 3600;
  int threads = 16;
  int64_t max_body_mb = 16;
  std::string tls_certificate;
  std::string tls_private_key;
  bool vend = false;
  std::string vend_role_arn;
  int64_t vend_ttl = 3600;
  std::string sts_endpoint;
};

// "host:port", "[v6]:port" or ":port" (127.0.0.1).
Status ParseListen(const std::string& text, io::HttpServerOptions* http) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Status::Invalid("--listen '{}': expected HOST:PORT", text);
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  int value = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value < 0 || value > 65535) {
    return Status::Invalid("--listen '{}': the port must be a number from 0 to 65535", text);
  }
  http->host = host.empty() ? "127.0.0.1" : host;
  http->port = value;
  return Status::OK();
}

// One line on stderr, stamped with the UTC time to the millisecond.
void Log(const std::string& line) {
  static std::mutex mutex;
  const auto now = std::chrono::system_clock::now();
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  const std::string stamp =
      fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", fmt::gmtime(seconds), ms % 1000);
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "%s floe catalog serve: %s\n", stamp.c_str(), line.c_str());
  std::fflush(stderr);
}

Status Serve(const ServeOptions& o) {
  io::HttpServerOptions http;
  FLOE_RETURN_NOT_OK(ParseListen(o.listen, &http));
  http.threads = o.threads;
  http.max_body_bytes = static_cast<size_t>(o.max_body_mb) << 20;
  http.tls_certificate = o.tls_certificate;
  http.tls_private_key = o.tls_private_key;

  catalog::RestServerOptions options;
  for (const std::string& credential : o.credentials) {
    const size_t colon = credential.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == credential.size()) {
      return Status::Invalid(
          "--credential takes CLIENT_ID:SECRET (one was given without ':' or "
          "with an empty part)");
    }
    options.clients[credential.substr(0, colon)] = credential.substr(colon + 1);
  }
  options.token_ttl = std::chrono::seconds(o.token_ttl);
  options.log = Log;

  FLOE_ASSIGN_OR_RAISE(catalog::CatalogPtr catalog, OpenCatalogFromOptions(o.catalog));
  const std::string described = catalog->ToString();
  if (o.vend) {
    // The catalog's own S3 settings (endpoint, region, its credentials) are what STS is
    // asked with and what clients are told to reach.
    const auto* resolving = dynamic_cast<const io::ResolvingFileIO*>(catalog->io().get());
    if (resolving == nullptr || !resolving->s3_options().has_value()) {
      return Status::Invalid(
          "--vend-credentials needs the catalog's S3 settings (s3.endpoint, s3.access-key-id, "
          "s3.secret-access-key in its configuration, or the AWS environment)");
    }
    catalog::StsVendorOptions vend;
    vend.s3 = resolving->s3_options()->client;
    vend.role_arn = o.vend_role_arn;
    vend.duration = std::chrono::seconds(o.vend_ttl);
    vend.sts_endpoint = o.sts_endpoint;
    FLOE_ASSIGN_OR_RAISE(options.vendor, catalog::MakeStsCredentialVendor(std::move(vend)));
  }
  FLOE_ASSIGN_OR_RAISE(
      auto server, catalog::RestCatalogServer::Start(std::move(catalog), std::move(options), http));
  Log(fmt::format("serving {} at {}", described, server->uri()));
  if (o.credentials.empty()) {
    Log("no --credential given: requests are not authenticated, every client is accepted");
  } else {
    Log(fmt::format("{} OAuth2 client(s); tokens live {} s", o.credentials.size(), o.token_ttl));
  }
  if (o.vend) {
    Log(fmt::format("vending S3 credentials that live {} s ({})", o.vend_ttl,
                    o.vend_role_arn.empty() ? "STS GetSessionToken: the server's own rights"
                                            : "STS AssumeRole of " + o.vend_role_arn +
                                                  ", narrowed to each table's location"));
  }
  // The address on stdout alone, for scripts that asked for port 0.
  std::printf("%s\n", server->uri().c_str());
  std::fflush(stdout);
  // Until a termination signal ends the process (cli/termination.h): the catalog's state is
  // the backing store's, committed request by request, so there is nothing to flush.
  while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

void AddCatalogCommands(CLI::App* app, CommandAction* action) {
  CLI::App* group = app->add_subcommand("catalog", "Catalog services");
  group->require_subcommand(1);
  auto o = std::make_shared<ServeOptions>();
  CLI::App* serve = group->add_subcommand(
      "serve", "Serve a catalog over the Iceberg REST catalog protocol until terminated");
  AddCatalogOptions(serve, &o->catalog);
  serve
      ->add_option("--listen", o->listen,
                   "HOST:PORT to listen on (port 0: a free one; the URI is printed on stdout)")
      ->capture_default_str();
  serve->add_option("--credential", o->credentials,
                    "An OAuth2 client as CLIENT_ID:SECRET (repeatable); without any, requests "
                    "are not authenticated");
  serve->add_option("--token-ttl", o->token_ttl, "Seconds a granted token lives")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--threads", o->threads, "Requests served at once")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--max-body-mb", o->max_body_mb, "Largest request body accepted, in MiB")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--tls-cert", o->tls_certificate, "PEM certificate: serve HTTPS");
  serve->add_option("--tls-key", o->tls_private_key, "PEM private key of --tls-cert");
  serve->add_flag("--vend-credentials", o->vend,
                  "Hand out temporary S3 credentials (from STS) with table loads that ask for "
                  "them, and from the credentials endpoint");
  serve->add_option("--vend-role-arn", o->vend_role_arn,
                    "The role vended credentials assume (AssumeRole, narrowed to the table's "
                    "location); without it, GetSessionToken");
  serve->add_option("--vend-ttl", o->vend_ttl, "Seconds vended credentials live")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve->add_option("--sts-endpoint", o->sts_endpoint,
                    "STS endpoint (default: the S3 endpoint when set, else AWS's)");
  serve->callback([action, o] { *action = [o] { return Serve(*o); }; });
}

}  // namespace floe::cli
