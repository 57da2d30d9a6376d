#include "floe/iceberg/task_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/value_format.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using namespace ::floe::iceberg::testing;  // NOLINT

// Every row of a stream as "v1|v2|..." text, and the batch sizes seen.
struct ReadResult {
  std::vector<std::string> rows;
  std::vector<int64_t> batch_sizes;
  floe::SchemaPtr schema;
};

Result<ReadResult> Drain(RecordBatchReader& reader) {
  ReadResult result;
  result.schema = reader.schema();
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader.Next());
    if (batch == nullptr) break;
    if (!batch->schema()->Equals(*result.schema)) {
      return Status::Internal("batch schema {} differs from stream schema {}",
                              batch->schema()->ToString(), result.schema->ToString());
    }
    result.batch_sizes.push_back(batch->num_rows());
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) row += "|";
        row += FormatValue(*batch->column(c), r);
      }
      result.rows.push_back(std::move(row));
    }
  }
  return result;
}

class TaskReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::LocalFileIOOptions options;
    options.base_dir = dir_.path();
    io_ = std::make_shared<io::LocalFileIO>(options);
  }

  static SchemaPtr MakeSchema(std::vector<Field> fields,
                              std::map<int32_t, FieldDefaults> defaults = {}) {
    auto schema = Schema::Make(0, std::move(fields), {}, std::move(defaults));
    EXPECT_OK(schema);
    return *schema;
  }

  FileScanTask Task(const std::string& name) {
    auto file = std::make_shared<DataFile>();
    file->file_path = name;
    file->file_size_in_bytes = FileSize(dir_.Join(name));
    FileScanTask task;
    task.data_file = file;
    task.spec = PartitionSpec::Unpartitioned();
    task.start = 0;
    task.length = file->file_size_in_bytes;
    return task;
  }

  Result<ReadResult> ReadTask(const FileScanTask& task, SchemaPtr projected,
                              SchemaPtr table = nullptr, TaskReaderOptions options = {},
                              std::shared_ptr<const NameMapping> mapping = nullptr) {
    FLOE_ASSIGN_OR_RAISE(auto reader, TaskReader::Make(io_, std::move(projected), std::move(table),
                                                       std::move(mapping), options));
    FLOE_ASSIGN_OR_RAISE(auto stream, reader->Read(task));
    return Drain(*stream);
  }

  TempDir dir_;
  std::shared_ptr<io::LocalFileIO> io_;
};

TEST_F(TaskReaderTest, ProjectsByFieldIdInSchemaOrderAndHonoursBatchSize) {
  WriteParquet(dir_.Join("a.parquet"),
               {Field("id", Int64(), false, 1), Field("old_name", String(), true, 2)},
               {I64s({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
                Strs({"a", "b", std::nullopt, "d", "e", "f", "g", "h", "i", "j"})});
  // The column was renamed (id 2 is now "data") and the projection reorders.
  SchemaPtr projected =
      MakeSchema({Field("data", String(), true, 2), Field("id", Int64(), false, 1)});
  TaskReaderOptions options;
  options.batch_size = 4;
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(Task("a.parquet"), projected, nullptr, options));
  EXPECT_THAT(result.batch_sizes, ElementsAre(4, 4, 2));
  EXPECT_THAT(result.rows, ElementsAre("a|1", "b|2", "NULL|3", "d|4", "e|5", "f|6", "g|7", "h|8",
                                       "i|9", "j|10"));
  EXPECT_EQ(result.schema->field(0).name(), "data");
  EXPECT_EQ(result.schema->field(0).field_id(), 2);
  EXPECT_EQ(result.schema->field(1).field_id(), 1);
}

TEST_F(TaskReaderTest, DroppedAndReaddedColumnNeverShowsOldValues) {
  // The file was written when "b" had id 2; "b" was dropped and re-added as id 3.
  WriteParquet(dir_.Join("b.parquet"),
               {Field("a", Int32(), true, 1), Field("b", String(), true, 2)},
               {I32s({1, 2}), Strs({"old1", "old2"})});
  SchemaPtr projected = MakeSchema({Field("a", Int32(), true, 1), Field("b", String(), true, 3)});
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(Task("b.parquet"), projected));
  EXPECT_THAT(result.rows, ElementsAre("1|NULL", "2|NULL"));
}

