#pragma once

// S3 credentials that expire, and the provider an S3 client asks for the credentials of
// each request (s3_client.h). Temporary credentials (a catalog's vended credentials, with
// Iceberg's `s3.session-token-expires-at-ms`) are renewed by the provider's refresh
// function before they run out: on the first request within a fifth of their lifetime, or a
// minute, of the end, whichever is smaller, so that short-lived ones are renewed too. The
// refresh is lazy (no thread of its own) and runs once however many threads need it: the
// others go on signing with the current credentials while they still work, and wait for
// the refresh once they do not. A request keeps the credentials it was signed with.
//
// Where the credentials come from is the refresh function's business: the REST catalog
// asks its server (catalog/rest/rest_catalog.h); a process that received a plan asks the
// process that made it (ShareCredentials / ReceivedCredentials below, and dist/cluster.h
// under mpirun).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "floe/common/result.h"
#include "floe/io/sigv4.h"

namespace floe::io {

using CredentialsClock = std::function<std::chrono::system_clock::time_point()>;

/// Signing credentials and when they stop working (nullopt: they do not expire).
struct ExpiringCredentials {
  sigv4::Credentials credentials;
  std::optional<std::chrono::system_clock::time_point> expires_at;
};

/// Iceberg's property of the end of vended credentials, in milliseconds since the epoch.
inline constexpr const char* kSessionTokenExpiresAtMs = "s3.session-token-expires-at-ms";

/// The credentials in `properties` (`s3.access-key-id`, `s3.secret-access-key`,
/// `s3.session-token`, `s3.session-token-expires-at-ms`), nothing else consulted.
/// kInvalidArgument naming `what` (never a value) when the key or its secret is missing or
/// the expiry is not a number.
Result<ExpiringCredentials> ExpiringCredentialsFrom(
    const std::map<std::string, std::string>& properties, const std::string& what);

/// The expiry `s3.session-token-expires-at-ms` holds, nullopt when it is absent or empty.
/// kInvalidArgument when it is not a whole number of milliseconds.
Result<std::optional<std::chrono::system_clock::time_point>> ExpiryFrom(
    const std::map<std::string, std::string>& properties);

/// Milliseconds since the epoch, as the property and the plan codec carry them.
int64_t ToEpochMillis(std::chrono::system_clock::time_point time);
std::chrono::system_clock::time_point FromEpochMillis(int64_t millis);

/// Hands out the current credentials, renewing them with `refresh` before they expire.
/// Thread-safe.
class CredentialsProvider {
 public:
  /// New credentials; `stale` are the ones held now (a remote source uses their expiry to
  /// tell whether it has newer ones). Its errors must name what the credentials are for and
  /// hold no secret.
  using Refresh = std::function<Result<ExpiringCredentials>(const ExpiringCredentials& stale)>;

  /// `what` names whose credentials these are in messages ("table db.t of rest catalog
  /// lake"). Without `refresh` the credentials are handed out as they are. `clock` is the
  /// system clock when empty (tests pass their own).
  CredentialsProvider(ExpiringCredentials initial, std::string what, Refresh refresh = nullptr,
                      CredentialsClock clock = nullptr);

  /// Credentials to sign a request sent now: the current ones, renewed first when they are
  /// due. The refresh's error when it fails (every thread that waited for that refresh
  /// gets it), or kIOError naming `what` when the new credentials have expired already.
  Result<ExpiringCredentials> Current();

  /// Credentials that expire after `than` (a holder of older ones asks): the current ones
  /// when they do and are not due, else new ones. Errors as Current.
  Result<ExpiringCredentials> NewerThan(std::optional<std::chrono::system_clock::time_point> than);

  /// Takes `offered` when they last longer than the current ones (a later table load
  /// brought them), so that every holder of this provider uses them.
  void Offer(const ExpiringCredentials& offered);

