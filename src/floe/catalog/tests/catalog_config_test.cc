// Catalog configuration files: parsing (the pyiceberg shape, every error naming the file and
// the key), opening the configured catalogs, FLOE_CONFIG and ~/.floe.yaml, and what a
// --catalog value resolves to. HOME and FLOE_CONFIG point into a scratch directory for
// every test, so the real home directory is never read.

#include "floe/catalog/catalog_config.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/catalog/hadoop_catalog.h"
#include "floe/catalog/tests/catalog_test_internal.h"
#include "floe/testing/matchers.h"
#include "floe/testing/scoped_env.h"

namespace floe::catalog {
namespace {

using ::floe::catalog::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::ScopedEnv;
using ::testing::HasSubstr;
using ::testing::Not;

class CatalogConfigTest : public ::testing::Test {
 protected:
  CatalogConfigTest() : home_("HOME", dir_.path() + "/home"), config_("FLOE_CONFIG", std::nullopt) {
    std::filesystem::create_directories(dir_.path() + "/home");
  }

  // Writes a configuration file in the scratch directory and returns its path.
  std::string WriteConfig(const std::string& text, const std::string& name = "floe.yaml") {
    std::string path = dir_.path() + "/" + name;
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }

  TempDir dir_;
  ScopedEnv home_;
  ScopedEnv config_;
};

TEST_F(CatalogConfigTest, ParsesThePyicebergShape) {
  ASSERT_OK_AND_ASSIGN(CatalogConfigFile file, ParseCatalogConfig(R"(
catalog:
  lake:
    type: SQL
    uri: sqlite:////srv/lake/catalog.db
    warehouse: file:///srv/lake
    s3.endpoint: http://minio:9000
  files:
    type: hadoop
    warehouse: /srv/files
  inferred:
    uri: sqlite:inferred.db
  shared:
    uri: postgresql://floe@db.example.com:5432/lake?sslmode=verify-full
    warehouse: s3://bucket/shared
  pyiceberg:
    uri: postgresql+psycopg2://floe@db.example.com/lake
  java:
    type: sql
    uri: jdbc:postgresql://db.example.com:5432/lake?user=floe
    warehouse: /srv/java
default-catalog: files
other-tool: ignored
)",
                                                                  "cfg.yaml"));
  EXPECT_EQ(file.path, "cfg.yaml");
  EXPECT_EQ(file.default_catalog, "files");
  EXPECT_EQ(file.Names(), "files, inferred, java, lake, pyiceberg, shared");
  const CatalogConfig& lake = file.catalogs.at("lake");
  EXPECT_EQ(lake.name, "lake");
  EXPECT_EQ(lake.type, "sql");
  EXPECT_EQ(lake.uri, "sqlite:////srv/lake/catalog.db");
  EXPECT_EQ(lake.warehouse, "file:///srv/lake");
  EXPECT_EQ(lake.properties,
            (std::map<std::string, std::string>{{"s3.endpoint", "http://minio:9000"}}));
  EXPECT_EQ(file.catalogs.at("files").type, "hadoop");
  EXPECT_EQ(file.catalogs.at("files").warehouse, "/srv/files");
  EXPECT_TRUE(file.catalogs.at("files").uri.empty());
  EXPECT_EQ(file.catalogs.at("inferred").type, "sql");
  // PostgreSQL URIs make a sql catalog too, in each of their forms.
  EXPECT_EQ(file.catalogs.at("shared").type, "sql");
  EXPECT_EQ(file.catalogs.at("shared").uri,
            "postgresql://floe@db.example.com:5432/lake?sslmode=verify-full");
  EXPECT_EQ(file.catalogs.at("shared").warehouse, "s3://bucket/shared");
  EXPECT_EQ(file.catalogs.at("pyiceberg").type, "sql");
  EXPECT_EQ(file.catalogs.at("java").type, "sql");
  EXPECT_EQ(file.catalogs.at("java").uri, "jdbc:postgresql://db.example.com:5432/lake?user=floe");
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogConfig> chosen, file.DefaultCatalog());
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->name, "files");
}

