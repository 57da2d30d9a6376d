// libFuzzer target: the input bytes are opened as a Parquet file (io::MakeBufferFile
// over libFuzzer's own buffer, so AddressSanitizer sees every read past the input), and
// every column of every row group is decoded and every value formatted; then the flat
// columns of the last two thirds of each row group are read again as a row slice (the
// pages located through the offset index, or the page headers), and once more with a key
// bitmap (a join's keys) on the first flat column, which prunes row groups and pages by
// their statistics and drops rows. Any error Status is fine; a crash, sanitizer report,
// leak or hang is a bug.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/common/key_bitmap.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/reader.h"
#include "floe/io/file.h"

namespace {

/// Touches every value of every column of `batch` through the JSON formatter.
void FormatAll(const floe::RecordBatch& batch, std::string* scratch) {
  for (int c = 0; c < batch.num_columns(); ++c) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      scratch->clear();
      floe::AppendJsonValue(*batch.column(c), r, scratch);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::BufferPtr bytes =
      floe::Buffer::Wrap(data, static_cast<int64_t>(size), std::shared_ptr<const void>());
  floe::parquet::ReaderOptions options;
  options.batch_size = 1024;
  auto reader = floe::parquet::ParquetFileReader::Open(
      floe::io::MakeBufferFile(bytes, "fuzz.parquet"), options);
  if (!reader.ok()) return 0;
  std::string scratch;
  auto drain = [&scratch](const floe::parquet::ParquetFileReader& file,
                          const floe::parquet::ReadRequest& request) {
    auto stream = file.Read(request);
    if (!stream.ok()) return;
    for (;;) {
      auto batch = (*stream)->Next();
      if (!batch.ok() || *batch == nullptr) break;
      FormatAll(**batch, &scratch);
    }
  };
  std::vector<int> flat;
  for (int c = 0; c < (*reader)->schema()->num_fields(); ++c) {
    if (!(*reader)->schema()->field(c).type()->is_nested()) flat.push_back(c);
  }
  for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
    floe::parquet::ReadRequest request;
    request.row_groups = std::vector<int>{rg};
    drain(**reader, request);
    const int64_t rows = (*reader)->metadata().row_groups[static_cast<size_t>(rg)].num_rows;
    if (rows < 2 || flat.empty()) continue;
    request.columns = flat;
    request.row_group_rows = {{rows / 3, rows}};
    drain(**reader, request);
  }
  if (!flat.empty()) {
    // Every third value of [-64, 4031].
    auto keys = std::make_shared<floe::KeyBitmap>(-64, 4031);
    for (int64_t v = -64; v <= 4031; v += 3) keys->Add(v);
    floe::parquet::ReadRequest request;
    request.columns = flat;
    request.predicates = {floe::parquet::ColumnPredicate{
        flat[0], floe::parquet::ColumnPredicate::Op::kIn, {}, false, std::move(keys)}};
    request.filter_rows = true;
    drain(**reader, request);
  }
  return 0;
}
