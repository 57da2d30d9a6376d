#pragma once

// Session settings (SET name = value / SHOW name). Every setting is registered with a
// type, a default and a description; an unknown name or a value of the wrong shape is a
// kInvalidArgument naming it.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::exec {

struct SettingInfo {
  std::string name;
  enum class Kind { kInt, kBytes, kBool, kString } kind = Kind::kInt;
  std::string default_value;
  std::string description;
  int64_t min = 0;                                    // kInt / kBytes
  int64_t max = std::numeric_limits<int64_t>::max();  // kInt / kBytes
};

/// The registered settings:
///   target_partitions        int   default: the hardware threads (a session sets its own:
///                                  its threads, or every process's task slots)
///   batch_size               int   8192
///   memory_limit             bytes 0 = a quarter of physical memory ("2GB", "512MB")
///   spill_directory          str   "" = the system temp directory
///   broadcast_join_threshold bytes 16MB: a join side estimated below it is broadcast
///   sort_spill_reservation   bytes 64MB
///   prefer_hash_join         bool  true
///   dynamic_join_filters     bool  true
///   explain_verbose          bool  false
///   codec_roundtrip          bool  false (every stage is encoded and decoded before it runs)
///   search_path              str   "default"
///   time_zone                str   "UTC"
///   extra_float_digits       int   1 (-15 .. 3; how floats print, as in PostgreSQL)
///   max_recursive_iterations int   1000000 (a recursive query's iterations; 0 = no limit)
///   statement_timeout        int   0 (milliseconds; 0 = none)
///   iceberg.path_map         str   "" (FROM=TO rules separated by ';')
///   iceberg.read_concurrency int   2 (files one scan partition reads at once, 1 .. 64)
///   iceberg.read_ahead_bytes bytes 64MB (column chunk bytes read ahead of decoding; 0 = off)
///   iceberg.use_page_index   bool  true (prune pages with Parquet column/offset indexes)
///   parquet.verify_page_checksums bool true (check the CRC of pages that carry one)
///   text_files.min_split_bytes bytes 32MB (read_csv / read_json: the smallest range of a
///                                  file one partition reads)
class SessionConfig {
 public:
  SessionConfig();

  static const std::vector<SettingInfo>& Registered();

  /// Sets a value given as SQL text; kInvalidArgument for an unknown name or bad value.
  Status Set(std::string_view name, std::string_view value);
  /// Back to the default.
  Status Reset(std::string_view name);
  /// Sets a value as Set does and makes it the value Reset returns to (a session's own
  /// defaults, such as target_partitions from its threads or its cluster's task slots).
  Status SetDefault(std::string_view name, std::string_view value);
  /// The value's text form (bytes as written or as a number); kInvalidArgument when unknown.
  Result<std::string> Get(std::string_view name) const;

  int target_partitions() const { return static_cast<int>(GetInt("target_partitions")); }
  int64_t batch_size() const { return GetInt("batch_size"); }
  /// Effective limit in bytes (the default resolved).
  int64_t memory_limit() const;
  /// True when memory_limit was set; false while it is the default share of physical memory.
  bool memory_limit_set() const { return GetInt("memory_limit") > 0; }
  std::string spill_directory() const;
  int64_t broadcast_join_threshold() const { return GetInt("broadcast_join_threshold"); }
  int64_t sort_spill_reservation() const { return GetInt("sort_spill_reservation"); }
  bool prefer_hash_join() const { return GetBool("prefer_hash_join"); }
  bool dynamic_join_filters() const { return GetBool("dynamic_join_filters"); }
  bool codec_roundtrip() const { return GetBool("codec_roundtrip"); }
  int64_t max_recursive_iterations() const { return GetInt("max_recursive_iterations"); }
  std::string time_zone() const { return GetString("time_zone"); }
  /// PostgreSQL's standard_conforming_strings: whether '...' literals take backslashes as
  /// they are (sql::ParseOptions).
  bool standard_conforming_strings() const { return GetBool("standard_conforming_strings"); }
  /// Prefix rewrites for paths in Iceberg metadata, "FROM=TO;FROM2=TO2" (empty: none).
  std::string iceberg_path_map() const { return GetString("iceberg.path_map"); }
  /// Files of one Iceberg scan partition read at once (the one being consumed and the
  /// ones opened ahead of it); 1 reads them one after another.
  int iceberg_read_concurrency() const {
    return static_cast<int>(GetInt("iceberg.read_concurrency"));
  }
  /// Bytes of column chunks the Parquet reader of an Iceberg scan reads ahead (0: none).
  int64_t iceberg_read_ahead_bytes() const { return GetInt("iceberg.read_ahead_bytes"); }
  /// Whether Iceberg scans prune pages with the Parquet column and offset indexes.
  bool iceberg_use_page_index() const { return GetBool("iceberg.use_page_index"); }
  bool parquet_verify_page_checksums() const { return GetBool("parquet.verify_page_checksums"); }
  /// The smallest byte range of a local CSV or JSON-lines file that one scan partition reads.
  int64_t text_files_min_split_bytes() const { return GetInt("text_files.min_split_bytes"); }
  /// Namespaces searched for unqualified table names, comma-separated ("default").
  std::string search_path() const { return GetString("search_path"); }

  int64_t GetInt(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  std::string GetString(std::string_view name) const;

  /// name -> value text for every setting, for SHOW ALL.
  const std::map<std::string, std::string, std::less<>>& values() const { return values_; }

 private:
  std::map<std::string, std::string, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> defaults_;
};

/// "2GB", "512MB", "64KiB", "1000" -> bytes; kInvalidArgument otherwise.
Result<int64_t> ParseBytes(std::string_view text);

}  // namespace floe::exec
