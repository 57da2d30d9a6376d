// The S3 client against moto's S3 server (authenticating, started for this executable), and
// against a scripted HTTP server for the failures moto does not make (throttling).

#include "floe/io/s3_client.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/s3_file_io.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/testing/matchers.h"
#include "floe/testing/moto_s3.h"
#include "floe/testing/scripted_http_server.h"

namespace floe::io {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOkAndHolds;
using ::testing::HasSubstr;
using ::testing::Not;

class S3ClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    moto_ = floe::testing::MotoS3::ForProcess();
    ASSERT_NE(moto_, nullptr);
  }

  static S3Options Options() {
    S3Options o;
    o.endpoint = moto_->endpoint;
    o.region = moto_->region;
    o.path_style = true;
    o.credentials = {moto_->access_key_id, moto_->secret_access_key, ""};
    o.retry.max_attempts = 2;
    o.retry.base_delay = std::chrono::milliseconds(10);
    return o;
  }
  std::shared_ptr<const S3Client> Client(S3Options o = Options()) {
    auto client = S3Client::Make(std::move(o));
    EXPECT_OK(client);
    return client.ok() ? *client : nullptr;
  }
  S3Location At(const std::string& key) { return {moto_->bucket, key}; }

  static floe::testing::MotoS3* moto_;
};

floe::testing::MotoS3* S3ClientTest::moto_ = nullptr;

TEST(S3UriTest, ParsesTheThreeSchemes) {
  for (const char* uri : {"s3://b/a/k.parquet", "s3a://b/a/k.parquet", "s3n://b/a/k.parquet"}) {
    ASSERT_OK_AND_ASSIGN(S3Location at, ParseS3Uri(uri));
    EXPECT_EQ(at.bucket, "b");
    EXPECT_EQ(at.key, "a/k.parquet");
  }
  ASSERT_OK_AND_ASSIGN(S3Location bucket_only, ParseS3Uri("s3://b"));
  EXPECT_EQ(bucket_only.key, "");
  EXPECT_THAT(ParseS3Uri("gs://b/k"), IsErrorWith(StatusCode::kInvalidArgument, "not an S3"));
  EXPECT_THAT(ParseS3Uri("s3:///k"), IsErrorWith(StatusCode::kInvalidArgument, "no bucket"));
}

TEST(S3ClientOptionsTest, BadEndpointsAndMissingCredentials) {
  S3Options o;
  EXPECT_THAT(S3Client::Make(o), IsErrorWith(StatusCode::kInvalidArgument, "no credentials"));
  o.credentials = {"id", "secret", ""};
  o.endpoint = "127.0.0.1:9000";
  EXPECT_THAT(S3Client::Make(o), IsErrorWith(StatusCode::kInvalidArgument, "no scheme"));
  o.endpoint = "ftp://host";
  EXPECT_THAT(S3Client::Make(o), IsErrorWith(StatusCode::kInvalidArgument, "http"));
  o.endpoint = "";
  ASSERT_OK_AND_ASSIGN(auto aws, S3Client::Make(o));
  EXPECT_EQ(aws->ToString(),
            "S3 https://s3.us-east-1.amazonaws.com region us-east-1 "
            "virtual-hosted access key id");
}

