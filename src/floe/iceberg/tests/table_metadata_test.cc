#include "floe/iceberg/table_metadata.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/format/compression/codec.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/table_location.h"
#include "floe/iceberg/type_json.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOk;
using nlohmann::json;

const std::string kFixtures = "../shared/fixtures/iceberg";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TableMetadataPtr Load(const std::string& relative) {
  auto md = ReadTableMetadata(kFixtures + "/" + relative);
  EXPECT_TRUE(md.ok()) << md.error().ToString();
  return md.ok() ? *md : nullptr;
}

std::vector<std::string> AllMetadataFiles() {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(kFixtures)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (IsMetadataFileName(name)) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TableMetadataFixtureTest, EveryMetadataFileParsesAndRoundTrips) {
  const auto files = AllMetadataFiles();
  ASSERT_GE(files.size(), 170u);
  int gz = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    if (path.find(".gz.") != std::string::npos) ++gz;
    ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, ReadTableMetadata(path));
    ASSERT_OK_AND_ASSIGN(std::string text, TableMetadataToJsonString(*md));
    ASSERT_OK_AND_ASSIGN(TableMetadataPtr again, TableMetadataFromBytes(text, "rewritten"));
    EXPECT_TRUE(md->Equals(*again));
    // Writing the re-read metadata gives the same text.
    ASSERT_OK_AND_ASSIGN(std::string text2, TableMetadataToJsonString(*again));
    EXPECT_EQ(text, text2);
  }
  EXPECT_EQ(gz, 2);
}

TEST(TableMetadataFixtureTest, ExpectedJsonCurrentSnapshotsAndCounts) {
  json expected = json::parse(Slurp(kFixtures + "/expected.json"));
  ASSERT_EQ(expected.size(), 51u);
  for (const json& table : expected) {
    const std::string path =
        table["group"].get<std::string>() + "/" + table["metadata"].get<std::string>();
    SCOPED_TRACE(path);
    TableMetadataPtr md = Load(path);
    ASSERT_NE(md, nullptr);
    EXPECT_EQ(md->format_version, table["format_version"].get<int>());
    const int64_t current = table["current_snapshot_id"].get<int64_t>();
    if (current == -1) {
      EXPECT_FALSE(md->current_snapshot_id.has_value());
      EXPECT_EQ(md->CurrentSnapshot(), nullptr);
    } else {
      ASSERT_TRUE(md->current_snapshot_id.has_value());
      EXPECT_EQ(*md->current_snapshot_id, current);
      ASSERT_NE(md->CurrentSnapshot(), nullptr);
      ASSERT_OK_AND_ASSIGN(const Snapshot* main, md->SnapshotByRef("main"));
      EXPECT_EQ(main->snapshot_id, current);
    }
    // expected.json lists the current branch's snapshots; the metadata holds at least those.
    EXPECT_GE(md->snapshots.size(), table["snapshots"].size());
    for (const json& s : table["snapshots"]) {
      const Snapshot* snap = md->SnapshotById(s["snapshot_id"].get<int64_t>());
      ASSERT_NE(snap, nullptr) << s.dump();
      if (md->format_version >= 2) {
        EXPECT_EQ(snap->sequence_number, s["sequence_number"].get<int64_t>());
      }
      if (s.contains("operation") && s["operation"].is_string()) {
        EXPECT_EQ(snap->operation(), s["operation"].get<std::string>());
      }
      if (s.contains("summary_total_records") && s["summary_total_records"].is_number()) {
        EXPECT_EQ(snap->summary.at("total-records"),
                  std::to_string(s["summary_total_records"].get<int64_t>()));
      }
    }
  }
}

TEST(TableMetadataFixtureTest, AllTrinoTypesSchema) {
  TableMetadataPtr md = Load(
      "iceberg-cxx/tests/tables/types/all_trino_types/metadata/"
      "00002-6105d5eb-ce39-470c-af78-50b744662ef2.metadata.json");
  ASSERT_NE(md, nullptr);
  SchemaPtr schema = md->CurrentSchema();
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->schema_id(), 0);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"id", "long"},
      {"boolean_col", "boolean"},
      {"integer_col", "int"},
      {"long_col", "long"},
      {"float_col", "float"},
      {"double_col", "double"},
      {"decimal_col", "decimal(18,5)"},
      {"date_col", "date"},
      {"time_col", "time"},
      {"timestamp_col", "timestamp"},
      {"timestamptz_col", "timestamptz"},
      {"string_col", "string"},
      {"uuid_col", "uuid"},
      {"binary_col", "binary"},
      {"list_col", "list<double>"}};
  ASSERT_EQ(schema->num_fields(), static_cast<int>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    const Field& f = schema->fields()[i];
    EXPECT_EQ(f.name(), expected[i].first);
    EXPECT_EQ(f.field_id(), static_cast<int32_t>(i + 1));
    EXPECT_TRUE(f.nullable());
    ASSERT_OK_AND_ASSIGN(std::string type, IcebergTypeName(*f.type()));
    EXPECT_EQ(type, expected[i].second) << f.name();
  }
  EXPECT_EQ(schema->fields()[6].type()->id(), TypeId::kDecimal);
  EXPECT_EQ(schema->fields()[6].type()->precision(), 18);
  EXPECT_EQ(schema->fields()[6].type()->scale(), 5);
  const Field* element = schema->FindFieldById(16);
  ASSERT_NE(element, nullptr);
  EXPECT_EQ(element->type()->id(), TypeId::kFloat64);
  EXPECT_EQ(schema->FindColumnName(16), "list_col.element");
  EXPECT_EQ(schema->FindParentId(16), 15);
  EXPECT_EQ(schema->highest_field_id(), 16);
  EXPECT_EQ(md->last_column_id, 16);
}

