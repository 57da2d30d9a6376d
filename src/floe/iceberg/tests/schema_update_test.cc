#include "floe/iceberg/schema_update.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/metadata_update.h"
#include "floe/iceberg/tests/in_memory_table_ops.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::InMemoryTableOps;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

class SchemaUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = Schema::Make(
        0,
        {Field("id", Int64(), false, 1), Field("data", String(), true, 2),
         Field("count", Int32(), true, 3),
         Field("loc", Struct({Field("lat", Float32(), true, 5), Field("lon", Float32(), true, 6)}),
               true, 4)},
        {1});
    ASSERT_OK(schema);
    auto spec = PartitionSpec::Make(**schema, 0, {PartitionField{2, 1000, "data"}});
    ASSERT_OK(spec);
    NewTableOptions options;
    options.schema = *schema;
    options.spec = *spec;
    options.location = dir_.Join("t");
    options.properties = {{"commit.retry.min-wait-ms", "1"}};
    auto ops = InMemoryTableOps::Create(options);
    ASSERT_OK(ops);
    ops_ = *ops;
  }

  SchemaPtr Current() { return ops_->current()->CurrentSchema(); }

  /// "id:1 data:2 ..." of the top-level columns, with '?' for optional ones.
  std::string Columns(const Schema& schema) {
    std::string out;
    for (const Field& f : schema.fields()) {
      if (!out.empty()) out += ' ';
      out += f.name() + (f.nullable() ? "?" : "") + ":" + std::to_string(f.field_id());
    }
    return out;
  }

  TempDir dir_;
  std::shared_ptr<InMemoryTableOps> ops_;
};

TEST_F(SchemaUpdateTest, AddColumnsGetNewIds) {
  auto update = UpdateSchema::Make(ops_);
  update->AddColumn("ts", TimestampTz());
  update->AddColumn("tags", List(Field("element", String(), true)));
  update->AddColumn("loc", "alt", Float64());
  ASSERT_OK_AND_ASSIGN(Table t, update->Commit());
  SchemaPtr s = t.metadata->CurrentSchema();
  EXPECT_EQ(s->schema_id(), 1);
  EXPECT_EQ(t.metadata->current_schema_id, 1);
  EXPECT_EQ(t.metadata->schemas.size(), 2u);
  EXPECT_EQ(Columns(*s), "id:1 data?:2 count?:3 loc?:4 ts?:7 tags?:8");
  // The list element is numbered after its list; the nested add follows.
  EXPECT_EQ(s->FindFieldById(8)->type()->field(0).field_id(), 9);
  EXPECT_EQ(*s->FindColumnName(10), "loc.alt");
  EXPECT_EQ(t.metadata->last_column_id, 10);
}

TEST_F(SchemaUpdateTest, AddToListElementStructAndRefuseBadParents) {
  {
    auto update = UpdateSchema::Make(ops_);
    update->AddColumn("points", List(Field("element", Struct({Field("x", Int32(), true)}), true)));
    ASSERT_OK(update->Commit());
  }
  // points:7, element:8, x:9.
  auto update = UpdateSchema::Make(ops_);
  update->AddColumn("points", "y", Int32());
  ASSERT_OK(update->Commit());
  EXPECT_EQ(*Current()->FindColumnName(10), "points.element.y");
  auto bad = UpdateSchema::Make(ops_);
  bad->AddColumn("data", "z", Int32());
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "not a struct"));
  auto dotted = UpdateSchema::Make(ops_);
  dotted->AddColumn("a.b", Int32());
  EXPECT_THAT(dotted->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'a.b'"));
  auto taken = UpdateSchema::Make(ops_);
  taken->AddColumn("data", Int32());
  EXPECT_THAT(taken->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'data'"));
}

TEST_F(SchemaUpdateTest, DropThenReAddGetsNewId) {
  {
    auto update = UpdateSchema::Make(ops_);
    update->DeleteColumn("count");
    ASSERT_OK(update->Commit());
  }
  EXPECT_EQ(Columns(*Current()), "id:1 data?:2 loc?:4");
  auto update = UpdateSchema::Make(ops_);
  update->AddColumn("count", Int64());
  ASSERT_OK(update->Commit());
  EXPECT_EQ(Columns(*Current()), "id:1 data?:2 loc?:4 count?:7");
  EXPECT_TRUE(Current()->FindFieldById(7)->type()->Equals(*Int64()));
  EXPECT_EQ(ops_->current()->schemas.size(), 3u);
}

TEST_F(SchemaUpdateTest, DeleteAndAddSameNameInOneUpdate) {
  auto update = UpdateSchema::Make(ops_);
  update->DeleteColumn("count").AddColumn("count", String());
  ASSERT_OK(update->Commit());
  EXPECT_EQ(Columns(*Current()), "id:1 data?:2 loc?:4 count?:7");
}

TEST_F(SchemaUpdateTest, PromoteTypes) {
  auto update = UpdateSchema::Make(ops_);
  update->UpdateColumn("count", Int64());
  update->UpdateColumn("loc.lat", Float64());
  ASSERT_OK(update->Commit());
  EXPECT_TRUE(Current()->FindFieldById(3)->type()->Equals(*Int64()));
  EXPECT_TRUE(Current()->FindFieldById(5)->type()->Equals(*Float64()));

  auto bad = UpdateSchema::Make(ops_);
  bad->UpdateColumn("data", Int64());
  EXPECT_THAT(bad->Commit(), IsErrorWith(StatusCode::kInvalidArgument,
                                         "cannot change column 'data' from string to long"));
  auto narrowing = UpdateSchema::Make(ops_);
  narrowing->UpdateColumn("count", Int32());
  EXPECT_THAT(narrowing->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "from long to int"));
}

