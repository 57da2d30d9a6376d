#include "floe/format/compression/codec.h"

#include <lz4.h>
#include <lz4frame.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "floe/testing/matchers.h"

namespace floe::compression {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

constexpr CodecKind kAllCodecs[] = {
    CodecKind::kUncompressed, CodecKind::kSnappy,    CodecKind::kGzip,   CodecKind::kZstd,
    CodecKind::kLz4Raw,       CodecKind::kLz4Hadoop, CodecKind::kBrotli, CodecKind::kDeflate};

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::vector<uint8_t> CompressibleBytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>("floe parquet "[i % 13] + (i / 4096));
  return v;
}

class CodecTest : public ::testing::TestWithParam<CodecKind> {};

TEST_P(CodecTest, RoundTrips) {
  CodecKind kind = GetParam();
  ASSERT_OK_AND_ASSIGN(auto compressor, Compressor::Make(kind));
  ASSERT_OK_AND_ASSIGN(auto decompressor, Decompressor::Make(kind));
  std::vector<std::vector<uint8_t>> inputs = {{},
                                              {42},
                                              RandomBytes(1000, 1),
                                              RandomBytes(200000, 2),
                                              CompressibleBytes(7),
                                              CompressibleBytes(300000)};
  for (const auto& input : inputs) {
    SCOPED_TRACE(input.size());
    std::vector<uint8_t> compressed = {0xAA};  // Compress appends.
    ASSERT_OK(compressor->Compress(input, &compressed));
    ASSERT_EQ(compressed[0], 0xAA);
    std::span<const uint8_t> body(compressed.data() + 1, compressed.size() - 1);
    std::vector<uint8_t> output(input.size());
    ASSERT_OK(decompressor->Decompress(body, output));
    EXPECT_EQ(output, input);

    std::vector<uint8_t> bounded = {7};
    ASSERT_OK(decompressor->DecompressBounded(body, input.size(), &bounded));
    ASSERT_EQ(bounded.size(), input.size() + 1);
    EXPECT_TRUE(std::equal(input.begin(), input.end(), bounded.begin() + 1));

    if (!input.empty()) {
      std::vector<uint8_t> small;
      EXPECT_THAT(decompressor->DecompressBounded(body, input.size() - 1, &small),
                  IsError(StatusCode::kCorrupt));
      EXPECT_TRUE(small.empty());
    }
    // The wrong expected size is an error, not a silent short read.
    std::vector<uint8_t> larger(input.size() + 1);
    EXPECT_THAT(decompressor->Decompress(body, larger), IsError(StatusCode::kCorrupt));
    if (!input.empty()) {
      std::vector<uint8_t> smaller(input.size() - 1);
      EXPECT_THAT(decompressor->Decompress(body, smaller), IsError(StatusCode::kCorrupt));
    }
  }
}