TEST_F(TaskReaderTest, MissingColumnsReadInitialDefaultsPartitionValuesOrNull) {
  WriteParquet(dir_.Join("c.parquet"), {Field("a", Int32(), true, 1)}, {I32s({1, 2})});
  std::map<int32_t, FieldDefaults> defaults;
  defaults[4].initial_default = Scalar::I64(42);
  defaults[4].write_default = Scalar::I64(7);
  defaults[5].initial_default = Scalar::Str("dflt");
  SchemaPtr table =
      MakeSchema({Field("a", Int32(), true, 1), Field("part", Int64(), true, 2),
                  Field("opt", Float64(), true, 3), Field("with_default", Int64(), false, 4),
                  Field("s", String(), true, 5)},
                 defaults);
  FileScanTask task = Task("c.parquet");
  // The identity partition source (id 2, an int when the spec was written) is absent from
  // the file and comes from the partition tuple, promoted to long.
  ASSERT_OK_AND_ASSIGN(
      auto spec,
      PartitionSpec::Make(*table, 1, {PartitionField{2, 1000, "part", Transform::Identity()}}));
  task.spec = spec;
  std::const_pointer_cast<DataFile>(task.data_file)->partition = {Scalar::I32(9)};
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(task, table));
  EXPECT_THAT(result.rows, ElementsAre("1|9|NULL|42|dflt", "2|9|NULL|42|dflt"));

  // A required column the file lacks, with no default, is an error naming it and the file.
  SchemaPtr strict = MakeSchema({Field("a", Int32(), true, 1), Field("must", Int64(), false, 9)});
  EXPECT_THAT(ReadTask(Task("c.parquet"), strict),
              IsErrorWith(StatusCode::kInvalidArgument, "'must' (id 9)"));
}

TEST_F(TaskReaderTest, PromotesIntFloatAndDecimal) {
  DecimalBuilder dec(Decimal(5, 2));
  ASSERT_OK(dec.Append(12345));
  ASSERT_OK(dec.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr decimals, dec.Finish());
  WriteParquet(dir_.Join("p.parquet"),
               {Field("i", Int32(), true, 1), Field("f", Float32(), true, 2),
                Field("d", Decimal(5, 2), true, 3)},
               {I32s({-7, std::nullopt}), F32s({1.5f, 2.25f}), decimals});
  SchemaPtr table = MakeSchema({Field("i", Int64(), true, 1), Field("f", Float64(), true, 2),
                                Field("d", Decimal(10, 2), true, 3)});
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(Task("p.parquet"), table));
  EXPECT_EQ(result.schema->field(0).type()->id(), TypeId::kInt64);
  EXPECT_EQ(result.schema->field(2).type()->precision(), 10);
  EXPECT_THAT(result.rows, ElementsAre("-7|1.5|123.45", "NULL|2.25|NULL"));

  // A type change that is not a promotion is an error naming the field.
  SchemaPtr wrong = MakeSchema({Field("i", String(), true, 1)});
  EXPECT_THAT(ReadTask(Task("p.parquet"), wrong),
              IsErrorWith(StatusCode::kInvalidArgument, "'i' (id 1)"));
}

