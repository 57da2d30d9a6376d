#include "floe/iceberg/data_file_writer.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/batch/builder.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/evaluator.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/parquet_import.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/tests/reader_test_util.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::iceberg {
namespace {

using ::floe::iceberg::testing::F32s;
using ::floe::iceberg::testing::I32s;
using ::floe::iceberg::testing::I64s;
using ::floe::iceberg::testing::Strs;
using ::floe::iceberg::testing::TempDir;
using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;
using ::floe::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

ArrayPtr F64s(const std::vector<std::optional<double>>& values) {
  Float64Builder b(Float64());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

ArrayPtr Bins(const std::vector<std::optional<std::string>>& values) {
  BinaryBuilder b(Binary());
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return *b.Finish();
}

std::string LE32(int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}
std::string LE64(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}
std::string F32Bytes(float v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}
std::string F64Bytes(double v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

SchemaPtr MakeSchema(std::vector<Field> fields) {
  auto s = Schema::Make(0, std::move(fields));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

RecordBatchPtr MakeBatch(const SchemaPtr& schema, std::vector<ArrayPtr> columns) {
  int64_t n = columns.empty() ? 0 : columns[0]->length();
  auto b = RecordBatch::Make(schema->columns(), n, std::move(columns));
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

// All batches of a Parquet file, concatenated per column.
std::vector<ArrayPtr> ReadBack(const std::string& path) {
  auto reader = parquet::ParquetFileReader::OpenPath(path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto stream = (*reader)->Read({});
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  std::vector<std::vector<ArrayPtr>> parts((*reader)->schema()->num_fields());
  while (true) {
    auto batch = (*stream)->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || *batch == nullptr) break;
    for (int c = 0; c < (*batch)->num_columns(); ++c) parts[c].push_back((*batch)->column(c));
  }
  std::vector<ArrayPtr> out;
  for (auto& p : parts) {
    auto a = Concatenate(p);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    out.push_back(a.ok() ? *a : nullptr);
  }
  return out;
}

class DataFileWriterTest : public ::testing::Test {
 protected:
  // Writes `batches` into one file with the given metrics properties and returns its DataFile.
  Result<DataFile> WriteFile(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                             const std::map<std::string, std::string>& props = {},
                             DataFileWriterOptions options = {}) {
    FLOE_ASSIGN_OR_RAISE(WriterProperties wp, WriterProperties::Make(props, dir_.path()));
    auto metrics = MetricsConfig::Make(wp, *schema);
    if (options.parquet.compression == "zstd") options.parquet = wp.ToParquetOptions();
    path_ = dir_.path() + "/data/f" + std::to_string(counter_++) + ".parquet";
    FLOE_ASSIGN_OR_RAISE(auto writer,
                         DataFileWriter::Open(io_, path_, schema, metrics, std::move(options)));
    for (const auto& b : batches) FLOE_RETURN_NOT_OK(writer->Write(*b));
    return writer->Close();
  }

  // The last written file as `add-files` registers it in a table of `schema` and `props`:
  // one rule for bounds, so its metrics must equal the writer's.
  void ExpectImportedBoundsEqual(const SchemaPtr& schema, const DataFile& written,
                                 const std::map<std::string, std::string>& props) {
    NewTableOptions options;
    options.schema = schema;
    options.location = dir_.path();
    options.properties = props;
    ASSERT_OK_AND_ASSIGN(TableMetadataPtr md, NewTableMetadata(options, 0));
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file, io::OpenLocalFile(path_));
    bool needs_name_mapping = false;
    ASSERT_OK_AND_ASSIGN(DataFile imported,
                         DataFileFromParquet(path_, file, *md, &needs_name_mapping));
    EXPECT_FALSE(needs_name_mapping);
    EXPECT_EQ(imported.lower_bounds, written.lower_bounds);
    EXPECT_EQ(imported.upper_bounds, written.upper_bounds);
    EXPECT_EQ(imported.value_counts, written.value_counts);
    EXPECT_EQ(imported.null_value_counts, written.null_value_counts);
  }

  TempDir dir_;
  std::shared_ptr<io::FileIO> io_ = std::make_shared<io::LocalFileIO>();
  std::string path_;
  int counter_ = 0;
};

// ---------------------------------------------------------------------------------------
// Properties and metrics modes
// ---------------------------------------------------------------------------------------

TEST(MetricsModeTest, Parse) {
  EXPECT_EQ(*MetricsMode::Parse("none"), MetricsMode::None());
  EXPECT_EQ(*MetricsMode::Parse(" Counts "), MetricsMode::Counts());
  EXPECT_EQ(*MetricsMode::Parse("FULL"), MetricsMode::Full());
  EXPECT_EQ(*MetricsMode::Parse("truncate(8)"), MetricsMode::Truncate(8));
  EXPECT_EQ(MetricsMode::Truncate(8).ToString(), "truncate(8)");
  for (const char* bad : {"truncate(0)", "truncate(-1)", "truncate()", "truncate(x)", "trunc(3)",
                          "truncate(3", "", "some"}) {
    EXPECT_THAT(MetricsMode::Parse(bad), IsError(StatusCode::kInvalidArgument)) << bad;
  }
}

TEST(WriterPropertiesTest, Defaults) {
  ASSERT_OK_AND_ASSIGN(WriterProperties p, WriterProperties::Make({}, "s3://b/db/t/"));
  EXPECT_EQ(p.compression_codec, "zstd");
  EXPECT_FALSE(p.compression_level.has_value());
  EXPECT_EQ(p.row_group_size_bytes, 128LL << 20);
  EXPECT_EQ(p.page_size_bytes, 1LL << 20);
  EXPECT_EQ(p.dict_size_bytes, 2LL << 20);
  EXPECT_EQ(p.target_file_size_bytes, 512LL << 20);
  EXPECT_FALSE(p.default_metrics.has_value());
  EXPECT_EQ(p.max_inferred_column_defaults, 100);
  EXPECT_EQ(p.data_location, "s3://b/db/t/data");
  parquet::WriterOptions o = p.ToParquetOptions();
  EXPECT_EQ(o.compression, "zstd");
  EXPECT_EQ(o.row_group_size_bytes, 128LL << 20);
  EXPECT_EQ(o.page_size_bytes, 1LL << 20);
  EXPECT_EQ(o.dictionary_page_size_limit, 2LL << 20);
}

TEST(WriterPropertiesTest, ParsesEveryPropertyAndOverrides) {
  std::map<std::string, std::string> props = {
      {"write.parquet.compression-codec", "GZIP"},
      {"write.parquet.compression-level", "7"},
      {"write.parquet.row-group-size-bytes", "1000"},
      {"write.parquet.page-size-bytes", "200"},
      {"write.parquet.dict-size-bytes", "300"},
      {"write.target-file-size-bytes", "5000"},
      {"write.metadata.metrics.default", "counts"},
      {"write.metadata.metrics.column.loc.lat", "full"},
      {"write.metadata.metrics.column.name", "truncate(4)"},
      {"write.metadata.metrics.max-inferred-column-defaults", "3"},
      {"write.folder-storage.path", "/old/place/"},
      {"unrelated", "x"}};
  ASSERT_OK_AND_ASSIGN(WriterProperties p,
                       WriterProperties::Make(props, "/t",
                                              {{"write.target-file-size-bytes", "42"},
                                               {"write.parquet.compression-codec", "lz4"}}));
  EXPECT_EQ(p.compression_codec, "lz4_raw");
  EXPECT_EQ(p.compression_level, 7);
  EXPECT_EQ(p.row_group_size_bytes, 1000);
  EXPECT_EQ(p.page_size_bytes, 200);
  EXPECT_EQ(p.dict_size_bytes, 300);
  EXPECT_EQ(p.target_file_size_bytes, 42);
  EXPECT_EQ(p.default_metrics, MetricsMode::Counts());
  EXPECT_THAT(p.column_metrics, UnorderedElementsAre(Pair("loc.lat", MetricsMode::Full()),
                                                     Pair("name", MetricsMode::Truncate(4))));
  EXPECT_EQ(p.max_inferred_column_defaults, 3);
  EXPECT_EQ(p.data_location, "/old/place");

  props["write.data.path"] = "/new/place";
  ASSERT_OK_AND_ASSIGN(p, WriterProperties::Make(props, "/t"));
  EXPECT_EQ(p.data_location, "/new/place");
  EXPECT_EQ(p.compression_codec, "gzip");
}

TEST(WriterPropertiesTest, BadValuesNameTheProperty) {
  struct Case {
    std::string key, value;
  };
  for (const Case& c :
       std::vector<Case>{{"write.parquet.compression-codec", "zip"},
                         {"write.parquet.compression-level", "high"},
                         {"write.parquet.row-group-size-bytes", "0"},
                         {"write.parquet.page-size-bytes", "-5"},
                         {"write.parquet.dict-size-bytes", "1k"},
                         {"write.target-file-size-bytes", ""},
                         {"write.metadata.metrics.default", "truncate(0)"},
                         {"write.metadata.metrics.column.a", "most"},
                         {"write.metadata.metrics.max-inferred-column-defaults", "-1"}}) {
    EXPECT_THAT(WriterProperties::Make({{c.key, c.value}}, "/t"),
                IsErrorWith(StatusCode::kInvalidArgument, c.key))
        << c.key;
  }
  EXPECT_THAT(WriterProperties::Make({{"write.parquet.compression-codec", "lzo"}}, "/t"),
              IsErrorWith(StatusCode::kNotSupported, "write.parquet.compression-codec"));
}

TEST(MetricsConfigTest, InferredDefaultsSortOrderAndOverrides) {
  SchemaPtr schema = MakeSchema({Field("a", Int64(), true, 1), Field("b", String(), true, 2),
                                 Field("c", Struct({Field("x", Int32(), true, 5)}), true, 3),
                                 Field("d", Int32(), true, 4)});
  // Without an explicit default, the first two top-level columns get truncate(16).
  ASSERT_OK_AND_ASSIGN(
      WriterProperties p,
      WriterProperties::Make({{"write.metadata.metrics.max-inferred-column-defaults", "2"},
                              {"write.metadata.metrics.column.c.x", "counts"},
                              {"write.metadata.metrics.column.gone", "full"}},
                             "/t"));
  auto config = MetricsConfig::Make(p, *schema);
  EXPECT_EQ(config->ModeFor(1), MetricsMode::Truncate(16));
  EXPECT_EQ(config->ModeFor(2), MetricsMode::Truncate(16));
  EXPECT_EQ(config->ModeFor(5), MetricsMode::Counts());
  EXPECT_EQ(config->ModeFor(4), MetricsMode::None());

  // A sorted column is raised to truncate(16); an explicit column mode still wins.
  ASSERT_OK_AND_ASSIGN(auto order, SortOrder::Make(*schema, 1,
                                                   {SortField{4, Transform::Identity()},
                                                    SortField{5, Transform::Identity()}}));
  config = MetricsConfig::Make(p, *schema, order.get());
  EXPECT_EQ(config->ModeFor(4), MetricsMode::Truncate(16));
  EXPECT_EQ(config->ModeFor(5), MetricsMode::Counts());

  // An explicit default applies to every column, however wide the table.
  ASSERT_OK_AND_ASSIGN(
      p, WriterProperties::Make({{"write.metadata.metrics.max-inferred-column-defaults", "1"},
                                 {"write.metadata.metrics.default", "full"}},
                                "/t"));
  config = MetricsConfig::Make(p, *schema);
  EXPECT_EQ(config->ModeFor(4), MetricsMode::Full());
  ASSERT_OK_AND_ASSIGN(p, WriterProperties::Make({}, "/t"));
  EXPECT_EQ(MetricsConfig::Make(p, *schema)->ModeFor(4), MetricsMode::Truncate(16));
}

// ---------------------------------------------------------------------------------------
// Data files
// ---------------------------------------------------------------------------------------

TEST_F(DataFileWriterTest, EveryTypeRoundTripsWithExactBounds) {
  std::vector<Field> fields = {Field("b", Boolean(), true, 1),
                               Field("i", Int32(), true, 2),
                               Field("l", Int64(), true, 3),
                               Field("f", Float32(), true, 4),
                               Field("d", Float64(), true, 5),
                               Field("dec", Decimal(9, 2), true, 6),
                               Field("big", Decimal(38, 10), true, 7),
                               Field("dt", Date(), true, 8),
                               Field("t", Time(), true, 9),
                               Field("ts", Timestamp(), true, 10),
                               Field("tstz", TimestampTz(), true, 11),
                               Field("tsn", TimestampNs(), true, 12),
                               Field("tstzn", TimestampTzNs(), true, 13),
                               Field("s", String(), true, 14),
                               Field("u", Uuid(), true, 15),
                               Field("fx", Fixed(3), true, 16),
                               Field("bin", Binary(), true, 17)};
  SchemaPtr schema = MakeSchema(fields);

  BooleanBuilder bb;
  ASSERT_OK(bb.Append(true));
  ASSERT_OK(bb.AppendNull());
  ASSERT_OK(bb.Append(true));
  DecimalBuilder db(Decimal(9, 2)), bigb(Decimal(38, 10));
  ASSERT_OK(db.Append(-12345));
  ASSERT_OK(db.Append(99));
  ASSERT_OK(db.AppendNull());
  Int128 big = static_cast<Int128>(1) << 100;
  ASSERT_OK(bigb.Append(big));
  ASSERT_OK(bigb.Append(-big));
  ASSERT_OK(bigb.Append(0));
  auto i32 = [](TypePtr t, std::vector<std::optional<int32_t>> v) {
    Int32Builder b(std::move(t));
    for (auto x : v) EXPECT_OK(x ? b.Append(*x) : b.AppendNull());
    return *b.Finish();
  };
  auto i64 = [](TypePtr t, std::vector<std::optional<int64_t>> v) {
    Int64Builder b(std::move(t));
    for (auto x : v) EXPECT_OK(x ? b.Append(*x) : b.AppendNull());
    return *b.Finish();
  };
  FixedSizeBinaryBuilder ub(Uuid()), fb(Fixed(3));
  std::string u1(16, '\x10'), u2(16, '\x80');
  ASSERT_OK(ub.Append(u2));
  ASSERT_OK(ub.Append(u1));
  ASSERT_OK(ub.AppendNull());
  ASSERT_OK(fb.Append(std::string("\x00\xff\x01", 3)));
  ASSERT_OK(fb.Append(std::string("\x00\x01\x02", 3)));
  ASSERT_OK(fb.Append(std::string("\xff\x00\x00", 3)));

  std::vector<ArrayPtr> columns = {*bb.Finish(),
                                   I32s({3, std::nullopt, -7}),
                                   I64s({std::nullopt, int64_t{1} << 40, -(int64_t{1} << 40)}),
                                   F32s({1.5f, -2.25f, std::nullopt}),
                                   F64s({std::nullopt, 1e300, -0.5}),
                                   *db.Finish(),
                                   *bigb.Finish(),
                                   i32(Date(), {19724, -1, std::nullopt}),
                                   i64(Time(), {3600000000LL, 0, 86399999999LL}),
                                   i64(Timestamp(), {1704164645000000LL, std::nullopt, -1}),
                                   i64(TimestampTz(), {5, 6, 7}),
                                   i64(TimestampNs(), {1704164645000000123LL, 0, std::nullopt}),
                                   i64(TimestampTzNs(), {std::nullopt, std::nullopt, 42}),
                                   Strs({"kiwi", std::nullopt, "apple"}),
                                   *ub.Finish(),
                                   *fb.Finish(),
                                   Bins({std::string("\x01\x02", 2), std::string(), std::nullopt})};
  RecordBatchPtr batch = MakeBatch(schema, columns);
  ASSERT_OK_AND_ASSIGN(DataFile file,
                       WriteFile(schema, {batch}, {}, DataFileWriterOptions{0, {}, 3, {}}));

  EXPECT_EQ(file.file_path, path_);
  EXPECT_EQ(file.file_format, FileFormat::kParquet);
  EXPECT_EQ(file.record_count, 3);
  EXPECT_EQ(file.file_size_in_bytes, static_cast<int64_t>(std::filesystem::file_size(path_)));
  EXPECT_EQ(file.sort_order_id, 3);
  EXPECT_EQ(file.split_offsets, std::vector<int64_t>{4});
  EXPECT_EQ(file.column_sizes.size(), 17u);
  for (int id = 1; id <= 17; ++id) {
    EXPECT_GT(file.column_sizes[id], 0) << id;
    EXPECT_EQ(file.value_counts[id], 3) << id;
  }
  EXPECT_EQ(file.null_value_counts, (std::map<int32_t, int64_t>{{1, 1},
                                                                {2, 1},
                                                                {3, 1},
                                                                {4, 1},
                                                                {5, 1},
                                                                {6, 1},
                                                                {7, 0},
                                                                {8, 1},
                                                                {9, 0},
                                                                {10, 1},
                                                                {11, 0},
                                                                {12, 1},
                                                                {13, 2},
                                                                {14, 1},
                                                                {15, 1},
                                                                {16, 0},
                                                                {17, 1}}));
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{4, 0}, {5, 0}}));

  std::map<int32_t, std::string> lower = {{1, std::string("\x01", 1)},
                                          {2, LE32(-7)},
                                          {3, LE64(-(int64_t{1} << 40))},
                                          {4, F32Bytes(-2.25f)},
                                          {5, F64Bytes(-0.5)},
                                          {6, DecimalToMinimalBytes(-12345)},
                                          {7, DecimalToMinimalBytes(-big)},
                                          {8, LE32(-1)},
                                          {9, LE64(0)},
                                          {10, LE64(-1)},
                                          {11, LE64(5)},
                                          {12, LE64(0)},
                                          {13, LE64(42)},
                                          {14, "apple"},
                                          {15, u1},
                                          {16, std::string("\x00\x01\x02", 3)},
                                          {17, std::string()}};
  std::map<int32_t, std::string> upper = {{1, std::string("\x01", 1)},
                                          {2, LE32(3)},
                                          {3, LE64(int64_t{1} << 40)},
                                          {4, F32Bytes(1.5f)},
                                          {5, F64Bytes(1e300)},
                                          {6, DecimalToMinimalBytes(99)},
                                          {7, DecimalToMinimalBytes(big)},
                                          {8, LE32(19724)},
                                          {9, LE64(86399999999LL)},
                                          {10, LE64(1704164645000000LL)},
                                          {11, LE64(7)},
                                          {12, LE64(1704164645000000123LL)},
                                          {13, LE64(42)},
                                          {14, "kiwi"},
                                          {15, u2},
                                          {16, std::string("\xff\x00\x00", 3)},
                                          {17, std::string("\x01\x02", 2)}};
  EXPECT_EQ(file.lower_bounds, lower);
  EXPECT_EQ(file.upper_bounds, upper);
  // Every bound decodes as its column's type.
  for (const auto& [id, bytes] : file.lower_bounds) {
    EXPECT_THAT(DeserializeValue(schema->FindFieldById(id)->type(), bytes), IsOk()) << id;
  }

  std::vector<ArrayPtr> back = ReadBack(path_);
  ASSERT_EQ(back.size(), columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    ASSERT_NE(back[c], nullptr);
    EXPECT_TRUE(back[c]->Equals(*columns[c])) << fields[c].ToString();
  }
  // The Parquet schema carries the Iceberg field ids and the schema JSON.
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetFileReader::OpenPath(path_));
  EXPECT_EQ(reader->schema()->field(13).field_id(), 14);
  bool has_schema = false;
  for (const auto& kv :
       reader->metadata().key_value_metadata.value_or(std::vector<parquet::KeyValue>{})) {
    if (kv.key == "iceberg.schema" && kv.value) {
      has_schema = kv.value->find("\"tstzn\"") != std::string::npos;
    }
  }
  EXPECT_TRUE(has_schema);
}