TEST(TableMetadataFixtureTest, PartitionEvolutionSpecs) {
  TableMetadataPtr md = Load(
      "iceberg-cxx/tests/tables/partition_evolution/metadata/"
      "00005-218c3743-5886-48b9-88d6-86c202862e0f.metadata.json");
  ASSERT_NE(md, nullptr);
  ASSERT_EQ(md->partition_specs.size(), 2u);
  EXPECT_EQ(md->default_spec_id, 1);
  EXPECT_EQ(md->last_partition_id, 1002);
  PartitionSpecPtr s0 = md->SpecById(0);
  ASSERT_NE(s0, nullptr);
  ASSERT_EQ(s0->fields().size(), 2u);
  EXPECT_EQ(s0->fields()[0], (PartitionField{1, 1000, "c1", Transform::Identity()}));
  EXPECT_EQ(s0->fields()[1], (PartitionField{2, 1001, "c2", Transform::Identity()}));
  PartitionSpecPtr s1 = md->DefaultSpec();
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->spec_id(), 1);
  ASSERT_EQ(s1->fields().size(), 1u);
  EXPECT_EQ(s1->fields()[0], (PartitionField{3, 1002, "c3", Transform::Identity()}));
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, s1->PartitionType(*md->CurrentSchema()));
  ASSERT_EQ(ptype->num_fields(), 1);
  EXPECT_EQ(ptype->field(0).name(), "c3");
  EXPECT_EQ(ptype->field(0).field_id(), 1002);
  EXPECT_EQ(ptype->field(0).type()->id(), TypeId::kFloat64);
}

TEST(TableMetadataFixtureTest, BucketPartitioningSpec) {
  TableMetadataPtr md = Load(
      "iceberg-cxx/tests/tables/bucket_partitioning/metadata/"
      "00002-53948f10-cced-409f-8dd9-6dea096895e8.metadata.json");
  ASSERT_NE(md, nullptr);
  PartitionSpecPtr spec = md->DefaultSpec();
  ASSERT_NE(spec, nullptr);
  const std::vector<std::pair<std::string, int>> expected = {
      {"col_int_bucket", 2},           {"col_long_bucket", 3},    {"col_decimal_bucket", 4},
      {"col_date_bucket", 5},          {"col_time_bucket", 6},    {"col_timestamp_bucket", 100},
      {"col_timestamptz_bucket", 123}, {"col_string_bucket", 42}, {"col_uuid_bucket", 55},
      {"col_varbinary_bucket", 812}};
  ASSERT_EQ(spec->fields().size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const PartitionField& f = spec->fields()[i];
    EXPECT_EQ(f.name, expected[i].first);
    EXPECT_EQ(f.source_id, static_cast<int32_t>(i + 1));
    EXPECT_EQ(f.field_id, static_cast<int32_t>(1000 + i));
    EXPECT_EQ(f.transform, Transform::Bucket(expected[i].second));
  }
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*md->CurrentSchema()));
  for (const Field& f : ptype->fields()) EXPECT_EQ(f.type()->id(), TypeId::kInt32);
  EXPECT_EQ(spec->last_assigned_field_id(), 1009);
  EXPECT_FALSE(spec->is_unpartitioned());
}

