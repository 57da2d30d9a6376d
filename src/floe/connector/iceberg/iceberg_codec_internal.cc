#include "floe/connector/iceberg/iceberg_codec_internal.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

#include "floe/codec/file_io_codec.h"
#include "floe/exec/plan_codec.h"
#include "floe/iceberg/table_location.h"
#include "floe/io/file_io.h"
#include "floe/io/s3_file_io.h"
#include "fmt/format.h"

namespace floe::connector::internal {

namespace pb = codec::proto;

namespace {

// Metadata files decoded in this process, while some plan holds them, by location and the
// identity the message names: every task of a stage decodes the same scan, and a metadata
// file is immutable, so it is read once.
class DecodedMetadata {
 public:
  static DecodedMetadata& Get() {
    static DecodedMetadata* cache = new DecodedMetadata();
    return *cache;
  }

  static std::string Key(const pb::IcebergTableRef& m) {
    return fmt::format("{}\n{}\n{}", m.metadata_location(), m.table_uuid(), m.last_updated_ms());
  }

  iceberg::TableMetadataPtr Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.lock();
  }

  void Add(const std::string& key, const iceberg::TableMetadataPtr& metadata) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(entries_, [](const auto& entry) { return entry.second.expired(); });
    entries_[key] = metadata;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<const iceberg::TableMetadata>> entries_;
};

}  // namespace

Status EncodeTableRef(const iceberg::Table& table, std::string_view name,
                      pb::IcebergTableRef* out) {
  if (table.metadata == nullptr || table.metadata_location.empty()) {
    return Status::NotSupported("table {} is not pinned to a metadata file", name);
  }
  out->set_metadata_location(table.metadata_location);
  out->set_table_uuid(table.metadata->table_uuid);
  out->set_last_updated_ms(table.metadata->last_updated_ms);
  return codec::EncodeFileIO(table.io, fmt::format("table {}", name), out->mutable_io());
}

// The catalogs (and iceberg::OpenTable) read local metadata files through a plain local FileIO:
// path-map rules and the base directory apply to the paths inside the metadata, not to its
// own location, which is absolute or relative to the working directory. The file is read
// the same way here.
Result<iceberg::Table> DecodeTableRef(const codec::PlanDecoder& in, const pb::IcebergTableRef& m,
                                      std::string_view name) {
  if (m.metadata_location().empty()) {
    return in.Corrupt(fmt::format("table {} has no metadata location", name));
  }
  iceberg::Table table;
  FLOE_ASSIGN_OR_RAISE(table.io, codec::DecodeFileIO(in, m.io()));
  const io::LocalFileIO reader;
  auto read = [&]() -> Result<iceberg::TableMetadataPtr> {
    // A metadata file on S3 is read through the table's FileIO (its S3 side).
    if (io::IsS3Path(m.metadata_location())) {
      FLOE_ASSIGN_OR_RAISE(auto file, table.io->NewInputFile(m.metadata_location()));
      return iceberg::ReadTableMetadata(*file);
    }
    // Only a regular file: a device or a pipe named by a hostile message could block or
    // never end.
    FLOE_ASSIGN_OR_RAISE(std::string local, reader.ResolvePath(m.metadata_location()));
    std::error_code ec;
    if (std::filesystem::exists(local, ec) && !std::filesystem::is_regular_file(local, ec)) {
      return Status::IOError("{} is not a regular file", local);
    }
    FLOE_ASSIGN_OR_RAISE(auto file, reader.NewInputFile(m.metadata_location()));
    return iceberg::ReadTableMetadata(*file);
  };
  const std::string key = DecodedMetadata::Key(m);
  if (iceberg::TableMetadataPtr cached = DecodedMetadata::Get().Find(key)) {
    table.metadata = std::move(cached);
    table.metadata_location = m.metadata_location();
    return table;
  }
  Result<iceberg::TableMetadataPtr> metadata = read();
  if (!metadata.ok()) {
    const Status& s = metadata.status();
    const std::string what = fmt::format("cannot read the metadata file {} of table {}: {}",
                                         m.metadata_location(), name, s.message());
    if (s.code() == StatusCode::kCorrupt || s.code() == StatusCode::kNotSupported) {
      return in.Annotate(Status(s.code(), what));
    }
    return Status::IOError(what);
  }
  if ((*metadata)->table_uuid != m.table_uuid() ||
      (*metadata)->last_updated_ms != m.last_updated_ms()) {
    return in.Corrupt(fmt::format(
        "the metadata file {} is not the one the plan pinned for table {} (uuid {} updated at "
        "{}, the plan has uuid {} updated at {})",
        m.metadata_location(), name, (*metadata)->table_uuid, (*metadata)->last_updated_ms,
        m.table_uuid(), m.last_updated_ms()));
  }
  DecodedMetadata::Get().Add(key, *metadata);
  table.metadata = std::move(*metadata);
  table.metadata_location = m.metadata_location();
  return table;
}

}  // namespace floe::connector::internal