TEST_F(DataFileWriterTest, BooleanBoundsAllFalse) {
  SchemaPtr schema = MakeSchema({Field("b", Boolean(), true, 1)});
  BooleanBuilder bb;
  ASSERT_OK(bb.Append(false));
  ASSERT_OK(bb.Append(false));
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {MakeBatch(schema, {*bb.Finish()})}));
  EXPECT_EQ(file.lower_bounds[1], std::string("\x00", 1));
  EXPECT_EQ(file.upper_bounds[1], std::string("\x00", 1));
}

TEST_F(DataFileWriterTest, MetricsModes) {
  SchemaPtr schema =
      MakeSchema({Field("none", Int32(), true, 1), Field("counts", Int32(), true, 2),
                  Field("trunc", String(), true, 3), Field("full", String(), true, 4),
                  Field("dflt", String(), true, 5)});
  std::string long_a(20, 'a'), long_z(20, 'z');
  RecordBatchPtr batch = MakeBatch(
      schema, {I32s({1, std::nullopt, 3}), I32s({4, 5, std::nullopt}), Strs({long_a, "b", long_z}),
               Strs({long_a, std::nullopt, long_z}), Strs({long_a, "m", long_z})});
  ASSERT_OK_AND_ASSIGN(DataFile file,
                       WriteFile(schema, {batch},
                                 {{"write.metadata.metrics.column.none", "none"},
                                  {"write.metadata.metrics.column.counts", "counts"},
                                  {"write.metadata.metrics.column.trunc", "truncate(3)"},
                                  {"write.metadata.metrics.column.full", "full"}}));
  EXPECT_EQ(file.column_sizes.size(), 5u);
  EXPECT_EQ(file.value_counts, (std::map<int32_t, int64_t>{{2, 3}, {3, 3}, {4, 3}, {5, 3}}));
  EXPECT_EQ(file.null_value_counts, (std::map<int32_t, int64_t>{{2, 1}, {3, 0}, {4, 1}, {5, 0}}));
  EXPECT_TRUE(file.nan_value_counts.empty());
  EXPECT_EQ(file.lower_bounds,
            (std::map<int32_t, std::string>{{3, "aaa"}, {4, long_a}, {5, std::string(16, 'a')}}));
  EXPECT_EQ(file.upper_bounds, (std::map<int32_t, std::string>{
                                   {3, "zz{"}, {4, long_z}, {5, std::string(15, 'z') + "{"}}));

  // A table-wide "none" drops every metric but the column sizes.
  ASSERT_OK_AND_ASSIGN(file,
                       WriteFile(schema, {batch}, {{"write.metadata.metrics.default", "none"}}));
  EXPECT_EQ(file.column_sizes.size(), 5u);
  EXPECT_TRUE(file.value_counts.empty());
  EXPECT_TRUE(file.null_value_counts.empty());
  EXPECT_TRUE(file.lower_bounds.empty());
  EXPECT_TRUE(file.upper_bounds.empty());
}