TEST(TableMetadataFixtureTest, DeletionVectorsV3RefsAndLineage) {
  TableMetadataPtr md = Load(
      "iceberg-cxx/tests/tables/deletion_vectors/metadata/"
      "00004-ae0294d0-1de5-4fab-97f1-cd80e0078fa4.metadata.json");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->format_version, 3);
  ASSERT_EQ(md->refs.size(), 1u);
  const SnapshotRef& main = md->refs.at("main");
  EXPECT_EQ(main.snapshot_id, 7777310120628922486);
  EXPECT_TRUE(main.is_branch());
  EXPECT_FALSE(main.min_snapshots_to_keep.has_value());
  EXPECT_FALSE(main.max_ref_age_ms.has_value());
  EXPECT_EQ(md->next_row_id, 16);
  const Snapshot* current = md->CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->sequence_number, 5);
  EXPECT_EQ(current->parent_snapshot_id, 7026943662205930455);
  EXPECT_EQ(current->operation(), "delete");
  EXPECT_EQ(current->first_row_id, 16);
  EXPECT_EQ(current->added_rows, 0);
  EXPECT_EQ(current->schema_id, 0);
  EXPECT_EQ(current->summary.at("added-dvs"), "2");
  ASSERT_FALSE(md->statistics.empty());
  const StatisticsFile& stats = md->statistics[0];
  EXPECT_EQ(stats.snapshot_id, 7026943662205930455);
  EXPECT_EQ(stats.file_size_in_bytes, 763);
  EXPECT_EQ(stats.file_footer_size_in_bytes, 445);
  ASSERT_EQ(stats.blob_metadata.size(), 2u);
  EXPECT_EQ(stats.blob_metadata[0].type, "apache-datasketches-theta-v1");
  EXPECT_EQ(stats.blob_metadata[0].sequence_number, 4);
  EXPECT_EQ(stats.blob_metadata[1].fields, std::vector<int32_t>{2});
  EXPECT_EQ(stats.blob_metadata[0].properties.at("ndv"), "16");
  EXPECT_EQ(md->Ancestors(7777310120628922486).size(), 5u);
  ASSERT_OK_AND_ASSIGN(const Snapshot* at, md->SnapshotAsOf(current->timestamp_ms));
  EXPECT_EQ(at->snapshot_id, current->snapshot_id);
  ASSERT_OK_AND_ASSIGN(const Snapshot* before, md->SnapshotAsOf(current->timestamp_ms - 1));
  EXPECT_EQ(before->snapshot_id, 7026943662205930455);
  EXPECT_THAT(md->SnapshotAsOf(0), IsError(StatusCode::kNotFound));
  EXPECT_THAT(md->SnapshotByRef("nope"), IsErrorWith(StatusCode::kNotFound, "nope"));
}

TEST(TableMetadataFixtureTest, V1LegacyManifestsSnapshot) {
  TableMetadataPtr md = Load(
      "duckdb-iceberg/data/persistent/iceberg_v1_deprecated/default/legacy_v1/metadata/"
      "v2.metadata.json");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->format_version, 1);
  ASSERT_EQ(md->snapshots.size(), 1u);
  const Snapshot& s = md->snapshots[0];
  EXPECT_EQ(s.snapshot_id, 2456114553637229296);
  EXPECT_TRUE(s.manifest_list.empty());
  ASSERT_EQ(s.manifests.size(), 1u);
  EXPECT_EQ(s.manifests[0],
            "data/persistent/iceberg_v1_deprecated/default/legacy_v1/metadata/"
            "d65f86b0-b799-467f-b1f4-9c697e4c4fc7-m0.avro");
  EXPECT_EQ(s.sequence_number, 0);
  EXPECT_EQ(s.operation(), "append");
  // v1 `schema` and `partition-spec` only.
  ASSERT_EQ(md->schemas.size(), 1u);
  ASSERT_EQ(md->partition_specs.size(), 1u);
  EXPECT_EQ(md->default_spec_id, 0);
  EXPECT_EQ(md->DefaultSpec()->fields()[0],
            (PartitionField{2, 1000, "category", Transform::Identity()}));
  // Sort orders absent in v1: the unsorted order.
  ASSERT_NE(md->DefaultSortOrder(), nullptr);
  EXPECT_TRUE(md->DefaultSortOrder()->is_unsorted());
  // Written back as v1 with the manifests array and the legacy fields.
  ASSERT_OK_AND_ASSIGN(json out, TableMetadataToJson(*md));
  EXPECT_EQ(out["format-version"], 1);
  EXPECT_TRUE(out.contains("schema"));
  EXPECT_TRUE(out.contains("partition-spec"));
  EXPECT_EQ(out["snapshots"][0]["manifests"].size(), 1u);
  EXPECT_FALSE(out["snapshots"][0].contains("manifest-list"));
  EXPECT_FALSE(out["snapshots"][0].contains("sequence-number"));
}

