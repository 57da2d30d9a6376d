#include "floe/format/parquet/encoding.h"

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "floe/format/parquet/bit_util_internal.h"
#include "floe/testing/matchers.h"

namespace floe::parquet {
namespace {

using ::floe::testing::IsError;
using ::floe::testing::IsErrorWith;

constexpr int64_t kSizes[] = {0, 1, 7, 8, 9, 1000, 100000};

std::vector<int32_t> RandomValues(int64_t n, int bit_width, uint32_t seed, bool with_runs) {
  std::mt19937_64 rng(seed);
  uint64_t mask = bit_width == 0 ? 0 : (bit_width == 32 ? 0xffffffffu : (1u << bit_width) - 1);
  std::vector<int32_t> v;
  v.reserve(n);
  while (static_cast<int64_t>(v.size()) < n) {
    int32_t x = static_cast<int32_t>(rng() & mask);
    int64_t repeat = with_runs ? 1 + rng() % 20 : 1;
    for (int64_t r = 0; r < repeat && static_cast<int64_t>(v.size()) < n; ++r) v.push_back(x);
  }
  return v;
}

// ------------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid.

TEST(RleTest, RoundTripsAllWidthsAndSizes) {
  for (int width = 0; width <= 32; ++width) {
    for (int64_t n : kSizes) {
      for (bool runs : {false, true}) {
        SCOPED_TRACE(fmt::format("width {} n {} runs {}", width, n, runs));
        std::vector<int32_t> values = RandomValues(n, width, width * 7 + n, runs);
        std::vector<uint8_t> encoded;
        EncodeRleBitPacked(values, width, &encoded);
        RleBitPackedDecoder decoder;
        ASSERT_OK(decoder.Init(encoded, width));
        std::vector<int32_t> decoded(n);
        // Uneven batches cross run and group boundaries.
        int64_t done = 0;
        for (int64_t batch = 1; done < n; batch = batch * 3 + 1) {
          int64_t k = std::min(batch, n - done);
          ASSERT_OK(decoder.Decode(decoded.data() + done, k));
          done += k;
        }
        ASSERT_EQ(decoded, values);
        EXPECT_EQ(decoder.position(), n);
      }
    }
  }
}

TEST(RleTest, NarrowOutputs) {
  std::vector<int16_t> levels(1000);
  std::mt19937 rng(1);
  for (auto& l : levels) l = static_cast<int16_t>(rng() % 4 == 0 ? rng() % 3 : 2);
  std::vector<uint8_t> encoded;
  EncodeRleBitPackedWithLength<int16_t>(levels, 2, &encoded);
  int64_t consumed = 0;
  ASSERT_OK_AND_ASSIGN(auto body, ReadLengthPrefixed(encoded, &consumed));
  EXPECT_EQ(consumed, static_cast<int64_t>(encoded.size()));
  RleBitPackedDecoder decoder;
  ASSERT_OK(decoder.Init(body, 2));
  std::vector<int16_t> decoded(levels.size());
  ASSERT_OK(decoder.Decode(decoded.data(), decoded.size()));
  EXPECT_EQ(decoded, levels);

  std::vector<uint8_t> bools(777);
  for (auto& b : bools) b = rng() % 2;
  encoded.clear();
  EncodeRleBitPacked(std::span<const uint8_t>(bools), 1, &encoded);
  ASSERT_OK(decoder.Init(encoded, 1));
  std::vector<uint8_t> decoded_bools(bools.size());
  ASSERT_OK(decoder.Decode(decoded_bools.data(), bools.size()));
  EXPECT_EQ(decoded_bools, bools);
}

TEST(RleTest, SpecBitPackedExample) {
  // Encodings.md: 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  const std::vector<uint8_t> encoded = {0x03, 0x88, 0xC6, 0xFA};
  RleBitPackedDecoder decoder;
  ASSERT_OK(decoder.Init(encoded, 3));
  std::vector<int32_t> decoded(8);
  ASSERT_OK(decoder.Decode(decoded.data(), 8));
  EXPECT_EQ(decoded, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // The encoder produces the same bytes.
  std::vector<uint8_t> out;
  EncodeRleBitPacked(decoded, 3, &out);
  EXPECT_EQ(out, encoded);
}

TEST(RleTest, RleRunBytes) {
  std::vector<int32_t> values(100, 5);
  std::vector<uint8_t> out;
  EncodeRleBitPacked(values, 3, &out);
  // Header varint(100 << 1) = 0xC8 0x01, then the value in one byte.
  EXPECT_EQ(out, (std::vector<uint8_t>{0xC8, 0x01, 0x05}));
  values.assign(10, 300);
  out.clear();
  EncodeRleBitPacked(values, 9, &out);
  EXPECT_EQ(out, (std::vector<uint8_t>{0x14, 0x2C, 0x01}));
}

TEST(RleTest, ConsumeRepeatedTakesRunsOnly) {
  std::vector<int32_t> values(50, 1);
  for (int i = 0; i < 16; ++i) values.push_back(i % 2);
  values.insert(values.end(), 30, 1);
  std::vector<uint8_t> encoded;
  EncodeRleBitPacked(values, 1, &encoded);
  RleBitPackedDecoder decoder;
  ASSERT_OK(decoder.Init(encoded, 1));
  ASSERT_OK_AND_ASSIGN(int64_t k, decoder.ConsumeRepeated(1, 1000));
  EXPECT_EQ(k, 50);
  ASSERT_OK_AND_ASSIGN(k, decoder.ConsumeRepeated(1, 1000));
  EXPECT_EQ(k, 0);  // Bit-packed.
  std::vector<int32_t> mixed(16);
  ASSERT_OK(decoder.Decode(mixed.data(), 16));
  ASSERT_OK_AND_ASSIGN(k, decoder.ConsumeRepeated(0, 1000));
  EXPECT_EQ(k, 0);  // Different value.
  ASSERT_OK_AND_ASSIGN(k, decoder.ConsumeRepeated(1, 10));
  EXPECT_EQ(k, 10);
  ASSERT_OK(decoder.Skip(15));
  std::vector<int32_t> rest(5);
  ASSERT_OK(decoder.Decode(rest.data(), 5));
  EXPECT_EQ(rest, std::vector<int32_t>(5, 1));
  EXPECT_THAT(decoder.Decode(rest.data(), 1), IsError(StatusCode::kCorrupt));
}

TEST(RleTest, HostileInput) {
  RleBitPackedDecoder decoder;
  EXPECT_THAT(decoder.Init({}, 33), IsError(StatusCode::kCorrupt));
  int32_t out[64];
  // Varint header running off the end.
  const std::vector<uint8_t> dangling = {0x80, 0x80};
  ASSERT_OK(decoder.Init(dangling, 3));
  EXPECT_THAT(decoder.Decode(out, 1), IsErrorWith(StatusCode::kCorrupt, "byte 0"));
  // Over-long varint.
  const std::vector<uint8_t> overlong = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  ASSERT_OK(decoder.Init(overlong, 3));
  EXPECT_THAT(decoder.Decode(out, 1), IsError(StatusCode::kCorrupt));
  // RLE run value wider than the bit width.
  const std::vector<uint8_t> wide = {0x10, 0x09};
  ASSERT_OK(decoder.Init(wide, 3));
  EXPECT_THAT(decoder.Decode(out, 1), IsError(StatusCode::kCorrupt));
  // A page that claims far more values than it holds.
  const std::vector<uint8_t> huge_literal = {0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x12};
  ASSERT_OK(decoder.Init(huge_literal, 8));
  EXPECT_OK(decoder.Decode(out, 1));
  EXPECT_THAT(decoder.Decode(out, 2), IsError(StatusCode::kCorrupt));
  // Zero-length runs make progress and then end.
  std::vector<uint8_t> zeros(1000, 0);
  ASSERT_OK(decoder.Init(zeros, 5));
  EXPECT_THAT(decoder.Decode(out, 1), IsError(StatusCode::kCorrupt));
}

TEST(RleTest, TruncatedInputNeverReadsPastTheEnd) {
  for (int width : {1, 3, 8, 13, 32}) {
    std::vector<int32_t> values = RandomValues(500, width, width, true);
    std::vector<uint8_t> encoded;
    EncodeRleBitPacked(values, width, &encoded);
    int errors = 0;
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      // A heap copy of exactly `cut` bytes so that ASan sees any over-read.
      std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + cut);
      RleBitPackedDecoder decoder;
      ASSERT_OK(decoder.Init(truncated, width));
      std::vector<int32_t> decoded(values.size());
      Status st = decoder.Decode(decoded.data(), decoded.size());
      if (st.ok()) {
        EXPECT_EQ(decoded, values) << cut;  // Only padding was cut.
      } else {
        EXPECT_EQ(st.code(), StatusCode::kCorrupt);
        ++errors;
      }
    }
    // Only the zero padding of the last bit-packed group may be cut without an error.
    EXPECT_GE(errors, static_cast<int>(encoded.size()) - 16);
  }
}

// ------------------------------------------------------------------------------------------------
// Dictionary indices.

TEST(DictionaryTest, RoundTripAndRangeCheck) {
  for (int32_t dict_size : {1, 2, 3, 255, 256, 1 << 20}) {
    for (int64_t n : kSizes) {
      std::mt19937 rng(dict_size + n);
      std::vector<int32_t> indices(n);
      for (auto& i : indices) i = static_cast<int32_t>(rng() % dict_size);
      std::vector<uint8_t> encoded;
      EncodeDictionaryIndices(indices, dict_size, &encoded);
      ASSERT_EQ(encoded[0], DictionaryIndexBitWidth(dict_size));
      DictionaryIndexDecoder decoder;
      ASSERT_OK(decoder.Init(encoded, dict_size));
      std::vector<int32_t> decoded(n);
      ASSERT_OK(decoder.Decode(decoded.data(), n));
      EXPECT_EQ(decoded, indices);
      if (n > 0 && dict_size > 1) {
        ASSERT_OK(decoder.Init(encoded, dict_size - 1));
        bool has_last = std::count(indices.begin(), indices.end(), dict_size - 1) > 0;
        Status st = decoder.Decode(decoded.data(), n);
        if (has_last) {
          EXPECT_THAT(st, IsErrorWith(StatusCode::kCorrupt, "out of range"));
        } else {
          EXPECT_OK(st);
        }
      }
    }
  }
  DictionaryIndexDecoder decoder;
  EXPECT_THAT(decoder.Init({}, 10), IsError(StatusCode::kCorrupt));
  const std::vector<uint8_t> bad_width = {33, 0};
  EXPECT_THAT(decoder.Init(bad_width, 10), IsError(StatusCode::kCorrupt));
  // A negative index (all 32 bits set) is out of range.
  const std::vector<uint8_t> negative = {32, 0x02, 0xFF, 0xFF, 0xFF, 0xFF};
  ASSERT_OK(decoder.Init(negative, 10));
  int32_t out;
  EXPECT_THAT(decoder.Decode(&out, 1), IsErrorWith(StatusCode::kCorrupt, "at value 0"));
}

// ------------------------------------------------------------------------------------------------
// PLAIN.

template <typename T>
void PlainRoundTrip(uint32_t seed) {
  std::mt19937_64 rng(seed);
  for (int64_t n : kSizes) {
    std::vector<T> values(n);
    for (auto& v : values) {
      uint64_t bits[2] = {rng(), rng()};
      std::memcpy(&v, bits, sizeof(T));
    }
    std::vector<uint8_t> encoded;
    EncodePlain<T>(values, &encoded);
    ASSERT_EQ(encoded.size(), n * sizeof(T));
    PlainDecoder<T> decoder;
    decoder.Init(encoded);
    std::vector<T> decoded(n);
    int64_t half = n / 2;
    ASSERT_OK(decoder.Decode(decoded.data(), half));
    ASSERT_OK(decoder.Decode(decoded.data() + half, n - half));
    if (n > 0) {
      EXPECT_EQ(std::memcmp(decoded.data(), values.data(), n * sizeof(T)), 0);
    }
    T extra;
    EXPECT_THAT(decoder.Decode(&extra, 1), IsError(StatusCode::kCorrupt));
    if (n > 0) {
      decoder.Init(std::span<const uint8_t>(encoded.data(), encoded.size() - 1));
      EXPECT_THAT(decoder.Decode(decoded.data(), n), IsError(StatusCode::kCorrupt));
    }
  }
}

TEST(PlainTest, FixedWidthRoundTrips) {
  PlainRoundTrip<int32_t>(1);
  PlainRoundTrip<int64_t>(2);
  PlainRoundTrip<float>(3);
  PlainRoundTrip<double>(4);
  PlainRoundTrip<Int96>(5);
}

TEST(PlainTest, Booleans) {
  for (int64_t n : kSizes) {
    std::mt19937 rng(n);
    std::vector<uint8_t> values(n);
    for (auto& v : values) v = rng() % 2;
    std::vector<uint8_t> encoded;
    EncodePlainBoolean(values, &encoded);
    ASSERT_EQ(encoded.size(), static_cast<size_t>((n + 7) / 8));
    PlainBooleanDecoder decoder;
    decoder.Init(encoded);
    std::vector<uint8_t> decoded(n);
    int64_t done = 0;
    for (int64_t batch = 1; done < n; batch += 3) {
      int64_t k = std::min(batch, n - done);
      ASSERT_OK(decoder.Decode(decoded.data() + done, k));
      done += k;
    }
    EXPECT_EQ(decoded, values);
    uint8_t extra;
    if (n % 8 == 0) {
      EXPECT_THAT(decoder.Decode(&extra, 1), IsError(StatusCode::kCorrupt));
    }
  }
  const std::vector<uint8_t> spec = {0b00000101};
  PlainBooleanDecoder decoder;
  decoder.Init(spec);
  uint8_t out[3];
  ASSERT_OK(decoder.Decode(out, 3));
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 1);
}