TEST_F(CatalogConfigTest, EmptyFilesAndDefaults) {
  ASSERT_OK_AND_ASSIGN(CatalogConfigFile empty, ParseCatalogConfig("", "e.yaml"));
  EXPECT_TRUE(empty.catalogs.empty());
  EXPECT_EQ(empty.Names(), "(none)");
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogConfig> none, empty.DefaultCatalog());
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(CatalogConfigFile no_catalogs, ParseCatalogConfig("catalog:\n", "e.yaml"));
  EXPECT_TRUE(no_catalogs.catalogs.empty());
  // Without default-catalog, a catalog named "default" is the default (as in pyiceberg).
  ASSERT_OK_AND_ASSIGN(CatalogConfigFile named,
                       ParseCatalogConfig("catalog:\n  default:\n    type: hadoop\n"
                                          "    warehouse: w\n  other:\n    type: hadoop\n",
                                          "d.yaml"));
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogConfig> chosen, named.DefaultCatalog());
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->name, "default");
  ASSERT_OK_AND_ASSIGN(
      CatalogConfigFile dangling,
      ParseCatalogConfig("default-catalog: gone\ncatalog:\n  a:\n    type: sql\n", "g.yaml"));
  EXPECT_THAT(dangling.DefaultCatalog(),
              IsErrorWith(StatusCode::kNotFound,
                          "g.yaml: default-catalog names catalog 'gone', which is not configured "
                          "(configured: a)"));
}