TEST(TableMetadataFixtureTest, AddColumnsWithDefaults) {
  TableMetadataPtr md = Load(
      "duckdb-iceberg/data/persistent/add_columns_with_defaults/default.db/"
      "add_columns_with_defaults/metadata/"
      "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json");
  ASSERT_NE(md, nullptr);
  SchemaPtr schema = md->CurrentSchema();
  EXPECT_EQ(schema->FindDefaults(1), nullptr);
  auto initial = [&](int32_t id) -> Scalar {
    const FieldDefaults* d = schema->FindDefaults(id);
    EXPECT_NE(d, nullptr) << id;
    EXPECT_TRUE(d && d->initial_default.has_value()) << id;
    EXPECT_TRUE(d && d->write_default.has_value()) << id;
    return d && d->initial_default ? *d->initial_default : Scalar::Null(Int32());
  };
  EXPECT_EQ(initial(2).get<bool>(), true);
  EXPECT_EQ(initial(3).get<int32_t>(), 342342);
  EXPECT_EQ(initial(4).get<int64_t>(), INT64_MIN);
  EXPECT_FLOAT_EQ(initial(5).get<float>(), 0.34234f);
  EXPECT_DOUBLE_EQ(initial(6).get<double>(), 0.342343242342342);
  EXPECT_TRUE(initial(7).get<Int128>() == Int128{1234500});
  EXPECT_EQ(initial(7).type()->scale(), 2);
  EXPECT_EQ(initial(8).get<int32_t>(), 12345);  // 2003-10-20
  EXPECT_EQ(initial(9).get<int64_t>(), 12345);  // 00:00:00.012345
  EXPECT_EQ(initial(10).get<int64_t>(), 12345);
  EXPECT_EQ(initial(11).get<int64_t>(), 12345);
  EXPECT_EQ(initial(12).get<std::string>(), "HELLO");
  EXPECT_EQ(initial(13).get<std::string>(),
            std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16));
  EXPECT_EQ(initial(14).get<std::string>(), std::string("\x01\x02\x03\xff\x03", 5));
  EXPECT_EQ(initial(15).get<std::string>(), std::string("\x01\x02", 2));
  // The defaults are written back in the same JSON forms.
  ASSERT_OK_AND_ASSIGN(json out, SchemaToJson(*schema));
  EXPECT_EQ(out["fields"][6]["initial-default"], "12345.00");
  EXPECT_EQ(out["fields"][7]["write-default"], "2003-10-20");
  EXPECT_EQ(out["fields"][8]["initial-default"], "00:00:00.012345");
  EXPECT_EQ(out["fields"][9]["initial-default"], "1970-01-01T00:00:00.012345");
  EXPECT_EQ(out["fields"][10]["initial-default"], "1970-01-01T00:00:00.012345+00:00");
  EXPECT_EQ(out["fields"][12]["initial-default"], "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_EQ(out["fields"][13]["initial-default"], "010203ff03");
  EXPECT_EQ(out["fields"][3]["initial-default"], INT64_MIN);
}