std::vector<std::string> RandomStrings(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out(n);
  std::string prev;
  for (auto& s : out) {
    // Share a prefix with the previous value now and then, as sorted data does.
    size_t keep = rng() % 2 ? rng() % (prev.size() + 1) : 0;
    s = prev.substr(0, keep);
    size_t extra = rng() % 3 == 0 ? 0 : rng() % 40;
    for (size_t i = 0; i < extra; ++i) s.push_back(static_cast<char>('a' + rng() % 26));
    prev = s;
  }
  return out;
}

struct Arrow {
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> data;
};

Arrow ToArrow(const std::vector<std::string>& strings) {
  Arrow a;
  for (const auto& s : strings) {
    a.data.insert(a.data.end(), s.begin(), s.end());
    a.offsets.push_back(static_cast<int32_t>(a.data.size()));
  }
  return a;
}

// Decodes `n` values with `decode(BinaryOutput, k)` in two batches after a pre-existing prefix of
// data, checking the offsets are relative to the running base.
template <typename Decode>
void ExpectDecodesTo(const std::vector<std::string>& expected, Decode decode) {
  const int64_t n = static_cast<int64_t>(expected.size());
  std::vector<uint8_t> data = {'x', 'y', 'z'};
  std::vector<int32_t> offsets(n + 1);
  offsets[0] = 3;
  VectorByteSink sink(&data);
  int64_t half = n / 3;
  ASSERT_OK(decode(BinaryOutput{offsets.data(), &sink}, half));
  ASSERT_OK(decode(BinaryOutput{offsets.data() + half, &sink}, n - half));
  ASSERT_EQ(offsets[n], static_cast<int32_t>(data.size()));
  for (int64_t i = 0; i < n; ++i) {
    std::string got(data.begin() + offsets[i], data.begin() + offsets[i + 1]);
    ASSERT_EQ(got, expected[i]) << i;
  }
}

