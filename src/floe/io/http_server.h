#pragma once

// A small HTTP/1.1 server for floe's own services (the REST catalog server): requests are
// handed whole (headers and body) to one handler, on a bounded pool of threads, with a
// limit on the body's size, read and write timeouts, and keep-alive. It listens on
// 127.0.0.1 unless told otherwise, on a free port when asked for port 0, and speaks HTTPS
// when given a certificate and key. The transport (cpp-httplib) stays inside
// http_server.cc; the handler sees only these types.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/result.h"

namespace floe::io {

struct HttpServerRequest {
  /// GET, HEAD, POST, PUT, DELETE.
  std::string method;
  /// The path as sent, still percent-encoded ("/v1/namespaces/a%1Fb").
  std::string path;
  /// The query's parameters, percent-decoded, in order.
  std::vector<std::pair<std::string, std::string>> query;
  /// Header names lowercased; the last of repeated headers.
  std::map<std::string, std::string> headers;
  std::string body;
  /// The client's address ("127.0.0.1:51234"), for logs.
  std::string peer;

  /// The first value of query parameter `name`, or nullptr.
  const std::string* Query(const std::string& name) const;
  /// The header's value (name lowercased), or nullptr.
  const std::string* Header(const std::string& name) const;
};

struct HttpServerResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type = "application/json";
};

using HttpHandler = std::function<HttpServerResponse(const HttpServerRequest&)>;

struct HttpServerOptions {
  /// The address to listen on (an IPv4 or IPv6 address, or a host name).
  std::string host = "127.0.0.1";
  /// 0: a free port, chosen by the system (see HttpServer::port()).
  int port = 0;
  /// Requests are handled by this many threads; a keep-alive connection holds its thread
  /// while it waits for its next request (up to keep_alive_timeout).
  int threads = 16;
  /// A larger body is refused with 413 before it is read.
  size_t max_body_bytes = 16 << 20;
  std::chrono::seconds read_timeout{30};
  std::chrono::seconds write_timeout{30};
  std::chrono::seconds keep_alive_timeout{2};
  /// HTTPS when both are set: PEM files of the certificate (chain) and its private key.
  std::string tls_certificate;
  std::string tls_private_key;
};

/// Serves HTTP on a thread of its own from Start until Stop (or destruction).
class HttpServer {
 public:
  /// Binds and starts serving. kIOError naming the address when it cannot bind;
  /// kInvalidArgument when the TLS files cannot be loaded.
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The port it listens on.
  int port() const { return port_; }
  /// "http://127.0.0.1:8181" (https when serving TLS; IPv6 addresses in brackets).
  std::string uri() const;
  /// Stops accepting, lets the requests in progress finish, and joins the threads.
  void Stop();

  struct Impl;

 private:
  HttpServer() = default;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

/// Percent-decodes `text`; with `plus_is_space` (query strings and form bodies, as
/// browsers and Java's URLEncoder write them) a '+' is a space. kInvalidArgument for a '%'
/// not followed by two hex digits.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space);

/// The pairs of a query string or an application/x-www-form-urlencoded body ("a=1&b=x%20y"),
/// decoded; a pair without '=' has an empty value. kInvalidArgument naming a bad escape.
Result<std::vector<std::pair<std::string, std::string>>> ParseFormEncoded(std::string_view text);

}  // namespace floe::io