TEST_F(DataFileWriterTest, StringTruncationCountsCodePoints) {
  SchemaPtr schema = MakeSchema({Field("s", String(), true, 1)});
  auto bounds = [&](std::vector<std::optional<std::string>> values,
                    int n) -> std::pair<std::optional<std::string>, std::optional<std::string>> {
    const std::map<std::string, std::string> props = {
        {"write.metadata.metrics.default", fmt::format("truncate({})", n)}};
    auto file = WriteFile(schema, {MakeBatch(schema, {Strs(values)})}, props);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    ExpectImportedBoundsEqual(schema, *file, props);
    std::pair<std::optional<std::string>, std::optional<std::string>> out;
    if (file->lower_bounds.count(1)) out.first = file->lower_bounds.at(1);
    if (file->upper_bounds.count(1)) out.second = file->upper_bounds.at(1);
    return out;
  };
  // Two-byte characters: "é" and "ö" are one code point each.
  auto b = bounds({"h\xC3\xA9llo", "w\xC3\xB6rld"}, 2);
  EXPECT_EQ(b.first, "h\xC3\xA9");
  EXPECT_EQ(b.second, "w\xC3\xB7");  // ö (U+00F6) + 1 = ÷ (U+00F7)
  // A value no longer than N is exact.
  b = bounds({"\xE2\x82\xAC\xE2\x82\xAC"}, 2);  // "€€"
  EXPECT_EQ(b.first, "\xE2\x82\xAC\xE2\x82\xAC");
  EXPECT_EQ(b.second, "\xE2\x82\xAC\xE2\x82\xAC");
  // U+10FFFF cannot be incremented: the code point before it is.
  b = bounds({"a\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF"}, 2);
  EXPECT_EQ(b.first, "a\xF4\x8F\xBF\xBF");
  EXPECT_EQ(b.second, "b");
  // A four-byte character increments within four bytes: U+1F600 -> U+1F601.
  b = bounds({"\xF0\x9F\x98\x80xyz"}, 1);
  EXPECT_EQ(b.first, "\xF0\x9F\x98\x80");
  EXPECT_EQ(b.second, "\xF0\x9F\x98\x81");
  // U+D7FF + 1 skips the surrogates to U+E000.
  b = bounds({"\xED\x9F\xBFq"}, 1);
  EXPECT_EQ(b.second, "\xEE\x80\x80");
  // Nothing can be incremented: no upper bound.
  b = bounds({"\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF"}, 2);
  EXPECT_EQ(b.first, "\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF");
  EXPECT_FALSE(b.second.has_value());
}