TEST_F(S3ClientTest, PutGetHeadDelete) {
  auto s3 = Client();
  const S3Location at = At("t/a b/ü&x+y.bin");
  std::string data;
  for (int i = 0; i < 10000; ++i) data.push_back(static_cast<char>(i * 7));
  ASSERT_OK(s3->Put(at, data));
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> size, s3->Head(at));
  EXPECT_EQ(size, 10000);
  ASSERT_OK_AND_ASSIGN(std::string all, s3->Get(at, 0, -1));
  EXPECT_EQ(all, data);
  ASSERT_OK_AND_ASSIGN(std::string range, s3->Get(at, 100, 50));
  EXPECT_EQ(range, data.substr(100, 50));
  ASSERT_OK_AND_ASSIGN(std::string tail, s3->Get(at, 9990, -1));
  EXPECT_EQ(tail, data.substr(9990));
  // A range the object does not hold in full is an error naming the object.
  EXPECT_THAT(s3->Get(at, 9990, 20), IsErrorWith(StatusCode::kIOError, "s3://warehouse/t/a b/"));
  EXPECT_THAT(s3->Get(at, 20000, 10), IsError(StatusCode::kIOError));
  ASSERT_OK_AND_ASSIGN(S3Listing listing, s3->List(moto_->bucket, "t/a b/"));
  ASSERT_EQ(listing.objects.size(), 1u);
  EXPECT_EQ(listing.objects[0].key, at.key);
  EXPECT_EQ(listing.objects[0].size, 10000);
  ASSERT_OK(s3->Delete(at));
  ASSERT_OK_AND_ASSIGN(size, s3->Head(at));
  EXPECT_FALSE(size.has_value());
  EXPECT_THAT(s3->Get(at, 0, -1), IsErrorWith(StatusCode::kNotFound, "not found"));
  EXPECT_OK(s3->Delete(at));  // idempotent
}

// If-None-Match: * makes a second writer of the same key fail instead of replacing.
TEST_F(S3ClientTest, ConditionalPutNeverReplaces) {
  auto s3 = Client();
  const S3Location at = At("t/metadata/00001.metadata.json");
  ASSERT_OK(s3->Put(at, "first", true));
  EXPECT_THAT(s3->Put(at, "second", true), IsErrorWith(StatusCode::kConstraint, "already exists"));
  ASSERT_OK_AND_ASSIGN(std::string got, s3->Get(at, 0, -1));
  EXPECT_EQ(got, "first");
  ASSERT_OK(s3->Delete(at));
}

TEST_F(S3ClientTest, MultipartUploadCompletesAndAborts) {
  auto s3 = Client();
  const S3Location at = At("t/big.bin");
  const std::string part1(5 << 20, 'a');
  const std::string part2 = "the last part may be small";
  ASSERT_OK_AND_ASSIGN(std::string id, s3->CreateMultipartUpload(at));
  ASSERT_OK_AND_ASSIGN(std::string e1, s3->UploadPart(at, id, 1, part1));
  ASSERT_OK_AND_ASSIGN(std::string e2, s3->UploadPart(at, id, 2, part2));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> open, s3->ListMultipartUploads(at.bucket, "t/"));
  EXPECT_THAT(open, ::testing::ElementsAre("t/big.bin"));
  ASSERT_OK(s3->CompleteMultipartUpload(at, id, {e1, e2}));
  ASSERT_OK_AND_ASSIGN(std::optional<int64_t> size, s3->Head(at));
  EXPECT_EQ(size, static_cast<int64_t>(part1.size() + part2.size()));
  ASSERT_OK_AND_ASSIGN(std::string tail, s3->Get(at, static_cast<int64_t>(part1.size()) - 1, -1));
  EXPECT_EQ(tail, "a" + part2);

  const S3Location aborted = At("t/aborted.bin");
  ASSERT_OK_AND_ASSIGN(std::string id2, s3->CreateMultipartUpload(aborted));
  ASSERT_OK(s3->UploadPart(aborted, id2, 1, part1).status());
  ASSERT_OK(s3->AbortMultipartUpload(aborted, id2));
  ASSERT_OK_AND_ASSIGN(open, s3->ListMultipartUploads(at.bucket, "t/"));
  EXPECT_TRUE(open.empty());
  ASSERT_OK_AND_ASSIGN(size, s3->Head(aborted));
  EXPECT_FALSE(size.has_value());
  ASSERT_OK(s3->Delete(at));
}

