#include "floe/io/file_io.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include "floe/testing/matchers.h"

namespace floe::io {
namespace {

using testing::IsError;
using testing::IsErrorWith;

constexpr const char* kFixtures = "../shared/fixtures/iceberg/";

TEST(PathMapRuleTest, Parses) {
  ASSERT_OK_AND_ASSIGN(auto rule, ParsePathMapRule("s3a://warehouse/=/data/tables/"));
  EXPECT_EQ(rule.from, "s3a://warehouse/");
  EXPECT_EQ(rule.to, "/data/tables/");
  ASSERT_OK_AND_ASSIGN(rule, ParsePathMapRule("s3://b/=/data"));
  EXPECT_EQ(rule.to, "/data/");
  ASSERT_OK_AND_ASSIGN(rule, ParsePathMapRule("s3://b/=/data/dt=2024"));
  EXPECT_EQ(rule.from, "s3://b/");
  EXPECT_EQ(rule.to, "/data/dt=2024/");
  ASSERT_OK_AND_ASSIGN(rule, ParsePathMapRule("s3://b/="));
  EXPECT_EQ(rule.to, "");
  EXPECT_THAT(ParsePathMapRule("s3://b/"), IsErrorWith(StatusCode::kInvalidArgument, "no '='"));
  EXPECT_THAT(ParsePathMapRule("=/x"), IsErrorWith(StatusCode::kInvalidArgument, "empty FROM"));
  EXPECT_THAT(ParsePathMapRule("https://u:pw@h/x"),
              IsErrorWith(StatusCode::kInvalidArgument, "'https://u:***@h/x'"));
  EXPECT_THAT(LocalFileIO::Make({"s3://a/=/x/", "s3://a/=/y/"}),
              IsErrorWith(StatusCode::kInvalidArgument, "mapped twice"));
}

TEST(LocalFileIOTest, ResolvesPaths) {
  ASSERT_OK_AND_ASSIGN(auto io,
                       LocalFileIO::Make({"s3a://warehouse/=/data/tables/",
                                          "s3a://warehouse/special/=/other/", "s3://rel/="},
                                         "/base"));
  EXPECT_EQ(io->ResolvePath("s3a://warehouse/t/a.parquet").ValueOrDie(),
            "/data/tables/t/a.parquet");
  // The longest matching prefix wins.
  EXPECT_EQ(io->ResolvePath("s3a://warehouse/special/a").ValueOrDie(), "/other/a");
  // An empty TO makes the rest relative to the base.
  EXPECT_EQ(io->ResolvePath("s3://rel/x/y").ValueOrDie(), "/base/x/y");
  EXPECT_EQ(io->ResolvePath("file:///abs/path").ValueOrDie(), "/abs/path");
  EXPECT_EQ(io->ResolvePath("file:/abs/path").ValueOrDie(), "/abs/path");
  EXPECT_EQ(io->ResolvePath("file://localhost/abs").ValueOrDie(), "/abs");
  EXPECT_EQ(io->ResolvePath("file://data/persistent/x").ValueOrDie(), "/base/data/persistent/x");
  EXPECT_EQ(io->ResolvePath("rel/path").ValueOrDie(), "/base/rel/path");
  EXPECT_EQ(io->ResolvePath("./lineitem/x").ValueOrDie(), "/base/lineitem/x");
  EXPECT_EQ(io->ResolvePath("/abs/x").ValueOrDie(), "/abs/x");
  // "a:b" is not a URI scheme.
  EXPECT_EQ(io->ResolvePath("a:b/c").ValueOrDie(), "/base/a:b/c");
  EXPECT_THAT(io->ResolvePath(""), IsError(StatusCode::kInvalidArgument));

  auto unmapped = io->ResolvePath("gs://bucket/t/x.parquet");
  EXPECT_THAT(unmapped, IsErrorWith(StatusCode::kNotSupported, "gs://bucket/t/x.parquet"));
  EXPECT_THAT(unmapped, IsErrorWith(StatusCode::kNotSupported, "--path-map 'gs://bucket/="));
  EXPECT_THAT(io->ResolvePath("s3://u:secret@b/x"),
              IsErrorWith(StatusCode::kNotSupported, "s3://u:***@b/x"));
  EXPECT_FALSE(io->ResolvePath("s3://u:secret@b/x").status().message().find("secret") !=
               std::string::npos);
  EXPECT_THAT(io->NewInputFile("s3://warehouse/x"), IsError(StatusCode::kNotSupported));

  // Without a base, relative paths stay relative to the working directory.
  LocalFileIO plain;
  EXPECT_EQ(plain.ResolvePath("a/./b").ValueOrDie(), "a/b");
}

TEST(UriSchemeTest, Recognizes) {
  EXPECT_EQ(UriScheme("s3a://b/x"), "s3a");
  EXPECT_EQ(UriScheme("file:/x"), "file");
  EXPECT_EQ(UriScheme("/x"), "");
  EXPECT_EQ(UriScheme("data/x:y"), "");
  EXPECT_EQ(UriScheme("c:x"), "");
}

TEST(RedactTest, SecretKeys) {
  for (const char* key :
       {"s3.secret-access-key", "token", "credential", "client.secret", "password",
        "gcs.oauth2.token", "s3.session-token", "adls.sas-token.account", "header.Authorization",
        "s3.sse.key", "adls.auth.shared-key.account.key", "rest.auth.oauth2.client-secret",
        "jdbc.password", "clientSecret", "api_key", "private-key", "CREDENTIALS"}) {
    EXPECT_TRUE(IsSecretKey(key)) << key;
  }
  for (const char* key :
       {"s3.access-key-id", "oauth2-server-uri", "uri", "warehouse", "s3.endpoint", "key-metadata",
        "sort-key-fields", "monkey", "scope", "s3.region", ""}) {
    EXPECT_FALSE(IsSecretKey(key)) << key;
  }
}

TEST(RedactTest, Properties) {
  std::map<std::string, std::string> props = {
      {"s3.secret-access-key", "wJalrXUtnFEMI"},
      {"s3.access-key-id", "AKIAIOSFODNN7EXAMPLE"},
      {"token", "eyJhbGciOi"},
      {"credential", "client:secret"},
      {"uri", "https://user:pass@catalog.example.com/api?x=1&token=abc&sig=zz#frag"},
      {"warehouse", "s3://bucket/wh"},
      {"short-key-id", "abc"},
  };
  auto red = RedactProperties(props);
  EXPECT_EQ(red["s3.secret-access-key"], "***");
  EXPECT_EQ(red["s3.access-key-id"], "***MPLE");
  EXPECT_EQ(red["short-key-id"], "***");
  EXPECT_EQ(red["token"], "***");
  EXPECT_EQ(red["credential"], "***");
  EXPECT_EQ(red["uri"], "https://user:***@catalog.example.com/api?x=1&token=***&sig=***#frag");
  EXPECT_EQ(red["warehouse"], "s3://bucket/wh");

  EXPECT_EQ(RedactUri("https://user:pass@host"), "https://user:***@host");
  EXPECT_EQ(RedactUri("https://user@host/p"), "https://user@host/p");
  EXPECT_EQ(RedactUri("https://host/p@x"), "https://host/p@x");
  EXPECT_EQ(RedactUri("s3://b/k?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F"),
            "s3://b/k?X-Amz-Signature=***&X-Amz-Credential=***");
  EXPECT_EQ(RedactUri("not a uri:pass@x"), "not a uri:pass@x");

  LocalFileIOOptions options;
  options.path_map.push_back({"https://u:pw@h/", "/x/"});
  options.properties = props;
  std::string printed = LocalFileIO(options).ToString();
  for (const char* secret : {"wJalrXUtnFEMI", "AKIAIOSFODNN7EXAMPLE", "eyJhbGciOi", "client:secret",
                             "pass@", "pw@", "abc"}) {
    EXPECT_EQ(printed.find(secret), std::string::npos) << secret << " in " << printed;
  }
  EXPECT_NE(printed.find("https://u:***@h/=/x/"), std::string::npos) << printed;
  EXPECT_NE(printed.find("warehouse=s3://bucket/wh"), std::string::npos) << printed;
}

class LocalFileIOFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_file_io_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(LocalFileIOFilesTest, WriteListReadDelete) {
  ASSERT_OK_AND_ASSIGN(auto io, LocalFileIO::Make({"s3://wh/=" + dir_.string() + "/"}));
  ASSERT_OK_AND_ASSIGN(auto out, io->NewOutputFile("s3://wh/t/metadata/v1.metadata.json"));
  ASSERT_OK(out->Write("{}"));
  ASSERT_OK(out->Close());
  ASSERT_OK_AND_ASSIGN(
      out, io->NewOutputFile("s3://wh/t/metadata/v2.metadata.json", CreateMode::kExclusive));
  ASSERT_OK(out->Write("{\"a\":1}"));
  ASSERT_OK(out->Close());
  EXPECT_THAT(io->NewOutputFile("s3://wh/t/metadata/v2.metadata.json", CreateMode::kExclusive),
              IsErrorWith(StatusCode::kConstraint, "s3://wh/t/metadata/v2.metadata.json"));
  ASSERT_OK_AND_ASSIGN(out, io->NewOutputFile("s3://wh/t/data/part-0.parquet"));
  ASSERT_OK(out->Close());

