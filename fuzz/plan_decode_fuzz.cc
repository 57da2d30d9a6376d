// libFuzzer target: the input bytes are read as an encoded plan (the plan codec's
// envelope, exec/plan_codec.h), as another process would receive a stage. A plan that
// decodes is encoded again, decoded again, and must encode to the same bytes with the
// same EXPLAIN text. Any error Status is fine; a crash, sanitizer report, leak, hang or a
// failed round trip is a bug. Decoded plans are not executed (a scan names files).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "floe/exec/plan_codec.h"
#include "floe/session/plan_codecs.h"

// protobuf writes an error line to stderr for every string field of invalid UTF-8 it
// refuses; the decoder reports the refusal as its own error, and a fuzzing run would
// print thousands of them.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::exec;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  floe::Result<PlanPtr> plan = DecodePlanBytes(bytes, floe::session::EnginePlanCodecs());
  if (!plan.ok()) return 0;
  const std::string text = PlanToString(**plan);
  floe::Result<std::string> encoded = EncodePlanBytes(**plan, floe::session::EnginePlanCodecs());
  if (!encoded.ok()) std::abort();
  floe::Result<PlanPtr> again = DecodePlanBytes(*encoded, floe::session::EnginePlanCodecs());
  if (!again.ok()) std::abort();
  floe::Result<std::string> reencoded = EncodePlanBytes(**again, floe::session::EnginePlanCodecs());
  if (!reencoded.ok() || *reencoded != *encoded || PlanToString(**again) != text) std::abort();
  return 0;
}
