#pragma once

// A synthetic Iceberg table for planning benchmarks: table metadata JSON, one snapshot
// whose manifest list holds many manifests of many data files each, with a realistic
// partition spec (day(ts), bucket(16, id)) and column metrics for every column. Written
// with floe's own manifest and metadata writers.

#include <cstdint>
#include <string>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::bench {

struct SyntheticTableOptions {
  /// The table location: metadata goes to <location>/metadata, data paths name
  /// <location>/data (the data files themselves are not written).
  std::string location;
  int num_manifests = 1000;
  int files_per_manifest = 100;
  /// Table format version (1, 2 or 3).
  int format_version = 2;
  /// Avro codec of manifests and the manifest list.
  std::string codec = "deflate";
  uint64_t seed = 42;
};

struct SyntheticTable {
  /// <location>/metadata/v1.metadata.json.
  std::string metadata_path;
  iceberg::TableMetadataPtr metadata;
  /// The current snapshot's manifest list.
  std::string manifest_list_path;
  int64_t snapshot_id = 0;
  int64_t data_files = 0;
  int64_t records = 0;
};

/// Writes the table through `io`. The schema has 10 columns (1 id long required, 2 ts
/// timestamptz, 3 kind string, 4 amount double, 5 qty int, 6 price decimal(18,2), 7 dt
/// date, 8 name string, 9 flag boolean, 10 score float); spec 0 is day(ts) "ts_day"
/// (1000), bucket[16](id) "id_bucket" (1001). Manifest i holds files of day
/// 20000 + i (one day per append), spread over the 16 buckets, each file with
/// column_sizes, value_counts, null_value_counts, nan_value_counts (floating columns) and
/// lower/upper bounds for all 10 columns. Deterministic for a seed.
Result<SyntheticTable> WriteSyntheticTable(const io::FileIO& io,
                                           const SyntheticTableOptions& options);

}  // namespace floe::bench
