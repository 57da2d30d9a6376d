#include "floe/io/credentials_provider.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace floe::io {

using Clock = std::chrono::system_clock;

namespace {

/// How many more times a renewal that came back expired is asked again.
constexpr int kExpiredRenewalRetries = 3;

std::string Property(const std::map<std::string, std::string>& properties, const char* key) {
  auto it = properties.find(key);
  return it == properties.end() ? std::string() : it->second;
}

// "2026-01-02 03:04:05 UTC", for messages.
std::string TimeText(Clock::time_point time) {
  const std::time_t t = Clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", utc);
}

}  // namespace

int64_t ToEpochMillis(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

Clock::time_point FromEpochMillis(int64_t millis) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(millis)));
}

Result<std::optional<Clock::time_point>> ExpiryFrom(
    const std::map<std::string, std::string>& properties) {
  const std::string text = Property(properties, kSessionTokenExpiresAtMs);
  if (text.empty()) return std::optional<Clock::time_point>();
  char* end = nullptr;
  errno = 0;
  const long long millis = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || errno != 0 || millis < 0) {
    return Status::Invalid("{} must be milliseconds since the epoch, not '{}'",
                           kSessionTokenExpiresAtMs, text);
  }
  return std::optional<Clock::time_point>(FromEpochMillis(millis));
}

Result<ExpiringCredentials> ExpiringCredentialsFrom(
    const std::map<std::string, std::string>& properties, const std::string& what) {
  ExpiringCredentials out;
  out.credentials.access_key_id = Property(properties, "s3.access-key-id");
  out.credentials.secret_access_key = Property(properties, "s3.secret-access-key");
  out.credentials.session_token = Property(properties, "s3.session-token");
  if (out.credentials.access_key_id.empty() || out.credentials.secret_access_key.empty()) {
    return Status::Invalid("{}: no S3 credentials (s3.access-key-id and s3.secret-access-key)",
                           what);
  }
  Result<std::optional<Clock::time_point>> expiry = ExpiryFrom(properties);
  if (!expiry.ok()) return expiry.status().WithPrefix(what + ": ");
  out.expires_at = *expiry;
  return out;
}

// ---------------------------------------------------------------------------------------
// CredentialsProvider

CredentialsProvider::CredentialsProvider(ExpiringCredentials initial, std::string what,
                                         Refresh refresh, CredentialsClock clock)
    : what_(std::move(what)),
      refresh_(std::move(refresh)),
      clock_(clock ? std::move(clock) : CredentialsClock([] { return Clock::now(); })) {
  AdoptLocked(std::move(initial), clock_());
}

bool CredentialsProvider::DueLocked(Clock::time_point now) const {
  if (!current_.expires_at.has_value()) return false;
  // A fifth of the lifetime, at most a minute: an hour's credentials are renewed a minute
  // before their end, two seconds' 0.4 s before it.
  const Clock::duration margin = std::min<Clock::duration>(std::chrono::minutes(1), lifetime_ / 5);
  return now + margin >= *current_.expires_at;
}

void CredentialsProvider::AdoptLocked(ExpiringCredentials fresh, Clock::time_point now) {
  current_ = std::move(fresh);
  lifetime_ = current_.expires_at.has_value()
                  ? std::max<Clock::duration>(Clock::duration(0), *current_.expires_at - now)
                  : Clock::duration(0);
}

Result<ExpiringCredentials> CredentialsProvider::Current() { return Obtain(false, std::nullopt); }

Result<ExpiringCredentials> CredentialsProvider::NewerThan(std::optional<Clock::time_point> than) {
  return Obtain(true, than);
}