TEST(PlainTest, ByteArrays) {
  for (int64_t n : kSizes) {
    auto strings = RandomStrings(n, n);
    Arrow arrow = ToArrow(strings);
    std::vector<uint8_t> encoded;
    EncodePlainByteArray(arrow.offsets.data(), arrow.data.data(), n, &encoded);
    std::vector<std::string_view> views(strings.begin(), strings.end());
    std::vector<uint8_t> encoded2;
    EncodePlainByteArray(views, &encoded2);
    EXPECT_EQ(encoded, encoded2);
    PlainByteArrayDecoder decoder;
    decoder.Init(encoded);
    ExpectDecodesTo(strings, [&](BinaryOutput out, int64_t k) { return decoder.Decode(out, k); });
  }
  auto strings = RandomStrings(50, 7);
  Arrow arrow = ToArrow(strings);
  std::vector<uint8_t> encoded;
  EncodePlainByteArray(arrow.offsets.data(), arrow.data.data(), 50, &encoded);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + cut);
    PlainByteArrayDecoder decoder;
    decoder.Init(truncated);
    std::vector<uint8_t> data;
    VectorByteSink sink(&data);
    std::vector<int32_t> offsets(51, 0);
    EXPECT_THAT(decoder.Decode(BinaryOutput{offsets.data(), &sink}, 50),
                IsError(StatusCode::kCorrupt));
  }
  // A length of 2^32 - 1.
  const std::vector<uint8_t> huge = {0xFF, 0xFF, 0xFF, 0xFF, 'a'};
  PlainByteArrayDecoder decoder;
  decoder.Init(huge);
  std::vector<uint8_t> data;
  VectorByteSink sink(&data);
  int32_t offsets[2] = {0, 0};
  EXPECT_THAT(decoder.Decode(BinaryOutput{offsets, &sink}, 1),
              IsErrorWith(StatusCode::kCorrupt, "value 0"));
}