TEST_F(TaskReaderTest, NestedFieldsByIdWithMissingChildrenAndPromotedElements) {
  // struct s (10) {x (11) int, y (12) string}, list l (20) of int (21), map m (30) string
  // (31) -> int (32).
  TypePtr file_struct = Struct({Field("x", Int32(), true, 11), Field("y", String(), true, 12)});
  StructBuilder sb(file_struct);
  ListBuilder lb(List(Field("element", Int32(), true, 21)));
  MapBuilder mb(Map(Field("key", String(), false, 31), Field("value", Int32(), true, 32)));
  auto* sx = static_cast<Int32Builder*>(sb.field_builder(0));
  auto* sy = static_cast<BinaryBuilder*>(sb.field_builder(1));
  auto* le = static_cast<Int32Builder*>(lb.value_builder());
  auto* mk = static_cast<BinaryBuilder*>(mb.key_builder());
  auto* mv = static_cast<Int32Builder*>(mb.item_builder());
  // Row 0.
  ASSERT_OK(sb.Append());
  ASSERT_OK(sx->Append(1));
  ASSERT_OK(sy->Append("one"));
  ASSERT_OK(lb.Append());
  ASSERT_OK(le->Append(5));
  ASSERT_OK(le->Append(6));
  ASSERT_OK(mb.Append());
  ASSERT_OK(mk->Append("k"));
  ASSERT_OK(mv->Append(100));
  // Row 1: null struct, empty list, null map.
  ASSERT_OK(sb.AppendNull());
  ASSERT_OK(lb.Append());
  ASSERT_OK(mb.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr s, sb.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr l, lb.Finish());
  ASSERT_OK_AND_ASSIGN(ArrayPtr m, mb.Finish());
  WriteParquet(
      dir_.Join("n.parquet"),
      {Field("s", file_struct, true, 10),
       Field("l", List(Field("element", Int32(), true, 21)), true, 20),
       Field("m", Map(Field("key", String(), false, 31), Field("value", Int32(), true, 32)), true,
             30)},
      {s, l, m});
  // The table renamed y to why, added z (13) with a default, widened list elements and
  // map values to long, and projects the struct's y before x.
  std::map<int32_t, FieldDefaults> defaults;
  defaults[13].initial_default = Scalar::I32(-1);
  SchemaPtr table = MakeSchema(
      {Field("s",
             Struct({Field("why", String(), true, 12), Field("x", Int32(), true, 11),
                     Field("z", Int32(), true, 13)}),
             true, 10),
       Field("l", List(Field("element", Int64(), true, 21)), true, 20),
       Field("m", Map(Field("key", String(), false, 31), Field("value", Int64(), true, 32)), true,
             30)},
      defaults);
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(Task("n.parquet"), table));
  EXPECT_THAT(result.rows, ElementsAre("(one,1,-1)|{5,6}|{k=>100}", "NULL|{}|NULL"));
  EXPECT_TRUE(result.schema->field(0).type()->Equals(*table->fields()[0].type()));
}

TEST_F(TaskReaderTest, FilesWithoutFieldIdsUseTheNameMapping) {
  StructBuilder sb(Struct({Field("q", Int32(), true)}));
  ASSERT_OK(sb.Append());
  ASSERT_OK(static_cast<Int32Builder*>(sb.field_builder(0))->Append(7));
  ASSERT_OK(sb.Append());
  ASSERT_OK(static_cast<Int32Builder*>(sb.field_builder(0))->AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr st, sb.Finish());
  WriteParquet(dir_.Join("nm.parquet"),
               {Field("id", Int32(), true), Field("b", String(), true),
                Field("st", Struct({Field("q", Int32(), true)}), true)},
               {I32s({1, 2}), Strs({"x", "y"}), st});
  SchemaPtr table = MakeSchema({Field("id", Int64(), true, 1), Field("b", String(), true, 3),
                                Field("st", Struct({Field("q", Int32(), true, 5)}), true, 4),
                                Field("c", String(), true, 6)});
  auto mapping = std::make_shared<NameMapping>(NameMapping::FromSchema(*table));
  ASSERT_OK_AND_ASSIGN(ReadResult result,
                       ReadTask(Task("nm.parquet"), table, nullptr, {}, mapping));
  EXPECT_THAT(result.rows, ElementsAre("1|x|(7)|NULL", "2|y|()|NULL"));

  // A mapping that does not name "b" leaves it unmapped: it reads as NULL.
  auto partial = std::make_shared<NameMapping>(std::vector<MappedField>{
      MappedField{1, {"id"}, {}}, MappedField{4, {"st"}, {MappedField{5, {"q"}, {}}}}});
  ASSERT_OK_AND_ASSIGN(result, ReadTask(Task("nm.parquet"), table, nullptr, {}, partial));
  EXPECT_THAT(result.rows, ElementsAre("1|NULL|(7)|NULL", "2|NULL|()|NULL"));
}

