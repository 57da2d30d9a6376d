// Executors renew the S3 credentials a plan carried by asking rank 0 (cluster.h): rank 0
// holds credentials that expire a moment after it ships them (through the FileIO codec, as
// a stage carries them); each executor reads from S3 (a scripted server on rank 0) with
// them, again after they have expired, and its S3 client then signs with the credentials
// rank 0 renewed, once for every rank.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/codec/file_io_codec.h"
#include "floe/dist/cluster.h"
#include "floe/dist/exchange.h"
#include "floe/dist/tests/dist_test_env.h"
#include "floe/io/credentials_provider.h"
#include "floe/io/resolving_file_io.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scripted_http_server.h"

namespace floe::dist {
namespace {

using ::floe::testing::IsErrorWith;
using ::floe::testing::ScriptedHttpServer;
using testing::kTestTimeout;
using testing::TestComm;
using Clock = std::chrono::system_clock;

constexpr int kPlanTag = 80;  // rank 0 -> executors: the encoded FileIO
constexpr int kDoneTag = 81;  // executors -> rank 0: done reading

TEST(DistCredentials, ExecutorsRenewExpiredCredentialsThroughRank0) {
  const auto& comm = TestComm();
  const int n = comm->size();
  if (comm->rank() == 0) {
    // S3, keeping the session token each rank's object was read with.
    std::mutex mutex;
    std::map<std::string, std::vector<std::string>> tokens;
    ScriptedHttpServer s3([&](const ScriptedHttpServer::Request& r) {
      std::lock_guard<std::mutex> lock(mutex);
      tokens[r.target].push_back(r.headers.count("x-amz-security-token") != 0
                                     ? r.headers.at("x-amz-security-token")
                                     : std::string());
      return ScriptedHttpServer::Response{200, "data"};
    });
    std::atomic<int> renewals{0};
    const auto expires = Clock::now() + std::chrono::milliseconds(1500);
    auto provider = std::make_shared<io::CredentialsProvider>(
        io::ExpiringCredentials{{"AKIA-first", "first-secret", "first"}, expires},
        "table db.t of rest catalog lake",
        [&](const io::ExpiringCredentials& held) -> Result<io::ExpiringCredentials> {
          EXPECT_EQ(held.credentials.session_token, "first");
          ++renewals;
          return io::ExpiringCredentials{{"AKIA-renewed", "renewed-secret", "renewed"},
                                         Clock::now() + std::chrono::hours(1)};
        });
    io::S3FileIOOptions options;
    options.client.endpoint = s3.uri();
    options.client.path_style = true;
    options.client.credentials = provider->Peek().credentials;
    options.client.credentials_expire_at = expires;
    options.client.credentials_provider = provider;
    auto files = std::make_shared<io::ResolvingFileIO>(io::LocalFileIOOptions{}, options);
    codec::proto::FileIOConfig config;
    ASSERT_OK(codec::EncodeFileIO(files, "table db.t", &config));
    // Rank 0 answers the executors' requests as its cluster does: forwarded by its
    // exchange server, answered from the thread that takes them.
    ExchangeServerOptions server_options;
    server_options.forward_tags = {kCredentialsTag};
    ASSERT_OK_AND_ASSIGN(auto server, ExchangeServer::Start(comm, server_options));
    std::atomic<bool> stop{false};
    std::thread answering([&] {
      while (!stop.load()) {
        Result<std::optional<Message>> m = server->TakeForwarded(std::chrono::milliseconds(20));
        ASSERT_OK(m.status());
        if (*m) {
          EXPECT_OK(AnswerCredentialsRequest(*comm, **m));
        }
      }
    });
    for (int r = 1; r < n; ++r) ASSERT_OK(comm->Send(r, kPlanTag, config.SerializeAsString()));
    for (int r = 1; r < n; ++r) ASSERT_OK(comm->Receive(r, kDoneTag, {kTestTimeout}).status());
    stop = true;
    answering.join();
    EXPECT_OK(server->Stop());
    // Every executor read with the shipped credentials, then with the renewed ones; they
    // were renewed once for all of them.
    EXPECT_EQ(renewals.load(), n > 1 ? 1 : 0);
    for (int r = 1; r < n; ++r) {
      EXPECT_THAT(tokens["/bucket/rank-" + std::to_string(r)],
                  ::testing::ElementsAre("first", "renewed", "renewed"))
          << "rank " << r;
    }
  } else {
    ASSERT_OK_AND_ASSIGN(Message plan, comm->Receive(0, kPlanTag, {kTestTimeout}));
    codec::proto::FileIOConfig config;
    ASSERT_TRUE(config.ParseFromArray(plan.view().data(), static_cast<int>(plan.view().size())));
    io::SetCredentialsFetcher(CredentialsFromRank0(comm, kTestTimeout));
    codec::DecodeContext context;
    codec::PlanDecoder decoder("test", "", context);
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<const io::FileIO> files,
                         codec::DecodeFileIO(decoder, config));
    const std::string object = "s3://bucket/rank-" + std::to_string(comm->rank());
    ASSERT_OK(files->Exists(object).status());
    // The credentials expire while the "query" runs.
    std::this_thread::sleep_for(std::chrono::milliseconds(1600));
    ASSERT_OK(files->Exists(object).status());
    ASSERT_OK(files->Exists(object).status());
    // Credentials rank 0 does not hold (any more): its error comes back.
    std::shared_ptr<io::CredentialsProvider> unknown = io::ReceivedCredentials(
        999999, "table db.gone",
        {{"AKIA-gone", "gone-secret", "gone"}, Clock::now() - std::chrono::seconds(1)});
    EXPECT_THAT(unknown->Current().status(),
                IsErrorWith(StatusCode::kInvalidArgument,
                            "table db.gone: the S3 credentials cannot be renewed: the plan that "
                            "carried them has ended"));
    io::SetCredentialsFetcher(nullptr);
    ASSERT_OK(comm->Send(0, kDoneTag, "done"));
  }
  ASSERT_OK(comm->Barrier(kTestTimeout));
}

}  // namespace
}  // namespace floe::dist
