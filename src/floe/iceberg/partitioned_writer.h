#pragma once

// Writers of a table's data files from batches of rows: partition tuples computed with the
// spec's transforms, one rolling file per partition, file locations and names. Three writers
// share one interface: unpartitioned, fanout (one open file per partition, any input order) and
// clustered (one open file; input grouped by partition).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/iceberg/data_file_writer.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// Escapes a partition path name or value as application/x-www-form-urlencoded does (what Iceberg
/// partition paths use): ASCII letters, digits and ". - * _" stay, a space becomes '+', every
/// other byte of the UTF-8 text becomes %XX (upper-case hex).
std::string EscapePartitionPathPart(std::string_view text);

/// The partition path of a tuple (spec, "partition-to-path"): "name=value" per partition field
/// joined by '/', values in the transform's human form (Transform::ToHumanString: "2024-01-02"
/// for day, "3" for a bucket, "null" for NULL), names and values escaped. Empty for an
/// unpartitioned spec. `values` has one value per spec field.
std::string PartitionPath(const PartitionSpec& spec, const PartitionValues& values);

/// The location and name of every data file a writer creates: the one place both are decided.
/// Paths are "<data location>/<partition path>/<writer id>-<task id>-<operation id>-<count>
/// .parquet" with the writer id and the count zero-padded to five digits, so that writers with
/// distinct (writer id, task id) pairs in one operation never collide, and neither do
/// operations.
class OutputFileFactory {
 public:
  /// `data_location` is WriterProperties::data_location; an empty `operation_id` gets a new
  /// random UUID.
  OutputFileFactory(std::string data_location, int32_t writer_id, int64_t task_id,
                    std::string operation_id = "");

  /// The path of the next file in `partition_path` (empty for the data location itself).
  std::string NewDataFilePath(std::string_view partition_path);
  /// Whether a file named `file_name` was named by a factory of `operation_id`.
  static bool NamedFor(std::string_view file_name, std::string_view operation_id);

  const std::string& data_location() const { return data_location_; }
  const std::string& operation_id() const { return operation_id_; }

 private:
  std::string data_location_;
  int32_t writer_id_;
  int64_t task_id_;
  std::string operation_id_;
  int64_t file_count_ = 0;
};

/// Computes the partition tuple of rows: for each spec field, the transform applied to its
/// source column (found by field id at any depth inside structs; a NULL anywhere on the way is a
/// NULL source value).
class PartitionProjector {
 public:
  /// kInvalidArgument when a source field is missing from `schema`, is not primitive, lies
  /// inside a list or map, or the transform cannot apply to it.
  static Result<std::shared_ptr<const PartitionProjector>> Make(SchemaPtr schema,
                                                                PartitionSpecPtr spec);

  const PartitionSpecPtr& spec() const { return spec_; }
  /// The partition struct type (PartitionSpec::PartitionType).
  const TypePtr& partition_type() const { return partition_type_; }

  /// One array per spec field, typed as the transform's result, for a batch whose columns are the
  /// schema's columns (see ConformBatch).
  Result<std::vector<ArrayPtr>> Project(const RecordBatch& batch) const;

  /// The tuple of row `row` of projected columns (one Scalar per spec field).
  static PartitionValues TupleAt(const std::vector<ArrayPtr>& columns, int64_t row);

 private:
  PartitionProjector() = default;
  SchemaPtr schema_;
  PartitionSpecPtr spec_;
  TypePtr partition_type_;
  // For each spec field: the child indices from the top-level column down to the source.
  std::vector<std::vector<int>> source_paths_;
};

