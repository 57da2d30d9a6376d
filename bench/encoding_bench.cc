// Micro-benchmarks of the Parquet reader's hot decode paths: bit unpacking through the RLE
// hybrid, PLAIN int64, dictionary indices and zstd page decompression.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "floe/format/compression/codec.h"
#include "floe/format/parquet/encoding.h"

namespace floe::parquet {
namespace {

constexpr int64_t kValues = 1 << 16;

void BM_RleBitPacked(benchmark::State& state) {
  const int width = static_cast<int>(state.range(0));
  std::mt19937 rng(width);
  std::vector<int32_t> values(kValues);
  for (auto& v : values) v = static_cast<int32_t>(width == 0 ? 0 : rng() >> (32 - width));
  std::vector<uint8_t> encoded;
  EncodeRleBitPacked(values, width, &encoded);
  std::vector<int32_t> out(kValues);
  for (auto _ : state) {
    RleBitPackedDecoder decoder;
    (void)decoder.Init(encoded, width);
    if (!decoder.Decode(out.data(), kValues).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_RleBitPacked)->Arg(1)->Arg(2)->Arg(3)->Arg(8)->Arg(12)->Arg(17)->Arg(32);

void BM_RleDefinitionLevelsAllDefined(benchmark::State& state) {
  std::vector<int16_t> levels(kValues, 1);
  std::vector<uint8_t> encoded;
  EncodeRleBitPacked(std::span<const int16_t>(levels), 1, &encoded);
  std::vector<int16_t> out(kValues);
  for (auto _ : state) {
    RleBitPackedDecoder decoder;
    (void)decoder.Init(encoded, 1);
    auto k = decoder.ConsumeRepeated(1, kValues);
    benchmark::DoNotOptimize(k);
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_RleDefinitionLevelsAllDefined);

void BM_PlainInt64(benchmark::State& state) {
  std::vector<int64_t> values(kValues);
  std::mt19937_64 rng(1);
  for (auto& v : values) v = static_cast<int64_t>(rng());
  std::vector<uint8_t> encoded;
  EncodePlain<int64_t>(values, &encoded);
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    PlainDecoder<int64_t> decoder;
    decoder.Init(encoded);
    if (!decoder.Decode(out.data(), kValues).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_PlainInt64);

void BM_DictionaryIndices(benchmark::State& state) {
  const int32_t dict_size = static_cast<int32_t>(state.range(0));
  std::mt19937 rng(2);
  std::vector<int32_t> indices(kValues);
  for (auto& i : indices) i = static_cast<int32_t>(rng() % dict_size);
  std::vector<uint8_t> encoded;
  EncodeDictionaryIndices(indices, dict_size, &encoded);
  std::vector<int32_t> out(kValues);
  for (auto _ : state) {
    DictionaryIndexDecoder decoder;
    (void)decoder.Init(encoded, dict_size);
    if (!decoder.Decode(out.data(), kValues).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_DictionaryIndices)->Arg(100)->Arg(5000)->Arg(1 << 20);

void BM_DeltaInt64(benchmark::State& state) {
  std::vector<int64_t> values(kValues);
  std::mt19937_64 rng(3);
  int64_t acc = 0;
  for (auto& v : values) v = acc += static_cast<int64_t>(rng() % 1000);
  std::vector<uint8_t> encoded;
  EncodeDeltaBinaryPacked(values, &encoded);
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    DeltaBinaryPackedDecoder<int64_t> decoder;
    (void)decoder.Init(encoded);
    if (!decoder.Decode(out.data(), kValues).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_DeltaInt64);

// A 1 MiB page of int64 values with 16 significant bits, zstd level 3, decompressed and decoded
// as PLAIN: the per-value cost of a zstd bigint column scan without levels.
void BM_ZstdPlainInt64Page(benchmark::State& state) {
  constexpr int64_t kPage = 1 << 17;
  std::vector<int64_t> values(kPage);
  std::mt19937_64 rng(4);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 65536);
  std::vector<uint8_t> plain;
  EncodePlain<int64_t>(values, &plain);
  auto compressed = compression::Compress(compression::CodecKind::kZstd, plain).ValueOrDie();
  auto decompressor = compression::Decompressor::Make(compression::CodecKind::kZstd).ValueOrDie();
  std::vector<uint8_t> page(plain.size());
  std::vector<int64_t> out(kPage);
  for (auto _ : state) {
    if (!decompressor->Decompress(compressed, page).ok()) state.SkipWithError("zstd failed");
    PlainDecoder<int64_t> decoder;
    decoder.Init(page);
    if (!decoder.Decode(out.data(), kPage).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kPage);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(plain.size()));
  state.counters["ratio"] = static_cast<double>(plain.size()) / compressed.size();
}
BENCHMARK(BM_ZstdPlainInt64Page);

}  // namespace
}  // namespace floe::parquet

BENCHMARK_MAIN();
