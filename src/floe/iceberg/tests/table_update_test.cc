#include "floe/iceberg/table_update.h"

#include <regex>

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/table_location.h"
#include "floe/iceberg/type_json.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

// A schema whose ids are deliberately not the fresh ones: 10, 20 (struct of 21, 22),
// 30 (list of 31), 40 (map 41 -> 42).
SchemaPtr SourceSchema() {
  std::vector<Field> fields = {
      Field("id", Int64(), false, 10),
      Field("point", Struct({Field("x", Float64(), false, 21), Field("y", Float64(), true, 22)}),
            true, 20),
      Field("tags", List(Field("element", String(), true, 31)), true, 30),
      Field("attrs", Map(Field("key", String(), false, 41), Field("value", Int32(), true, 42)),
            true, 40),
      Field("ts", TimestampTz(), true, 50),
  };
  return Schema::Make(7, std::move(fields), {10}).ValueOrDie();
}

NewTableOptions Options() {
  NewTableOptions o;
  o.schema = SourceSchema();
  o.spec = PartitionSpec::Make(*o.schema, 3,
                               {{50, 1500, "ts_day", Transform::Day()},
                                {10, 1501, "id_bucket", Transform::Bucket(16)}})
               .ValueOrDie();
  o.sort_order =
      SortOrder::Make(*o.schema, 5,
                      {{10, Transform::Identity(), SortDirection::kDesc, NullOrder::kNullsLast}})
          .ValueOrDie();
  o.location = "/warehouse/db/t/";
  o.properties = {{"owner", "floe"}};
  return o;
}

TableMetadataPtr NewTable() { return NewTableMetadata(Options(), 1000).ValueOrDie(); }

Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t seq, int64_t ts) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = seq;
  s.timestamp_ms = ts;
  s.manifest_list = "/warehouse/db/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.summary = {{"operation", "append"}};
  s.schema_id = 0;
  return s;
}

SnapshotRef Branch(int64_t id) {
  SnapshotRef r;
  r.snapshot_id = id;
  return r;
}

TEST(NewTableMetadata, AssignsFreshIdsBreadthFirst) {
  TableMetadataPtr md = NewTable();
  const Schema& s = *md->CurrentSchema();
  EXPECT_EQ(s.schema_id(), 0);
  // Top-level fields 1..5, then point's children, tags' element, attrs' key and value.
  EXPECT_EQ(s.fields()[0].field_id(), 1);
  EXPECT_EQ(s.fields()[1].field_id(), 2);
  EXPECT_EQ(s.fields()[2].field_id(), 3);
  EXPECT_EQ(s.fields()[3].field_id(), 4);
  EXPECT_EQ(s.fields()[4].field_id(), 5);
  EXPECT_EQ(s.fields()[1].type()->field(0).field_id(), 6);
  EXPECT_EQ(s.fields()[1].type()->field(1).field_id(), 7);
  EXPECT_EQ(s.fields()[2].type()->field(0).field_id(), 8);
  EXPECT_EQ(s.fields()[3].type()->field(0).field_id(), 9);
  EXPECT_EQ(s.fields()[3].type()->field(1).field_id(), 10);
  EXPECT_EQ(md->last_column_id, 10);
  EXPECT_EQ(s.identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_FALSE(s.fields()[0].nullable());
  EXPECT_FALSE(s.fields()[1].type()->field(0).nullable());
}

TEST(NewTableMetadata, RemapsSpecAndSortOrder) {
  TableMetadataPtr md = NewTable();
  const PartitionSpec& spec = *md->DefaultSpec();
  EXPECT_EQ(spec.spec_id(), 0);
  ASSERT_EQ(spec.fields().size(), 2u);
  EXPECT_EQ(spec.fields()[0].source_id, 5);
  EXPECT_EQ(spec.fields()[0].field_id, 1000);
  EXPECT_EQ(spec.fields()[0].name, "ts_day");
  EXPECT_EQ(spec.fields()[1].source_id, 1);
  EXPECT_EQ(spec.fields()[1].field_id, 1001);
  EXPECT_EQ(md->last_partition_id, 1001);
  const SortOrder& order = *md->DefaultSortOrder();
  EXPECT_EQ(order.order_id(), 1);
  ASSERT_EQ(order.fields().size(), 1u);
  EXPECT_EQ(order.fields()[0].source_id, 1);
  EXPECT_EQ(order.fields()[0].direction, SortDirection::kDesc);
  EXPECT_EQ(md->location, "/warehouse/db/t");
  EXPECT_EQ(md->format_version, 2);
  EXPECT_EQ(md->properties, (std::map<std::string, std::string>{{"owner", "floe"}}));
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_TRUE(std::regex_match(md->table_uuid,
                               std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                          "[0-9a-f]{12}")));
  EXPECT_OK(md->Validate());
}