TEST_F(DataFileWriterTest, BinaryTruncationCountsBytes) {
  SchemaPtr schema = MakeSchema({Field("b", Binary(), true, 1)});
  auto bounds = [&](std::vector<std::optional<std::string>> values) {
    const std::map<std::string, std::string> props = {
        {"write.metadata.metrics.default", "truncate(2)"}};
    auto file = WriteFile(schema, {MakeBatch(schema, {Bins(values)})}, props);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    ExpectImportedBoundsEqual(schema, *file, props);
    std::pair<std::optional<std::string>, std::optional<std::string>> out;
    if (file->lower_bounds.count(1)) out.first = file->lower_bounds.at(1);
    if (file->upper_bounds.count(1)) out.second = file->upper_bounds.at(1);
    return out;
  };
  auto b = bounds({std::string("\x01\x02\x03", 3), std::string("\x01\x02", 2)});
  EXPECT_EQ(b.first, std::string("\x01\x02", 2));
  EXPECT_EQ(b.second, std::string("\x01\x03", 2));
  b = bounds({std::string("\x01\xff\x05", 3)});
  EXPECT_EQ(b.second, std::string("\x02", 1));
  b = bounds({std::string("\xff\xff\x00", 3)});
  EXPECT_EQ(b.first, std::string("\xff\xff", 2));
  EXPECT_FALSE(b.second.has_value());
}

