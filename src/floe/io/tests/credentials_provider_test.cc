// The renewal of expiring S3 credentials (io/credentials_provider.h) with a fake clock and a
// scripted refresh: when they are due, once however many threads ask, what waiting threads
// get, errors, credentials offered by later loads, the parsing of the expiry property, and
// credentials shared with a plan and renewed through its maker.

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/io/credentials_provider.h"
#include "floe/testing/matchers.h"

namespace floe::io {
namespace {

using ::floe::testing::IsErrorWith;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::system_clock;
using std::chrono::milliseconds;

constexpr int64_t kStart = 1767225600000;  // 2026-01-01 00:00:00 UTC

ExpiringCredentials Credentials(const std::string& token, int64_t expires_at_ms) {
  return {{"AKIA" + token, "secret-of-" + token, token}, FromEpochMillis(expires_at_ms)};
}

// A clock the test moves.
struct FakeClock {
  std::atomic<int64_t> now_ms{kStart};
  CredentialsClock clock() {
    return [this] { return FromEpochMillis(now_ms.load()); };
  }
};

// A refresh that hands out "t2", "t3", ... each lasting `lifetime_ms` from the fake clock's
// now, and counts its calls.
struct ScriptedRefresh {
  FakeClock* clock = nullptr;
  int64_t lifetime_ms = 2000;
  std::atomic<int> calls{0};
  milliseconds delay{0};
  CredentialsProvider::Refresh refresh() {
    return [this](const ExpiringCredentials&) -> Result<ExpiringCredentials> {
      const int n = ++calls;
      if (delay.count() > 0) std::this_thread::sleep_for(delay);
      return Credentials("t" + std::to_string(n + 1), clock->now_ms.load() + lifetime_ms);
    };
  }
};

// Credentials of two seconds are renewed 0.4 s before their end (a fifth of their
// lifetime), those of an hour a minute before it.
TEST(CredentialsProviderTest, RenewedExactlyWhenDue) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  CredentialsProvider provider(Credentials("t1", kStart + 2000), "table db.t", refresh.refresh(),
                               clock.clock());
  EXPECT_TRUE(provider.refreshes());
  clock.now_ms = kStart + 1599;
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, provider.Current());
  EXPECT_EQ(got.credentials.session_token, "t1");
  EXPECT_EQ(refresh.calls.load(), 0);
  clock.now_ms = kStart + 1600;
  ASSERT_OK_AND_ASSIGN(got, provider.Current());
  EXPECT_EQ(got.credentials.session_token, "t2");
  EXPECT_EQ(got.credentials.access_key_id, "AKIAt2");
  EXPECT_EQ(got.expires_at, FromEpochMillis(kStart + 3600));
  EXPECT_EQ(refresh.calls.load(), 1);
  EXPECT_EQ(provider.refresh_count(), 1);
  // The new ones are due 0.4 s before their own end.
  clock.now_ms = kStart + 3199;
  ASSERT_OK_AND_ASSIGN(got, provider.Current());
  EXPECT_EQ(got.credentials.session_token, "t2");
  clock.now_ms = kStart + 3200;
  ASSERT_OK_AND_ASSIGN(got, provider.Current());
  EXPECT_EQ(got.credentials.session_token, "t3");
  EXPECT_EQ(refresh.calls.load(), 2);

  const int64_t hour = 3600 * 1000;
  refresh.lifetime_ms = hour;
  clock.now_ms = kStart;
  CredentialsProvider long_lived(Credentials("h1", kStart + hour), "table db.h", refresh.refresh(),
                                 clock.clock());
  clock.now_ms = kStart + hour - 60001;
  ASSERT_OK_AND_ASSIGN(got, long_lived.Current());
  EXPECT_EQ(got.credentials.session_token, "h1");
  clock.now_ms = kStart + hour - 60000;
  ASSERT_OK_AND_ASSIGN(got, long_lived.Current());
  EXPECT_EQ(got.credentials.session_token, "t4");
}