TEST(PlainTest, FixedLenByteArrays) {
  std::vector<uint8_t> values(16 * 100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 31);
  PlainFixedLenDecoder decoder;
  EXPECT_THAT(decoder.Init(values, 0), IsError(StatusCode::kInvalidArgument));
  ASSERT_OK(decoder.Init(values, 16));
  std::vector<uint8_t> out(values.size());
  ASSERT_OK(decoder.Decode(out.data(), 100));
  EXPECT_EQ(out, values);
  EXPECT_THAT(decoder.Decode(out.data(), 1), IsError(StatusCode::kCorrupt));
}

// ------------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED.

template <typename T>
std::vector<T> DeltaCases(int64_t n, int kind, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  T acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0:  // Uniform over the whole range.
        v[i] = static_cast<T>(rng());
        break;
      case 1:  // Ascending with small steps.
        acc = static_cast<T>(acc + static_cast<T>(rng() % 100));
        v[i] = acc;
        break;
      case 2: {  // Extremes: deltas wrap around.
        const T extremes[] = {kMin, kMax, 0, -1, 1, kMin, kMin, kMax};
        v[i] = extremes[rng() % 8];
        break;
      }
      default:  // Constant.
        v[i] = 42;
    }
  }
  return v;
}

template <typename T>
void DeltaRoundTrips() {
  for (int64_t n : kSizes) {
    for (int kind = 0; kind < 4; ++kind) {
      for (auto [block, mini] : {std::pair{128, 4}, std::pair{256, 8}, std::pair{128, 1}}) {
        SCOPED_TRACE(fmt::format("n {} kind {} block {}/{}", n, kind, block, mini));
        std::vector<T> values = DeltaCases<T>(n, kind, n + kind);
        std::vector<uint8_t> encoded;
        EncodeDeltaBinaryPacked(values, &encoded, block, mini);
        encoded.push_back(0xEE);  // Following data must be left alone.
        DeltaBinaryPackedDecoder<T> decoder;
        ASSERT_OK(decoder.Init(encoded));
        ASSERT_EQ(decoder.total_values(), n);
        std::vector<T> decoded(n);
        int64_t done = 0;
        for (int64_t batch = 1; done < n; batch = batch * 2 + 5) {
          int64_t k = std::min(batch, n - done);
          ASSERT_OK(decoder.Decode(decoded.data() + done, k));
          done += k;
        }
        ASSERT_EQ(decoded, values);
        EXPECT_EQ(decoder.bytes_consumed(), static_cast<int64_t>(encoded.size()) - 1);
        T extra;
        EXPECT_THAT(decoder.Decode(&extra, 1), IsError(StatusCode::kCorrupt));
      }
    }
  }
}