TEST(TableMetadataFixtureTest, TimestamptzNsV3) {
  TableMetadataPtr md =
      Load("duckdb-iceberg/data/persistent/timestamptz_ns/metadata/v1.metadata.json");
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->format_version, 3);
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_TRUE(md->snapshots.empty());
  EXPECT_TRUE(md->refs.empty());
  const Field* val = md->CurrentSchema()->FindFieldById(2);
  ASSERT_NE(val, nullptr);
  EXPECT_EQ(val->type()->id(), TypeId::kTimestampTzNs);
  PartitionSpecPtr spec = md->DefaultSpec();
  ASSERT_EQ(spec->fields().size(), 4u);
  EXPECT_EQ(spec->fields()[0].transform, Transform::Year());
  EXPECT_EQ(spec->fields()[3].transform, Transform::Hour());
  EXPECT_EQ(spec->fields()[3].name, "val_hour");
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*md->CurrentSchema()));
  EXPECT_EQ(ptype->field(2).type()->id(), TypeId::kDate);
  EXPECT_THAT(md->SnapshotByRef("main"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(md->SnapshotAsOf(1750000000000), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(json out, TableMetadataToJson(*md));
  EXPECT_EQ(out["current-snapshot-id"], -1);
  EXPECT_EQ(out["schemas"][0]["fields"][1]["type"], "timestamptz_ns");
}

TEST(TableMetadataFixtureTest, NameMappings) {
  TableMetadataPtr md = Load(
      "duckdb-iceberg/data/persistent/column_mapping/warehouse/default.db/my_table/metadata/"
      "00001-75643dae-a7a7-46ae-ab30-ea80d3793f3f.metadata.json");
  ASSERT_NE(md, nullptr);
  ASSERT_OK_AND_ASSIGN(auto mapping, NameMapping::FromTableProperties(md->properties, "t"));
  ASSERT_TRUE(mapping.has_value());
  EXPECT_EQ(mapping->fields().size(), 6u);
  EXPECT_EQ(mapping->Find({"id"}), 1);
  EXPECT_EQ(mapping->Find({"attributes", "key"}), 7);
  EXPECT_EQ(mapping->Find({"attributes", "value"}), 8);
  EXPECT_EQ(mapping->Find({"scores", "element"}), 9);
  EXPECT_EQ(mapping->Find({"profile", "verified"}), 11);
  EXPECT_EQ(mapping->Find({"profile", "nope"}), std::nullopt);
  // The mapping matches the schema's own default mapping.
  EXPECT_EQ(*mapping, NameMapping::FromSchema(*md->CurrentSchema()));

  TableMetadataPtr nm = Load(
      "duckdb-iceberg/data/persistent/name_mapping/warehouse_1/mydb/t1/metadata/v7.metadata.json");
  ASSERT_NE(nm, nullptr);
  EXPECT_EQ(nm->format_version, 1);
  ASSERT_OK_AND_ASSIGN(auto m2, NameMapping::FromTableProperties(nm->properties, "t1"));
  ASSERT_TRUE(m2.has_value());
  EXPECT_EQ(m2->Find({"a"}), 1);
  EXPECT_EQ(m2->Find({"b"}), 3);  // b was dropped (id 2) and re-added as id 3
  EXPECT_EQ(nm->CurrentSchema()->schema_id(), 2);
  // Applying it to a file schema without ids.
  floe::Schema file({Field("a", Int32(), false), Field("b", Int64()), Field("c", Int64())});
  floe::SchemaPtr mapped = m2->Apply(file);
  EXPECT_EQ(mapped->field(0).field_id(), 1);
  EXPECT_EQ(mapped->field(1).field_id(), 3);
  EXPECT_EQ(mapped->field(2).field_id(), kNoFieldId);
}

TEST(TableMetadataFixtureTest, GzipMetadata) {
  const std::string dir = kFixtures + "/duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz";
  std::string path;
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, LoadTableFromDirectory(dir, &path));
  EXPECT_EQ(fs::path(path).filename(), "v2.gz.metadata.json");
  EXPECT_EQ(md->current_snapshot_id, 4468019210336628573);
  // The same bytes under any name are detected by magic.
  std::string bytes = Slurp(path);
  ASSERT_OK(TableMetadataFromBytes(bytes, "renamed.json"));
  // A gzip stream that is cut short is a Corrupt error naming the file.
  EXPECT_THAT(TableMetadataFromBytes(bytes.substr(0, bytes.size() / 2), "cut.gz.metadata.json"),
              IsErrorWith(StatusCode::kCorrupt, "cut.gz.metadata.json"));
}

// ---- version hints and directory resolution ----

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("floe_model_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(path_ / "metadata");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  void Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / "metadata" / name, std::ios::binary) << content;
  }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(TableLocationFixtureTest, VersionHintNumberAndName) {
  // Number form.
  std::string path;
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr md,
      LoadTableFromDirectory(
          kFixtures + "/duckdb-iceberg/data/persistent/name_mapping/warehouse_1/mydb/t1", &path));
  EXPECT_EQ(fs::path(path).filename(), "v7.metadata.json");
  EXPECT_EQ(md->current_snapshot_id, 2651609110244230974);
  // Name form without the suffix (uuid table).
  ASSERT_OK_AND_ASSIGN(path,
                       FindCurrentMetadataFile(kFixtures + "/duckdb-iceberg/data/persistent/uuid"));
  EXPECT_EQ(fs::path(path).filename(), "00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json");

  TempDir dir;
  const std::string doc =
      Slurp(kFixtures + "/duckdb-iceberg/data/persistent/timestamptz_ns/metadata/v1.metadata.json");
  dir.Write("00001-aaaa.metadata.json", doc);
  dir.Write("00002-bbbb.metadata.json", doc);
  dir.Write("version-hint.text", "00001-aaaa.metadata.json\n");
  ASSERT_OK_AND_ASSIGN(path, FindCurrentMetadataFile(dir.path()));
  EXPECT_EQ(fs::path(path).filename(), "00001-aaaa.metadata.json");
  // A stale hint falls back to the highest version.
  dir.Write("version-hint.text", "9");
  ASSERT_OK_AND_ASSIGN(path, FindCurrentMetadataFile(dir.path()));
  EXPECT_EQ(fs::path(path).filename(), "00002-bbbb.metadata.json");
  // Numbered v-files: v10 beats v9 (numeric, not lexicographic).
  dir.Write("v9.metadata.json", doc);
  dir.Write("v10.gz.metadata.json", doc);
  fs::remove(fs::path(dir.path()) / "metadata" / "version-hint.text");
  ASSERT_OK_AND_ASSIGN(path, FindCurrentMetadataFile(dir.path()));
  EXPECT_EQ(fs::path(path).filename(), "v10.gz.metadata.json");
  dir.Write("version-hint.text", "9");
  ASSERT_OK_AND_ASSIGN(path, FindCurrentMetadataFile(dir.path()));
  EXPECT_EQ(fs::path(path).filename(), "v9.metadata.json");
  // A path that is a metadata file is itself.
  ASSERT_OK_AND_ASSIGN(path, FindCurrentMetadataFile(dir.path() + "/metadata/v9.metadata.json"));
  EXPECT_EQ(fs::path(path).filename(), "v9.metadata.json");
}

TEST(TableLocation, MissingAndEmpty) {
  TempDir dir;
  EXPECT_THAT(FindCurrentMetadataFile(dir.path()), IsErrorWith(StatusCode::kNotFound, "metadata"));
  EXPECT_THAT(FindCurrentMetadataFile(dir.path() + "/nope"), IsError(StatusCode::kNotFound));
  EXPECT_EQ(MetadataFileVersion("v3.metadata.json"), 3);
  EXPECT_EQ(MetadataFileVersion("00012-abc.metadata.json"), 12);
  EXPECT_EQ(MetadataFileVersion("v5.metadata.json.gz"), 5);
  EXPECT_EQ(MetadataFileVersion("vfinal.metadata.json"), std::nullopt);
  EXPECT_EQ(MetadataFileVersion("snap-1.avro"), std::nullopt);
}