// Credentials without an expiry, or without a refresh, are handed out as they are.
TEST(CredentialsProviderTest, WithoutExpiryOrRefreshNothingIsRenewed) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  CredentialsProvider forever({{"AKIAX", "s", ""}, std::nullopt}, "forever", refresh.refresh(),
                              clock.clock());
  clock.now_ms = kStart + 1000LL * 3600 * 24 * 365;
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, forever.Current());
  EXPECT_EQ(got.credentials.access_key_id, "AKIAX");
  CredentialsProvider fixed(Credentials("t1", kStart + 10), "fixed", nullptr, clock.clock());
  EXPECT_FALSE(fixed.refreshes());
  ASSERT_OK_AND_ASSIGN(got, fixed.Current());
  EXPECT_EQ(got.credentials.session_token, "t1");
  EXPECT_EQ(refresh.calls.load(), 0);
}

// Many threads find the credentials due at once: one refresh. While it runs, the others
// sign with the current credentials, which still work.
TEST(CredentialsProviderTest, OneRefreshForManyThreadsWhileTheOldOnesStillWork) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  refresh.delay = milliseconds(100);
  CredentialsProvider provider(Credentials("t1", kStart + 2000), "table db.t", refresh.refresh(),
                               clock.clock());
  clock.now_ms = kStart + 1700;
  std::mutex mutex;
  std::multiset<std::string> tokens;
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        Result<ExpiringCredentials> got = provider.Current();
        ASSERT_OK(got.status());
        std::lock_guard<std::mutex> lock(mutex);
        tokens.insert(got->credentials.session_token);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(refresh.calls.load(), 1);
  EXPECT_EQ(tokens.size(), 16u * 20u);
  EXPECT_EQ(tokens.count("t1") + tokens.count("t2"), tokens.size());
  EXPECT_GE(tokens.count("t2"), 1u);
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials after, provider.Current());
  EXPECT_EQ(after.credentials.session_token, "t2");
}

// Once the credentials have expired, every thread waits for the one refresh and gets the
// new credentials.
TEST(CredentialsProviderTest, ExpiredCredentialsMakeEveryThreadWaitForTheOneRefresh) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  refresh.delay = milliseconds(100);
  CredentialsProvider provider(Credentials("t1", kStart + 2000), "table db.t", refresh.refresh(),
                               clock.clock());
  clock.now_ms = kStart + 2000;
  std::mutex mutex;
  std::multiset<std::string> tokens;
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      Result<ExpiringCredentials> got = provider.Current();
      ASSERT_OK(got.status());
      std::lock_guard<std::mutex> lock(mutex);
      tokens.insert(got->credentials.session_token);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(refresh.calls.load(), 1);
  EXPECT_EQ(tokens.count("t2"), 16u);
}

// A refused refresh is the error of the requests that needed it, and every thread that
// waited for that refresh gets the same error (the refresh is not repeated for each).
TEST(CredentialsProviderTest, ARefusedRefreshIsTheErrorOfEveryWaiter) {
  FakeClock clock;
  std::atomic<int> calls{0};
  std::atomic<int> started{0};
  CredentialsProvider provider(
      Credentials("t1", kStart + 2000), "table db.t",
      [&](const ExpiringCredentials&) -> Result<ExpiringCredentials> {
        ++calls;
        // Until every thread has asked (and a moment more for the last to wait).
        while (started.load() < 8) std::this_thread::sleep_for(milliseconds(1));
        std::this_thread::sleep_for(milliseconds(100));
        return Status::Invalid("table db.t: forbidden by the catalog");
      },
      clock.clock());
  clock.now_ms = kStart + 2500;
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      ++started;
      Result<ExpiringCredentials> got = provider.Current();
      EXPECT_THAT(got.status(), IsErrorWith(StatusCode::kInvalidArgument,
                                            "table db.t: forbidden by the catalog"));
      if (!got.ok()) ++failed;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 8);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(provider.refresh_count(), 0);
  // A later request tries again.
  EXPECT_THAT(provider.Current().status(), IsErrorWith(StatusCode::kInvalidArgument, "forbidden"));
  EXPECT_EQ(calls.load(), 2);
}