TEST_F(SchemaUpdateTest, RequiredColumnNeedsDefault) {
  auto update = UpdateSchema::Make(ops_);
  update->AddRequiredColumn("flag", Boolean());
  EXPECT_THAT(update->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "without a default"));
  EXPECT_EQ(ops_->successful_commits(), 0);

  auto with_default = UpdateSchema::Make(ops_);
  with_default->AddRequiredColumn("flag", Boolean(), Scalar::Bool(true));
  ASSERT_OK(with_default->Commit());
  const Field* flag = Current()->FindFieldById(7);
  ASSERT_NE(flag, nullptr);
  EXPECT_FALSE(flag->nullable());
  const FieldDefaults* d = Current()->FindDefaults(7);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->initial_default->get<bool>());

  auto incompatible = UpdateSchema::Make(ops_);
  incompatible->AllowIncompatibleChanges().AddRequiredColumn("other", Int32());
  ASSERT_OK(incompatible->Commit());
  EXPECT_FALSE(Current()->FindFieldById(8)->nullable());
}

TEST_F(SchemaUpdateTest, DropRefusesIdentifierAndPartitionSources) {
  auto id = UpdateSchema::Make(ops_);
  id->DeleteColumn("id");
  EXPECT_THAT(id->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "identifier field 'id'"));
  auto part = UpdateSchema::Make(ops_);
  part->DeleteColumn("data");
  EXPECT_THAT(part->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "partition field 'data'"));
  auto missing = UpdateSchema::Make(ops_);
  missing->DeleteColumn("nope");
  EXPECT_THAT(missing->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'nope'"));
}

TEST_F(SchemaUpdateTest, RenameMoveAndOptional) {
  auto update = UpdateSchema::Make(ops_);
  update->RenameColumn("count", "n");
  update->RenameColumn("loc.lat", "latitude");
  update->MoveFirst("loc");
  update->MoveAfter("id", "data");
  update->MoveBefore("loc.lon", "loc.lat");
  update->MakeColumnOptional("id");
  update->SetIdentifierFields({});
  ASSERT_OK(update->Commit());
  EXPECT_EQ(Columns(*Current()), "loc?:4 data?:2 id?:1 n?:3");
  const Field* loc = Current()->FindFieldById(4);
  EXPECT_EQ(loc->type()->field(0).name(), "lon");
  EXPECT_EQ(loc->type()->field(1).name(), "latitude");

  auto cross = UpdateSchema::Make(ops_);
  cross->MoveBefore("loc.lon", "id");
  EXPECT_THAT(cross->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "same struct"));
  auto taken = UpdateSchema::Make(ops_);
  taken->RenameColumn("n", "data");
  EXPECT_THAT(taken->Commit(), IsErrorWith(StatusCode::kInvalidArgument, "'data'"));
}

TEST_F(SchemaUpdateTest, CaseInsensitiveNames) {
  auto update = UpdateSchema::Make(ops_);
  update->CaseSensitive(false).RenameColumn("COUNT", "total");
  ASSERT_OK(update->Commit());
  EXPECT_EQ(Columns(*Current()), "id:1 data?:2 total?:3 loc?:4");
  auto sensitive = UpdateSchema::Make(ops_);
  sensitive->RenameColumn("TOTAL", "x");
  EXPECT_THAT(sensitive->Commit(), IsError(StatusCode::kInvalidArgument));
}

TEST_F(SchemaUpdateTest, IdentifierFieldsAndReuseOfEqualSchema) {
  auto update = UpdateSchema::Make(ops_);
  update->SetIdentifierFields({"id", "data"});
  auto required = UpdateSchema::Make(ops_);
  EXPECT_THAT(update->Commit(), IsError(StatusCode::kInvalidArgument));  // data is optional
  required->AllowIncompatibleChanges().RequireColumn("data").SetIdentifierFields({"id", "data"});
  ASSERT_OK(required->Commit());
  EXPECT_EQ(Current()->identifier_field_ids(), (std::vector<int32_t>{1, 2}));

  // Going back to the first schema reuses it instead of adding a copy.
  auto back = UpdateSchema::Make(ops_);
  back->MakeColumnOptional("data").SetIdentifierFields({"id"});
  ASSERT_OK_AND_ASSIGN(Table t, back->Commit());
  EXPECT_EQ(t.metadata->current_schema_id, 0);
  EXPECT_EQ(t.metadata->schemas.size(), 2u);
}

TEST_F(SchemaUpdateTest, ConcurrentSchemaChangeIsReapplied) {
  ops_->AddBeforeCommitHook([this]() -> Status {
    auto other = UpdateSchema::Make(ops_);
    other->AddColumn("other", String());
    return other->Commit().status();
  });
  auto update = UpdateSchema::Make(ops_);
  update->AddColumn("mine", String());
  ASSERT_OK(update->Commit());
  EXPECT_EQ(Columns(*Current()), "id:1 data?:2 count?:3 loc?:4 other?:7 mine?:8");
  EXPECT_EQ(ops_->current()->last_column_id, 8);
}

}  // namespace
}  // namespace floe::iceberg