TEST_P(CodecTest, CorruptInputIsAnError) {
  CodecKind kind = GetParam();
  if (kind == CodecKind::kUncompressed) GTEST_SKIP();
  std::vector<uint8_t> input = CompressibleBytes(50000);
  ASSERT_OK_AND_ASSIGN(auto compressed, Compress(kind, input));
  ASSERT_OK_AND_ASSIGN(auto decompressor, Decompressor::Make(kind));
  std::vector<uint8_t> output(input.size());
  // Truncation at many cut points.
  for (size_t cut = 0; cut < compressed.size(); cut += 1 + compressed.size() / 37) {
    SCOPED_TRACE(cut);
    std::span<const uint8_t> truncated(compressed.data(), cut);
    EXPECT_THAT(decompressor->Decompress(truncated, output), IsError(StatusCode::kCorrupt));
    std::vector<uint8_t> bounded;
    Status st = decompressor->DecompressBounded(truncated, input.size(), &bounded);
    // A truncated stream either fails or yields less than the original.
    if (st.ok()) {
      EXPECT_NE(bounded, input);
    }
  }
  // Garbage.
  std::vector<uint8_t> garbage = RandomBytes(compressed.size(), 9);
  EXPECT_THAT(decompressor->Decompress(garbage, output), IsError(StatusCode::kCorrupt));
  // The decompressor still works after errors.
  ASSERT_OK(decompressor->Decompress(compressed, output));
  EXPECT_EQ(output, input);
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest, ::testing::ValuesIn(kAllCodecs),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

// Zstd's one-shot decompression runs in the calling thread's context: decompressors on one
// thread take turns with it, and threads do not share one.
TEST(CodecTest, ZstdDecompressorsOnSeveralThreadsAndInTurns) {
  ASSERT_OK_AND_ASSIGN(auto compressor, Compressor::Make(CodecKind::kZstd));
  std::vector<std::vector<uint8_t>> inputs, compressed;
  for (uint32_t k = 0; k < 4; ++k) {
    inputs.push_back(k % 2 == 0 ? RandomBytes(50000 + k * 1000, k) : CompressibleBytes(90000 + k));
    compressed.emplace_back();
    ASSERT_OK(compressor->Compress(inputs.back(), &compressed.back()));
  }
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto a = Decompressor::Make(CodecKind::kZstd);
      auto b = Decompressor::Make(CodecKind::kZstd);
      if (!a.ok() || !b.ok()) {
        failures[static_cast<size_t>(t)] = 1;
        return;
      }
      for (int i = 0; i < 40; ++i) {
        const size_t k = static_cast<size_t>((t + i) % 4);
        Decompressor& d = i % 2 == 0 ? **a : **b;
        std::vector<uint8_t> out(inputs[k].size());
        if (!d.Decompress(compressed[k], out).ok() || out != inputs[k]) {
          ++failures[static_cast<size_t>(t)];
        }
        std::vector<uint8_t> bounded;
        if (i % 5 == 0 &&
            (!d.DecompressBounded(compressed[k], 1 << 20, &bounded).ok() || bounded != inputs[k])) {
          ++failures[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(CodecTest, ErrorsNameTheCodecAndSizes) {
  ASSERT_OK_AND_ASSIGN(auto compressed, Compress(CodecKind::kZstd, CompressibleBytes(100)));
  std::vector<uint8_t> output(99);
  EXPECT_THAT(Decompress(CodecKind::kZstd, compressed, output),
              IsErrorWith(StatusCode::kCorrupt, "zstd"));
  Status st = Decompress(CodecKind::kZstd, compressed, output);
  EXPECT_NE(st.message().find("99"), std::string::npos) << st;
}

TEST(CodecTest, Levels) {
  EXPECT_EQ(DefaultLevel(CodecKind::kZstd), 3);
  EXPECT_EQ(DefaultLevel(CodecKind::kSnappy), std::nullopt);
  EXPECT_THAT(Compressor::Make(CodecKind::kSnappy, 3), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Compressor::Make(CodecKind::kGzip, 10), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Compressor::Make(CodecKind::kZstd, 1000), IsError(StatusCode::kInvalidArgument));
  std::vector<uint8_t> input = CompressibleBytes(100000);
  for (int level : {1, 9, 19}) {
    ASSERT_OK_AND_ASSIGN(auto compressed, Compress(CodecKind::kZstd, input, level));
    std::vector<uint8_t> output(input.size());
    ASSERT_OK(Decompress(CodecKind::kZstd, compressed, output));
    EXPECT_EQ(output, input);
  }
}

TEST(CodecTest, GzipHasGzipFramingAndReadsConcatenatedMembers) {
  std::vector<uint8_t> a = CompressibleBytes(1000);
  std::vector<uint8_t> b = RandomBytes(500, 3);
  ASSERT_OK_AND_ASSIGN(auto ca, Compress(CodecKind::kGzip, a));
  ASSERT_OK_AND_ASSIGN(auto cb, Compress(CodecKind::kGzip, b));
  ASSERT_GE(ca.size(), 2u);
  EXPECT_EQ(ca[0], 0x1f);
  EXPECT_EQ(ca[1], 0x8b);
  std::vector<uint8_t> both = ca;
  both.insert(both.end(), cb.begin(), cb.end());
  std::vector<uint8_t> expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  std::vector<uint8_t> output(expected.size());
  ASSERT_OK(Decompress(CodecKind::kGzip, both, output));
  EXPECT_EQ(output, expected);
  std::vector<uint8_t> bounded;
  ASSERT_OK_AND_ASSIGN(auto d, Decompressor::Make(CodecKind::kGzip));
  ASSERT_OK(d->DecompressBounded(both, 1 << 20, &bounded));
  EXPECT_EQ(bounded, expected);
}

std::vector<uint8_t> RawLz4(std::span<const uint8_t> in) {
  std::vector<uint8_t> out(LZ4_compressBound(static_cast<int>(in.size())));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                               reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                               static_cast<int>(out.size()));
  out.resize(n);
  return out;
}

void PutBE32(uint32_t v, std::vector<uint8_t>* out) {
  for (int shift : {24, 16, 8, 0}) out->push_back(static_cast<uint8_t>(v >> shift));
}

TEST(CodecTest, HadoopLz4FramingWithSeveralBlocksAndChunks) {
  std::vector<uint8_t> a = CompressibleBytes(3000);
  std::vector<uint8_t> b = RandomBytes(700, 4);
  std::vector<uint8_t> c = CompressibleBytes(900);
  std::vector<uint8_t> framed;
  // Block 1: one chunk.
  auto ra = RawLz4(a);
  PutBE32(a.size(), &framed);
  PutBE32(ra.size(), &framed);
  framed.insert(framed.end(), ra.begin(), ra.end());
  // Block 2: two chunks (b then c) under one uncompressed length.
  auto rb = RawLz4(b);
  auto rc = RawLz4(c);
  PutBE32(b.size() + c.size(), &framed);
  PutBE32(rb.size(), &framed);
  framed.insert(framed.end(), rb.begin(), rb.end());
  PutBE32(rc.size(), &framed);
  framed.insert(framed.end(), rc.begin(), rc.end());

  std::vector<uint8_t> expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  expected.insert(expected.end(), c.begin(), c.end());
  std::vector<uint8_t> output(expected.size());
  ASSERT_OK(Decompress(CodecKind::kLz4Hadoop, framed, output));
  EXPECT_EQ(output, expected);
}

TEST(CodecTest, HadoopLz4FallsBackToRawBlockAndFrame) {
  std::vector<uint8_t> input = CompressibleBytes(5000);
  std::vector<uint8_t> output(input.size());
  ASSERT_OK(Decompress(CodecKind::kLz4Hadoop, RawLz4(input), output));
  EXPECT_EQ(output, input);

  std::vector<uint8_t> frame(LZ4F_compressFrameBound(input.size(), nullptr));
  size_t n = LZ4F_compressFrame(frame.data(), frame.size(), input.data(), input.size(), nullptr);
  ASSERT_FALSE(LZ4F_isError(n));
  frame.resize(n);
  std::fill(output.begin(), output.end(), 0);
  ASSERT_OK(Decompress(CodecKind::kLz4Hadoop, frame, output));
  EXPECT_EQ(output, input);
}

TEST(CodecTest, Lz4HadoopWritesHadoopFraming) {
  std::vector<uint8_t> input = CompressibleBytes(1234);
  ASSERT_OK_AND_ASSIGN(auto framed, Compress(CodecKind::kLz4Hadoop, input));
  ASSERT_GE(framed.size(), 8u);
  EXPECT_EQ(framed[0], 0);
  EXPECT_EQ(framed[1], 0);
  EXPECT_EQ(framed[2], 1234 >> 8);
  EXPECT_EQ(framed[3], 1234 & 0xff);
  uint32_t compressed = (framed[4] << 24) | (framed[5] << 16) | (framed[6] << 8) | framed[7];
  EXPECT_EQ(compressed + 8, framed.size());
}

}  // namespace
}  // namespace floe::compression