/// What every partitioned writer needs.
struct PartitionedWriterOptions {
  std::shared_ptr<const io::FileIO> io;
  SchemaPtr schema;
  /// The spec files are written for; null means unpartitioned.
  PartitionSpecPtr spec;
  WriterProperties properties;
  /// The table's sort order, used for metrics modes (sorted columns keep bounds).
  SortOrderPtr sort_order;
  /// Recorded on every file when set: the rows of each file are sorted by this order.
  std::optional<int32_t> sort_order_id;
  /// Set by the caller so that parallel writers never create the same file name.
  int32_t writer_id = 0;
  int64_t task_id = 0;
  /// One id per write operation (query); empty gets a random UUID.
  std::string operation_id;
  /// Every file is in InFlightFiles from before it is created until it is deleted or handed
  /// on: with an owner (a statement's query context) until the statement seals it before its
  /// commit; without one, until Close returns it.
  const void* in_flight_owner = nullptr;
  /// Fanout writer: the memory of the gathered rows and of every open file (its encoders,
  /// dictionaries and pages) together; past half of it the gathered rows go to their files,
  /// past all of it the files holding the most are closed.
  int64_t fanout_memory_budget_bytes = 256LL << 20;
  /// Fanout writer: rows are gathered per partition and handed to its file this many at a
  /// time (and when the budget or Close asks), so that each file's encoders work on long
  /// runs instead of a few rows of every partition in turn. 1 writes every batch through.
  int64_t fanout_flush_rows = 16384;
};

/// The options for writing into a table as `metadata` describes it: its current schema, default
/// spec and default sort order (for metrics; files get no sort_order_id), and WriterProperties from
/// its properties and location with `overrides` on top. Errors as WriterProperties::Make; a
/// metadata without a current schema is kInvalidArgument.
Result<PartitionedWriterOptions> WriterOptionsForTable(
    const TableMetadata& metadata, std::shared_ptr<const io::FileIO> io,
    const std::map<std::string, std::string>& overrides = {});

/// Writes a table's rows into data files, rolling to a new file when one reaches
/// write.target-file-size-bytes. Batches must have the schema's columns (see ConformBatch).
/// Any error of Write or Close aborts the writer (every file it wrote is deleted) and is
/// returned again by later calls.
class PartitionedWriter {
 public:
  virtual ~PartitionedWriter() = default;

  /// Writes the rows of `batch` (NULLs in required fields are kConstraint, see DataFileWriter).
  virtual Status Write(const RecordBatch& batch) = 0;
  /// Closes every open file and returns all files written, in the order they were finished.
  virtual Result<std::vector<DataFile>> Close() = 0;
  /// Deletes every file written so far, open or closed. Idempotent.
  virtual Status Abort() = 0;
  /// The memory the writer holds now: rows it gathered and its open files (their encoders,
  /// dictionaries and pages). The fanout writer keeps it within fanout_memory_budget_bytes
  /// after every Write.
  virtual int64_t MemoryBytes() const = 0;
};

/// One rolling file at a time, every file in the data location itself. kInvalidArgument when the
/// spec has fields.
Result<std::unique_ptr<PartitionedWriter>> MakeUnpartitionedWriter(
    PartitionedWriterOptions options);

/// Splits each batch by partition tuple and keeps one open file per partition, so input may come
/// in any order. Memory is bounded by fanout_memory_budget_bytes (files are closed early).
Result<std::unique_ptr<PartitionedWriter>> MakeFanoutWriter(PartitionedWriterOptions options);

/// Keeps one open file: input must arrive clustered by partition tuple (all rows of a partition
/// together, partitions in any order). A partition that reappears after its file was closed is
/// kInvalidArgument naming its partition path.
Result<std::unique_ptr<PartitionedWriter>> MakeClusteredWriter(PartitionedWriterOptions options);

/// The unpartitioned writer when the spec is null or has no fields (a spec of void fields still
/// records a tuple of NULLs, so it is written as partitioned); otherwise the fanout writer
/// when `fanout`, else the clustered one.
Result<std::unique_ptr<PartitionedWriter>> MakePartitionedWriter(PartitionedWriterOptions options,
                                                                 bool fanout);

}  // namespace floe::iceberg