TEST(DeltaTest, Int32RoundTrips) { DeltaRoundTrips<int32_t>(); }
TEST(DeltaTest, Int64RoundTrips) { DeltaRoundTrips<int64_t>(); }

TEST(DeltaTest, SpecExamples) {
  // Example 1: 1..5, block size 8, one miniblock, min delta 1, bit width 0.
  const std::vector<uint8_t> example1 = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
  DeltaBinaryPackedDecoder<int32_t> decoder;
  ASSERT_OK(decoder.Init(example1));
  std::vector<int32_t> out(5);
  ASSERT_OK(decoder.Decode(out.data(), 5));
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  // Example 2: 7,5,3,1,2,3,4,5: min delta -2, relative 0,0,0,3,3,3,3 on 2 bits.
  const std::vector<uint8_t> example2 = {0x08, 0x01, 0x08, 0x0E, 0x03, 0x02, 0xC0, 0x3F};
  DeltaBinaryPackedDecoder<int64_t> decoder64;
  ASSERT_OK(decoder64.Init(example2));
  std::vector<int64_t> out64(8);
  ASSERT_OK(decoder64.Decode(out64.data(), 8));
  EXPECT_EQ(out64, (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(decoder64.bytes_consumed(), 8);
  std::vector<uint8_t> encoded;
  EncodeDeltaBinaryPacked(std::span<const int64_t>(out64), &encoded, 8, 1);
  EXPECT_EQ(encoded, example2);
}

// DuckDB computes the deltas of INT32 columns in 64-bit arithmetic, so INT32_MIN then INT32_MAX
// gives a delta of 2^32 - 1 and miniblocks 33 bits wide. Applied modulo 2^32 they give the values.
TEST(DeltaTest, Int32MiniblockWiderThan32Bits) {
  std::vector<uint8_t> stream = {
      0x80, 0x01,                    // block size 128
      0x04,                          // 4 miniblocks of 32 values
      0x03,                          // 3 values
      0xFF, 0xFF, 0xFF, 0xFF, 0x0F,  // first value INT32_MIN (zigzag 2^32 - 1)
      0xFD, 0xFF, 0xFF, 0xFF, 0x0F,  // min delta -(2^31 - 1) (zigzag 2^32 - 3)
      33, 0, 0, 0,                   // miniblock bit widths
      // Relative deltas on 33 bits: 2^32 - 1 + 2^31 - 1 = 0x17FFFFFFE, then 0.
      0xFE, 0xFF, 0xFF, 0x7F, 0x01};
  stream.resize(stream.size() + 32 * 33 / 8 - 5, 0);  // The miniblock's padding.
  stream.push_back(0xEE);                             // Following data must be left alone.
  DeltaBinaryPackedDecoder<int32_t> decoder;
  ASSERT_OK(decoder.Init(stream));
  std::vector<int32_t> out(3);
  ASSERT_OK(decoder.Decode(out.data(), 3));
  EXPECT_EQ(out, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max(), 0}));
  EXPECT_EQ(decoder.bytes_consumed(), static_cast<int64_t>(stream.size()) - 1);
}

