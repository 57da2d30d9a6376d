#include "floe/cli/snapshot_options.h"

#include <charconv>
#include <optional>
#include <system_error>

#include "floe/common/calendar.h"
#include "floe/iceberg/value_text.h"

namespace floe::cli {

Result<int64_t> ParseSnapshotId(std::string_view text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  int64_t id = 0;
  auto [ptr, ec] = std::from_chars(begin, end, id);
  if (ec == std::errc() && ptr == end) return id;
  // Ids above INT64_MAX appear in hand-made metadata; they are read modulo 2^64, as the
  // metadata parser reads them.
  uint64_t unsigned_id = 0;
  auto [uptr, uec] = std::from_chars(begin, end, unsigned_id);
  if (uec == std::errc() && uptr == end) return static_cast<int64_t>(unsigned_id);
  return Status::Invalid("--snapshot '{}' is not a snapshot id", text);
}

Result<int64_t> ParseAsOf(std::string_view text) {
  int64_t ms = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec == std::errc() && end == text.data() + text.size()) return ms;
  if (std::optional<int32_t> days = iceberg::ParseIsoDate(text)) {
    return int64_t{*days} * (kMicrosPerDay / 1000);
  }
  if (std::optional<iceberg::IsoTimestamp> ts = iceberg::ParseIsoTimestamp(text)) {
    if (std::optional<int64_t> micros = iceberg::IsoTimestampUnits(*ts, /*nanos=*/false)) {
      return FloorDiv(*micros, 1000);
    }
  }
  return Status::Invalid(
      "--as-of '{}' is neither milliseconds nor a date and time (YYYY-MM-DD[ HH:MM[:SS[.f]]], "
      "UTC unless it ends in an offset)",
      text);
}

}  // namespace floe::cli
