#include "floe/catalog/tests/tcp_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace floe::catalog::testing {
namespace {

// A simple-protocol Query message holding "COMMIT": 'Q', its length (4 + 7), the text.
constexpr std::string_view kCommitMessage(
    "Q\0\0\0\x0b"
    "COMMIT\0",
    12);

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<TcpProxy>> TcpProxy::Start(int target_port) {
  std::unique_ptr<TcpProxy> proxy(new TcpProxy());
  proxy->target_port_ = target_port;
  proxy->listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (proxy->listen_fd_ < 0) return Status::IOError("proxy socket: {}", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(proxy->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(proxy->listen_fd_, 64) != 0 ||
      getsockname(proxy->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      pipe(proxy->wake_) != 0) {
    return Status::IOError("proxy listen: {}", std::strerror(errno));
  }
  proxy->port_ = ntohs(addr.sin_port);
  proxy->acceptor_ = std::thread([p = proxy.get()] { p->AcceptLoop(); });
  return proxy;
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  CutAll();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

void TcpProxy::CutAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
}

void TcpProxy::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (stopping_ || (fds[1].revents & POLLIN) != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int client = accept(listen_fd_, nullptr, nullptr);
    if (client < 0) continue;
    if (refusing_) {
      close(client);
      continue;
    }
    int server = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(target_port_));
    if (server < 0 || connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      if (server >= 0) close(server);
      close(client);
      continue;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    open_fds_.insert(client);
    open_fds_.insert(server);
    threads_.emplace_back([this, client, server] { Pump(client, server); });
  }
}

void TcpProxy::Pump(int client, int server) {
  char buffer[65536];
  bool swallow_reply = false;
  while (true) {
    pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      ssize_t n = recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      std::string_view data(buffer, static_cast<size_t>(n));
      if (data.find(kCommitMessage) != std::string_view::npos) {
        CommitCut armed = commit_cut_.load();
        if (armed != CommitCut::kNone &&
            commit_cut_.compare_exchange_strong(armed, CommitCut::kNone)) {
          if (armed == CommitCut::kBeforeCommit) {
            ++commit_cuts_;
            break;
          }
          swallow_reply = true;
        }
      }
      if (!SendAll(server, buffer, static_cast<size_t>(n))) break;
    }
    if (fds[1].revents != 0) {
      ssize_t n = recv(server, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      if (swallow_reply) {
        // The server answered the COMMIT: it committed. The client never learns it.
        ++commit_cuts_;
        break;
      }
      if (!SendAll(client, buffer, static_cast<size_t>(n))) break;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  open_fds_.erase(client);
  open_fds_.erase(server);
  shutdown(client, SHUT_RDWR);
  shutdown(server, SHUT_RDWR);
  close(client);
  close(server);
}

}  // namespace floe::catalog::testing