TEST(DeltaTest, HostileInput) {
  DeltaBinaryPackedDecoder<int64_t> decoder;
  // Block size not a multiple of 8, zero miniblocks, huge blocks.
  for (std::vector<uint8_t> header :
       {std::vector<uint8_t>{0x07, 0x01, 0x01, 0x00},
        std::vector<uint8_t>{0x80, 0x01, 0x00, 0x01, 0x00},
        std::vector<uint8_t>{0x80, 0x80, 0x80, 0x80, 0x08, 0x01, 0x01, 0x00},
        std::vector<uint8_t>{0x80, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00},
        std::vector<uint8_t>{0x80, 0x01}}) {
    EXPECT_THAT(decoder.Init(header), IsError(StatusCode::kCorrupt));
  }
  // Bit width 65, for int64 and for int32 (whose deltas may take up to 64 bits).
  std::vector<uint8_t> wide = {0x08, 0x01, 0x03, 0x00, 0x00, 65};
  wide.resize(wide.size() + 80, 0);
  ASSERT_OK(decoder.Init(wide));
  int64_t out[3];
  EXPECT_THAT(decoder.Decode(out, 3), IsErrorWith(StatusCode::kCorrupt, "bit width 65"));
  DeltaBinaryPackedDecoder<int32_t> decoder32;
  ASSERT_OK(decoder32.Init(wide));
  int32_t out32[3];
  EXPECT_THAT(decoder32.Decode(out32, 3), IsErrorWith(StatusCode::kCorrupt, "bit width 65"));
  wide[5] = 64;
  ASSERT_OK(decoder.Init(wide));
  EXPECT_OK(decoder.Decode(out, 3));

  // Truncation at every cut point.
  std::vector<int64_t> values = DeltaCases<int64_t>(1000, 0, 3);
  std::vector<uint8_t> encoded;
  EncodeDeltaBinaryPacked(values, &encoded);
  int errors = 0;
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + cut);
    DeltaBinaryPackedDecoder<int64_t> d;
    Status st = d.Init(truncated);
    std::vector<int64_t> decoded(values.size());
    if (st.ok()) st = d.Decode(decoded.data(), decoded.size());
    if (st.ok()) {
      EXPECT_EQ(decoded, values);
    } else {
      EXPECT_EQ(st.code(), StatusCode::kCorrupt);
      ++errors;
    }
  }
  // Only the padding of the last miniblock (at most 31 values of 64 bits) may be cut.
  EXPECT_GE(errors, static_cast<int>(encoded.size()) - 31 * 8);
}