TEST_F(DataFileWriterTest, NaNAndSignedZeros) {
  SchemaPtr schema = MakeSchema({Field("f", Float32(), true, 1), Field("d", Float64(), true, 2)});
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double dnan = std::numeric_limits<double>::quiet_NaN();
  auto write = [&](std::vector<std::optional<float>> f, std::vector<std::optional<double>> d) {
    auto file = WriteFile(schema, {MakeBatch(schema, {F32s(f), F64s(d)})});
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    return *file;
  };
  DataFile file = write({fnan, 2.5f, fnan, -1.0f}, {dnan, 3.0, std::nullopt, dnan});
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{1, 2}, {2, 2}}));
  EXPECT_EQ(file.null_value_counts, (std::map<int32_t, int64_t>{{1, 0}, {2, 1}}));
  EXPECT_EQ(file.lower_bounds[1], F32Bytes(-1.0f));
  EXPECT_EQ(file.upper_bounds[1], F32Bytes(2.5f));
  EXPECT_EQ(file.lower_bounds[2], F64Bytes(3.0));
  EXPECT_EQ(file.upper_bounds[2], F64Bytes(3.0));

  // Only NaN: counted, never a bound.
  file = write({fnan, fnan}, {dnan, std::nullopt});
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{1, 2}, {2, 1}}));
  EXPECT_TRUE(file.lower_bounds.empty());
  EXPECT_TRUE(file.upper_bounds.empty());

  // A zero bound covers both zeros: -0.0 below, +0.0 above, whichever zero was written.
  file = write({0.0f, 0.0f}, {-0.0, -0.0});
  EXPECT_EQ(file.lower_bounds[1], F32Bytes(-0.0f));
  EXPECT_EQ(file.upper_bounds[1], F32Bytes(0.0f));
  EXPECT_EQ(file.lower_bounds[2], F64Bytes(-0.0));
  EXPECT_EQ(file.upper_bounds[2], F64Bytes(0.0));
  EXPECT_TRUE(std::signbit(*reinterpret_cast<const double*>(file.lower_bounds[2].data())));
  EXPECT_FALSE(std::signbit(*reinterpret_cast<const double*>(file.upper_bounds[2].data())));
  file = write({-3.0f, 0.0f}, {-0.0, 7.0});
  EXPECT_EQ(file.lower_bounds[1], F32Bytes(-3.0f));
  EXPECT_EQ(file.upper_bounds[1], F32Bytes(0.0f));
  EXPECT_EQ(file.lower_bounds[2], F64Bytes(-0.0));
  EXPECT_EQ(file.upper_bounds[2], F64Bytes(7.0));
}

TEST_F(DataFileWriterTest, MetricsEvaluatorNeverPrunesAFileThatHasTheValue) {
  SchemaPtr schema = MakeSchema({Field("s", String(), true, 1), Field("d", Float64(), true, 2),
                                 Field("l", List(Field("element", Int32(), true, 4)), true, 3)});
  std::string long_a(20, 'a'), long_z(20, 'z');
  ListBuilder lb(schema->columns()->field(2).type());
  auto* el = static_cast<Int32Builder*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(el->Append(5));
  ASSERT_OK(lb.AppendNull());
  RecordBatchPtr batch =
      MakeBatch(schema, {Strs({long_a, long_z}), F64s({0.0, 0.0}), *lb.Finish()});
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {batch}));
  auto may_match = [&](Operation op, const std::string& column, Scalar literal) {
    std::vector<Scalar> literals;
    if (op != Operation::kIsNan && op != Operation::kNotNan) literals.push_back(literal);
    auto bound = Bind(Expression::Make(op, column, literals), *schema, true);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    auto r = InclusiveMetricsMayMatch(**bound, *schema, file);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  };
  // Truncated string bounds still cover the values.
  EXPECT_TRUE(may_match(Operation::kEq, "s", Scalar::Str(long_a)));
  EXPECT_TRUE(may_match(Operation::kEq, "s", Scalar::Str(long_z)));
  EXPECT_TRUE(may_match(Operation::kGtEq, "s", Scalar::Str(long_z)));
  EXPECT_FALSE(may_match(Operation::kLt, "s", Scalar::Str("a")));
  EXPECT_FALSE(may_match(Operation::kGt, "s", Scalar::Str("zzzzzzzzzzzzzzz{")));
  // Only +0.0 was written; -0.0 equals it and must not be pruned.
  EXPECT_TRUE(may_match(Operation::kEq, "d", Scalar::F64(-0.0)));
  EXPECT_TRUE(may_match(Operation::kEq, "d", Scalar::F64(0.0)));
  EXPECT_FALSE(may_match(Operation::kGt, "d", Scalar::F64(0.0)));
  EXPECT_FALSE(may_match(Operation::kIsNan, "d", Scalar::F64(0.0)));
  // List elements have counts but no bounds: never pruned by value.
  EXPECT_TRUE(may_match(Operation::kEq, "l.element", Scalar::I32(99)));
}

