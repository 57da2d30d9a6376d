#include "floe/format/puffin/puffin.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "floe/format/parquet/reader.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/io/file_io.h"
#include "floe/testing/matchers.h"

namespace floe::puffin {
namespace {

using testing::IsError;
using testing::IsErrorWith;

constexpr const char* kTables = "../shared/fixtures/iceberg/iceberg-cxx/tests/tables/";

std::shared_ptr<io::RandomAccessFile> Memory(std::string bytes, std::string name = "mem.puffin") {
  return io::MakeBufferFile(Buffer::CopyOf(std::string_view(bytes)).ValueOrDie(), std::move(name));
}

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::shared_ptr<io::LocalFileIO> FixtureIO() {
  return io::LocalFileIO::Make({std::string("s3a://warehouse/=") + kTables}).ValueOrDie();
}

// Trino 480's deletion vectors: the first DV deletes positions {0, 3, 6} of the first data file;
// the replacing Puffin holds {2, 5} for the second file and {0, 1, 3, 4, 6, 7} for the first.
// Both files have 8 rows (c1 = 0..7 and 8..15), so 16 - 8 = 8 rows stay live:
// c1 in {2, 5, 8, 9, 11, 12, 14, 15}.
TEST(PuffinFixtureTest, TrinoDeletionVectors) {
  auto io = FixtureIO();
  const std::string dir = "s3a://warehouse/deletion_vectors/data/";
  const std::string first_data =
      dir + "20260504_111440_00009_8gkte-580c7fe8-68ec-4a8b-8bce-a37f4af02113.parquet";
  const std::string second_data =
      dir + "20260504_111846_00011_8gkte-7c2867a1-65a0-4133-9132-76d4b294da2a.parquet";
  struct Expected {
    std::string puffin;
    std::vector<std::pair<std::string, std::vector<int64_t>>> blobs;
  };
  std::vector<Expected> expected = {
      {dir + "dv-20260504_111446_00010_8gkte-9a41c74f-3cae-4b67-a4e3-ec4437d1c988.puffin",
       {{first_data, {0, 3, 6}}}},
      {dir + "dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin",
       {{second_data, {2, 5}}, {first_data, {0, 1, 3, 4, 6, 7}}}},
  };
  int64_t live_after_replacement = 0;
  std::vector<int32_t> live_c1;
  for (const Expected& e : expected) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file, io->NewInputFile(e.puffin));
    ASSERT_OK_AND_ASSIGN(auto reader, PuffinReader::Open(file));
    EXPECT_EQ(reader->metadata().properties.at("created-by"), "Trino version 480");
    ASSERT_EQ(reader->metadata().blobs.size(), e.blobs.size());
    for (size_t i = 0; i < e.blobs.size(); ++i) {
      const BlobMetadata& blob = reader->metadata().blobs[i];
      EXPECT_EQ(blob.type, kDeletionVectorBlobType);
      EXPECT_EQ(blob.snapshot_id, -1);
      EXPECT_EQ(blob.sequence_number, -1);
      EXPECT_EQ(blob.compression, PuffinCodec::kNone);
      EXPECT_TRUE(blob.fields.empty());
      EXPECT_EQ(blob.properties.at("referenced-data-file"), e.blobs[i].first);
      int64_t cardinality = std::stoll(blob.properties.at("cardinality"));
      ASSERT_OK_AND_ASSIGN(BufferPtr bytes, reader->ReadBlob(blob));
      ASSERT_OK_AND_ASSIGN(auto dv, DeserializeDeletionVector(bytes->span(), file->path(),
                                                              blob.offset, cardinality));
      EXPECT_EQ(dv.ToVector(), e.blobs[i].second);
      // Reading by the manifest's content_offset and content_size_in_bytes gives the same set.
      ASSERT_OK_AND_ASSIGN(auto direct,
                           ReadDeletionVector(*file, blob.offset, blob.length, cardinality));
      EXPECT_TRUE(direct == dv);
      // Our serialization of the set is byte-identical to Trino's (array containers, no runs).
      EXPECT_EQ(SerializeDeletionVector(dv), bytes->view());

      ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> data,
                           io->NewInputFile(e.blobs[i].first));
      ASSERT_OK_AND_ASSIGN(auto parquet, parquet::ParquetFileReader::Open(data));
      EXPECT_EQ(parquet->num_rows(), 8);
      ASSERT_TRUE(dv.Max().has_value());
      EXPECT_LT(*dv.Max(), parquet->num_rows());
      if (reader->metadata().blobs.size() == 2) {
        live_after_replacement += parquet->num_rows() - dv.Cardinality();
        // Apply the current DVs to c1 (field id 1) through the live-row bitmap.
        ASSERT_OK_AND_ASSIGN(auto columns, parquet->ColumnsByFieldId({1}));
        parquet::ReadRequest request;
        request.columns = columns;
        ASSERT_OK_AND_ASSIGN(auto batches, parquet->Read(request));
        int64_t row = 0;
        while (true) {
          ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, batches->Next());
          if (batch == nullptr) break;
          std::vector<uint8_t> live(static_cast<size_t>((batch->num_rows() + 7) / 8));
          dv.FillLiveBitmap(row, row + batch->num_rows(), live.data());
          for (int64_t i = 0; i < batch->num_rows(); ++i) {
            if ((live[static_cast<size_t>(i / 8)] >> (i % 8)) & 1) {
              live_c1.push_back(batch->column(0)->Value<int32_t>(i));
            }
          }
          row += batch->num_rows();
        }
        EXPECT_EQ(row, 8);
      }
    }
  }
  EXPECT_EQ(live_after_replacement, 8);
  std::sort(live_c1.begin(), live_c1.end());
  EXPECT_EQ(live_c1, (std::vector<int32_t>{2, 5, 8, 9, 11, 12, 14, 15}));
}