// New credentials that have expired already are asked for again a few times, then an
// error, not a loop of refreshes.
TEST(CredentialsProviderTest, RenewedCredentialsThatExpiredAlreadyAreAnError) {
  FakeClock clock;
  std::atomic<int> calls{0};
  CredentialsProvider provider(
      Credentials("t1", kStart + 2000), "table db.t",
      [&](const ExpiringCredentials&) -> Result<ExpiringCredentials> {
        ++calls;
        return Credentials("stale", kStart + 1000);
      },
      clock.clock());
  clock.now_ms = kStart + 1900;
  Result<ExpiringCredentials> got = provider.Current();
  EXPECT_THAT(got.status(),
              IsErrorWith(StatusCode::kIOError,
                          "table db.t: the renewed S3 credentials expired at 2026-01-01 00:00:01 "
                          "UTC already"));
  EXPECT_THAT(got.status().message(), Not(HasSubstr("secret-of-stale")));
  EXPECT_EQ(calls.load(), 4);
}

// A renewal that came back expired (its source held ones near their end, and the answer
// was slow) is asked again, and the newer ones are taken.
TEST(CredentialsProviderTest, AnExpiredRenewalIsAskedAgain) {
  FakeClock clock;
  std::atomic<int> calls{0};
  CredentialsProvider provider(
      Credentials("t1", kStart + 2000), "table db.t",
      [&](const ExpiringCredentials& stale) -> Result<ExpiringCredentials> {
        ++calls;
        if (stale.credentials.session_token == "t1") return Credentials("late", kStart + 1000);
        return Credentials("t2", kStart + 9000);
      },
      clock.clock());
  clock.now_ms = kStart + 1900;
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, provider.Current());
  EXPECT_EQ(got.credentials.session_token, "t2");
  EXPECT_EQ(calls.load(), 2);
}

// A later table load offers its credentials: taken when they last longer.
TEST(CredentialsProviderTest, OfferedCredentialsAreTakenWhenTheyLastLonger) {
  FakeClock clock;
  CredentialsProvider provider(Credentials("t1", kStart + 2000), "table db.t", nullptr,
                               clock.clock());
  provider.Offer(Credentials("older", kStart + 1000));
  EXPECT_EQ(provider.Peek().credentials.session_token, "t1");
  provider.Offer(Credentials("newer", kStart + 5000));
  EXPECT_EQ(provider.Peek().credentials.session_token, "newer");
  EXPECT_EQ(provider.Peek().expires_at, FromEpochMillis(kStart + 5000));
}

// A holder of older credentials gets the current ones when they are newer, and new ones
// when it holds the current ones already.
TEST(CredentialsProviderTest, NewerThanRenewsOnlyWhatTheAskerHolds) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  CredentialsProvider provider(Credentials("t1", kStart + 2000), "table db.t", refresh.refresh(),
                               clock.clock());
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, provider.NewerThan(FromEpochMillis(kStart + 1000)));
  EXPECT_EQ(got.credentials.session_token, "t1");
  EXPECT_EQ(refresh.calls.load(), 0);
  ASSERT_OK_AND_ASSIGN(got, provider.NewerThan(FromEpochMillis(kStart + 2000)));
  EXPECT_EQ(got.credentials.session_token, "t2");
  EXPECT_EQ(refresh.calls.load(), 1);
}

TEST(CredentialsProviderTest, PropertiesGiveTheCredentialsAndTheirExpiry) {
  ASSERT_OK_AND_ASSIGN(
      ExpiringCredentials got,
      ExpiringCredentialsFrom({{"s3.access-key-id", "AKIAX"},
                               {"s3.secret-access-key", "the-secret"},
                               {"s3.session-token", "the-token"},
                               {"s3.session-token-expires-at-ms", std::to_string(kStart)},
                               {"s3.endpoint", "http://elsewhere"}},
                              "table db.t"));
  EXPECT_EQ(got.credentials.access_key_id, "AKIAX");
  EXPECT_EQ(got.credentials.secret_access_key, "the-secret");
  EXPECT_EQ(got.credentials.session_token, "the-token");
  EXPECT_EQ(got.expires_at, FromEpochMillis(kStart));
  EXPECT_EQ(ToEpochMillis(*got.expires_at), kStart);
  ASSERT_OK_AND_ASSIGN(got, ExpiringCredentialsFrom({{"s3.access-key-id", "AKIAX"},
                                                     {"s3.secret-access-key", "the-secret"}},
                                                    "table db.t"));
  EXPECT_FALSE(got.expires_at.has_value());
  Result<ExpiringCredentials> missing =
      ExpiringCredentialsFrom({{"s3.secret-access-key", "the-secret"}}, "table db.t");
  EXPECT_THAT(missing.status(), IsErrorWith(StatusCode::kInvalidArgument,
                                            "table db.t: no S3 credentials (s3.access-key-id and "
                                            "s3.secret-access-key)"));
  EXPECT_THAT(missing.status().message(), Not(HasSubstr("the-secret")));
  EXPECT_THAT(ExpiringCredentialsFrom({{"s3.access-key-id", "AKIAX"},
                                       {"s3.secret-access-key", "the-secret"},
                                       {"s3.session-token-expires-at-ms", "soon"}},
                                      "table db.t")
                  .status(),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "table db.t: s3.session-token-expires-at-ms must be milliseconds "
                          "since the epoch, not 'soon'"));
}

