#pragma once

// A TCP proxy on 127.0.0.1 in front of a server's port, for tests of lost connections: it
// passes bytes both ways and, on request, cuts every connection, refuses new ones, or cuts
// a connection at a PostgreSQL COMMIT (a simple-protocol Query message "COMMIT") either
// before forwarding it (the transaction cannot commit) or after the server answered it
// (the transaction committed, but the client never hears so).

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "floe/common/result.h"

namespace floe::catalog::testing {

class TcpProxy {
 public:
  /// Listens on a free port of 127.0.0.1 and forwards to 127.0.0.1:`target_port`.
  static Result<std::unique_ptr<TcpProxy>> Start(int target_port);
  /// Closes every connection and stops.
  ~TcpProxy();

  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }

  /// Cuts every open connection (both sides closed).
  void CutAll();
  /// While set, new connections are closed as soon as they are accepted.
  void SetRefusing(bool refusing) { refusing_ = refusing; }

  enum class CommitCut {
    kNone,
    /// The next COMMIT is dropped and its connection cut.
    kBeforeCommit,
    /// The next COMMIT is forwarded; its connection is cut when the server's answer comes,
    /// which is dropped.
    kAfterCommit,
  };
  /// Arms a cut at the next COMMIT any connection sends (once).
  void CutAtNextCommit(CommitCut cut) { commit_cut_ = cut; }
  /// How many connections were cut at a COMMIT so far.
  int commit_cuts() const { return commit_cuts_; }

 private:
  TcpProxy() = default;
  void AcceptLoop();
  void Pump(int client, int server);

  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  int target_port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> refusing_{false};
  std::atomic<CommitCut> commit_cut_{CommitCut::kNone};
  std::atomic<int> commit_cuts_{0};
  std::mutex mutex_;
  std::set<int> open_fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace floe::catalog::testing