// Listings span pages; with a delimiter they stop at the next level; DeleteMany batches
// 1000 keys per request (keys that do not exist are no error).
TEST_F(S3ClientTest, ListPagesAndDeleteManyBatches) {
  auto s3 = Client();
  std::vector<std::string> keys;
  for (int i = 0; i < 23; ++i) {
    keys.push_back("list/" + std::string(i % 2 ? "odd/" : "") + "k" + std::to_string(i));
    ASSERT_OK(s3->Put(At(keys.back()), "x"));
  }
  ASSERT_OK_AND_ASSIGN(S3Listing all, s3->List(moto_->bucket, "list/", "", 5));
  EXPECT_EQ(all.objects.size(), 23u);
  ASSERT_OK_AND_ASSIGN(S3Listing top, s3->List(moto_->bucket, "list/", "/", 5));
  EXPECT_EQ(top.objects.size(), 12u);
  EXPECT_THAT(top.prefixes, ::testing::ElementsAre("list/odd/"));
  std::vector<std::string> to_delete = keys;
  for (int i = 0; i < 1500; ++i) to_delete.push_back("list/missing/" + std::to_string(i));
  ASSERT_OK_AND_ASSIGN(std::vector<S3DeleteFailure> failures,
                       s3->DeleteMany(moto_->bucket, to_delete));
  EXPECT_TRUE(failures.empty());
  ASSERT_OK_AND_ASSIGN(all, s3->List(moto_->bucket, "list/"));
  EXPECT_TRUE(all.objects.empty());
}

TEST_F(S3ClientTest, WrongCredentialsAndMissingBucketsAreClearErrors) {
  S3Options wrong = Options();
  wrong.credentials.secret_access_key = "not-the-secret-at-all";
  auto s3 = Client(wrong);
  Status st = s3->Put(At("t/x"), "x");
  EXPECT_THAT(st, IsErrorWith(StatusCode::kInvalidArgument, "access denied"));
  EXPECT_THAT(st.message(), HasSubstr("SignatureDoesNotMatch"));
  EXPECT_THAT(st.message(), Not(HasSubstr("not-the-secret-at-all")));
  S3Options unknown = Options();
  unknown.credentials.access_key_id = "AKIAUNKNOWNUNKNOWN00";
  EXPECT_THAT(Client(unknown)->Head(At("t/x")), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Client()->Get({"no-such-bucket", "k"}, 0, -1),
              IsErrorWith(StatusCode::kNotFound, "bucket does not exist"));
  EXPECT_THAT(Client()->ToString(), Not(HasSubstr(moto_->secret_access_key)));
}