TEST_F(TaskReaderTest, ByteRangeSplitsReadEachRowGroupOnce) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 12; ++i) values.push_back(i);
  WriteParquet(dir_.Join("rg.parquet"), {Field("v", Int64(), false, 1)}, {I64s(values)}, 4);
  ASSERT_OK_AND_ASSIGN(auto parquet_reader,
                       parquet::ParquetFileReader::OpenPath(dir_.Join("rg.parquet")));
  ASSERT_EQ(parquet_reader->num_row_groups(), 3);
  const int64_t size = FileSize(dir_.Join("rg.parquet"));
  // Split the file in the middle of each row group's bytes: the row group goes to the
  // split holding its first byte.
  std::vector<int64_t> starts;
  for (const auto& rg : parquet_reader->metadata().row_groups) {
    const auto& meta = *rg.columns[0].meta_data;
    starts.push_back(meta.dictionary_page_offset.value_or(meta.data_page_offset));
  }
  EXPECT_THAT(RowGroupsInRange(parquet_reader->metadata(), 0, size), ElementsAre(0, 1, 2));
  EXPECT_THAT(RowGroupsInRange(parquet_reader->metadata(), 0, starts[1]), ElementsAre(0));
  EXPECT_THAT(RowGroupsInRange(parquet_reader->metadata(), starts[0] + 1, starts[2] - starts[0]),
              ElementsAre(1, 2));
  SchemaPtr table = MakeSchema({Field("v", Int64(), false, 1)});
  std::vector<std::string> all;
  std::vector<std::pair<int64_t, int64_t>> splits = {
      {0, starts[1] + 1}, {starts[1] + 1, starts[2] - starts[1]}, {starts[2] + 1, size}};
  std::vector<std::vector<std::string>> per_split;
  for (const auto& [start, length] : splits) {
    FileScanTask task = Task("rg.parquet");
    task.start = start;
    task.length = length;
    ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(task, table));
    per_split.push_back(result.rows);
  }
  EXPECT_THAT(per_split[0], ElementsAre("0", "1", "2", "3", "4", "5", "6", "7"));
  EXPECT_THAT(per_split[1], ElementsAre("8", "9", "10", "11"));
  EXPECT_THAT(per_split[2], ElementsAre());
}

TEST_F(TaskReaderTest, PositionDeletesUseFileGlobalPositionsAcrossRowGroups) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 12; ++i) values.push_back(100 + i);
  WriteParquet(dir_.Join("d.parquet"), {Field("v", Int64(), false, 1)}, {I64s(values)}, 4);
  WriteParquet(dir_.Join("pd.parquet"),
               {Field("file_path", String(), false, kDeleteFilePathFieldId),
                Field("pos", Int64(), false, kDeletePosFieldId)},
               {Strs({"d.parquet", "d.parquet", "other.parquet", "d.parquet", "d.parquet"}),
                I64s({0, 5, 6, 11, 12})});
  auto deletes = std::make_shared<DataFile>();
  deletes->content = FileContent::kPositionDeletes;
  deletes->file_path = "pd.parquet";
  SchemaPtr table = MakeSchema({Field("v", Int64(), false, 1)});
  ASSERT_OK_AND_ASSIGN(auto parquet_reader,
                       parquet::ParquetFileReader::OpenPath(dir_.Join("d.parquet")));
  auto first_byte = [&](int rg) {
    const auto& meta =
        *parquet_reader->metadata().row_groups[static_cast<size_t>(rg)].columns[0].meta_data;
    return meta.dictionary_page_offset.value_or(meta.data_page_offset);
  };
  const int64_t second = first_byte(1);
  const int64_t third = first_byte(2);

  FileScanTask whole = Task("d.parquet");
  whole.delete_files = {deletes};
  TaskReaderOptions options;
  options.batch_size = 3;
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(whole, table, nullptr, options));
  EXPECT_THAT(result.rows,
              ElementsAre("101", "102", "103", "104", "106", "107", "108", "109", "110"));
  EXPECT_THAT(result.batch_sizes, ElementsAre(3, 3, 3));

  // Only the middle row group: position 5 is its second row.
  FileScanTask middle = whole;
  middle.start = second;
  middle.length = third - second;
  ASSERT_OK_AND_ASSIGN(result, ReadTask(middle, table));
  EXPECT_THAT(result.rows, ElementsAre("104", "106", "107"));
}