  ASSERT_OK_AND_ASSIGN(auto entries, io->ListDirectory("s3://wh/t/metadata"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "s3://wh/t/metadata/v1.metadata.json");
  EXPECT_EQ(entries[0].name, "v1.metadata.json");
  EXPECT_EQ(entries[0].size, 2);
  EXPECT_FALSE(entries[0].is_directory);
  EXPECT_EQ(entries[1].size, 7);
  ASSERT_OK_AND_ASSIGN(entries, io->ListDirectory("s3://wh/t/"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "s3://wh/t/data");
  EXPECT_TRUE(entries[0].is_directory);
  EXPECT_THAT(io->ListDirectory("s3://wh/nope"),
              IsErrorWith(StatusCode::kNotFound, "s3://wh/nope"));

  ASSERT_OK_AND_ASSIGN(auto in, io->NewInputFile("s3://wh/t/metadata/v2.metadata.json"));
  EXPECT_EQ(in->size(), 7);
  EXPECT_EQ(in->ReadAt(0, 7).ValueOrDie()->view(), "{\"a\":1}");
  EXPECT_THAT(io->NewInputFile("s3://wh/t/missing"),
              IsErrorWith(StatusCode::kNotFound, "'s3://wh/t/missing' (local path '"));

  EXPECT_EQ(io->Exists("s3://wh/t/metadata/v1.metadata.json").ValueOrDie(), true);
  EXPECT_EQ(io->Exists("s3://wh/t").ValueOrDie(), true);
  ASSERT_OK(io->Delete("s3://wh/t/metadata/v1.metadata.json"));
  EXPECT_EQ(io->Exists("s3://wh/t/metadata/v1.metadata.json").ValueOrDie(), false);
  ASSERT_OK(io->Delete("s3://wh/t/metadata/v1.metadata.json"));  // idempotent
  EXPECT_THAT(io->Delete("s3://wh/t/metadata"), IsErrorWith(StatusCode::kIOError, "directory"));
}

std::string ReadMaybeGzip(const std::string& path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files unchanged
  if (f == nullptr) return out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// Every group of the fixtures resolves with the rules its INDEX.md describes: each metadata
// file, manifest list and statistics file named in the metadata exists locally, except the two
// the fixtures are known to lack.
TEST(LocalFileIOFixtureTest, EveryGroupResolves) {
  std::string root = kFixtures;
  nlohmann::json expected = nlohmann::json::parse(ReadMaybeGzip(root + "expected.json"));
  ASSERT_TRUE(expected.is_array());
  ASSERT_OK_AND_ASSIGN(
      auto cxx, LocalFileIO::Make({"s3a://warehouse/=" + root + "iceberg-cxx/tests/tables/",
                                   "s3://warehouse/=" + root + "iceberg-cxx/tests/tables/",
                                   "s3a://dl-test-maintenance/check/tea-partitioned/=" + root +
                                       "iceberg-cxx/tests/tables/"}));
  ASSERT_OK_AND_ASSIGN(auto duck, LocalFileIO::Make({}, root + "duckdb-iceberg"));
  ASSERT_OK_AND_ASSIGN(auto duck_iceberg_dir,
                       LocalFileIO::Make({}, root + "duckdb-iceberg/data/persistent/iceberg"));
  ASSERT_OK_AND_ASSIGN(auto duck2024, LocalFileIO::Make({}, root + "duckdb-iceberg-2024"));

  std::vector<std::string> missing;
  int checked = 0;
  for (const auto& table : expected) {
    std::string group = table["group"];
    std::string metadata_path = table["metadata"];
    const FileIO* io = group == "iceberg-cxx"      ? cxx.get()
                       : group == "duckdb-iceberg" ? duck.get()
                                                   : duck2024.get();
    std::string text = ReadMaybeGzip(root + group + "/" + metadata_path);
    ASSERT_FALSE(text.empty()) << metadata_path;
    nlohmann::json metadata = nlohmann::json::parse(text);
    std::string location = metadata["location"];
    // lineitem_iceberg writes paths relative to its parent directory ("./lineitem_iceberg").
    if (location.starts_with("./") || location.starts_with("lineitem")) io = duck_iceberg_dir.get();
    std::vector<std::string> paths = {location};
    for (const auto& snapshot : metadata.value("snapshots", nlohmann::json::array())) {
      if (snapshot.contains("manifest-list")) paths.push_back(snapshot["manifest-list"]);
      for (const auto& m : snapshot.value("manifests", nlohmann::json::array())) paths.push_back(m);
    }
    for (const auto& entry : metadata.value("metadata-log", nlohmann::json::array())) {
      paths.push_back(entry["metadata-file"]);
    }
    for (const auto& entry : metadata.value("statistics", nlohmann::json::array())) {
      paths.push_back(entry["statistics-path"]);
    }
    for (const std::string& path : paths) {
      ASSERT_OK_AND_ASSIGN(bool exists, io->Exists(path));
      ++checked;
      if (!exists) missing.push_back(path);
    }
  }
  EXPECT_GT(checked, 200);
  EXPECT_EQ(missing, (std::vector<std::string>{
                         "data/persistent/equality_delete_cross_partition/warehouse/ns/t/metadata/"
                         "00000-e0d80a48-cc2e-412f-a93e-37016dd2d852.metadata.json",
                         "data/persistent/equality_deletes/warehouse/mydb/mytable/metadata/"
                         "snap-7342794868382145167-1-34f7dec7-90c5-4cd5-b158-5782b73fc010.avro"}));

  // The malformed "file://data/..." URI of map_stats and a DV's data file.
  EXPECT_TRUE(duck->Exists("file://data/persistent/map_stats/default.db/map_stats/metadata/"
                           "00000-e5eddfa2-1468-4e06-bb1d-bb443e4dd618.metadata.json")
                  .ValueOrDie());
  ASSERT_OK_AND_ASSIGN(
      auto data, cxx->NewInputFile("s3a://warehouse/deletion_vectors/data/20260504_111440_00009_"
                                   "8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet"));
  EXPECT_EQ(data->size(), 371);
  ASSERT_OK_AND_ASSIGN(auto listing, cxx->ListDirectory("s3a://warehouse/deletion_vectors/data"));
  ASSERT_EQ(listing.size(), 4u);
  EXPECT_EQ(listing[2].path,
            "s3a://warehouse/deletion_vectors/data/"
            "dv-20260504_111446_00010_8gkte-9a41c74f-3cae-4b67-a4e3-ec4437d1c988.puffin");
  EXPECT_EQ(listing[2].size, 397);
}

}  // namespace
}  // namespace floe::io
