#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/io/s3_file_io.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scratch_dir.h"

namespace floe::io {
namespace {

using ::floe::testing::IsErrorWith;

class S3OptionsTest : public floe::testing::ScratchDirTest {
 protected:
  S3OptionsTest() : ScratchDirTest("floe_io_s3_options") {}
};

// Iceberg's property names first, then the AWS environment, then the shared files.
TEST_F(S3OptionsTest, PropertiesThenEnvironmentThenSharedFiles) {
  ASSERT_OK_AND_ASSIGN(
      S3FileIOOptions o,
      S3FileIOOptionsFrom({{"s3.endpoint", "http://127.0.0.1:9000"},
                           {"s3.access-key-id", "prop-id"},
                           {"s3.secret-access-key", "prop-secret"},
                           {"s3.session-token", "prop-token"},
                           {"client.region", "eu-west-1"},
                           {"s3.path-style-access", "true"},
                           {"s3.multipart.part-size-bytes", "8388608"}},
                          {{"AWS_ACCESS_KEY_ID", "env-id"}, {"AWS_REGION", "us-west-2"}}, ""));
  EXPECT_EQ(o.client.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(o.client.credentials.access_key_id, "prop-id");
  EXPECT_EQ(o.client.credentials.secret_access_key, "prop-secret");
  EXPECT_EQ(o.client.credentials.session_token, "prop-token");
  EXPECT_EQ(o.client.region, "eu-west-1");
  EXPECT_TRUE(o.client.path_style);
  EXPECT_EQ(o.part_size, 8388608);

  ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({{"s3.region", "ap-south-1"}},
                                              {{"AWS_ACCESS_KEY_ID", "env-id"},
                                               {"AWS_SECRET_ACCESS_KEY", "env-secret"},
                                               {"AWS_SESSION_TOKEN", "env-token"},
                                               {"AWS_REGION", "us-west-2"},
                                               {"AWS_ENDPOINT_URL", "http://generic"},
                                               {"AWS_ENDPOINT_URL_S3", "http://s3-only"}},
                                              ""));
  EXPECT_EQ(o.client.credentials.access_key_id, "env-id");
  EXPECT_EQ(o.client.credentials.secret_access_key, "env-secret");
  EXPECT_EQ(o.client.credentials.session_token, "env-token");
  EXPECT_EQ(o.client.region, "ap-south-1");
  EXPECT_EQ(o.client.endpoint, "http://s3-only");
  EXPECT_FALSE(o.client.path_style);
  // An endpoint on an IP address or localhost cannot take the bucket as a subdomain.
  for (const char* endpoint : {"http://127.0.0.1:9000", "http://localhost:9000/"}) {
    ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({{"s3.endpoint", endpoint}}, {}, ""));
    EXPECT_TRUE(o.client.path_style) << endpoint;
  }
  ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({{"s3.endpoint", "http://127.0.0.1:9000"},
                                               {"s3.path-style-access", "false"}},
                                              {}, ""));
  EXPECT_FALSE(o.client.path_style);

  const std::string home = dir_;
  std::filesystem::create_directories(home + "/.aws");
  std::ofstream(home + "/.aws/credentials")
      << "[default]\naws_access_key_id = default-id\naws_secret_access_key = default-secret\n"
         "[work]\n aws_access_key_id=work-id \naws_secret_access_key=work-secret\n"
         "aws_session_token=work-token\n";
  std::ofstream(home + "/.aws/config")
      << "[default]\nregion = eu-central-1\n[profile work]\nregion = sa-east-1\n"
         "endpoint_url = http://work-endpoint\n";
  ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({}, {}, home));
  EXPECT_EQ(o.client.credentials.access_key_id, "default-id");
  EXPECT_EQ(o.client.credentials.secret_access_key, "default-secret");
  EXPECT_EQ(o.client.region, "eu-central-1");
  ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({}, {{"AWS_PROFILE", "work"}}, home));
  EXPECT_EQ(o.client.credentials.access_key_id, "work-id");
  EXPECT_EQ(o.client.credentials.session_token, "work-token");
  EXPECT_EQ(o.client.region, "sa-east-1");
  EXPECT_EQ(o.client.endpoint, "http://work-endpoint");
  // Nothing anywhere: AWS's default region, and no credentials (the client refuses then).
  ASSERT_OK_AND_ASSIGN(o, S3FileIOOptionsFrom({}, {}, ""));
  EXPECT_EQ(o.client.region, "us-east-1");
  EXPECT_TRUE(o.client.credentials.access_key_id.empty());
  EXPECT_THAT(S3FileIO::Make(o), IsErrorWith(StatusCode::kInvalidArgument, "no credentials"));
}

TEST_F(S3OptionsTest, MalformedValuesNameTheProperty) {
  EXPECT_THAT(S3FileIOOptionsFrom({{"s3.path-style-access", "yes"}}, {}, ""),
              IsErrorWith(StatusCode::kInvalidArgument, "s3.path-style-access"));
  EXPECT_THAT(S3FileIOOptionsFrom({{"s3.multipart.part-size-bytes", "1024"}}, {}, ""),
              IsErrorWith(StatusCode::kInvalidArgument, "at least 5242880"));
  EXPECT_THAT(S3FileIOOptionsFrom({{"s3.multipart.part-size-bytes", "8MB"}}, {}, ""),
              IsErrorWith(StatusCode::kInvalidArgument, "s3.multipart.part-size-bytes"));
}

}  // namespace
}  // namespace floe::io