TEST_F(TaskReaderTest, EqualityDeletesOnAColumnThatIsNotProjected) {
  WriteParquet(dir_.Join("e.parquet"),
               {Field("id", Int64(), true, 1), Field("k", String(), true, 2)},
               {I64s({1, 2, 3, 4}), Strs({"a", std::nullopt, "c", "a"})});
  WriteParquet(dir_.Join("ed.parquet"),
               {Field("k", String(), true, 2), Field("junk", Int32(), true, 50)},
               {Strs({"a", std::nullopt}), I32s({0, 0})});
  auto deletes = std::make_shared<DataFile>();
  deletes->content = FileContent::kEqualityDeletes;
  deletes->file_path = "ed.parquet";
  deletes->equality_ids = {2};
  SchemaPtr table = MakeSchema({Field("id", Int64(), true, 1), Field("k", String(), true, 2)});
  SchemaPtr projected = MakeSchema({Field("id", Int64(), true, 1)});
  FileScanTask task = Task("e.parquet");
  task.delete_files = {deletes};
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(task, projected, table));
  EXPECT_THAT(result.rows, ElementsAre("3"));
  EXPECT_EQ(result.schema->num_fields(), 1);
}

TEST_F(TaskReaderTest, ResidualFiltersRowsAndPrunesRowGroups) {
  std::vector<std::optional<int64_t>> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = 0; i < 12; ++i) {
    ids.push_back(i);
    names.push_back(i % 3 == 0 ? std::optional<std::string>() : "n" + std::to_string(i));
  }
  WriteParquet(dir_.Join("r.parquet"),
               {Field("id", Int64(), false, 1), Field("name", String(), true, 2)},
               {I64s(ids), Strs(names)}, 4);
  SchemaPtr table = MakeSchema({Field("id", Int64(), false, 1), Field("name", String(), true, 2)});
  SchemaPtr projected = MakeSchema({Field("name", String(), true, 2)});
  ASSERT_OK_AND_ASSIGN(
      ExpressionPtr residual,
      Bind(Expression::And(Expression::Make(Operation::kGtEq, "id", {Scalar::I64(5)}),
                           Expression::Make(Operation::kNotNull, "name")),
           *table, true));
  FileScanTask task = Task("r.parquet");
  task.residual = residual;
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(task, projected, table));
  EXPECT_THAT(result.rows, ElementsAre("n5", "n7", "n8", "n10", "n11"));
  EXPECT_EQ(result.schema->num_fields(), 1);

  // A residual no row satisfies reads nothing.
  ASSERT_OK_AND_ASSIGN(
      task.residual,
      Bind(Expression::Make(Operation::kGt, "id", {Scalar::I64(100)}), *table, true));
  ASSERT_OK_AND_ASSIGN(result, ReadTask(task, projected, table));
  EXPECT_THAT(result.rows, ElementsAre());
}

TEST_F(TaskReaderTest, ResidualNotAppliedOnlyPrunesAndDropsSimpleComparisons) {
  std::vector<std::optional<int64_t>> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = 0; i < 12; ++i) {
    ids.push_back(i);
    names.push_back(i % 3 == 0 ? std::optional<std::string>() : "n" + std::to_string(i));
  }
  WriteParquet(dir_.Join("r.parquet"),
               {Field("id", Int64(), false, 1), Field("name", String(), true, 2)},
               {I64s(ids), Strs(names)}, 4);
  SchemaPtr table = MakeSchema({Field("id", Int64(), false, 1), Field("name", String(), true, 2)});
  ASSERT_OK_AND_ASSIGN(
      ExpressionPtr residual,
      Bind(Expression::And(Expression::Make(Operation::kGtEq, "id", {Scalar::I64(5)}),
                           Expression::Make(Operation::kNotNull, "name")),
           *table, true));
  FileScanTask task = Task("r.parquet");
  task.residual = residual;
  TaskReaderOptions options;
  options.apply_residual = false;
  // The first row group (ids 0-3) is pruned by its statistics and id 4 is dropped by the
  // Parquet reader's row filter; the NULL names stay, as IS NOT NULL is left to the caller.
  ASSERT_OK_AND_ASSIGN(ReadResult result, ReadTask(task, table, table, options));
  EXPECT_THAT(result.rows,
              ElementsAre("5|n5", "6|NULL", "7|n7", "8|n8", "9|NULL", "10|n10", "11|n11"));
  // A column only the residual reads is not read when the residual is not applied.
  SchemaPtr names_only = MakeSchema({Field("name", String(), true, 2)});
  ASSERT_OK_AND_ASSIGN(result, ReadTask(task, names_only, table, options));
  EXPECT_THAT(result.rows, ElementsAre("n4", "n5", "NULL", "n7", "n8", "NULL", "n10", "n11"));
  EXPECT_EQ(result.schema->num_fields(), 1);
  // Applied, the residual keeps exactly the matches.
  ASSERT_OK_AND_ASSIGN(result, ReadTask(task, table, table));
  EXPECT_THAT(result.rows, ElementsAre("5|n5", "7|n7", "8|n8", "10|n10", "11|n11"));
}

