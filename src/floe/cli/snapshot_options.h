#pragma once

// Selecting a snapshot on the command line: --snapshot ID and --as-of TIME (also
// expire-snapshots --older-than).

#include <cstdint>
#include <string_view>

#include "floe/common/result.h"

namespace floe::cli {

/// Parses --snapshot: a signed 64-bit id, or an unsigned one above INT64_MAX taken modulo
/// 2^64 (as table metadata with such ids is read).
Result<int64_t> ParseSnapshotId(std::string_view text);

/// Parses --as-of: milliseconds since the epoch, or an ISO date or date and time
/// (iceberg/value_text.h): "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS[.f]]" ('T' may separate date
/// and time), UTC unless it ends in an offset (Z, +HH, +HH:MM).
Result<int64_t> ParseAsOf(std::string_view text);

}  // namespace floe::cli
