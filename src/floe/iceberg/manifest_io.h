#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/type/type.h"

namespace floe::io {
class FileIO;
class OutputStream;
}  // namespace floe::io

namespace floe::iceberg {

/// A data sequence number (or manifest sequence number) not yet assigned: a manifest
/// written for a commit gets its sequence number from the manifest list writer.
inline constexpr int64_t kUnassignedSequenceNumber = -1;
/// The added_snapshot_id of a manifest written without a snapshot id: the manifest list
/// writer replaces it with its snapshot's id.
inline constexpr int64_t kUnassignedSnapshotId = -1;

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

/// Reads a manifest list (spec, "Manifest Lists") of any format version. Fields are
/// resolved by field id, so lists written under other names (Spark's v1
/// `added_data_files_count`) read the same. A v1 list has no content or sequence
/// numbers: they read as kData and 0. v3 lists carry `first_row_id`. Errors name the file.
Result<std::vector<ManifestFile>> ReadManifestList(const io::FileIO& io, const std::string& path);

/// What ReadManifest returns.
struct ManifestReadOptions {
  /// Read the column metric maps (column_sizes, value_counts, null_value_counts,
  /// nan_value_counts, lower_bounds, upper_bounds). Planning without a filter on columns
  /// does not need them, and skipping them is most of a manifest's decoding cost.
  bool include_column_stats = true;
  /// When non-empty (and include_column_stats), keep metrics only for these column ids.
  std::vector<int32_t> stats_column_ids;
  /// Which entries to return, by status. Sequence number and first-row-id inheritance
  /// are computed over every entry in file order whatever is returned.
  bool include_added = true;
  bool include_existing = true;
  bool include_deleted = false;

  /// Added and existing entries (a scan's view), with or without metrics.
  static ManifestReadOptions Live(bool with_stats = true) {
    ManifestReadOptions o;
    o.include_column_stats = with_stats;
    return o;
  }
  /// Every entry, deleted ones included.
  static ManifestReadOptions All(bool with_stats = true) {
    ManifestReadOptions o = Live(with_stats);
    o.include_deleted = true;
    return o;
  }
};

/// The key/value metadata in a manifest's header (spec, "Manifests").
struct ManifestHeader {
  /// `format-version`, or 1 when absent.
  int format_version = 1;
  /// `partition-spec-id`, or nullopt when absent (old v1 writers).
  std::optional<int32_t> partition_spec_id;
  /// `content`: kData for "data" (or absent), kPositionDeletes for "deletes".
  FileContent content = FileContent::kData;
  /// `schema` (the table schema JSON) and `partition-spec` (the JSON fields array), as
  /// stored; empty when absent.
  std::string schema_json;
  std::string partition_spec_json;
  /// `schema-id`, when present.
  std::optional<int32_t> schema_id;
};

/// Reads only the header of a manifest (its first bytes: magic, metadata, schema).
Result<ManifestHeader> ReadManifestHeader(const io::FileIO& io, const std::string& path);

/// The manifest's own partition spec and table schema, parsed from its header
/// (`schema` and `partition-spec`). kCorrupt when the header lacks or garbles them.
Result<std::pair<SchemaPtr, PartitionSpecPtr>> PartitionSpecFromHeader(const ManifestHeader& header,
                                                                       std::string_view path);

/// Reads the entries of one manifest with inheritance applied (spec, "Sequence Number
/// Inheritance", "First Row ID Inheritance"):
///  - a null snapshot_id becomes the list entry's added_snapshot_id;
///  - a null sequence_number / file_sequence_number of an ADDED entry (or of any entry
///    of a manifest whose sequence number is 0, i.e. v1) becomes the manifest's
///    sequence number; any other null is kCorrupt;
///  - in a v3 data manifest with first_row_id, a data file with a null first_row_id gets
///    the manifest's first_row_id plus the record counts of the files with a null
///    first_row_id before it.
/// `partition_type` is the struct type of the manifest's spec (PartitionSpec::
/// PartitionType); partition values are read by partition field id and typed by it
/// (a day value is a date, bucket an int, ...). Each DataFile's spec_id is the header's
/// `partition-spec-id`, else the list entry's partition_spec_id.
/// Errors (kIOError, kCorrupt, kNotSupported) name the manifest file.
Result<std::vector<ManifestEntry>> ReadManifest(const io::FileIO& io, const ManifestFile& manifest,
                                                const TypePtr& partition_type,
                                                const ManifestReadOptions& options = {});

/// ReadManifest with the partition type of `spec` over `schema`.
Result<std::vector<ManifestEntry>> ReadManifest(const io::FileIO& io, const ManifestFile& manifest,
                                                const PartitionSpec& spec, const Schema& schema,
                                                const ManifestReadOptions& options = {});

/// ReadManifest with the partition type taken from the manifest's own header.
Result<std::vector<ManifestEntry>> ReadManifestSelfDescribed(
    const io::FileIO& io, const ManifestFile& manifest, const ManifestReadOptions& options = {});

/// For a v1 snapshot that lists its manifests in the metadata JSON (`manifests`, no
/// manifest list): one ManifestFile per path, with the manifest's length, its
/// partition spec id from its header (else `default_spec_id`), content kData, sequence
/// numbers 0 and added_snapshot_id `snapshot_id`. File and row counts are unknown
/// (nullopt) and partition summaries empty, so no manifest is skipped by them.
Result<std::vector<ManifestFile>> ManifestFilesFromPaths(const io::FileIO& io,
                                                         const std::vector<std::string>& paths,
                                                         int64_t snapshot_id,
                                                         int32_t default_spec_id = 0);

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

struct ManifestWriterOptions {
  /// Table format version: 1, 2 or 3. Delete manifests need 2 or more.
  int format_version = 2;
  /// kData for a data manifest; kPositionDeletes or kEqualityDeletes for a delete
  /// manifest (its header says "deletes"; each file carries its own content).
  FileContent content = FileContent::kData;
  /// The snapshot writing the manifest: ADDED and DELETED entries get it, and it is the
  /// returned ManifestFile's added_snapshot_id. nullopt writes ADDED entries with a
  /// null snapshot id (inherited from the list; v2+ only) and returns
  /// kUnassignedSnapshotId, which the manifest list writer fills in.
  std::optional<int64_t> snapshot_id;
  /// Avro codec: "deflate" (default), "null", "snappy", "zstd".
  std::string codec = "deflate";
  /// v3 data manifests: the first row id to record in the returned ManifestFile (the
  /// manifest list writer assigns one when unset).
  std::optional<int64_t> first_row_id;
};

/// Writes one manifest (data or deletes) for a partition spec, with the spec's Avro
/// schema for the spec's partition type and the header metadata `schema`, `schema-id`,
/// `partition-spec`, `partition-spec-id`, `format-version` and `content`. Tracks the
/// entry counts, rows and per-partition-field summaries and returns the ManifestFile to
/// put in a manifest list.
class ManifestWriter {
 public:
  /// Creates the output file `path` through `io`. kInvalidArgument for a bad version,
  /// a delete manifest before v2, v1 without a snapshot id, or a spec whose partition
  /// type cannot be built from `schema`.
  static Result<std::unique_ptr<ManifestWriter>> Make(const io::FileIO& io, std::string path,
                                                      const Schema& schema,
                                                      const PartitionSpec& spec,
                                                      ManifestWriterOptions options);
  ~ManifestWriter();