// Trino's table statistics: theta sketches compressed with zstd.
TEST(PuffinFixtureTest, TrinoStatisticsWithZstdBlobs) {
  std::string path = std::string(kTables) +
                     "types/all_trino_types/metadata/"
                     "20250601_201751_00003_935ws-c92f657f-1523-444c-b0ff-9813e5b23535.stats";
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> file, io::OpenLocalFile(path));
  ASSERT_OK_AND_ASSIGN(auto reader, PuffinReader::Open(file));
  EXPECT_EQ(reader->metadata().properties.at("created-by"), "Trino version 471");
  ASSERT_GE(reader->metadata().blobs.size(), 10u);
  int32_t previous_field = 0;
  for (const BlobMetadata& blob : reader->metadata().blobs) {
    EXPECT_EQ(blob.type, "apache-datasketches-theta-v1");
    EXPECT_EQ(blob.compression, PuffinCodec::kZstd);
    EXPECT_EQ(blob.snapshot_id, 997544649215353036);
    ASSERT_EQ(blob.fields.size(), 1u);
    EXPECT_GT(blob.fields[0], previous_field);
    previous_field = blob.fields[0];
    ASSERT_OK_AND_ASSIGN(BufferPtr sketch, reader->ReadBlob(blob));
    // A compact theta sketch: serial version 3, family id 3 (compact).
    ASSERT_GE(sketch->size(), 8);
    EXPECT_EQ(sketch->data()[1], 3);
    EXPECT_EQ(sketch->data()[2], 3);
  }
  EXPECT_EQ(reader->metadata().blobs.back().fields[0], 14);
  EXPECT_EQ(reader->metadata().blobs.back().offset, 381);
  EXPECT_EQ(reader->metadata().blobs.back().length, 29);
}

std::string WriteFile(bool compress_footer, std::vector<BlobMetadata>* blobs) {
  io::BufferOutputStream out;
  PuffinWriterOptions options;
  options.compress_footer = compress_footer;
  options.properties["created-by"] = "floe test";
  auto writer = PuffinWriter::Make(&out, options).ValueOrDie();
  std::string big(100000, 'a');
  for (int i = 0; i < 1000; ++i) big[static_cast<size_t>(i) * 97] = static_cast<char>('b' + i % 20);
  PuffinCodec codecs[] = {PuffinCodec::kNone, PuffinCodec::kLz4, PuffinCodec::kZstd};
  for (PuffinCodec codec : codecs) {
    BlobInfo info{"test-blob", {1, 2}, 42, 7, {{"codec", std::string(PuffinCodecName(codec))}}};
    blobs->push_back(writer->AddBlob(info, Bytes(big), codec).ValueOrDie());
  }
  blobs->push_back(writer->AddBlob(BlobInfo{"empty", {}, -1, -1, {}}, {}).ValueOrDie());
  int64_t size = writer->Finish().ValueOrDie();
  EXPECT_EQ(size, out.position());
  EXPECT_THAT(writer->Finish(), IsError(StatusCode::kInvalidArgument));
  return out.TakeBytes();
}