// ------------------------------------------------------------------------------------------------
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.

TEST(DeltaByteArrayTest, RoundTrips) {
  for (int64_t n : kSizes) {
    auto strings = RandomStrings(n, n + 1);
    Arrow arrow = ToArrow(strings);
    std::vector<uint8_t> dlba;
    EncodeDeltaLengthByteArray(arrow.offsets.data(), arrow.data.data(), n, &dlba);
    DeltaLengthByteArrayDecoder length_decoder;
    ASSERT_OK(length_decoder.Init(dlba, n));
    EXPECT_EQ(length_decoder.bytes_consumed(), static_cast<int64_t>(dlba.size()));
    ExpectDecodesTo(strings,
                    [&](BinaryOutput out, int64_t k) { return length_decoder.Decode(out, k); });

    std::vector<uint8_t> dba;
    EncodeDeltaByteArray(arrow.offsets.data(), arrow.data.data(), n, &dba);
    DeltaByteArrayDecoder decoder;
    ASSERT_OK(decoder.Init(dba, n));
    ExpectDecodesTo(strings, [&](BinaryOutput out, int64_t k) { return decoder.Decode(out, k); });
    if (n > 0) {
      EXPECT_THAT(decoder.Init(dba, n - 1), IsError(StatusCode::kCorrupt));
    }
  }
}

TEST(DeltaByteArrayTest, FixedLength) {
  std::vector<std::string> strings;
  for (int i = 0; i < 300; ++i) strings.push_back(fmt::format("key-{:06}", i * 7));
  Arrow arrow = ToArrow(strings);
  std::vector<uint8_t> dba;
  EncodeDeltaByteArray(arrow.offsets.data(), arrow.data.data(), 300, &dba);
  EXPECT_LT(dba.size(), arrow.data.size());
  DeltaByteArrayDecoder decoder;
  ASSERT_OK(decoder.Init(dba, 300));
  std::vector<uint8_t> out(arrow.data.size());
  ASSERT_OK(decoder.DecodeFixed(out.data(), 100, 10));
  ASSERT_OK(decoder.DecodeFixed(out.data() + 1000, 200, 10));
  EXPECT_EQ(out, arrow.data);
  ASSERT_OK(decoder.Init(dba, 300));
  EXPECT_THAT(decoder.DecodeFixed(out.data(), 1, 9), IsError(StatusCode::kCorrupt));
}