// An endpoint nobody listens on: a bounded number of attempts, then an error.
TEST(S3ClientRetryTest, EndpointDownGivesUpAfterTheRetryPolicy) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  close(fd);  // nothing listens there now
  S3Options o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(port);
  o.path_style = true;
  o.credentials = {"id", "secret", ""};
  o.retry.max_attempts = 3;
  o.retry.base_delay = std::chrono::milliseconds(20);
  ASSERT_OK_AND_ASSIGN(auto s3, S3Client::Make(o));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(s3->Head({"b", "k"}),
              IsErrorWith(StatusCode::kIOError, "gave up after 3 attempt(s)"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A server that answers the requests with its scripted responses in turn (the last one
// again once they run out).
class ScriptedServer {
 public:
  using Response = ::floe::testing::ScriptedHttpServer::Response;
  explicit ScriptedServer(std::vector<Response> responses)
      : responses_(std::move(responses)),
        server_([this](const ::floe::testing::ScriptedHttpServer::Request&) {
          const int k = next_.fetch_add(1);
          return responses_[std::min<size_t>(k, responses_.size() - 1)];
        }) {}
  int port() const { return server_.port(); }
  int requests() const { return static_cast<int>(server_.requests().size()); }

 private:
  std::vector<Response> responses_;
  std::atomic<int> next_{0};
  ::floe::testing::ScriptedHttpServer server_;
};

// A response; the reason phrase is the scripted server's own.
ScriptedServer::Response Http(int status, const std::string& /*reason*/, const std::string& body) {
  return {status, body};
}

// Throttling (503 SlowDown) is retried with back-off; past the policy it is an error that
// says what the server said.
TEST(S3ClientRetryTest, ThrottlingIsRetriedThenGivenUp) {
  const ScriptedServer::Response slow_down = Http(
      503, "Slow Down", "<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>");
  S3Options o;
  o.path_style = true;
  o.credentials = {"id", "secret", ""};
  o.retry.base_delay = std::chrono::milliseconds(10);
  {
    ScriptedServer server({slow_down, slow_down, Http(200, "OK", "")});
    o.endpoint = "http://127.0.0.1:" + std::to_string(server.port());
    o.retry.max_attempts = 5;
    ASSERT_OK_AND_ASSIGN(auto s3, S3Client::Make(o));
    EXPECT_OK(s3->Put({"b", "k"}, "data"));
    EXPECT_EQ(server.requests(), 3);
  }
  {
    ScriptedServer server({slow_down});
    o.endpoint = "http://127.0.0.1:" + std::to_string(server.port());
    o.retry.max_attempts = 2;
    ASSERT_OK_AND_ASSIGN(auto s3, S3Client::Make(o));
    Status st = s3->Put({"b", "k"}, "data");
    EXPECT_THAT(st, IsErrorWith(StatusCode::kIOError, "SlowDown: Reduce your rate"));
    EXPECT_THAT(st.message(), HasSubstr("gave up after 2 attempt(s)"));
    EXPECT_EQ(server.requests(), 2);
  }
  {
    // Not retried: a client error.
    ScriptedServer server({Http(400, "Bad Request", "<Error><Code>InvalidRequest</Code></Error>")});
    o.endpoint = "http://127.0.0.1:" + std::to_string(server.port());
    o.retry.max_attempts = 5;
    ASSERT_OK_AND_ASSIGN(auto s3, S3Client::Make(o));
    EXPECT_THAT(s3->Put({"b", "k"}, "data"),
                IsErrorWith(StatusCode::kInvalidArgument, "InvalidRequest"));
    EXPECT_EQ(server.requests(), 1);
  }
}

// ---------------------------------------------------------------------------------------
// S3FileIO

class S3FileIOTest : public S3ClientTest {
 protected:
  std::shared_ptr<S3FileIO> Io(int64_t part_size = int64_t{5} << 20) {
    S3FileIOOptions o;
    o.client = Options();
    o.part_size = part_size;
    o.upload_threads = 2;
    auto io = S3FileIO::Make(o);
    EXPECT_OK(io);
    return io.ok() ? *io : nullptr;
  }
  std::string Uri(const std::string& key) { return "s3://" + moto_->bucket + "/" + key; }
  std::vector<std::string> OpenUploads() {
    auto uploads = Client()->ListMultipartUploads(moto_->bucket, "");
    EXPECT_OK(uploads);
    return uploads.ok() ? *uploads : std::vector<std::string>{};
  }
};

std::string Pattern(int64_t n) {
  std::string s(static_cast<size_t>(n), '\0');
  for (int64_t i = 0; i < n; ++i) s[static_cast<size_t>(i)] = static_cast<char>((i * 131) >> 3);
  return s;
}

Status WriteInChunks(OutputStream* out, const std::string& data, size_t chunk) {
  for (size_t at = 0; at < data.size(); at += chunk) {
    FLOE_RETURN_NOT_OK(out->Write(std::string_view(data).substr(at, chunk)));
  }
  return out->Close();
}

// A small file is one PUT; a large one a multipart upload sent as it is written; both read
// back whole and by range, through every scheme's name for the same object.
TEST_F(S3FileIOTest, WritesAndReadsSmallAndLargeFiles) {
  auto io = Io();
  const std::string small = Pattern(1000);
  const std::string large = Pattern((int64_t{12} << 20) + 12345);
  ASSERT_OK_AND_ASSIGN(auto out, io->NewOutputFile(Uri("io/small.bin")));
  ASSERT_OK(WriteInChunks(out.get(), small, 100));
  EXPECT_EQ(out->position(), 1000);
  ASSERT_OK_AND_ASSIGN(out, io->NewOutputFile(Uri("io/large.bin")));
  ASSERT_OK(WriteInChunks(out.get(), large, 1 << 20));
  EXPECT_TRUE(OpenUploads().empty());
  for (const std::string scheme : {"s3://", "s3a://", "s3n://"}) {
    ASSERT_OK_AND_ASSIGN(auto in, io->NewInputFile(scheme + moto_->bucket + "/io/large.bin"));
    EXPECT_EQ(in->size(), static_cast<int64_t>(large.size()));
    ASSERT_OK_AND_ASSIGN(BufferPtr middle, in->ReadAt(5 << 20, 4096));
    EXPECT_EQ(middle->view(), std::string_view(large).substr(5 << 20, 4096));
  }
  ASSERT_OK_AND_ASSIGN(auto in, io->NewInputFile(Uri("io/small.bin")));
  ASSERT_OK_AND_ASSIGN(BufferPtr all, in->ReadAt(0, 1000));
  EXPECT_EQ(all->view(), small);
  EXPECT_THAT(in->ReadAt(990, 20), IsErrorWith(StatusCode::kIOError, "io/small.bin"));
  EXPECT_THAT(io->NewInputFile(Uri("io/missing.bin")),
              IsErrorWith(StatusCode::kNotFound, "io/missing.bin does not exist"));
  ASSERT_OK(io->Delete(Uri("io/small.bin")));
  ASSERT_OK(io->Delete(Uri("io/large.bin")));
}

// An exclusive file (a new metadata file) never replaces one that exists, whatever its size.
TEST_F(S3FileIOTest, ExclusiveFilesNeverReplace) {
  auto io = Io();
  ASSERT_OK_AND_ASSIGN(auto first,
                       io->NewOutputFile(Uri("io/v1.metadata.json"), CreateMode::kExclusive));
  ASSERT_OK(WriteInChunks(first.get(), "{\"first\": true}", 4));
  ASSERT_OK_AND_ASSIGN(auto second,
                       io->NewOutputFile(Uri("io/v1.metadata.json"), CreateMode::kExclusive));
  ASSERT_OK(second->Write(Pattern(int64_t{6} << 20)));  // past the part size: still one PUT
  EXPECT_THAT(second->Close(), IsErrorWith(StatusCode::kConstraint, "already exists"));
  ASSERT_OK_AND_ASSIGN(auto in, io->NewInputFile(Uri("io/v1.metadata.json")));
  ASSERT_OK_AND_ASSIGN(BufferPtr got, in->ReadAt(0, in->size()));
  EXPECT_EQ(got->view(), "{\"first\": true}");
  EXPECT_TRUE(OpenUploads().empty());
  ASSERT_OK(io->Delete(Uri("io/v1.metadata.json")));
}

// A file dropped before Close leaves no object and no multipart upload.
TEST_F(S3FileIOTest, AFileDroppedBeforeCloseLeavesNothing) {
  auto io = Io();
  {
    ASSERT_OK_AND_ASSIGN(auto out, io->NewOutputFile(Uri("io/dropped.bin")));
    ASSERT_OK(out->Write(Pattern(int64_t{11} << 20)));
    EXPECT_FALSE(OpenUploads().empty());
  }
  EXPECT_TRUE(OpenUploads().empty());
  ASSERT_OK_AND_ASSIGN(bool exists, io->Exists(Uri("io/dropped.bin")));
  EXPECT_FALSE(exists);
}

TEST_F(S3FileIOTest, DirectoriesAreKeyPrefixes) {
  auto io = Io();
  for (const char* key : {"dir/a.parquet", "dir/b.parquet", "dir/sub/c.parquet"}) {
    ASSERT_OK_AND_ASSIGN(auto out, io->NewOutputFile(Uri(key)));
    ASSERT_OK(WriteInChunks(out.get(), key, 4));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> entries, io->ListDirectory(Uri("dir")));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].path, Uri("dir/a.parquet"));
  EXPECT_EQ(entries[0].size, 13);
  EXPECT_FALSE(entries[0].is_directory);
  EXPECT_EQ(entries[2].name, "sub");
  EXPECT_TRUE(entries[2].is_directory);
  ASSERT_OK_AND_ASSIGN(std::vector<FileInfo> slash, io->ListDirectory(Uri("dir/")));
  EXPECT_EQ(slash.size(), 3u);
  EXPECT_TRUE(*io->Exists(Uri("dir")));
  EXPECT_TRUE(*io->Exists(Uri("dir/sub/c.parquet")));
  EXPECT_FALSE(*io->Exists(Uri("dir/nope")));
  EXPECT_THAT(io->ListDirectory(Uri("nodir")), IsErrorWith(StatusCode::kNotFound, "nodir"));
  for (const FileInfo& e : entries) {
    if (!e.is_directory) {
      ASSERT_OK(io->Delete(e.path));
    }
  }
  ASSERT_OK(io->Delete(Uri("dir/sub/c.parquet")));
  EXPECT_THAT(io->NewOutputFile(Uri("dir/")), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(io->NewInputFile("/local/path"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(io->ToString(), Not(HasSubstr(moto_->secret_access_key)));
}

// Globs over keys follow glob(3): `*` and `?` stay within one segment, `[...]` is a set, a
// leading '.' matches only explicitly, directory markers never match; the matches keep the
// pattern's scheme and come sorted.
TEST_F(S3FileIOTest, GlobMatchesKeysAsGlobDoes) {
  auto io = Io();
  for (const char* key : {"glob/b.parquet", "glob/a1.parquet", "glob/a2.parquet",
                          "glob/.hidden.parquet", "glob/sub/c.parquet", "glob/sub/deep/d.parquet",
                          "glob/x.txt", "glob/dir.parquet/", "globber/e.parquet"}) {
    ASSERT_OK(io->client()->Put({moto_->bucket, key}, "x"));
  }
  using V = std::vector<std::string>;
  const std::string a = "s3a://" + moto_->bucket + "/";
  EXPECT_THAT(
      io->Glob(Uri("glob/*.parquet")),
      IsOkAndHolds(V{Uri("glob/a1.parquet"), Uri("glob/a2.parquet"), Uri("glob/b.parquet")}));
  EXPECT_THAT(io->Glob(a + "glob/a?.parquet"),
              IsOkAndHolds(V{a + "glob/a1.parquet", a + "glob/a2.parquet"}));
  EXPECT_THAT(io->Glob(Uri("glob/[!a]*")),
              IsOkAndHolds(V{Uri("glob/b.parquet"), Uri("glob/x.txt")}));
  EXPECT_THAT(io->Glob(Uri("glob/*/*.parquet")), IsOkAndHolds(V{Uri("glob/sub/c.parquet")}));
  EXPECT_THAT(io->Glob(Uri("glob/.*")), IsOkAndHolds(V{Uri("glob/.hidden.parquet")}));
  EXPECT_THAT(io->Glob(Uri("glob*/e.parquet")), IsOkAndHolds(V{Uri("globber/e.parquet")}));
  EXPECT_THAT(
      io->Glob(Uri("glob/\\*.parquet")),
      IsErrorWith(StatusCode::kNotFound, "no files match \"" + Uri("glob/\\*.parquet") + "\""));
  EXPECT_THAT(io->Glob(Uri("glob/*.csv")),
              IsErrorWith(StatusCode::kNotFound, "no files match \"" + Uri("glob/*.csv") + "\""));
  EXPECT_THAT(io->Glob("s3://buck*/x"), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(io->Glob("s3://no-such-bucket-floe/*.parquet"),
              IsErrorWith(StatusCode::kNotFound, "bucket does not exist"));
}

// Each path goes to its scheme's FileIO: local paths to the local side, S3 URIs to S3.
TEST_F(S3FileIOTest, ResolvingFileIORoutesByScheme) {
  S3FileIOOptions s3;
  s3.client = Options();
  ResolvingFileIO io(LocalFileIOOptions{}, s3);
  const std::string local = ::testing::TempDir() + "/floe_resolving_" + std::to_string(getpid());
  for (const std::string& path : {local, Uri("resolving/x.bin")}) {
    ASSERT_OK_AND_ASSIGN(auto out, io.NewOutputFile(path));
    ASSERT_OK(WriteInChunks(out.get(), "bytes of " + path, 7));
    ASSERT_OK_AND_ASSIGN(auto in, io.NewInputFile(path));
    ASSERT_OK_AND_ASSIGN(BufferPtr got, in->ReadAt(0, in->size()));
    EXPECT_EQ(got->view(), "bytes of " + path);
    ASSERT_OK(io.Delete(path));
    EXPECT_FALSE(*io.Exists(path));
  }
  EXPECT_THAT(io.ToString(), HasSubstr(moto_->access_key_id));
  EXPECT_THAT(io.ToString(), Not(HasSubstr(moto_->secret_access_key)));
  // A path-map rule takes an S3 location to the local file system, with or without S3
  // settings.
  LocalFileIOOptions mapped;
  mapped.path_map = {{"s3a://elsewhere/", ::testing::TempDir() + "/"}};
  ResolvingFileIO mapped_io(mapped, s3);
  {
    ASSERT_OK_AND_ASSIGN(auto out, mapped_io.NewOutputFile("s3a://elsewhere/floe_mapped.bin"));
    ASSERT_OK(WriteInChunks(out.get(), "local", 5));
  }
  EXPECT_TRUE(std::filesystem::exists(::testing::TempDir() + "/floe_mapped.bin"));
  ASSERT_OK(mapped_io.Delete("s3a://elsewhere/floe_mapped.bin"));
  // Without S3 settings, local paths still work and S3 paths say what is missing.
  ResolvingFileIO local_only(LocalFileIOOptions{}, std::nullopt);
  EXPECT_OK(local_only.Exists(local).status());
  EXPECT_THAT(local_only.NewInputFile(Uri("resolving/x.bin")),
              IsErrorWith(StatusCode::kInvalidArgument, "no S3 credentials"));
}

// DeleteFiles sends each side its paths: S3's in DeleteObjects batches (objects that do not
// exist count as deleted), local files one by one; a path that cannot be deleted fails alone.
TEST_F(S3FileIOTest, DeleteFilesBatchesEachSide) {
  S3FileIOOptions s3;
  s3.client = Options();
  ResolvingFileIO io(LocalFileIOOptions{}, s3);
  const std::string local = ::testing::TempDir() + "/floe_delete_files_" + std::to_string(getpid());
  std::filesystem::create_directories(local + "/dir");
  std::vector<std::string> paths;
  for (int i = 0; i < 1203; ++i) {
    paths.push_back(Uri("delete-files/" + std::to_string(i)));
    if (i % 100 == 0) {
      ASSERT_OK(Client()->Put(At("delete-files/" + std::to_string(i)), "x"));
    }
  }
  paths.push_back(Uri("delete-files/0"));  // twice
  for (const char* name : {"a", "b"}) {
    paths.push_back(local + "/" + name);
    std::ofstream(paths.back()) << name;
  }
  paths.push_back(local + "/dir");           // a directory: an error of its own
  paths.push_back("s3://" + moto_->bucket);  // a bucket: likewise
  std::vector<Status> results = io.DeleteFiles(paths);
  ASSERT_EQ(results.size(), paths.size());
  for (size_t i = 0; i + 2 < paths.size(); ++i) {
    EXPECT_OK(results[i]) << paths[i];
  }
  EXPECT_THAT(results[paths.size() - 2], IsError(StatusCode::kIOError));
  EXPECT_THAT(results.back(), IsErrorWith(StatusCode::kIOError, "is a bucket, not a file"));
  ASSERT_OK_AND_ASSIGN(S3Listing left, Client()->List(moto_->bucket, "delete-files/"));
  EXPECT_TRUE(left.objects.empty());
  EXPECT_FALSE(std::filesystem::exists(local + "/a"));
  EXPECT_FALSE(std::filesystem::exists(local + "/b"));
  std::filesystem::remove_all(local);
  // Refused as a whole (wrong key): every S3 path carries the request's error.
  S3FileIOOptions wrong = s3;
  wrong.client.credentials.secret_access_key = "not-the-secret-at-all";
  ResolvingFileIO wrong_io(LocalFileIOOptions{}, wrong);
  results = wrong_io.DeleteFiles({Uri("delete-files/x"), Uri("delete-files/y")});
  ASSERT_EQ(results.size(), 2u);
  for (const Status& st : results) {
    EXPECT_THAT(st, IsErrorWith(StatusCode::kInvalidArgument, "access denied"));
  }
}

}  // namespace
}  // namespace floe::io