TEST(PuffinWriterTest, RoundTrip) {
  for (bool compress_footer : {false, true}) {
    std::vector<BlobMetadata> written;
    std::string bytes = WriteFile(compress_footer, &written);
    EXPECT_EQ(bytes.substr(0, 4), "PFA1");
    EXPECT_EQ(bytes.substr(bytes.size() - 4), "PFA1");
    EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 8]), compress_footer ? 1 : 0);
    ASSERT_OK_AND_ASSIGN(auto reader, PuffinReader::Open(Memory(bytes)));
    EXPECT_EQ(reader->metadata().properties.at("created-by"), "floe test");
    ASSERT_EQ(reader->metadata().blobs, written);
    EXPECT_EQ(written[0].offset, 4);
    EXPECT_EQ(written[0].length, 100000);
    EXPECT_LT(written[1].length, 100000);  // lz4
    EXPECT_LT(written[2].length, 100000);  // zstd
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_OK_AND_ASSIGN(BufferPtr blob, reader->ReadBlob(written[i]));
      ASSERT_EQ(blob->size(), 100000);
      EXPECT_EQ(blob->data()[0], 'b');
      EXPECT_EQ(blob->data()[97], 'c');
      EXPECT_EQ(blob->data()[1], 'a');
    }
    ASSERT_OK_AND_ASSIGN(BufferPtr empty, reader->ReadBlob(written[3]));
    EXPECT_EQ(empty->size(), 0);
    EXPECT_EQ(reader->metadata().blobs[3].properties.size(), 0u);
  }
}

TEST(PuffinWriterTest, EmptyFile) {
  io::BufferOutputStream out;
  auto writer = PuffinWriter::Make(&out).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(int64_t size, writer->Finish());
  std::string bytes = out.TakeBytes();
  EXPECT_EQ(size, static_cast<int64_t>(bytes.size()));
  ASSERT_OK_AND_ASSIGN(auto reader, PuffinReader::Open(Memory(bytes)));
  EXPECT_TRUE(reader->metadata().blobs.empty());
  EXPECT_EQ(reader->metadata().properties.at("created-by"), "floe");
}

TEST(PuffinReaderTest, RejectsCorruptFooters) {
  std::vector<BlobMetadata> written;
  std::string good = WriteFile(false, &written);
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); n += (n < 64 || n + 64 > good.size()) ? 1 : 997) {
    EXPECT_FALSE(PuffinReader::Open(Memory(good.substr(0, n))).ok()) << n;
  }
  std::string bad = good;
  bad[0] = 'X';
  EXPECT_THAT(PuffinReader::Open(Memory(bad)), IsErrorWith(StatusCode::kCorrupt, "start"));
  bad = good;
  bad.back() = 'X';
  EXPECT_THAT(PuffinReader::Open(Memory(bad)), IsErrorWith(StatusCode::kCorrupt, "end"));
  bad = good;
  bad[bad.size() - 12] = '\x7f';  // payload size too large
  bad[bad.size() - 9] = '\x7f';
  EXPECT_THAT(PuffinReader::Open(Memory(bad, "x.puffin")),
              IsErrorWith(StatusCode::kCorrupt, "x.puffin"));
  bad = good;
  bad[bad.size() - 8] = '\x02';  // unknown flag
  EXPECT_THAT(PuffinReader::Open(Memory(bad)), IsErrorWith(StatusCode::kNotSupported, "flags"));
  bad = good;
  bad[bad.size() - 8] = '\x01';  // claims an lz4 footer that is plain JSON
  EXPECT_THAT(PuffinReader::Open(Memory(bad)), IsError(StatusCode::kCorrupt));

  // Footer JSON problems.
  auto with_json = [](std::string json) {
    std::string f = "PFA1PFA1" + json;
    int32_t n = static_cast<int32_t>(json.size());
    for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>(n >> (8 * i)));
    f.append(std::string(4, '\0'));
    f.append("PFA1");
    return f;
  };
  EXPECT_OK(PuffinReader::Open(Memory(with_json(R"({"blobs":[]})"))));
  EXPECT_THAT(PuffinReader::Open(Memory(with_json("{"))),
              IsErrorWith(StatusCode::kCorrupt, "not valid JSON"));
  EXPECT_THAT(PuffinReader::Open(Memory(with_json("{}"))),
              IsErrorWith(StatusCode::kCorrupt, "'blobs'"));
  EXPECT_THAT(
      PuffinReader::Open(Memory(with_json(
          R"({"blobs":[{"type":"t","fields":[],"snapshot-id":1,"offset":4,"length":0}]})"))),
      IsErrorWith(StatusCode::kCorrupt, "sequence-number"));
  EXPECT_THAT(
      PuffinReader::Open(Memory(with_json(
          R"({"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":1}]})"))),
      IsErrorWith(StatusCode::kCorrupt, "outside"));
  EXPECT_THAT(
      PuffinReader::Open(Memory(with_json(
          R"({"blobs":[{"type":"t","fields":["a"],"snapshot-id":1,"sequence-number":1,"offset":4,"length":0}]})"))),
      IsErrorWith(StatusCode::kCorrupt, "field id"));
  EXPECT_THAT(
      PuffinReader::Open(Memory(with_json(
          R"({"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":0,"compression-codec":"snappy"}]})"))),
      IsErrorWith(StatusCode::kNotSupported, "snappy"));
  EXPECT_THAT(
      PuffinReader::Open(Memory(with_json(
          R"({"blobs":[{"type":"t","fields":[],"snapshot-id":1,"sequence-number":1,"offset":4,"length":0,"properties":{"a":1}}]})"))),
      IsErrorWith(StatusCode::kCorrupt, "'a'"));
}