TEST(NewTableMetadata, UnsortedAndUnpartitionedDefaults) {
  NewTableOptions o = Options();
  o.spec = nullptr;
  o.sort_order = nullptr;
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, NewTableMetadata(o, 5));
  EXPECT_TRUE(md->DefaultSpec()->is_unpartitioned());
  EXPECT_EQ(md->last_partition_id, kPartitionFieldIdStart - 1);
  EXPECT_EQ(md->default_sort_order_id, 0);
  EXPECT_TRUE(md->DefaultSortOrder()->is_unsorted());
}

TEST(NewTableMetadata, FormatVersionProperty) {
  NewTableOptions o = Options();
  o.properties["format-version"] = "1";
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, NewTableMetadata(o, 5));
  EXPECT_EQ(md->format_version, 1);
  EXPECT_EQ(md->properties.count("format-version"), 0u);
  o.properties["format-version"] = "3";
  ASSERT_OK_AND_ASSIGN(md, NewTableMetadata(o, 5));
  EXPECT_EQ(md->format_version, 3);
  EXPECT_EQ(md->next_row_id, 0);
  o.properties["format-version"] = "4";
  EXPECT_THAT(NewTableMetadata(o, 5), IsErrorWith(StatusCode::kInvalidArgument, "'4'"));
  o.properties.erase("format-version");
  o.format_version = 0;
  EXPECT_THAT(NewTableMetadata(o, 5), IsError(StatusCode::kInvalidArgument));
}

TEST(NewTableMetadata, BadInput) {
  NewTableOptions o = Options();
  o.location = "";
  EXPECT_THAT(NewTableMetadata(o, 5), IsErrorWith(StatusCode::kInvalidArgument, "location"));
  o = Options();
  o.schema = nullptr;
  EXPECT_THAT(NewTableMetadata(o, 5), IsErrorWith(StatusCode::kInvalidArgument, "schema"));
  // A spec whose source is not in the schema.
  o = Options();
  SchemaPtr other = Schema::Make(0, {Field("z", Int32(), true, 99)}).ValueOrDie();
  o.spec = PartitionSpec::Make(*other, 0, {{99, 1000, "z", Transform::Identity()}}).ValueOrDie();
  EXPECT_THAT(NewTableMetadata(o, 5), IsErrorWith(StatusCode::kInvalidArgument,
                                                  "partition field 'z' refers to field id 99"));
}

