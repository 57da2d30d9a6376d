#pragma once

// A small HTTP/1.1 server for client tests: a thread on 127.0.0.1 and a free port that
// answers each request (one per connection) with what a handler returns, and keeps every
// request it saw. For the answers real servers cannot be made to give (an expiring token,
// a 419, a 500 on commit, pages).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "floe/common/ascii.h"

namespace floe::testing {

class ScriptedHttpServer {
 public:
  struct Request {
    std::string method;
    /// The path with its query, as sent ("/v1/namespaces?pageToken=x").
    std::string target;
    /// Names lowercased.
    std::map<std::string, std::string> headers;
    std::string body;
  };
  struct Response {
    int status = 200;
    std::string body;
  };
  using Handler = std::function<Response(const Request&)>;

  explicit ScriptedHttpServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedHttpServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  int port() const { return port_; }
  std::string uri() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string in;
      char buf[4096];
      while (in.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        in.append(buf, static_cast<size_t>(n));
      }
      const size_t head_end = in.find("\r\n\r\n");
      if (head_end == std::string::npos) {
        close(c);
        continue;
      }
      Request request;
      const std::string head = in.substr(0, head_end);
      size_t line_end = head.find("\r\n");
      const std::string first = head.substr(0, line_end);
      const size_t sp1 = first.find(' ');
      const size_t sp2 = first.find(' ', sp1 + 1);
      request.method = first.substr(0, sp1);
      request.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
      size_t at = line_end == std::string::npos ? head.size() : line_end + 2;
      while (at < head.size()) {
        size_t end = head.find("\r\n", at);
        if (end == std::string::npos) end = head.size();
        const std::string line = head.substr(at, end - at);
        const size_t colon = line.find(':');
        if (colon != std::string::npos) {
          size_t v = colon + 1;
          while (v < line.size() && line[v] == ' ') ++v;
          request.headers[AsciiLower(line.substr(0, colon))] = line.substr(v);
        }
        at = end + 2;
      }
      size_t length = 0;
      if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
        length = std::stoul(it->second);
      }
      while (in.size() < head_end + 4 + length) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        in.append(buf, static_cast<size_t>(n));
      }
      request.body = in.substr(head_end + 4, length);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(request);
      }
      const Response response = handler_(request);
      const std::string out = "HTTP/1.1 " + std::to_string(response.status) +
                              " Scripted\r\nConnection: close\r\nContent-Type: "
                              "application/json\r\nContent-Length: " +
                              std::to_string(response.body.size()) + "\r\n\r\n" +
                              (request.method == "HEAD" ? "" : response.body);
      (void)!write(c, out.data(), out.size());
      close(c);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
  std::thread thread_;
};

}  // namespace floe::testing