TEST_F(CatalogConfigTest, MalformedFilesNameTheFileAndTheKey) {
  EXPECT_THAT(ParseCatalogConfig("catalog:\n  lake: [unclosed\n", "bad.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "bad.yaml:3:1: not valid YAML"));
  EXPECT_THAT(
      ParseCatalogConfig("- a\n- b\n", "list.yaml"),
      IsErrorWith(StatusCode::kInvalidArgument,
                  "list.yaml: the file must be a mapping with a 'catalog' key, not a list"));
  EXPECT_THAT(ParseCatalogConfig("catalog: lake\n", "c.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "c.yaml: catalog must be a mapping of catalog names to settings, not "
                          "a single value"));
  EXPECT_THAT(ParseCatalogConfig("catalog:\n  lake: sqlite:x.db\n", "c.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "c.yaml: catalog.lake must be a mapping of settings"));
  EXPECT_THAT(ParseCatalogConfig("catalog:\n  lake:\n    uri:\n      nested: 1\n", "c.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "c.yaml: catalog.lake.uri must be a single value, not a mapping"));
  EXPECT_THAT(ParseCatalogConfig("catalog:\n  a/b:\n    type: sql\n", "c.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "catalog name 'a/b' (key catalog.a/b)"));
  EXPECT_THAT(ParseCatalogConfig("default-catalog: [a]\n", "c.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "c.yaml: default-catalog must be"));
}

// A quote that is never closed would make every setting after it part of one value (yaml-cpp
// accepts it), and no error echoes a configured value: it may be a secret.
TEST_F(CatalogConfigTest, UnclosedQuotesAreErrorsAndErrorsShowNoValues) {
  for (const char* text :
       {"catalog:\n  lake:\n    type: sql\n    uri: \"sqlite:x.db\n    warehouse: /w\n",
        "catalog:\n  lake:\n    type: sql\n    uri: 'sqlite:x.db\n    password: hunter2\n",
        "catalog:\n  lake:\n    password: \"hunter2\\\"\n"}) {
    SCOPED_TRACE(text);
    Result<CatalogConfigFile> parsed = ParseCatalogConfig(text, "q.yaml");
    EXPECT_THAT(parsed, IsErrorWith(StatusCode::kInvalidArgument,
                                    "not valid YAML: a quoted value is never closed"));
    EXPECT_THAT(parsed.status().message(), Not(HasSubstr("hunter2")));
  }
  EXPECT_THAT(
      ParseCatalogConfig("catalog:\n  lake:\n    type: sql\n    uri: \"sqlite:x.db\n", "q.yaml"),
      IsErrorWith(StatusCode::kInvalidArgument, "q.yaml:4:10: not valid YAML"));
  // Closed quotes, escapes, '' inside single quotes and values spanning lines are fine.
  ASSERT_OK_AND_ASSIGN(
      CatalogConfigFile ok,
      ParseCatalogConfig("catalog:\n  lake:\n    type: \"sql\"\n    uri: 'sqlite:it''s.db'\n"
                         "    password: \"a\\\"b\"\n    note: \"two\n      lines\"\n",
                         "q.yaml"));
  EXPECT_EQ(ok.catalogs.at("lake").uri, "sqlite:it's.db");
  EXPECT_EQ(ok.catalogs.at("lake").properties.at("password"), "a\"b");
  EXPECT_EQ(ok.catalogs.at("lake").properties.at("note"), "two lines");
  // Values of the wrong shape are described, never shown.
  Result<CatalogConfigFile> secret =
      ParseCatalogConfig("catalog:\n  lake: s3cr3t-token\n", "c.yaml");
  EXPECT_THAT(secret, IsErrorWith(StatusCode::kInvalidArgument, "not a single value"));
  EXPECT_THAT(secret.status().message(), Not(HasSubstr("s3cr3t")));
  Result<CatalogConfigFile> broken =
      ParseCatalogConfig("catalog:\n  lake:\n    token: s3cr3t [x\n   uri: y\n", "c.yaml");
  EXPECT_THAT(broken, IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(broken.status().message(), Not(HasSubstr("s3cr3t")));
}

TEST_F(CatalogConfigTest, OpenConfiguredCatalogChecksTypeAndKeys) {
  CatalogConfig config;
  config.name = "lake";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "f.yaml: catalog.lake.type is missing"));
  config.type = "glue";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kNotSupported,
                          "f.yaml: catalog.lake.type 'glue' is not supported (supported: sql, "
                          "rest, hadoop)"));
  config.type = "rest";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "f.yaml: catalog.lake.uri is missing"));
  config.type = "sql";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kInvalidArgument, "f.yaml: catalog.lake.uri is missing"));
  config.uri = "mysql://admin:hunter2@db/cat";
  Status mysql = OpenConfiguredCatalog(config, "f.yaml").status();
  EXPECT_THAT(mysql, IsErrorWith(StatusCode::kNotSupported,
                                 "f.yaml: catalog.lake.uri 'mysql://admin:***@db/cat': only "
                                 "SQLite (sqlite:...) and PostgreSQL"));
  EXPECT_THAT(mysql.message(), Not(HasSubstr("hunter2")));
  // A PostgreSQL database holds no files: the warehouse must be given.
  for (const char* uri : {"postgresql://admin:hunter2@db/cat", "postgres://admin:hunter2@db/cat",
                          "postgresql+psycopg2://admin:hunter2@db/cat",
                          "jdbc:postgresql://db/cat?user=admin&password=hunter2"}) {
    SCOPED_TRACE(uri);
    config.uri = uri;
    Status postgres = OpenConfiguredCatalog(config, "f.yaml").status();
    EXPECT_THAT(postgres, IsErrorWith(StatusCode::kInvalidArgument,
                                      "f.yaml: catalog.lake.warehouse is missing (a PostgreSQL "
                                      "catalog needs"));
    EXPECT_THAT(postgres.message(), Not(HasSubstr("hunter2")));
  }
  // A malformed one names the key and shows no password.
  config.uri = "postgresql://admin:hunter2@db/cat?nosuch=1";
  config.warehouse = "/w";
  Status malformed = OpenConfiguredCatalog(config, "f.yaml").status();
  EXPECT_THAT(malformed, IsErrorWith(StatusCode::kInvalidArgument,
                                     "f.yaml: catalog.lake: catalog URI "
                                     "'postgresql://admin:***@db/cat?nosuch=1' is not a valid "
                                     "PostgreSQL URI: invalid URI query parameter"));
  EXPECT_THAT(malformed.message(), Not(HasSubstr("hunter2")));
  config.warehouse.clear();
  config.type = "hadoop";
  EXPECT_THAT(
      OpenConfiguredCatalog(config, "f.yaml"),
      IsErrorWith(StatusCode::kInvalidArgument, "f.yaml: catalog.lake.warehouse is missing"));
  config.warehouse = "s3://bucket/wh";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kNotSupported, "f.yaml: catalog.lake: hadoop catalog lake"));

  config.warehouse = dir_.path() + "/files";
  // A configured catalog is opened, never created.
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kNotFound,
                          "f.yaml: catalog.lake: hadoop catalog lake: "
                          "warehouse directory " +
                              dir_.path() + "/files does not exist"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/files"));
  std::filesystem::create_directory(dir_.path() + "/files");
  ASSERT_OK_AND_ASSIGN(CatalogPtr hadoop, OpenConfiguredCatalog(config, "f.yaml"));
  EXPECT_EQ(hadoop->name(), "lake");
  EXPECT_EQ(hadoop->ToString(), "HadoopCatalog(name=lake, warehouse=" + dir_.path() + "/files)");
  config.type = "sql";
  config.uri = "sqlite:" + dir_.path() + "/lake.db";
  config.warehouse = dir_.path() + "/lake";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kNotFound, "f.yaml: catalog.lake: catalog database " +
                                                     dir_.path() + "/lake.db does not exist"));
  config.uri = "sqlite:" + dir_.path() + "/no/such/dir/lake.db";
  EXPECT_THAT(OpenConfiguredCatalog(config, "f.yaml"),
              IsErrorWith(StatusCode::kNotFound, "does not exist"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/no"));
  // Created once through its URI, it opens.
  ASSERT_OK(OpenCatalog("sqlite:" + dir_.path() + "/lake.db"));
  config.uri = "sqlite:" + dir_.path() + "/lake.db";
  ASSERT_OK_AND_ASSIGN(CatalogPtr sql, OpenConfiguredCatalog(config, "f.yaml"));
  EXPECT_EQ(sql->name(), "lake");
  EXPECT_THAT(sql->ToString(), HasSubstr("warehouse=" + dir_.path() + "/lake"));
  ASSERT_OK(sql->CreateNamespace({"db"}));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/lake.db"));
}

TEST_F(CatalogConfigTest, FloeConfigNamesTheFile) {
  const std::string path = WriteConfig(
      "catalog:\n  files:\n    type: hadoop\n    warehouse: " + dir_.path() + "/files\n");
  {
    ScopedEnv env("FLOE_CONFIG", path);
    EXPECT_EQ(ConfigFilePath(), path);
    ASSERT_OK_AND_ASSIGN(CatalogConfigFile file, LoadCatalogConfig());
    EXPECT_EQ(file.path, path);
    EXPECT_EQ(file.Names(), "files");
  }
  {
    ScopedEnv env("FLOE_CONFIG", dir_.path() + "/missing.yaml");
    EXPECT_THAT(LoadCatalogConfig(),
                IsErrorWith(StatusCode::kNotFound, "configuration file " + dir_.path() +
                                                       "/missing.yaml (named by FLOE_CONFIG) "
                                                       "does not exist"));
    EXPECT_THAT(ResolveCatalog("files"), IsErrorWith(StatusCode::kNotFound, "missing.yaml"));
  }
  {
    ScopedEnv env("FLOE_CONFIG", WriteConfig("catalog: [", "broken.yaml"));
    EXPECT_THAT(LoadCatalogConfig(),
                IsErrorWith(StatusCode::kInvalidArgument, dir_.path() + "/broken.yaml:"));
    // A broken file is an error even when no catalog is named (it may hold the default).
    EXPECT_THAT(ResolveCatalog(""), IsErrorWith(StatusCode::kInvalidArgument, "broken.yaml"));
  }
}

TEST_F(CatalogConfigTest, HomeFileIsUsedWhenFloeConfigIsUnset) {
  EXPECT_EQ(ConfigFilePath(), dir_.path() + "/home/.floe.yaml");
  // No file: an empty configuration, and no catalog by default.
  ASSERT_OK_AND_ASSIGN(CatalogConfigFile none, LoadCatalogConfig());
  EXPECT_TRUE(none.path.empty());
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> embedded, ResolveCatalog(""));
  EXPECT_FALSE(embedded.has_value());
  EXPECT_THAT(
      ResolveCatalog("lake"),
      IsErrorWith(StatusCode::kNotFound, "catalog 'lake' is not configured: configuration file " +
                                             dir_.path() + "/home/.floe.yaml does not exist"));
  std::ofstream(dir_.path() + "/home/.floe.yaml")
      << "catalog:\n  default:\n    type: hadoop\n    warehouse: " << dir_.path() << "/wh\n";
  std::filesystem::create_directory(dir_.path() + "/wh");
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> chosen, ResolveCatalog(""));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ((*chosen)->name(), "default");
  // An explicit --warehouse means the embedded catalog of that warehouse.
  ASSERT_OK_AND_ASSIGN(chosen, ResolveCatalog("", dir_.path() + "/elsewhere"));
  EXPECT_FALSE(chosen.has_value());
}