TEST(DeltaByteArrayTest, HostileInput) {
  // Prefix 5 on the first value, which has no predecessor.
  std::vector<uint8_t> dba;
  std::vector<int32_t> prefixes = {5};
  std::vector<int32_t> suffixes = {1};
  EncodeDeltaBinaryPacked(prefixes, &dba);
  EncodeDeltaBinaryPacked(suffixes, &dba);
  dba.push_back('a');
  DeltaByteArrayDecoder decoder;
  ASSERT_OK(decoder.Init(dba, 1));
  std::vector<uint8_t> data;
  VectorByteSink sink(&data);
  int32_t offsets[2] = {0, 0};
  EXPECT_THAT(decoder.Decode(BinaryOutput{offsets, &sink}, 1),
              IsErrorWith(StatusCode::kCorrupt, "prefix length 5"));
  // Negative length.
  std::vector<uint8_t> negative;
  std::vector<int32_t> lengths = {3, -1};
  EncodeDeltaBinaryPacked(lengths, &negative);
  negative.insert(negative.end(), 10, 'a');
  DeltaLengthByteArrayDecoder dlba;
  EXPECT_THAT(dlba.Init(negative, 2), IsErrorWith(StatusCode::kCorrupt, "negative length"));
  // Lengths that sum past the page.
  std::vector<uint8_t> long_lengths;
  lengths = {3, 1000};
  EncodeDeltaBinaryPacked(lengths, &long_lengths);
  long_lengths.insert(long_lengths.end(), 10, 'a');
  EXPECT_THAT(dlba.Init(long_lengths, 2), IsError(StatusCode::kCorrupt));
  // Truncation at every cut point.
  auto strings = RandomStrings(200, 5);
  Arrow arrow = ToArrow(strings);
  std::vector<uint8_t> encoded;
  EncodeDeltaByteArray(arrow.offsets.data(), arrow.data.data(), 200, &encoded);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + cut);
    DeltaByteArrayDecoder d;
    Status st = d.Init(truncated, 200);
    if (st.ok()) {
      std::vector<uint8_t> out;
      VectorByteSink s(&out);
      std::vector<int32_t> offs(201, 0);
      st = d.Decode(BinaryOutput{offs.data(), &s}, 200);
    }
    EXPECT_THAT(st, IsError(StatusCode::kCorrupt)) << cut;
  }
}

// ------------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT.

TEST(ByteStreamSplitTest, RoundTrips) {
  for (int32_t width : {1, 3, 4, 8, 16}) {
    for (int64_t n : kSizes) {
      std::mt19937 rng(width + n);
      std::vector<uint8_t> values(n * width);
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      std::vector<uint8_t> encoded;
      EncodeByteStreamSplit(values.data(), n, width, &encoded);
      ByteStreamSplitDecoder decoder;
      ASSERT_OK(decoder.Init(encoded, width));
      ASSERT_EQ(decoder.total_values(), n);
      std::vector<uint8_t> decoded(values.size());
      int64_t half = n / 2;
      ASSERT_OK(decoder.Decode(decoded.data(), half));
      ASSERT_OK(decoder.Decode(decoded.data() + half * width, n - half));
      EXPECT_EQ(decoded, values);
      uint8_t extra[16];
      EXPECT_THAT(decoder.Decode(extra, 1), IsError(StatusCode::kCorrupt));
    }
  }
  // Two floats: 1.0f = 00 00 80 3F, 2.0f = 00 00 00 40.
  const std::vector<uint8_t> spec = {0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x3F, 0x40};
  ByteStreamSplitDecoder decoder;
  ASSERT_OK(decoder.Init(spec, 4));
  float floats[2];
  ASSERT_OK(decoder.Decode(reinterpret_cast<uint8_t*>(floats), 2));
  EXPECT_EQ(floats[0], 1.0f);
  EXPECT_EQ(floats[1], 2.0f);
  EXPECT_THAT(decoder.Init(std::span<const uint8_t>(spec.data(), 7), 4),
              IsError(StatusCode::kCorrupt));
}

// ------------------------------------------------------------------------------------------------
// Bit unpacking against a reference, every width, with the output exactly at the buffer's end.

TEST(BitUnpackTest, MatchesReferenceAtBufferEnd) {
  for (int width = 0; width <= 64; ++width) {
    std::mt19937_64 rng(width);
    uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    std::vector<uint64_t> values(64);
    for (auto& v : values) v = rng() & mask;
    std::vector<uint8_t> packed;
    internal::PackBits(values.data(), 64, width, &packed);
    std::vector<uint64_t> out(64);
    internal::Unpack64(packed.data(), packed.size(), width, out.data(), 8);
    EXPECT_EQ(out, values) << width;
    if (width <= 32) {
      std::vector<uint32_t> out32(64);
      internal::Unpack32(packed.data(), packed.size(), width, out32.data(), 8);
      for (int i = 0; i < 64; ++i) ASSERT_EQ(out32[i], values[i]) << width;
    }
  }
}

}  // namespace
}  // namespace floe::parquet