TEST(CheckRequirements, EachKind) {
  TableMetadataPtr md = NewTable();
  using R = TableRequirement;
  EXPECT_OK(CheckRequirements(nullptr, {R::AssertCreate()}));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertCreate()}),
              IsErrorWith(StatusCode::kCommitConflict, "assert-create failed: the table already"));
  EXPECT_THAT(CheckRequirements(nullptr, {R::AssertTableUuid("x")}),
              IsErrorWith(StatusCode::kCommitConflict, "does not exist"));
  EXPECT_OK(CheckRequirements(md.get(), {R::AssertTableUuid(md->table_uuid)}));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertTableUuid("other")}),
              IsErrorWith(StatusCode::kCommitConflict, "expected other"));
  EXPECT_OK(CheckRequirements(md.get(), {R::AssertRefSnapshotId("main", std::nullopt)}));
  EXPECT_THAT(
      CheckRequirements(md.get(), {R::AssertRefSnapshotId("main", 5)}),
      IsErrorWith(StatusCode::kCommitConflict, "ref main is at no snapshot, expected snapshot 5"));
  EXPECT_OK(
      CheckRequirements(md.get(), {R::AssertLastAssignedFieldId(10), R::AssertCurrentSchemaId(0),
                                   R::AssertLastAssignedPartitionId(1001),
                                   R::AssertDefaultSpecId(0), R::AssertDefaultSortOrderId(1)}));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertLastAssignedFieldId(9)}),
              IsErrorWith(StatusCode::kCommitConflict, "last-column-id is 10, expected 9"));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertCurrentSchemaId(1)}),
              IsErrorWith(StatusCode::kCommitConflict, "current-schema-id is 0, expected 1"));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertLastAssignedPartitionId(1000)}),
              IsErrorWith(StatusCode::kCommitConflict, "last-partition-id is 1001"));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertDefaultSpecId(1)}),
              IsErrorWith(StatusCode::kCommitConflict, "default-spec-id is 0"));
  EXPECT_THAT(CheckRequirements(md.get(), {R::AssertDefaultSortOrderId(0)}),
              IsErrorWith(StatusCode::kCommitConflict, "default-sort-order-id is 1"));
}

TEST(ApplyUpdates, AddSnapshotAndMoveMain) {
  TableMetadataPtr md = NewTable();
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr next,
                       ApplyUpdates(*md,
                                    {update::AddSnapshot{MakeSnapshot(11, std::nullopt, 1, 2000)},
                                     update::SetSnapshotRef{"main", Branch(11)}},
                                    3000, "/warehouse/db/t/metadata/00000-a.metadata.json"));
  EXPECT_EQ(next->current_snapshot_id, 11);
  EXPECT_EQ(next->last_sequence_number, 1);
  EXPECT_EQ(next->last_updated_ms, 3000);
  ASSERT_EQ(next->snapshot_log.size(), 1u);
  EXPECT_EQ(next->snapshot_log[0], (SnapshotLogEntry{2000, 11}));
  ASSERT_EQ(next->metadata_log.size(), 1u);
  EXPECT_EQ(next->metadata_log[0],
            (MetadataLogEntry{1000, "/warehouse/db/t/metadata/00000-a.metadata.json"}));
  // The base is untouched.
  EXPECT_FALSE(md->current_snapshot_id.has_value());
  EXPECT_TRUE(md->snapshots.empty());

  // A second snapshot must advance the sequence number.
  EXPECT_THAT(
      ApplyUpdates(*next, {update::AddSnapshot{MakeSnapshot(12, 11, 1, 4000)}}, 4000),
      IsErrorWith(StatusCode::kInvalidArgument, "add-snapshot: snapshot 12 has sequence number 1"));
  EXPECT_THAT(ApplyUpdates(*next, {update::AddSnapshot{MakeSnapshot(11, 11, 2, 4000)}}, 4000),
              IsErrorWith(StatusCode::kInvalidArgument, "snapshot 11 already exists"));
  EXPECT_THAT(ApplyUpdates(*next, {update::SetSnapshotRef{"main", Branch(99)}}, 4000),
              IsErrorWith(StatusCode::kInvalidArgument,
                          "set-snapshot-ref: ref main names "
                          "snapshot 99"));
  // Moving main to an older snapshot (a rollback) logs it at commit time.
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr third,
                       ApplyUpdates(*next,
                                    {update::AddSnapshot{MakeSnapshot(12, 11, 2, 5000)},
                                     update::SetSnapshotRef{"main", Branch(12)}},
                                    5000));
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr rolled,
                       ApplyUpdates(*third, {update::SetSnapshotRef{"main", Branch(11)}}, 7000));
  EXPECT_EQ(rolled->current_snapshot_id, 11);
  EXPECT_EQ(rolled->snapshot_log.back(), (SnapshotLogEntry{7000, 11}));
}

