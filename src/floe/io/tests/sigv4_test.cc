#include "floe/io/sigv4.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/testing/matchers.h"

namespace floe::io::sigv4 {
namespace {

using ::floe::testing::IsErrorWith;

// AWS's published Signature Version 4 test suite (AWS General Reference, "Signature
// Version 4 test suite"): example.amazonaws.com, us-east-1, service "service".
const Credentials kSuite = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
constexpr char kSuiteDate[] = "20150830T123600Z";

Request SuiteRequest(std::string method, std::vector<std::pair<std::string, std::string>> query) {
  Request r;
  r.method = std::move(method);
  r.canonical_uri = "/";
  r.query = std::move(query);
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}};
  r.payload_hash = std::string(kEmptyPayloadHash);
  return r;
}

TEST(SigV4Test, GetVanilla) {
  ASSERT_OK_AND_ASSIGN(Signed s,
                       Sign(SuiteRequest("GET", {}), kSuite, "us-east-1", "service", kSuiteDate));
  EXPECT_EQ(s.canonical_request,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, PostVanilla) {
  ASSERT_OK_AND_ASSIGN(Signed s,
                       Sign(SuiteRequest("POST", {}), kSuite, "us-east-1", "service", kSuiteDate));
  EXPECT_EQ(s.signature, "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

// Query parameters are signed sorted by name, whatever order they are sent in.
TEST(SigV4Test, GetVanillaQueryOrderKeyCase) {
  ASSERT_OK_AND_ASSIGN(
      Signed s, Sign(SuiteRequest("GET", {{"Param2", "value2"}, {"Param1", "value1"}}), kSuite,
                     "us-east-1", "service", kSuiteDate));
  EXPECT_EQ(s.signature, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

// The S3 examples (Amazon S3 API Reference, "Authenticating Requests: Using the
// Authorization Header"): examplebucket, us-east-1, 2013-05-24.
const Credentials kS3 = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr char kS3Date[] = "20130524T000000Z";

Request S3Request(std::string method, std::string uri,
                  std::vector<std::pair<std::string, std::string>> query,
                  std::vector<std::pair<std::string, std::string>> extra, std::string payload) {
  Request r;
  r.method = std::move(method);
  r.canonical_uri = std::move(uri);
  r.query = std::move(query);
  r.payload_hash = std::move(payload);
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", r.payload_hash},
               {"x-amz-date", kS3Date}};
  r.headers.insert(r.headers.end(), extra.begin(), extra.end());
  return r;
}

TEST(SigV4Test, S3GetObjectWithRange) {
  ASSERT_OK_AND_ASSIGN(Signed s, Sign(S3Request("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}},
                                                std::string(kEmptyPayloadHash)),
                                      kS3, "us-east-1", "s3", kS3Date));
  EXPECT_EQ(Sha256Hex(s.canonical_request),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.signed_headers, "host;range;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

// A key with '$' is encoded once in the path; the payload is signed by its hash.
TEST(SigV4Test, S3PutObject) {
  const std::string payload_hash = Sha256Hex("Welcome to Amazon S3.");
  EXPECT_EQ(payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  ASSERT_OK_AND_ASSIGN(Signed s, Sign(S3Request("PUT", "/" + UriEncode("test$file.text", true), {},
                                                {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                                                 {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                                                payload_hash),
                                      kS3, "us-east-1", "s3", kS3Date));
  EXPECT_EQ(Sha256Hex(s.canonical_request),
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

// A query parameter without a value is signed as "lifecycle=".
TEST(SigV4Test, S3GetBucketLifecycle) {
  ASSERT_OK_AND_ASSIGN(
      Signed s, Sign(S3Request("GET", "/", {{"lifecycle", ""}}, {}, std::string(kEmptyPayloadHash)),
                     kS3, "us-east-1", "s3", kS3Date));
  EXPECT_THAT(s.canonical_request, ::testing::HasSubstr("\n/\nlifecycle=\n"));
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4Test, S3ListObjects) {
  ASSERT_OK_AND_ASSIGN(Signed s, Sign(S3Request("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}},
                                                {}, std::string(kEmptyPayloadHash)),
                                      kS3, "us-east-1", "s3", kS3Date));
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, HeaderValuesAreTrimmedAndRepeatedNamesJoined) {
  Request r = SuiteRequest("GET", {});
  r.headers.push_back({"My-Header", "  a   b  "});
  r.headers.push_back({"my-header", "c"});
  ASSERT_OK_AND_ASSIGN(Signed s, Sign(r, kSuite, "us-east-1", "service", kSuiteDate));
  EXPECT_THAT(s.canonical_request, ::testing::HasSubstr("\nmy-header:a b,c\n"));
  EXPECT_EQ(s.signed_headers, "host;my-header;x-amz-date");
}

TEST(SigV4Test, EncodingAndDates) {
  EXPECT_EQ(UriEncode("a b/c~d*e+f=g&é", true), "a%20b/c~d%2Ae%2Bf%3Dg%26%C3%A9");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(AmzDate(std::chrono::system_clock::from_time_t(1440938160)), kSuiteDate);
  EXPECT_EQ(Sha256Hex(""), kEmptyPayloadHash);
}

TEST(SigV4Test, BadInputIsAnError) {
  EXPECT_THAT(Sign(SuiteRequest("GET", {}), kSuite, "us-east-1", "service", "2015-08-30"),
              IsErrorWith(StatusCode::kInvalidArgument, "20150830T123600Z"));
  EXPECT_THAT(Sign(SuiteRequest("GET", {}), Credentials{}, "us-east-1", "service", kSuiteDate),
              IsErrorWith(StatusCode::kInvalidArgument, "access key"));
  Request no_host = SuiteRequest("GET", {});
  no_host.headers.erase(no_host.headers.begin());
  EXPECT_THAT(Sign(no_host, kSuite, "us-east-1", "service", kSuiteDate),
              IsErrorWith(StatusCode::kInvalidArgument, "host"));
}

}  // namespace
}  // namespace floe::io::sigv4