Result<ExpiringCredentials> CredentialsProvider::Obtain(bool newer,
                                                        std::optional<Clock::time_point> than) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const Clock::time_point now = clock_();
    // The asker holds these already (or older ones) and needs newer ones.
    const bool held = newer && than.has_value() && current_.expires_at.has_value() &&
                      *current_.expires_at <= *than;
    if (refresh_ == nullptr || (!held && !DueLocked(now))) return current_;
    if (refreshing_) {
      // Another thread renews them: until they expire, the current ones still sign.
      if (!held && now < *current_.expires_at) return current_;
      const uint64_t waited = generation_;
      refreshed_.wait(lock, [&] { return generation_ != waited; });
      if (!last_error_.ok()) return last_error_;
      continue;
    }
    refreshing_ = true;
    ExpiringCredentials stale = current_;
    lock.unlock();
    Result<ExpiringCredentials> fresh = refresh_(stale);
    Clock::time_point received = clock_();
    // Renewed credentials may come back expired when their source handed out ones near
    // their end and the answer was slow (an executor asks rank 0, which may hold the
    // catalog's for another instant): ask again for newer ones, a few times.
    for (int retry = 0; retry < kExpiredRenewalRetries && fresh.ok() &&
                        fresh->expires_at.has_value() && *fresh->expires_at <= received;
         ++retry) {
      stale = *fresh;
      fresh = refresh_(stale);
      received = clock_();
    }
    lock.lock();
    refreshing_ = false;
    ++generation_;
    if (fresh.ok() && fresh->expires_at.has_value() && *fresh->expires_at <= received) {
      // Taking them would only renew them again at once, on every request.
      fresh = Status::IOError("{}: the renewed S3 credentials expired at {} already", what_,
                              TimeText(*fresh->expires_at));
    }
    last_error_ = fresh.ok() ? Status::OK() : fresh.status();
    if (fresh.ok()) {
      AdoptLocked(std::move(*fresh), received);
      ++refreshes_;
    }
    refreshed_.notify_all();
    if (!last_error_.ok()) return last_error_;
    return current_;
  }
}

void CredentialsProvider::Offer(const ExpiringCredentials& offered) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!current_.expires_at.has_value()) return;  // these never expire
  if (offered.expires_at.has_value() && *offered.expires_at <= *current_.expires_at) return;
  AdoptLocked(offered, clock_());
}

ExpiringCredentials CredentialsProvider::Peek() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

int64_t CredentialsProvider::refresh_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refreshes_;
}

// ---------------------------------------------------------------------------------------
// Sharing credentials with the processes a plan goes to

namespace {

struct Registry {
  std::mutex mutex;
  uint64_t next_id = 1;
  // Providers of this process that plans made here name.
  std::map<uint64_t, std::weak_ptr<CredentialsProvider>> shared;
  // Providers of credentials received with plans, by the maker's id.
  std::map<uint64_t, std::weak_ptr<CredentialsProvider>> received;
  CredentialsFetcher fetcher;
};

Registry& TheRegistry() {
  static auto* registry = new Registry();  // never destroyed: providers may outlive main
  return *registry;
}

}  // namespace

uint64_t ShareCredentials(const std::shared_ptr<CredentialsProvider>& provider) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (provider->shared_id_ != 0) return provider->shared_id_;
  std::erase_if(r.shared, [](const auto& entry) { return entry.second.expired(); });
  provider->shared_id_ = r.next_id++;
  r.shared.emplace(provider->shared_id_, provider);
  return provider->shared_id_;
}

Result<ExpiringCredentials> RenewSharedCredentials(uint64_t id, const std::string& what,
                                                   const ExpiringCredentials& stale) {
  std::shared_ptr<CredentialsProvider> provider = SharedCredentials(id);
  if (provider == nullptr) {
    return Status::Invalid(
        "{}: the S3 credentials cannot be renewed: the plan that carried them has ended", what);
  }
  return provider->NewerThan(stale.expires_at);
}

std::shared_ptr<CredentialsProvider> SharedCredentials(uint64_t id) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.shared.find(id);
  return it == r.shared.end() ? nullptr : it->second.lock();
}

void SetCredentialsFetcher(CredentialsFetcher fetcher) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.fetcher = std::move(fetcher);
}

std::shared_ptr<CredentialsProvider> ReceivedCredentials(uint64_t id, const std::string& what,
                                                         const ExpiringCredentials& received) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.received, [](const auto& entry) { return entry.second.expired(); });
  if (std::shared_ptr<CredentialsProvider> held = r.received[id].lock()) {
    held->Offer(received);
    return held;
  }
  auto refresh = [id, what](const ExpiringCredentials& stale) -> Result<ExpiringCredentials> {
    CredentialsFetcher fetcher;
    {
      Registry& registry = TheRegistry();
      std::lock_guard<std::mutex> guard(registry.mutex);
      fetcher = registry.fetcher;
    }
    return fetcher ? fetcher(id, what, stale) : RenewSharedCredentials(id, what, stale);
  };
  auto provider = std::make_shared<CredentialsProvider>(received, what, std::move(refresh));
  provider->shared_id_ = id;
  r.received[id] = provider;
  return provider;
}

}  // namespace floe::io