TEST(ApplyUpdates, RemoveSnapshotsDropsRefsAndLog) {
  TableMetadataPtr md = NewTable();
  SnapshotRef tag;
  tag.snapshot_id = 11;
  tag.type = SnapshotRef::Type::kTag;
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr t,
      ApplyUpdates(*md,
                   {update::AddSnapshot{MakeSnapshot(11, std::nullopt, 1, 2000)},
                    update::SetSnapshotRef{"main", Branch(11)},
                    update::AddSnapshot{MakeSnapshot(12, 11, 2, 3000)},
                    update::SetSnapshotRef{"main", Branch(12)}, update::SetSnapshotRef{"v1", tag}},
                   3000));
  ASSERT_EQ(t->snapshot_log.size(), 2u);
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr r, ApplyUpdates(*t, {update::RemoveSnapshots{{11}}}, 4000));
  EXPECT_EQ(r->snapshots.size(), 1u);
  EXPECT_EQ(r->refs.count("v1"), 0u);
  EXPECT_EQ(r->current_snapshot_id, 12);
  ASSERT_EQ(r->snapshot_log.size(), 1u);
  EXPECT_EQ(r->snapshot_log[0].snapshot_id, 12);
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr none,
                       ApplyUpdates(*r, {update::RemoveSnapshotRef{"main"}}, 5000));
  EXPECT_FALSE(none->current_snapshot_id.has_value());
}

TEST(ApplyUpdates, SchemaSpecAndSortOrderEvolution) {
  TableMetadataPtr md = NewTable();
  std::vector<Field> fields = md->CurrentSchema()->fields();
  fields.push_back(Field("extra", String(), true, 11));
  SchemaPtr evolved = Schema::Make(0, fields, {1}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr t,
      ApplyUpdates(*md, {update::AddSchema{evolved, 11}, update::SetCurrentSchema{-1}}, 2000));
  EXPECT_EQ(t->current_schema_id, 1);
  EXPECT_EQ(t->last_column_id, 11);
  EXPECT_EQ(t->schemas.size(), 2u);
  // Adding an equal schema again reuses it.
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr same,
      ApplyUpdates(
          *t, {update::AddSchema{md->CurrentSchema(), std::nullopt}, update::SetCurrentSchema{-1}},
          2001));
  EXPECT_EQ(same->schemas.size(), 2u);
  EXPECT_EQ(same->current_schema_id, 0);
  EXPECT_THAT(ApplyUpdates(*t, {update::AddSchema{evolved, 5}}, 2002),
              IsErrorWith(StatusCode::kInvalidArgument, "last-column-id 5 is below"));
  EXPECT_THAT(ApplyUpdates(*t, {update::SetCurrentSchema{-1}}, 2002),
              IsErrorWith(StatusCode::kInvalidArgument, "no schema was added"));
  EXPECT_THAT(ApplyUpdates(*t, {update::SetCurrentSchema{9}}, 2002),
              IsErrorWith(StatusCode::kInvalidArgument, "no schema with id 9"));

  PartitionSpecPtr spec =
      PartitionSpec::Make(*evolved, 0, {{11, 1002, "extra", Transform::Identity()}}).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr s,
                       ApplyUpdates(*t, {update::AddSpec{spec}, update::SetDefaultSpec{-1}}, 3000));
  EXPECT_EQ(s->default_spec_id, 1);
  EXPECT_EQ(s->last_partition_id, 1002);
  SortOrderPtr order =
      SortOrder::Make(*evolved, 1,
                      {{11, Transform::Identity(), SortDirection::kAsc, NullOrder::kNullsFirst}})
          .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr o,
      ApplyUpdates(*s, {update::AddSortOrder{order}, update::SetDefaultSortOrder{-1}}, 4000));
  EXPECT_EQ(o->default_sort_order_id, 2);
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr unsorted,
      ApplyUpdates(*o,
                   {update::AddSortOrder{SortOrder::Unsorted()}, update::SetDefaultSortOrder{-1}},
                   5000));
  EXPECT_EQ(unsorted->default_sort_order_id, 0);
  EXPECT_TRUE(unsorted->DefaultSortOrder()->is_unsorted());
}