TEST_F(CatalogConfigTest, ResolveCatalogTellsUrisFromNames) {
  EXPECT_TRUE(IsCatalogUri("sqlite:x.db"));
  EXPECT_TRUE(IsCatalogUri("hadoop:/w"));
  EXPECT_TRUE(IsCatalogUri("dir/x"));
  EXPECT_FALSE(IsCatalogUri("lake"));
  ScopedEnv env("FLOE_CONFIG", WriteConfig("catalog:\n  files:\n    type: hadoop\n"
                                           "    warehouse: " +
                                           dir_.path() +
                                           "/files\n"
                                           "  lake:\n    type: sql\n    uri: sqlite:" +
                                           dir_.path() + "/lake.db\n"));
  std::filesystem::create_directory(dir_.path() + "/files");
  ASSERT_OK(OpenCatalog("sqlite:" + dir_.path() + "/lake.db"));
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> files, ResolveCatalog("files"));
  ASSERT_TRUE(files.has_value());
  EXPECT_NE(dynamic_cast<HadoopCatalog*>(files->get()), nullptr);
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> lake, ResolveCatalog("lake"));
  ASSERT_TRUE(lake.has_value());
  EXPECT_EQ((*lake)->name(), "lake");
  EXPECT_THAT(
      ResolveCatalog("nope"),
      IsErrorWith(StatusCode::kNotFound, "catalog 'nope' is not configured in " + dir_.path() +
                                             "/floe.yaml (configured: files, lake)"));
  EXPECT_THAT(ResolveCatalog("lake", dir_.path() + "/w"),
              IsErrorWith(StatusCode::kInvalidArgument, "--warehouse cannot be combined"));
  // A URI does not need the file.
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> uri,
                       ResolveCatalog("sqlite:" + dir_.path() + "/u.db", dir_.path() + "/uw"));
  ASSERT_TRUE(uri.has_value());
  EXPECT_THAT((*uri)->ToString(), HasSubstr("warehouse=" + dir_.path() + "/uw"));
  // Without a default in the file, no --catalog means the embedded catalog.
  ASSERT_OK_AND_ASSIGN(std::optional<CatalogPtr> embedded, ResolveCatalog(""));
  EXPECT_FALSE(embedded.has_value());
  EXPECT_TRUE(IsCatalogUri("postgresql://h/db"));
  EXPECT_THAT(ResolveCatalog("postgresql://u:hunter2@h/db"),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "catalog URI 'postgresql://u@h/db': a PostgreSQL catalog needs a "
                          "warehouse"));
  EXPECT_THAT(ResolveCatalog("mysql://h/db"), IsError(StatusCode::kNotSupported));
}

}  // namespace
}  // namespace floe::catalog