  /// An ADDED entry. Its data and file sequence numbers are inherited (null) unless
  /// `data_sequence_number` is given (a file whose data is older than the commit).
  Status Add(const DataFile& file, std::optional<int64_t> data_sequence_number = std::nullopt);
  /// An EXISTING entry: the entry's snapshot id and sequence numbers are kept (they
  /// must be set; they are after ReadManifest).
  Status Existing(const ManifestEntry& entry);
  /// A DELETED entry: the file is removed by this writer's snapshot; the sequence
  /// numbers are kept.
  Status Delete(const ManifestEntry& entry);
  /// Any entry as given (status, snapshot id and sequence numbers written as they are,
  /// with kUnassignedSequenceNumber written as null).
  Status Write(const ManifestEntry& entry);

  /// Entries written so far.
  int64_t entry_count() const;
  /// Finishes the file and returns its list entry. Its sequence_number (and
  /// min_sequence_number when no live entry has an explicit data sequence number) is
  /// kUnassignedSequenceNumber, which ManifestListWriter replaces with the snapshot's.
  Result<ManifestFile> Close();

 private:
  struct Impl;
  explicit ManifestWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct ManifestListWriterOptions {
  int format_version = 2;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  /// The snapshot's sequence number (v2+): written into the header and into every
  /// manifest whose sequence numbers are unassigned.
  int64_t sequence_number = 0;
  /// v3: the snapshot's first row id; data manifests without a first_row_id are
  /// assigned one from it (spec, "First Row ID Assignment").
  std::optional<int64_t> first_row_id;
  std::string codec = "deflate";
};

/// Writes a manifest list with the header metadata `snapshot-id`, `parent-snapshot-id`,
/// `sequence-number` and `format-version` (and `first-row-id` in v3).
class ManifestListWriter {
 public:
  static Result<std::unique_ptr<ManifestListWriter>> Make(const io::FileIO& io, std::string path,
                                                          ManifestListWriterOptions options);
  ~ManifestListWriter();

  /// Adds a manifest. Unassigned sequence numbers and an unassigned added_snapshot_id
  /// become the snapshot's; in v3 a data
  /// manifest without first_row_id is assigned the next row id. A v1 list cannot hold
  /// delete manifests (kInvalidArgument).
  Status Add(const ManifestFile& manifest);
  /// The manifests as written (with the sequence numbers and row ids assigned).
  const std::vector<ManifestFile>& manifests() const;
  /// v3: the row id after the last one assigned (the snapshot's first-row-id plus its
  /// added-rows); nullopt before v3.
  std::optional<int64_t> next_row_id() const;
  Status Close();

 private:
  struct Impl;
  explicit ManifestListWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------
// DataFile <-> bytes (how writers hand their files to the commit)
// ---------------------------------------------------------------------------------------

/// Encodes data files as Avro `data_file` records (the manifest's data_file struct, v2
/// layout plus the v3 fields, with field ids) of the partition type `partition_type`, in
/// an Avro container (codec null) so the bytes carry their schema. Partition values
/// must match the partition type's fields.
Result<std::string> EncodeDataFiles(const std::vector<DataFilePtr>& files,
                                    const TypePtr& partition_type);

/// Decodes bytes written by EncodeDataFiles; each file gets `spec_id`. Partition values
/// are read by partition field id and typed by `partition_type`.
Result<std::vector<DataFilePtr>> DecodeDataFiles(std::string_view bytes,
                                                 const TypePtr& partition_type, int32_t spec_id);

// ---------------------------------------------------------------------------------------
// Helpers shared with planning and commits
// ---------------------------------------------------------------------------------------

/// The spec's file_format name, upper case as written by the reference implementation
/// ("PARQUET", "AVRO", "ORC", "PUFFIN").
std::string_view FileFormatName(FileFormat format);
/// Parses a file_format name case-insensitively.
Result<FileFormat> ParseFileFormat(std::string_view name);

}  // namespace floe::iceberg