TEST(ApplyUpdates, PropertiesLocationUuidAndFormat) {
  TableMetadataPtr md = NewTable();
  ASSERT_OK_AND_ASSIGN(
      TableMetadataPtr t,
      ApplyUpdates(*md,
                   {update::SetProperties{{{"a", "1"}, {"b", "2"}}},
                    update::RemoveProperties{{"owner"}}, update::SetLocation{"/elsewhere/"}},
                   2000));
  EXPECT_EQ(t->properties, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(t->location, "/elsewhere");
  EXPECT_THAT(ApplyUpdates(*md, {update::AssignUuid{"other"}}, 2000),
              IsErrorWith(StatusCode::kInvalidArgument, "cannot change"));
  EXPECT_OK(ApplyUpdates(*md, {update::AssignUuid{md->table_uuid}}, 2000).status());
  EXPECT_THAT(ApplyUpdates(*md, {update::UpgradeFormatVersion{1}}, 2000),
              IsErrorWith(StatusCode::kInvalidArgument, "downgrade"));
  EXPECT_THAT(ApplyUpdates(*md, {update::UpgradeFormatVersion{4}}, 2000),
              IsError(StatusCode::kNotSupported));
  // Upgrading to 3 starts row lineage at 0.
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr v3,
                       ApplyUpdates(*md, {update::UpgradeFormatVersion{3}}, 2000));
  EXPECT_EQ(v3->format_version, 3);
  EXPECT_EQ(v3->next_row_id, 0);
}

TEST(ApplyUpdates, MetadataLogIsTrimmed) {
  TableMetadataPtr md = NewTable();
  ASSERT_OK_AND_ASSIGN(
      md,
      ApplyUpdates(*md, {update::SetProperties{{{"write.metadata.previous-versions-max", "2"}}}},
                   1001, "m0"));
  for (int i = 1; i <= 4; ++i) {
    ASSERT_OK_AND_ASSIGN(md, ApplyUpdates(*md, {}, 1001 + i, "m" + std::to_string(i)));
  }
  ASSERT_EQ(md->metadata_log.size(), 2u);
  EXPECT_EQ(md->metadata_log[0].metadata_file, "m3");
  EXPECT_EQ(md->metadata_log[1].metadata_file, "m4");
  EXPECT_EQ(md->metadata_log[1].timestamp_ms, 1004);
}

TEST(ApplyUpdates, CreateTableUpdatesRebuildTheTable) {
  TableMetadataPtr md = NewTable();
  ASSERT_OK_AND_ASSIGN(TableMetadataPtr rebuilt,
                       ApplyUpdates(TableMetadata{}, CreateTableUpdates(*md), md->last_updated_ms));
  EXPECT_TRUE(rebuilt->Equals(*md));
}

