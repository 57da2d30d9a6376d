// libFuzzer target: the input bytes are read as an Iceberg table metadata file (plain or
// gzip-compressed JSON, through io::MakeBufferFile so reads go through the file interface).
// Parsed metadata is written back and parsed again, and the two must be equal; the
// accessors and every schema's text form are exercised. The same bytes are also read as a
// schema and as a name mapping. Any error Status is fine; a crash, sanitizer report, leak,
// hang or a failed round trip is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/table_location.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/type_json.h"
#include "floe/io/file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::iceberg;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  floe::BufferPtr bytes =
      floe::Buffer::Wrap(data, static_cast<int64_t>(size), std::shared_ptr<const void>());
  auto md = ReadTableMetadata(*floe::io::MakeBufferFile(bytes, "fuzz.metadata.json"));
  if (md.ok()) {
    const TableMetadata& m = **md;
    for (const auto& schema : m.schemas) (void)schema->ToString();
    for (const auto& spec : m.partition_specs) {
      (void)spec->ToString();
      (void)spec->PartitionType(*m.CurrentSchema());
    }
    for (const auto& order : m.sort_orders) (void)order->ToString();
    (void)m.CurrentSnapshot();
    (void)m.SnapshotByRef("main");
    (void)m.SnapshotAsOf(m.last_updated_ms);
    if (const Snapshot* current = m.CurrentSnapshot()) (void)m.Ancestors(current->snapshot_id);
    (void)NameMapping::FromTableProperties(m.properties, "fuzz");
    auto written = TableMetadataToJsonString(m);
    if (written.ok()) {
      auto again = TableMetadataFromBytes(*written, "rewritten");
      if (!again.ok() || !m.Equals(**again)) std::abort();
    }
  }

  auto schema = SchemaFromJsonString(text, "fuzz-schema");
  if (schema.ok()) {
    (void)(*schema)->ToString();
    auto written = SchemaToJsonString(**schema);
    if (written.ok()) {
      auto again = SchemaFromJsonString(*written, "rewritten-schema");
      if (!again.ok() || !(*schema)->Equals(**again)) std::abort();
    }
  }

  auto mapping = NameMapping::FromJsonString(text, "fuzz-mapping");
  if (mapping.ok()) {
    auto again = NameMapping::FromJsonString(mapping->ToJsonString(), "rewritten-mapping");
    if (!again.ok() || !(*again == *mapping)) std::abort();
  }
  return 0;
}
