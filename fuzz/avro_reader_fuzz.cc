// libFuzzer target: the input bytes are opened as an Avro object container file
// (io::MakeBufferFile over libFuzzer's own buffer) and every record is read with the
// file's own schema as the target, every value formatted. Any error Status is fine; a
// crash, sanitizer report, leak or hang is a bug.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/batch/value_format.h"
#include "floe/format/avro/reader.h"
#include "floe/io/file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::BufferPtr bytes =
      floe::Buffer::Wrap(data, static_cast<int64_t>(size), std::shared_ptr<const void>());
  auto reader = floe::avro::AvroFileReader::Open(
      std::shared_ptr<floe::io::RandomAccessFile>(floe::io::MakeBufferFile(bytes, "fuzz.avro")));
  if (!reader.has_value()) return 0;
  auto schema = (*reader)->FileSchema();
  if (!schema.has_value()) return 0;
  auto stream = (*reader)->Read(std::make_shared<floe::Schema>(*schema), 256);
  if (!stream.has_value()) return 0;
  std::string scratch;
  for (;;) {
    auto batch = (*stream)->Next();
    if (!batch.has_value() || *batch == nullptr) break;
    const floe::RecordBatch& b = **batch;
    for (int c = 0; c < b.num_columns(); ++c) {
      for (int64_t r = 0; r < b.num_rows(); ++r) {
        scratch.clear();
        floe::AppendJsonValue(*b.column(c), r, &scratch);
      }
    }
  }
  return 0;
}