TEST_F(DataFileWriterTest, NullOnlyColumnHasCountsButNoBounds) {
  SchemaPtr schema = MakeSchema({Field("a", Int32(), true, 1), Field("s", String(), true, 2)});
  ASSERT_OK_AND_ASSIGN(
      DataFile file,
      WriteFile(schema, {MakeBatch(schema, {I32s({std::nullopt, std::nullopt, std::nullopt}),
                                            Strs({std::nullopt, std::nullopt, std::nullopt})})}));
  EXPECT_EQ(file.value_counts, (std::map<int32_t, int64_t>{{1, 3}, {2, 3}}));
  EXPECT_EQ(file.null_value_counts, (std::map<int32_t, int64_t>{{1, 3}, {2, 3}}));
  EXPECT_TRUE(file.lower_bounds.empty());
  EXPECT_TRUE(file.upper_bounds.empty());
}

// struct<lat: double, name: string not null>, list<int>, map<string, double>.
SchemaPtr NestedSchema() {
  return MakeSchema(
      {Field("id", Int64(), false, 1),
       Field("loc", Struct({Field("lat", Float64(), true, 4), Field("name", String(), false, 5)}),
             true, 2),
       Field("tags", List(Field("element", Int32(), true, 6)), true, 3),
       Field("m", Map(Field("key", String(), false, 8), Field("value", Float64(), true, 9)), true,
             7)});
}

// Rows:
//   0: id 1, loc {1.5, "a"},    tags [1, 2],       m {"x": NaN}
//   1: id 2, loc null,          tags null,         m null
//   2: id 3, loc {null, "b"},   tags [],           m {}
//   3: id 4, loc {-2.0, "c"},   tags [9, null],    m {"y": 1.0, "z": null}
RecordBatchPtr NestedBatch(const SchemaPtr& schema, bool null_name_in_present_struct = false,
                           bool null_name_in_null_struct = false) {
  const floe::SchemaPtr& cols = schema->columns();
  StructBuilder loc(cols->field(1).type());
  auto* lat = static_cast<Float64Builder*>(loc.field_builder(0));
  auto* name = static_cast<BinaryBuilder*>(loc.field_builder(1));
  EXPECT_OK(loc.Append());
  EXPECT_OK(lat->Append(1.5));
  EXPECT_OK(name->Append("a"));
  EXPECT_OK(loc.AppendNull());
  if (null_name_in_null_struct) {
    // AppendNull gave the children empty values; a NULL under a NULL parent is allowed.
  }
  EXPECT_OK(loc.Append());
  EXPECT_OK(lat->AppendNull());
  EXPECT_OK(null_name_in_present_struct ? name->AppendNull() : name->Append("b"));
  EXPECT_OK(loc.Append());
  EXPECT_OK(lat->Append(-2.0));
  EXPECT_OK(name->Append("c"));
  ArrayPtr loc_array = *loc.Finish();
  if (null_name_in_null_struct) {
    // Rebuild the name child with a NULL in row 1, under the NULL struct.
    ArrayPtr names = Strs({"a", std::nullopt, "b", "c"});
    loc_array =
        *Array::Make(loc_array->type(), 4, loc_array->buffers(), {loc_array->child(0), names});
  }

  ListBuilder tags(cols->field(2).type());
  auto* el = static_cast<Int32Builder*>(tags.value_builder());
  EXPECT_OK(tags.Append());
  EXPECT_OK(el->Append(1));
  EXPECT_OK(el->Append(2));
  EXPECT_OK(tags.AppendNull());
  EXPECT_OK(tags.Append());
  EXPECT_OK(tags.Append());
  EXPECT_OK(el->Append(9));
  EXPECT_OK(el->AppendNull());

  MapBuilder m(cols->field(3).type());
  auto* k = static_cast<BinaryBuilder*>(m.key_builder());
  auto* v = static_cast<Float64Builder*>(m.item_builder());
  EXPECT_OK(m.Append());
  EXPECT_OK(k->Append("x"));
  EXPECT_OK(v->Append(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_OK(m.AppendNull());
  EXPECT_OK(m.Append());
  EXPECT_OK(m.Append());
  EXPECT_OK(k->Append("y"));
  EXPECT_OK(v->Append(1.0));
  EXPECT_OK(k->Append("z"));
  EXPECT_OK(v->AppendNull());

  return MakeBatch(schema, {I64s({1, 2, 3, 4}), loc_array, *tags.Finish(), *m.Finish()});
}

TEST_F(DataFileWriterTest, NestedColumnMetrics) {
  SchemaPtr schema = NestedSchema();
  RecordBatchPtr batch = NestedBatch(schema);
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {batch}));
  // Leaves: 1 id, 4 loc.lat, 5 loc.name, 6 tags.element, 8 m.key, 9 m.value.
  EXPECT_EQ(file.column_sizes.size(), 6u);
  // Struct leaves count rows; list and map leaves count level entries (a NULL or empty list is
  // one entry), as Parquet's column chunks do.
  EXPECT_EQ(file.value_counts,
            (std::map<int32_t, int64_t>{{1, 4}, {4, 4}, {5, 4}, {6, 6}, {8, 5}, {9, 5}}));
  EXPECT_EQ(file.null_value_counts,
            (std::map<int32_t, int64_t>{{1, 0}, {4, 2}, {5, 1}, {6, 3}, {8, 2}, {9, 3}}));
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{4, 0}, {9, 1}}));
  // Bounds only for leaves reached through structs.
  EXPECT_EQ(file.lower_bounds,
            (std::map<int32_t, std::string>{{1, LE64(1)}, {4, F64Bytes(-2.0)}, {5, "a"}}));
  EXPECT_EQ(file.upper_bounds,
            (std::map<int32_t, std::string>{{1, LE64(4)}, {4, F64Bytes(1.5)}, {5, "c"}}));

  std::vector<ArrayPtr> back = ReadBack(path_);
  ASSERT_EQ(back.size(), 4u);
  for (int c = 0; c < 4; ++c) {
    EXPECT_TRUE(back[c]->Equals(*batch->column(c))) << c;
  }
}