TEST(PuffinReaderTest, RejectsCorruptCompressedBlobs) {
  std::vector<BlobMetadata> written;
  std::string good = WriteFile(false, &written);
  for (size_t i : {size_t{1}, size_t{2}}) {
    const BlobMetadata& blob = written[i];
    std::string bad = good;
    // Damage the frame's body.
    for (int64_t k = blob.offset + blob.length / 2; k < blob.offset + blob.length / 2 + 8; ++k) {
      bad[static_cast<size_t>(k)] = static_cast<char>(bad[static_cast<size_t>(k)] ^ 0x5a);
    }
    ASSERT_OK_AND_ASSIGN(auto reader, PuffinReader::Open(Memory(bad)));
    EXPECT_THAT(reader->ReadBlob(blob), IsError(StatusCode::kCorrupt)) << i;
    // A frame declaring more than the limit is refused before allocating.
    PuffinReaderOptions small;
    small.max_decompressed_bytes = 1000;
    ASSERT_OK_AND_ASSIGN(auto limited, PuffinReader::Open(Memory(good), small));
    EXPECT_THAT(limited->ReadBlob(blob), IsErrorWith(StatusCode::kCorrupt, "limit")) << i;
    // A blob cut short.
    BlobMetadata cut = blob;
    cut.length -= 5;
    ASSERT_OK_AND_ASSIGN(auto plain, PuffinReader::Open(Memory(good)));
    EXPECT_THAT(plain->ReadBlob(cut), IsError(StatusCode::kCorrupt)) << i;
  }
}

TEST(PuffinDeletionVectorTest, WriteAndReadThroughFileIO) {
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_puffin_test_" + std::to_string(::getpid()));
  ASSERT_OK_AND_ASSIGN(auto io, io::LocalFileIO::Make({"s3://b/=" + dir.string() + "/"}));
  PositionDeleteSet dv;
  ASSERT_OK(dv.AddRange(10, 20000));
  ASSERT_OK(dv.Add(int64_t{5} << 32));
  std::string blob = SerializeDeletionVector(dv);
  ASSERT_OK_AND_ASSIGN(auto out, io->NewOutputFile("s3://b/t/data/dv-1.puffin"));
  ASSERT_OK_AND_ASSIGN(auto writer, PuffinWriter::Make(out.get()));
  BlobInfo info{std::string(kDeletionVectorBlobType),
                {},
                -1,
                -1,
                {{"referenced-data-file", "s3://b/t/data/a.parquet"},
                 {"cardinality", std::to_string(dv.Cardinality())}}};
  ASSERT_OK_AND_ASSIGN(BlobMetadata meta, writer->AddBlob(info, Bytes(blob)));
  ASSERT_OK(writer->Finish());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<io::RandomAccessFile> in,
                       io->NewInputFile("s3://b/t/data/dv-1.puffin"));
  ASSERT_OK_AND_ASSIGN(auto read, ReadDeletionVector(*in, meta.offset, meta.length, 19991));
  EXPECT_TRUE(read == dv);
  EXPECT_THAT(ReadDeletionVector(*in, meta.offset, meta.length, 5),
              IsErrorWith(StatusCode::kCorrupt, "metadata says 5"));
  EXPECT_THAT(ReadDeletionVector(*in, meta.offset, in->size(), 5),
              IsErrorWith(StatusCode::kCorrupt, "outside the file"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::puffin