TEST(TableLocationFixtureTest, WriteAndReadBackGzip) {
  TempDir dir;
  TableMetadataPtr md = Load(
      "iceberg-cxx/tests/tables/partition_evolution/metadata/"
      "00005-218c3743-5886-48b9-88d6-86c202862e0f.metadata.json");
  ASSERT_NE(md, nullptr);
  const std::string path = dir.path() + "/metadata/v1.gz.metadata.json";
  ASSERT_OK(WriteTableMetadata(*md, path));
  std::string raw = Slurp(path);
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(static_cast<uint8_t>(raw[0]), 0x1f);
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr back, ReadTableMetadata(path));
  EXPECT_TRUE(md->Equals(*back));
}

// ---- bad inputs ----

const char* kMinimalV2 = R"({
  "format-version": 2, "table-uuid": "u", "location": "s3://b/t",
  "last-sequence-number": 0, "last-updated-ms": 1, "last-column-id": 1,
  "current-schema-id": 0,
  "schemas": [{"type": "struct", "schema-id": 0,
               "fields": [{"id": 1, "name": "x", "required": true, "type": "long"}]}],
  "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
  "last-partition-id": 999, "default-sort-order-id": 0,
  "sort-orders": [{"order-id": 0, "fields": []}]})";

json MinimalV2() { return json::parse(kMinimalV2); }

TEST(TableMetadataErrors, MinimalParsesAndImpliesNoMain) {
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, TableMetadataFromJson(MinimalV2(), "m.json"));
  EXPECT_TRUE(md->refs.empty());
  EXPECT_TRUE(md->properties.empty());
  EXPECT_EQ(md->CurrentSchema()->fields()[0].nullable(), false);
}

// A v1 file may carry a last-sequence-number (a table written by v2-aware code): it is
// kept, and written back, so the metadata round-trips (found by the metadata fuzzer).
TEST(TableMetadataErrors, V1LastSequenceNumberRoundTrips) {
  json j = MinimalV2();
  j["format-version"] = 1;
  j["last-sequence-number"] = 1;
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, TableMetadataFromJson(j, "m.json"));
  EXPECT_EQ(md->last_sequence_number, 1);
  ASSERT_OK_AND_ASSIGN(std::string written, TableMetadataToJsonString(*md));
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr again, TableMetadataFromBytes(written, "again.json"));
  EXPECT_EQ(again->last_sequence_number, 1);
  EXPECT_TRUE(md->Equals(*again));
  // Without one, a v1 file still gets none.
  j.erase("last-sequence-number");
  ASSERT_OK_AND_ASSIGN(md, TableMetadataFromJson(j, "m.json"));
  ASSERT_OK_AND_ASSIGN(written, TableMetadataToJsonString(*md));
  EXPECT_EQ(written.find("last-sequence-number"), std::string::npos);
}

TEST(TableMetadataErrors, TruncatedJson) {
  std::string text = kMinimalV2;
  EXPECT_THAT(TableMetadataFromBytes(text.substr(0, text.size() / 2), "00001-x.metadata.json"),
              IsErrorWith(StatusCode::kCorrupt, "00001-x.metadata.json"));
  EXPECT_THAT(TableMetadataFromBytes("", "empty.metadata.json"),
              IsErrorWith(StatusCode::kCorrupt, "empty.metadata.json"));
  EXPECT_THAT(TableMetadataFromBytes("[1, 2]", "arr.metadata.json"),
              IsErrorWith(StatusCode::kCorrupt, "arr.metadata.json"));
}

TEST(TableMetadataErrors, WrongTypes) {
  json j = MinimalV2();
  j["last-column-id"] = "one";
  EXPECT_THAT(
      TableMetadataFromJson(j, "f.json"),
      IsErrorWith(StatusCode::kCorrupt, "f.json: field 'last-column-id' must be an integer"));
  j = MinimalV2();
  j["schemas"] = json::object();
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsErrorWith(StatusCode::kCorrupt, "'schemas'"));
  j = MinimalV2();
  j["schemas"][0]["fields"][0]["type"] = 7;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsErrorWith(StatusCode::kCorrupt, "f.json"));
  j = MinimalV2();
  j["schemas"][0]["fields"][0]["type"] = "varchar";
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kNotSupported, "varchar"));
  j = MinimalV2();
  j["properties"] = json{{"k", json::array()}};
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsErrorWith(StatusCode::kCorrupt, "'k'"));
}