TEST_F(DataFileWriterTest, SlicedBatchesUseTheirOwnRows) {
  SchemaPtr schema = NestedSchema();
  RecordBatchPtr batch = NestedBatch(schema)->Slice(2, 2);  // rows 2 and 3
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {batch}));
  EXPECT_EQ(file.record_count, 2);
  EXPECT_EQ(file.value_counts,
            (std::map<int32_t, int64_t>{{1, 2}, {4, 2}, {5, 2}, {6, 3}, {8, 3}, {9, 3}}));
  EXPECT_EQ(file.null_value_counts,
            (std::map<int32_t, int64_t>{{1, 0}, {4, 1}, {5, 0}, {6, 2}, {8, 1}, {9, 2}}));
  EXPECT_EQ(file.nan_value_counts, (std::map<int32_t, int64_t>{{4, 0}, {9, 0}}));
  EXPECT_EQ(file.lower_bounds,
            (std::map<int32_t, std::string>{{1, LE64(3)}, {4, F64Bytes(-2.0)}, {5, "b"}}));
  EXPECT_EQ(file.upper_bounds,
            (std::map<int32_t, std::string>{{1, LE64(4)}, {4, F64Bytes(-2.0)}, {5, "c"}}));
  std::vector<ArrayPtr> back = ReadBack(path_);
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(back[c]->Equals(*batch->column(c))) << c;
}

TEST_F(DataFileWriterTest, FixedAndUuidBoundsAreNeverCut) {
  SchemaPtr schema = MakeSchema({Field("fx", Fixed(20), true, 1), Field("u", Uuid(), true, 2)});
  FixedSizeBinaryBuilder fb(Fixed(20)), ub(Uuid());
  std::string lo(20, 'a'), hi(20, '\xff');
  ASSERT_OK(fb.Append(hi));
  ASSERT_OK(fb.Append(lo));
  std::string u(16, '\xff');
  ASSERT_OK(ub.Append(u));
  ASSERT_OK(ub.Append(u));
  ASSERT_OK_AND_ASSIGN(DataFile file,
                       WriteFile(schema, {MakeBatch(schema, {*fb.Finish(), *ub.Finish()})},
                                 {{"write.metadata.metrics.default", "truncate(4)"}}));
  EXPECT_EQ(file.lower_bounds, (std::map<int32_t, std::string>{{1, lo}, {2, u}}));
  EXPECT_EQ(file.upper_bounds, (std::map<int32_t, std::string>{{1, hi}, {2, u}}));
}

TEST_F(DataFileWriterTest, RequiredFieldViolationsAreConstraintErrorsAndLeaveNoFile) {
  SchemaPtr schema = NestedSchema();
  auto expect_rejected = [&](const RecordBatchPtr& batch, const std::string& column) {
    auto file = WriteFile(schema, {batch});
    EXPECT_THAT(file, IsErrorWith(StatusCode::kConstraint,
                                  "NULL value in required column '" + column + "'"));
    EXPECT_FALSE(std::filesystem::exists(path_)) << path_;
  };
  // Top level.
  RecordBatchPtr good = NestedBatch(schema);
  std::vector<ArrayPtr> cols = good->columns();
  cols[0] = I64s({1, std::nullopt, 3, 4});
  expect_rejected(MakeBatch(schema, cols), "id");
  // A required field of a present struct.
  expect_rejected(NestedBatch(schema, /*null_name_in_present_struct=*/true), "loc.name");
  // A NULL under a NULL struct is fine.
  ASSERT_OK(WriteFile(schema, {NestedBatch(schema, false, /*null_name_in_null_struct=*/true)}));
  EXPECT_TRUE(std::filesystem::exists(path_));

  // Required list elements and map values.
  SchemaPtr req = MakeSchema(
      {Field("l", List(Field("element", Int32(), false, 3)), true, 1),
       Field("m", Map(Field("key", Int32(), false, 4), Field("value", Int32(), false, 5)), true,
             2)});
  ListBuilder lb(req->columns()->field(0).type());
  auto* lv = static_cast<Int32Builder*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(lv->Append(1));
  ASSERT_OK(lv->AppendNull());
  MapBuilder mb(req->columns()->field(1).type());
  ASSERT_OK(mb.Append());
  ArrayPtr list_with_null = *lb.Finish();
  ArrayPtr empty_map = *mb.Finish();
  {
    auto file = WriteFile(req, {MakeBatch(req, {list_with_null, empty_map})});
    EXPECT_THAT(file,
                IsErrorWith(StatusCode::kConstraint, "NULL value in required column 'l.element'"));
    EXPECT_FALSE(std::filesystem::exists(path_));
  }
  ListBuilder lb2(req->columns()->field(0).type());
  ASSERT_OK(lb2.Append());
  MapBuilder mb2(req->columns()->field(1).type());
  auto* mk = static_cast<Int32Builder*>(mb2.key_builder());
  auto* mv = static_cast<Int32Builder*>(mb2.item_builder());
  ASSERT_OK(mb2.Append());
  ASSERT_OK(mk->Append(1));
  ASSERT_OK(mv->AppendNull());
  {
    auto file = WriteFile(req, {MakeBatch(req, {*lb2.Finish(), *mb2.Finish()})});
    EXPECT_THAT(file,
                IsErrorWith(StatusCode::kConstraint, "NULL value in required column 'm.value'"));
    EXPECT_FALSE(std::filesystem::exists(path_));
  }
}

TEST_F(DataFileWriterTest, ViolationInALaterBatchDeletesTheFileAndSticks) {
  SchemaPtr schema = MakeSchema({Field("id", Int64(), false, 1)});
  ASSERT_OK_AND_ASSIGN(WriterProperties wp, WriterProperties::Make({}, dir_.path()));
  std::string path = dir_.path() + "/data/x.parquet";
  ASSERT_OK_AND_ASSIGN(
      auto writer, DataFileWriter::Open(io_, path, schema, MetricsConfig::Make(wp, *schema), {}));
  ASSERT_OK(writer->Write(*MakeBatch(schema, {I64s({1, 2})})));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_THAT(writer->Write(*MakeBatch(schema, {I64s({3, std::nullopt})})),
              IsErrorWith(StatusCode::kConstraint,
                          "NULL value in required column 'id' at row 1 of the batch"));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_THAT(writer->Close(), IsError(StatusCode::kConstraint));
  EXPECT_OK(writer->Abort());
}