TEST(TableUpdateJson, EveryUpdateRoundTrips) {
  TableMetadataPtr md = NewTable();
  SnapshotRef tag;
  tag.snapshot_id = 11;
  tag.type = SnapshotRef::Type::kTag;
  tag.max_ref_age_ms = 86400000;
  StatisticsFile stats;
  stats.snapshot_id = 11;
  stats.statistics_path = "/s.puffin";
  stats.file_size_in_bytes = 10;
  stats.file_footer_size_in_bytes = 4;
  std::vector<TableUpdate> updates = CreateTableUpdates(*md);
  updates.push_back(update::AddSnapshot{MakeSnapshot(11, std::nullopt, 1, 2000)});
  updates.push_back(update::SetSnapshotRef{"v1", tag});
  updates.push_back(update::RemoveSnapshots{{11, 12}});
  updates.push_back(update::RemoveSnapshotRef{"v1"});
  updates.push_back(update::RemoveProperties{{"x", "y"}});
  updates.push_back(update::SetStatistics{stats});
  updates.push_back(update::RemoveStatistics{11});
  for (const TableUpdate& u : updates) {
    SCOPED_TRACE(std::string(UpdateActionName(u)));
    ASSERT_OK_AND_ASSIGN(nlohmann::json j, TableUpdateToJson(u));
    EXPECT_EQ(j["action"], UpdateActionName(u));
    ASSERT_OK_AND_ASSIGN(TableUpdate back, TableUpdateFromJson(j, md.get(), nullptr));
    EXPECT_EQ(back.index(), u.index());
    ASSERT_OK_AND_ASSIGN(nlohmann::json again, TableUpdateToJson(back));
    EXPECT_EQ(again, j);
  }
  EXPECT_THAT(TableUpdateFromJson(nlohmann::json{{"action", "explode"}}, md.get(), nullptr),
              IsErrorWith(StatusCode::kNotSupported, "'explode'"));
  EXPECT_THAT(TableUpdateFromJson(nlohmann::json{{"action", "set-location"}}, md.get(), nullptr),
              IsError(StatusCode::kCorrupt));
}

TEST(TableRequirementJson, EveryKindRoundTrips) {
  using R = TableRequirement;
  for (const R& r : {R::AssertCreate(), R::AssertTableUuid("u"), R::AssertRefSnapshotId("main", 4),
                     R::AssertRefSnapshotId("b", std::nullopt), R::AssertLastAssignedFieldId(3),
                     R::AssertCurrentSchemaId(1), R::AssertLastAssignedPartitionId(1001),
                     R::AssertDefaultSpecId(2), R::AssertDefaultSortOrderId(0)}) {
    SCOPED_TRACE(std::string(r.type_name()));
    nlohmann::json j = TableRequirementToJson(r);
    ASSERT_OK_AND_ASSIGN(R back, TableRequirementFromJson(j));
    EXPECT_EQ(back, r);
  }
  nlohmann::json ref = TableRequirementToJson(R::AssertRefSnapshotId("main", std::nullopt));
  EXPECT_TRUE(ref["snapshot-id"].is_null());
  EXPECT_THAT(TableRequirementFromJson(nlohmann::json{{"type", "assert-nothing"}}),
              IsError(StatusCode::kNotSupported));
}

TEST(ApplyUpdates, SnapshotNeedsAnOperation) {
  TableMetadataPtr md = NewTable();
  Snapshot s = MakeSnapshot(11, std::nullopt, 1, 2000);
  s.summary.clear();
  EXPECT_THAT(ApplyUpdates(*md, {update::AddSnapshot{s}}, 3000),
              IsErrorWith(StatusCode::kInvalidArgument, "no 'operation'"));
}

TEST(NewUuid, ForkedChildDoesNotRepeatItsParent) {
  (void)NewUuid();  // the parent's generator is seeded
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string id = NewUuid();
    ssize_t w = write(fds[1], id.data(), id.size());
    _exit(w == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  std::string parent = NewUuid();
  char buf[64] = {};
  ssize_t r = read(fds[0], buf, sizeof(buf));
  int status = 0;
  waitpid(child, &status, 0);
  close(fds[0]);
  close(fds[1]);
  ASSERT_EQ(r, 36);
  EXPECT_NE(std::string(buf, 36), parent);
}

TEST(MetadataFileName, VersionedAndUnique) {
  std::string a = MetadataFileName(7);
  std::string b = MetadataFileName(7);
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.starts_with("00007-"));
  EXPECT_TRUE(a.ends_with(".metadata.json"));
  EXPECT_EQ(MetadataFileVersion(a), 7);
  EXPECT_EQ(MetadataFileVersion(MetadataFileName(123456, true)), 123456);
  EXPECT_TRUE(MetadataFileName(1, true).ends_with(".gz.metadata.json"));
}

}  // namespace
}  // namespace floe::iceberg