TEST(TableMetadataErrors, UnknownVersionAndMissingFields) {
  json j = MinimalV2();
  j["format-version"] = 4;
  EXPECT_THAT(TableMetadataFromJson(j, "v4.metadata.json"),
              IsErrorWith(StatusCode::kNotSupported, "v4.metadata.json: format-version 4"));
  for (const char* field :
       {"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
        "last-column-id", "schemas", "current-schema-id", "partition-specs", "default-spec-id",
        "last-partition-id", "sort-orders", "default-sort-order-id"}) {
    j = MinimalV2();
    j.erase(field);
    EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
                IsErrorWith(StatusCode::kCorrupt,
                            fmt::format("f.json: missing required field '{}'", field)))
        << field;
  }
}

TEST(TableMetadataErrors, DanglingReferences) {
  json j = MinimalV2();
  j["current-schema-id"] = 5;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "f.json: current-schema-id 5 is not among"));
  j = MinimalV2();
  j["default-spec-id"] = 3;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "default-spec-id 3"));
  j = MinimalV2();
  j["current-snapshot-id"] = 42;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "current-snapshot-id 42"));
  j = MinimalV2();
  j["partition-specs"][0]["fields"] = json::array(
      {{{"name", "p"}, {"transform", "bucket[0]"}, {"source-id", 1}, {"field-id", 1000}}});
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsErrorWith(StatusCode::kCorrupt, "'p'"));
  j = MinimalV2();
  j["snapshots"] = json::array(
      {{{"snapshot-id", 1}, {"timestamp-ms", 5}, {"sequence-number", 1}, {"manifest-list", "l"}}});
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "snapshot 1: summary lacks"));
}

// Metadata whose parts disagree would scan the wrong snapshot or none: each is an error.
TEST(TableMetadataErrors, InconsistentMetadataThatWouldDropRows) {
  auto with_snapshots = [] {
    json j = MinimalV2();
    j["snapshots"] = json::array();
    for (int64_t id : {1, 2}) {
      j["snapshots"].push_back({{"snapshot-id", id},
                                {"timestamp-ms", 100 * id},
                                {"sequence-number", id},
                                {"manifest-list", fmt::format("snap-{}.avro", id)},
                                {"summary", {{"operation", "append"}}}});
    }
    j["last-sequence-number"] = 2;
    j["last-updated-ms"] = 300;
    j["current-snapshot-id"] = 2;
    j["refs"] = {{"main", {{"snapshot-id", 2}, {"type", "branch"}}}};
    j["snapshot-log"] = json::array(
        {{{"timestamp-ms", 100}, {"snapshot-id", 1}}, {{"timestamp-ms", 200}, {"snapshot-id", 2}}});
    return j;
  };
  ASSERT_OK(TableMetadataFromJson(with_snapshots(), "f.json"));

  json j = with_snapshots();
  j.erase("current-snapshot-id");
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt,
                          "f.json: current-snapshot-id is not set, but the main branch points "
                          "at snapshot 2"));
  j["current-snapshot-id"] = -1;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "current-snapshot-id is not set"));
  j["current-snapshot-id"] = 1;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt,
                          "current-snapshot-id 1 does not match the main branch, which points "
                          "at snapshot 2"));

  j = with_snapshots();
  j["refs"]["audit"] = {{"snapshot-id", 3}, {"type", "branch"}};
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt,
                          "ref 'audit' points at snapshot 3, which is not among the snapshots"));

  j = with_snapshots();
  j["last-sequence-number"] = 1;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt,
                          "snapshot 2 has sequence number 2, above the table's "
                          "last-sequence-number 1"));

  j = with_snapshots();
  j["snapshot-log"][0]["timestamp-ms"] = 100'000;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt,
                          "snapshot-log is out of order: entry 1 (snapshot 2, 200 ms) is before "
                          "entry 0 (snapshot 1, 100000 ms)"));
  // Within a minute of clock skew the order is accepted, as in the Java library.
  j["snapshot-log"][0]["timestamp-ms"] = 60'200;
  j["last-updated-ms"] = 60'200;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsOk());
  j = with_snapshots();
  j["last-updated-ms"] = 200 - 60'001;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "before the last snapshot-log entry (200 ms)"));

  j = with_snapshots();
  j["metadata-log"] = json::array({{{"timestamp-ms", 200'000}, {"metadata-file", "v1.json"}},
                                   {{"timestamp-ms", 100}, {"metadata-file", "v2.json"}}});
  j["last-updated-ms"] = 300'000;
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"),
              IsErrorWith(StatusCode::kCorrupt, "metadata-log is out of order: entry 1 (v2.json"));
}

TEST(TableMetadataErrors, ReadingAMissingFileNamesIt) {
  EXPECT_THAT(ReadTableMetadata(std::string("/nonexistent/v1.metadata.json")),
              IsErrorWith(StatusCode::kNotFound, "/nonexistent/v1.metadata.json"));
}