TEST_F(TaskReaderTest, GroupReadsItsTasksInOrderWithDeletesAndResidual) {
  WriteParquet(dir_.Join("g1.parquet"), {Field("id", Int64(), false, 1)}, {I64s({1, 2, 3})});
  WriteParquet(dir_.Join("g2.parquet"), {Field("id", Int64(), false, 1)}, {I64s({4, 5, 6})});
  // One position delete file names rows of both data files.
  WriteParquet(dir_.Join("gd.parquet"),
               {Field("file_path", String(), false, kDeleteFilePathFieldId),
                Field("pos", Int64(), false, kDeletePosFieldId)},
               {Strs({"g1.parquet", "g2.parquet"}), I64s({0, 2})});
  auto deletes = std::make_shared<DataFile>();
  deletes->content = FileContent::kPositionDeletes;
  deletes->file_path = "gd.parquet";
  SchemaPtr table = MakeSchema({Field("id", Int64(), false, 1)});
  ASSERT_OK_AND_ASSIGN(
      ExpressionPtr residual,
      Bind(Expression::Make(Operation::kNotEq, "id", {Scalar::I64(2)}), *table, true));
  ScanTaskGroup group;
  for (const char* name : {"g1.parquet", "g2.parquet"}) {
    FileScanTask task = Task(name);
    task.delete_files = {deletes};
    task.residual = residual;
    group.tasks.push_back(task);
  }
  ASSERT_OK_AND_ASSIGN(auto reader, TaskReader::Make(io_, table, table));
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(group));
  ASSERT_OK_AND_ASSIGN(ReadResult result, Drain(*stream));
  EXPECT_THAT(result.rows, ElementsAre("3", "4", "5"));
}

TEST_F(TaskReaderTest, BadTasksAreErrors) {
  WriteParquet(dir_.Join("x.parquet"), {Field("id", Int64(), true, 1)}, {I64s({1})});
  SchemaPtr table = MakeSchema({Field("id", Int64(), true, 1)});
  FileScanTask task = Task("x.parquet");
  task.length = 0;
  EXPECT_THAT(ReadTask(task, table), IsError(StatusCode::kInvalidArgument));
  FileScanTask missing = Task("x.parquet");
  std::const_pointer_cast<DataFile>(missing.data_file)->file_path = "nope.parquet";
  EXPECT_THAT(ReadTask(missing, table), IsError(StatusCode::kNotFound));
  WriteParquet(dir_.Join("noids.parquet"), {Field("id", Int64(), true)}, {I64s({1})});
  EXPECT_THAT(ReadTask(Task("noids.parquet"), table),
              IsErrorWith(StatusCode::kInvalidArgument, "name mapping"));
}

// Real tables: tasks built by hand from what their metadata and manifests say.
constexpr char kFixtures[] = "../shared/fixtures/iceberg/";

std::shared_ptr<DataFile> FixtureFile(const io::FileIO& io, std::string path,
                                      FileContent content = FileContent::kData) {
  auto file = std::make_shared<DataFile>();
  file->content = content;
  file->file_path = std::move(path);
  auto resolved = io.ResolvePath(file->file_path);
  EXPECT_OK(resolved);
  file->file_size_in_bytes = FileSize(*resolved);
  return file;
}

