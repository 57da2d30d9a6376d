#include "floe/io/http_server.h"

#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "floe/common/ascii.h"

namespace floe::io {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

HttpServerResponse PlainError(int status, std::string message) {
  HttpServerResponse response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::move(message);
  return response;
}

}  // namespace

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const bool complete = i + 2 < text.size();
      const int high = complete ? HexValue(text[i + 1]) : -1;
      const int low = complete ? HexValue(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return Status::Invalid("bad percent-escape at offset {} of '{}'", i, text);
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseFormEncoded(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('&', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view pair = text.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      FLOE_ASSIGN_OR_RAISE(std::string key, PercentDecode(pair.substr(0, eq), true));
      std::string value;
      if (eq != std::string_view::npos) {
        FLOE_ASSIGN_OR_RAISE(value, PercentDecode(pair.substr(eq + 1), true));
      }
      pairs.emplace_back(std::move(key), std::move(value));
    }
    start = end + 1;
  }
  return pairs;
}

const std::string* HttpServerRequest::Query(const std::string& name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return &value;
  }
  return nullptr;
}

const std::string* HttpServerRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? nullptr : &it->second;
}

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  bool tls = false;

  // Turns a transport request into the handler's and its answer back.
  void Serve(const httplib::Request& req, httplib::Response& res) const {
    HttpServerResponse response = Handle(req);
    res.status = response.status;
    for (const auto& [name, value] : response.headers) res.set_header(name, value);
    if (!response.body.empty() || response.status != 204) {
      res.set_content(response.body, response.content_type);
    }
  }

  HttpServerResponse Handle(const httplib::Request& req) const {
    HttpServerRequest request;
    request.method = req.method;
    const std::string& target = req.target;
    const size_t question = target.find('?');
    request.path = target.substr(0, question);
    if (question != std::string::npos) {
      auto query = ParseFormEncoded(std::string_view(target).substr(question + 1));
      if (!query.ok()) return PlainError(400, "bad query string: " + query.status().message());
      request.query = std::move(*query);
    }
    for (const auto& [name, value] : req.headers) {
      request.headers[AsciiLower(name)] = value;
    }
    request.body = req.body;
    request.peer = fmt::format("{}:{}", req.remote_addr, req.remote_port);
    return handler(request);
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                      HttpHandler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  impl->tls = !options.tls_certificate.empty() || !options.tls_private_key.empty();
  if (impl->tls) {
    if (options.tls_certificate.empty() || options.tls_private_key.empty()) {
      return Status::Invalid("HTTPS needs both a certificate and a private key");
    }
    auto server = std::make_unique<httplib::SSLServer>(options.tls_certificate.c_str(),
                                                       options.tls_private_key.c_str());
    if (!server->is_valid()) {
      return Status::Invalid("cannot load the TLS certificate {} and key {}",
                             options.tls_certificate, options.tls_private_key);
    }
    impl->server = std::move(server);
  } else {
    impl->server = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *impl->server;
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(options.max_body_bytes);
  server.set_read_timeout(options.read_timeout);
  server.set_write_timeout(options.write_timeout);
  server.set_keep_alive_timeout(options.keep_alive_timeout.count());
  // One handler for every path and method: the service routes by itself.
  const Impl* self = impl.get();
  auto serve = [self](const httplib::Request& req, httplib::Response& res) {
    self->Serve(req, res);
  };
  server.Get(".*", serve);  // HEAD too
  server.Post(".*", serve);
  server.Put(".*", serve);
  server.Delete(".*", serve);
  server.Patch(".*", serve);
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("internal error", "text/plain");
      });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 413 && res.body.empty()) {
      res.set_content("the request body is larger than the server accepts", "text/plain");
    }
  });

  auto out = std::unique_ptr<HttpServer>(new HttpServer());
  if (options.port == 0) {
    out->port_ = server.bind_to_any_port(options.host);
    if (out->port_ <= 0) {
      return Status::IOError("cannot listen on {} (no free port, or the address is not local)",
                             options.host);
    }
  } else {
    if (!server.bind_to_port(options.host, options.port)) {
      return Status::IOError(
          "cannot listen on {}:{} (the port is in use, or the address is not "
          "local)",
          options.host, options.port);
    }
    out->port_ = options.port;
  }
  httplib::Server* raw = impl->server.get();
  impl->thread = std::thread([raw] { raw->listen_after_bind(); });
  out->impl_ = std::move(impl);
  return out;
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() {
  if (impl_ == nullptr || !impl_->thread.joinable()) return;
  impl_->server->stop();
  impl_->thread.join();
}

std::string HttpServer::uri() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", impl_->tls ? "https" : "http", v6 ? "[" : "", host,
                     v6 ? "]" : "", port_);
}

}  // namespace floe::io