// Credentials shared with a plan and received with it (in one process, as a plan run
// through the codec): one provider per id here, renewed through the maker's provider,
// which renews them once.
TEST(CredentialsProviderTest, ReceivedCredentialsAreRenewedThroughTheSharedProvider) {
  FakeClock clock;
  ScriptedRefresh refresh{&clock};
  refresh.lifetime_ms = 3600 * 1000;
  // The receivers use the system clock: the shared credentials expire now.
  const int64_t now = ToEpochMillis(Clock::now());
  clock.now_ms = now;
  auto maker = std::make_shared<CredentialsProvider>(Credentials("t1", now), "table db.t",
                                                     refresh.refresh(), clock.clock());
  const uint64_t id = ShareCredentials(maker);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(ShareCredentials(maker), id);
  EXPECT_EQ(SharedCredentials(id), maker);
  std::shared_ptr<CredentialsProvider> first =
      ReceivedCredentials(id, "table db.t", Credentials("t1", now));
  std::shared_ptr<CredentialsProvider> second =
      ReceivedCredentials(id, "table db.t", Credentials("t1", now));
  EXPECT_EQ(first, second);
  EXPECT_EQ(ShareCredentials(first), id);  // a plan encoded again names the maker's
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, first->Current());
  EXPECT_EQ(got.credentials.session_token, "t2");
  EXPECT_EQ(refresh.calls.load(), 1);
  EXPECT_EQ(maker->Peek().credentials.session_token, "t2");
  ASSERT_OK_AND_ASSIGN(got, second->Current());
  EXPECT_EQ(got.credentials.session_token, "t2");
  EXPECT_EQ(refresh.calls.load(), 1);

  // Once the maker's provider is gone, renewing is a clear error.
  const uint64_t gone_id = ShareCredentials(std::make_shared<CredentialsProvider>(
      Credentials("g1", now), "table db.gone", refresh.refresh(), clock.clock()));
  std::shared_ptr<CredentialsProvider> orphan =
      ReceivedCredentials(gone_id, "table db.gone", Credentials("g1", now));
  EXPECT_THAT(orphan->Current().status(),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "table db.gone: the S3 credentials cannot be renewed: the plan that "
                          "carried them has ended"));
}

// An installed fetcher is asked instead (an executor's asks rank 0).
TEST(CredentialsProviderTest, AnInstalledFetcherIsAsked) {
  const int64_t now = ToEpochMillis(Clock::now());
  std::atomic<int> asked{0};
  SetCredentialsFetcher([&](uint64_t id, const std::string& what,
                            const ExpiringCredentials& held) -> Result<ExpiringCredentials> {
    ++asked;
    EXPECT_EQ(id, 987654321u);
    EXPECT_EQ(what, "table db.f");
    EXPECT_EQ(held.credentials.session_token, "f1");
    return Credentials("f2", now + 3600 * 1000);
  });
  std::shared_ptr<CredentialsProvider> received =
      ReceivedCredentials(987654321u, "table db.f", Credentials("f1", now));
  ASSERT_OK_AND_ASSIGN(ExpiringCredentials got, received->Current());
  SetCredentialsFetcher(nullptr);
  EXPECT_EQ(got.credentials.session_token, "f2");
  EXPECT_EQ(asked.load(), 1);
}

}  // namespace
}  // namespace floe::io