TEST(TaskReaderFixtureTest, TrinoDeletionVectors) {
  const std::string root = std::string(kFixtures) + "iceberg-cxx/tests/tables/";
  if (!std::filesystem::exists(root)) GTEST_FAIL() << "the fixtures are missing at " << root;
  io::LocalFileIOOptions options;
  options.path_map = {{"s3a://warehouse/", root}};
  auto io = std::make_shared<io::LocalFileIO>(options);
  const std::string data = "s3a://warehouse/deletion_vectors/data/";
  // The current snapshot's deletion vectors, both blobs of one Puffin file (offset and
  // length as the manifest and the Puffin footer record them).
  const std::string puffin =
      data + "dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin";
  struct Part {
    std::string data_file;
    int64_t offset;
    int64_t length;
    int64_t cardinality;
  };
  std::vector<Part> parts = {
      {data + "20260504_111440_00009_8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet", 48, 52,
       6},
      {data + "20260504_111846_00011_8gkte-7c2867a1-65a0-4133-9132-76d4b294da2a.parquet", 4, 44,
       2}};
  ASSERT_OK_AND_ASSIGN(
      auto table, Schema::Make(0, {Field("c1", Int32(), true, 1), Field("c2", Int32(), true, 2)}));
  ASSERT_OK_AND_ASSIGN(auto projected, table->Select({1}));
  ASSERT_OK_AND_ASSIGN(auto reader, TaskReader::Make(io, projected, table));
  std::vector<std::string> rows;
  for (const Part& part : parts) {
    FileScanTask task;
    task.data_file = FixtureFile(*io, part.data_file);
    task.spec = PartitionSpec::Unpartitioned();
    task.length = task.data_file->file_size_in_bytes;
    auto dv = FixtureFile(*io, puffin, FileContent::kPositionDeletes);
    dv->file_format = FileFormat::kPuffin;
    dv->referenced_data_file = part.data_file;
    dv->content_offset = part.offset;
    dv->content_size_in_bytes = part.length;
    dv->record_count = part.cardinality;
    task.delete_files = {dv};
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(task));
    ASSERT_OK_AND_ASSIGN(ReadResult result, Drain(*stream));
    rows.insert(rows.end(), result.rows.begin(), result.rows.end());
  }
  std::sort(rows.begin(), rows.end(),
            [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
  EXPECT_THAT(rows, ElementsAre("2", "5", "8", "9", "11", "12", "14", "15"));
}

TEST(TaskReaderFixtureTest, EqualityDeleteWithExtraColumns) {
  const std::string group = std::string(kFixtures) + "duckdb-iceberg";
  if (!std::filesystem::exists(group)) GTEST_FAIL() << "the fixtures are missing at " << group;
  io::LocalFileIOOptions options;
  options.base_dir = group;
  auto io = std::make_shared<io::LocalFileIO>(options);
  const std::string dir =
      "data/persistent/equality_delete_extra_column/warehouse/ns/t/data/val_bucket=0/";
  ASSERT_OK_AND_ASSIGN(
      auto table,
      Schema::Make(0, {Field("id", Int64(), false, 1), Field("val", String(), true, 2)}, {1}));
  FileScanTask task;
  task.data_file = FixtureFile(*io, dir + "00000-0-d2abf39d-e78d-4f97-8f12-88b0626995dc.parquet");
  task.spec = PartitionSpec::Unpartitioned();
  task.length = task.data_file->file_size_in_bytes;
  auto deletes = FixtureFile(*io, dir + "eq-delete-cc70197d-cfbc-4758-8c7e-30a34b566b89.parquet",
                             FileContent::kEqualityDeletes);
  deletes->equality_ids = {1};
  task.delete_files = {deletes};
  ASSERT_OK_AND_ASSIGN(auto reader, TaskReader::Make(io, table, table));
  ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(task));
  ASSERT_OK_AND_ASSIGN(ReadResult result, Drain(*stream));
  EXPECT_THAT(result.rows, ElementsAre("1|a", "3|c"));

  // Without the delete file all three rows are live.
  task.delete_files.clear();
  ASSERT_OK_AND_ASSIGN(stream, reader->Read(task));
  ASSERT_OK_AND_ASSIGN(result, Drain(*stream));
  EXPECT_THAT(result.rows, ElementsAre("1|a", "2|b", "3|c"));
}

}  // namespace
}  // namespace floe::iceberg