  /// The current credentials as they are, never refreshed (for printing the access key id
  /// and for tests).
  ExpiringCredentials Peek() const;
  /// Whether the credentials are renewed before they expire.
  bool refreshes() const { return refresh_ != nullptr; }
  const std::string& what() const { return what_; }
  /// Refreshes that succeeded so far.
  int64_t refresh_count() const;

 private:
  friend uint64_t ShareCredentials(const std::shared_ptr<CredentialsProvider>& provider);
  friend std::shared_ptr<CredentialsProvider> ReceivedCredentials(
      uint64_t id, const std::string& what, const ExpiringCredentials& received);

  // Whether the current credentials should be renewed at `now`. Requires the mutex.
  bool DueLocked(std::chrono::system_clock::time_point now) const;
  // Takes `fresh`, received at `now`. Requires the mutex.
  void AdoptLocked(ExpiringCredentials fresh, std::chrono::system_clock::time_point now);
  // Current and NewerThan: refreshes when due, or with `newer` when the current
  // credentials expire no later than `than`.
  Result<ExpiringCredentials> Obtain(bool newer,
                                     std::optional<std::chrono::system_clock::time_point> than);

  const std::string what_;
  const Refresh refresh_;
  const CredentialsClock clock_;

  mutable std::mutex mutex_;
  std::condition_variable refreshed_;
  ExpiringCredentials current_;
  // How long the current credentials were valid when they came (for the refresh margin).
  std::chrono::system_clock::duration lifetime_{0};
  bool refreshing_ = false;
  // Counts finished refreshes (failed ones too), so that a waiting thread knows when the
  // refresh it waited for has ended; `last_error_` is how it ended.
  uint64_t generation_ = 0;
  Status last_error_;
  int64_t refreshes_ = 0;
  // The id plans name this provider by (ShareCredentials; for credentials received with a
  // plan, the maker's id); 0 until shared. Under the registry's mutex.
  uint64_t shared_id_ = 0;
};

/// Registers `provider` with this process so that a plan made here can name it (the plan
/// codec carries the returned id with the credentials) and a process that received the plan
/// can ask for its newer credentials; the same id for the same provider. The registry holds
/// it weakly: it answers while the plan's FileIO holds the provider. A provider of received
/// credentials is named by the id it was received as, so a plan encoded again names the
/// provider of the process that made it first.
uint64_t ShareCredentials(const std::shared_ptr<CredentialsProvider>& provider);

/// The registered provider `id` when it is still alive.
std::shared_ptr<CredentialsProvider> SharedCredentials(uint64_t id);

/// What the maker of a plan answers a receiver that holds the credentials `stale` of the
/// provider it registered as `id` (`what` names them): SharedCredentials(id)->NewerThan.
/// kInvalidArgument naming `what` when the provider is gone (the plan has ended).
Result<ExpiringCredentials> RenewSharedCredentials(uint64_t id, const std::string& what,
                                                   const ExpiringCredentials& stale);

/// How a process that received a plan asks the plan's maker for credentials newer than
/// `stale`, of the provider it registered as `id`; `what` names them in messages.
using CredentialsFetcher = std::function<Result<ExpiringCredentials>(
    uint64_t id, const std::string& what, const ExpiringCredentials& stale)>;

/// Installs the fetcher of this process (an executor rank installs one that asks rank 0);
/// by default, and after an empty fetcher, plans are taken to come from this process and
/// the fetcher asks SharedCredentials(id) (a plan run through the codec in one process).
void SetCredentialsFetcher(CredentialsFetcher fetcher);

/// The provider of credentials shared as `id` by the plan's maker and received with a plan:
/// one per id in this process (while any FileIO holds it), so that every stage and thread
/// here renews them once; it refreshes through the process's fetcher. `received` are taken
/// when they last longer than those it holds.
std::shared_ptr<CredentialsProvider> ReceivedCredentials(uint64_t id, const std::string& what,
                                                         const ExpiringCredentials& received);

}  // namespace floe::io