TEST(TableMetadataAccessors, SnapshotLogAndRefs) {
  json j = MinimalV2();
  auto snap = [](int64_t id, std::optional<int64_t> parent, int64_t ts, int64_t seq) {
    json s{{"snapshot-id", id},
           {"timestamp-ms", ts},
           {"sequence-number", seq},
           {"manifest-list", fmt::format("snap-{}.avro", id)},
           {"summary", {{"operation", "append"}}}};
    if (parent) s["parent-snapshot-id"] = *parent;
    return s;
  };
  j["snapshots"] = json::array(
      {snap(1, std::nullopt, 100, 1), snap(2, 1, 200, 2), snap(3, 2, 300, 3), snap(4, 1, 250, 4)});
  j["current-snapshot-id"] = 3;
  j["snapshot-log"] = json::array({{{"timestamp-ms", 100}, {"snapshot-id", 1}},
                                   {{"timestamp-ms", 200}, {"snapshot-id", 2}},
                                   {{"timestamp-ms", 300}, {"snapshot-id", 3}}});
  j["refs"] = {{"main",
                {{"snapshot-id", 3},
                 {"type", "branch"},
                 {"min-snapshots-to-keep", 2},
                 {"max-snapshot-age-ms", 1000}}},
               {"audit", {{"snapshot-id", 4}, {"type", "branch"}}},
               {"v1", {{"snapshot-id", 1}, {"type", "tag"}, {"max-ref-age-ms", 99}}}};
  j["last-sequence-number"] = 4;
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, TableMetadataFromJson(j, "f.json"));
  ASSERT_OK_AND_ASSIGN(const Snapshot* s, md->SnapshotAsOf(250));
  EXPECT_EQ(s->snapshot_id, 2);
  ASSERT_OK_AND_ASSIGN(s, md->SnapshotAsOf(300));
  EXPECT_EQ(s->snapshot_id, 3);
  ASSERT_OK_AND_ASSIGN(s, md->SnapshotAsOf(99999));
  EXPECT_EQ(s->snapshot_id, 3);
  EXPECT_THAT(md->SnapshotAsOf(99), IsError(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(s, md->SnapshotByRef("audit"));
  EXPECT_EQ(s->snapshot_id, 4);
  ASSERT_OK_AND_ASSIGN(s, md->SnapshotByRef("v1"));
  EXPECT_EQ(s->snapshot_id, 1);
  EXPECT_EQ(md->refs.at("v1").type, SnapshotRef::Type::kTag);
  EXPECT_EQ(md->refs.at("v1").max_ref_age_ms, 99);
  EXPECT_EQ(md->refs.at("main").min_snapshots_to_keep, 2);
  EXPECT_EQ(md->refs.at("main").max_snapshot_age_ms, 1000);
  EXPECT_EQ(md->Ancestors(3), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(md->Ancestors(4), (std::vector<int64_t>{4, 1}));
  ASSERT_OK_AND_ASSIGN(json out, TableMetadataToJson(*md));
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr back, TableMetadataFromJson(out, "out"));
  EXPECT_TRUE(md->Equals(*back));
  // A ref to a missing snapshot is corrupt.
  j["refs"]["bad"] = {{"snapshot-id", 77}, {"type", "tag"}};
  EXPECT_THAT(TableMetadataFromJson(j, "f.json"), IsErrorWith(StatusCode::kCorrupt, "'bad'"));
  // Without a log, as-of walks the current ancestry.
  j = MinimalV2();
  j["snapshots"] = json::array({snap(1, std::nullopt, 100, 1), snap(2, 1, 200, 2)});
  j["current-snapshot-id"] = 2;
  j["last-sequence-number"] = 2;
  ASSERT_OK_AND_ASSIGN(md, TableMetadataFromJson(j, "f.json"));
  ASSERT_OK_AND_ASSIGN(s, md->SnapshotAsOf(150));
  EXPECT_EQ(s->snapshot_id, 1);
  EXPECT_EQ(md->refs.at("main").snapshot_id, 2);  // implied by current-snapshot-id
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

// Found by fuzzing: a v1 table whose snapshot carries a sequence number wrote it away, so
// the metadata did not read back equal.
TEST(TableMetadataJsonTest, V1SnapshotSequenceNumberRoundTrips) {
  const std::string text =
      R"({"format-version":1,"table-uuid":"5ddc32c6-cb3e-4202-af1a-d97f8c606513",
    "location":"s3a://w/t","last-updated-ms":1741686863517,"last-column-id":1,
    "current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[
      {"id":1,"name":"c1","required":false,"type":"int"}]}],
    "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
    "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],
    "current-snapshot-id":5,"snapshots":[{"sequence-number":1,"snapshot-id":5,
      "timestamp-ms":1741686863517,"summary":{"operation":"append"},"manifest-list":"s3a://w/t/l.avro"}]})";
  auto md = TableMetadataFromBytes(text, "v1");
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ((*md)->snapshots.size(), 1u);
  EXPECT_EQ((*md)->snapshots[0].sequence_number, 1);
  auto written = TableMetadataToJsonString(**md);
  ASSERT_TRUE(written.ok());
  auto again = TableMetadataFromBytes(*written, "again");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE((*md)->Equals(**again));
}

}  // namespace
}  // namespace floe::iceberg