TEST_F(DataFileWriterTest, AbortDeletesAndAnExistingFileIsNotOverwritten) {
  SchemaPtr schema = MakeSchema({Field("id", Int64(), true, 1)});
  ASSERT_OK_AND_ASSIGN(WriterProperties wp, WriterProperties::Make({}, dir_.path()));
  auto metrics = MetricsConfig::Make(wp, *schema);
  std::string path = dir_.path() + "/data/a.parquet";
  ASSERT_OK_AND_ASSIGN(auto writer, DataFileWriter::Open(io_, path, schema, metrics, {}));
  ASSERT_OK(writer->Write(*MakeBatch(schema, {I64s({1})})));
  EXPECT_THAT(DataFileWriter::Open(io_, path, schema, metrics, {}),
              IsError(StatusCode::kConstraint));
  ASSERT_OK(writer->Abort());
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_OK(writer->Abort());
  EXPECT_THAT(writer->Write(*MakeBatch(schema, {I64s({1})})),
              IsError(StatusCode::kInvalidArgument));
}

TEST_F(DataFileWriterTest, AcceptsInputByPositionAndRejectsTypeMismatches) {
  SchemaPtr schema = NestedSchema();
  RecordBatchPtr table_batch = NestedBatch(schema);
  // The same data with other names, no field ids and nullable everything.
  std::vector<Field> plain;
  for (int i = 0; i < table_batch->num_columns(); ++i) {
    plain.emplace_back("c" + std::to_string(i), table_batch->column(i)->type(), true);
  }
  // Nested types without ids: rebuild the list column as list<int32> (nullable element).
  TypePtr plain_list = List(Int32());
  std::vector<ArrayPtr> cols = table_batch->columns();
  cols[2] = *Array::Make(plain_list, cols[2]->length(), cols[2]->buffers(), cols[2]->children(),
                         cols[2]->null_count(), cols[2]->offset());
  plain[2] = Field("c2", plain_list);
  auto input_schema = std::make_shared<floe::Schema>(plain);
  ASSERT_OK_AND_ASSIGN(auto input, RecordBatch::Make(input_schema, 4, cols));
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {input}));
  EXPECT_EQ(file.record_count, 4);
  std::vector<ArrayPtr> back = ReadBack(path_);
  EXPECT_TRUE(back[2]->Equals(*table_batch->column(2)));

  // A different type names the column.
  std::vector<Field> wrong = plain;
  wrong[0] = Field("c0", Int32());
  cols[0] = I32s({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(auto bad, RecordBatch::Make(std::make_shared<floe::Schema>(wrong), 4, cols));
  EXPECT_THAT(WriteFile(schema, {bad}), IsErrorWith(StatusCode::kInvalidArgument, "'id'"));
  EXPECT_FALSE(std::filesystem::exists(path_));
  // So does a missing column.
  ASSERT_OK_AND_ASSIGN(
      auto narrow, RecordBatch::Make(std::make_shared<floe::Schema>(std::vector<Field>{wrong[0]}),
                                     4, {cols[0]}));
  EXPECT_THAT(WriteFile(schema, {narrow}), IsError(StatusCode::kInvalidArgument));
}

TEST_F(DataFileWriterTest, SplitOffsetsAreRowGroupStarts) {
  SchemaPtr schema = MakeSchema({Field("id", Int64(), true, 1)});
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 5000; ++i) values.push_back(i);
  DataFileWriterOptions options;
  options.parquet.row_group_size_bytes = 4096;
  options.parquet.compression = "uncompressed";
  ASSERT_OK_AND_ASSIGN(DataFile file,
                       WriteFile(schema, {MakeBatch(schema, {I64s(values)})}, {}, options));
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetFileReader::OpenPath(path_));
  ASSERT_GT(reader->num_row_groups(), 1);
  std::vector<int64_t> expected;
  for (const auto& rg : reader->metadata().row_groups) {
    const auto& md = *rg.columns[0].meta_data;
    expected.push_back(md.dictionary_page_offset.value_or(md.data_page_offset));
  }
  EXPECT_EQ(file.split_offsets, expected);
  EXPECT_EQ(file.split_offsets[0], 4);
  EXPECT_EQ(file.record_count, 5000);
  EXPECT_EQ(file.value_counts[1], 5000);
  EXPECT_EQ(file.lower_bounds[1], LE64(0));
  EXPECT_EQ(file.upper_bounds[1], LE64(4999));
}

TEST_F(DataFileWriterTest, DataFilesRoundTripThroughTheManifestEncoding) {
  SchemaPtr schema = NestedSchema();
  ASSERT_OK_AND_ASSIGN(
      auto spec, PartitionSpec::Make(*schema, 3,
                                     {PartitionField{1, 1000, "id_bucket", Transform::Bucket(4)}}));
  DataFileWriterOptions options;
  options.spec_id = 3;
  options.partition = {Scalar::Make(Int32(), int32_t{2})};
  options.sort_order_id = 0;
  ASSERT_OK_AND_ASSIGN(DataFile file, WriteFile(schema, {NestedBatch(schema)}, {}, options));
  ASSERT_OK_AND_ASSIGN(TypePtr ptype, spec->PartitionType(*schema));
  auto ptr = std::make_shared<const DataFile>(file);
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeDataFiles({ptr}, ptype));
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeDataFiles(bytes, ptype, 3));
  ASSERT_EQ(decoded.size(), 1u);
  const DataFile& d = *decoded[0];
  EXPECT_EQ(d.file_path, file.file_path);
  EXPECT_EQ(d.file_format, FileFormat::kParquet);
  EXPECT_EQ(d.spec_id, 3);
  ASSERT_EQ(d.partition.size(), 1u);
  EXPECT_EQ(d.partition[0].get<int32_t>(), 2);
  EXPECT_EQ(d.record_count, file.record_count);
  EXPECT_EQ(d.file_size_in_bytes, file.file_size_in_bytes);
  EXPECT_EQ(d.column_sizes, file.column_sizes);
  EXPECT_EQ(d.value_counts, file.value_counts);
  EXPECT_EQ(d.null_value_counts, file.null_value_counts);
  EXPECT_EQ(d.nan_value_counts, file.nan_value_counts);
  EXPECT_EQ(d.lower_bounds, file.lower_bounds);
  EXPECT_EQ(d.upper_bounds, file.upper_bounds);
  EXPECT_EQ(d.split_offsets, file.split_offsets);
  EXPECT_EQ(d.sort_order_id, 0);
}

}  // namespace
}  // namespace floe::iceberg
