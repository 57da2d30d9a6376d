#include "floe/exec/session_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

#include "floe/common/ascii.h"
#include "floe/common/logging.h"
#include "floe/common/thread_pool.h"
#include "fmt/format.h"

namespace floe::exec {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<SettingInfo> MakeRegistered() {
  const int threads = ThreadPool::DefaultThreads();
  using Kind = SettingInfo::Kind;
  return {
      {"target_partitions", Kind::kInt, std::to_string(threads),
       "partitions a query's operators run with (default: the tasks the session runs at once)", 1},
      {"batch_size", Kind::kInt, "8192", "rows per batch operators produce", 1},
      {"memory_limit", Kind::kBytes, "0",
       "the query's memory budget before operators spill (0: a quarter of physical memory)", 0},
      {"spill_directory", Kind::kString, "",
       "directory for spill files (empty: the system temp directory)", 0},
      {"broadcast_join_threshold", Kind::kBytes, "16MB",
       "a join side estimated below this many bytes is broadcast", 0},
      {"sort_spill_reservation", Kind::kBytes, "64MB",
       "memory a sort keeps back for merging its spilled runs", 0},
      {"prefer_hash_join", Kind::kBool, "on", "plan equi-joins as hash joins", 0},
      {"dynamic_join_filters", Kind::kBool, "on",
       "broadcast joins pass their build keys to the Parquet scans below their probe side", 0},
      {"explain_verbose", Kind::kBool, "off", "EXPLAIN shows every plan stage", 0},
      {"codec_roundtrip", Kind::kBool, "off",
       "every stage is encoded and decoded (plan codec) before it runs", 0},
      {"search_path", Kind::kString, "default", "namespaces searched for unqualified table names",
       0},
      {"time_zone", Kind::kString, "UTC",
       "the session's time zone (also named timezone; floe computes in UTC only)", 0},
      {"datestyle", Kind::kString, "ISO, MDY",
       "how dates and times print and how ambiguous dates read (floe: ISO output, month-day-year "
       "input only)",
       0},
      {"standard_conforming_strings", Kind::kBool, "on",
       "backslashes in '...' literals are plain characters (off: escapes, as in E'...')", 0},
      {"escape_string_warning", Kind::kBool, "on",
       "PostgreSQL's warning about backslashes in '...' literals (accepted; floe gives no "
       "warnings)",
       0},
      {"extra_float_digits", Kind::kInt, "1",
       "digits of float output: above 0 the shortest exact form, else 15 (float8) or 6 (float4) "
       "significant digits plus this",
       -15, 3},
      {"max_recursive_iterations", Kind::kInt, "1000000",
       "iterations a recursive query (WITH RECURSIVE) may run before it fails (0: no limit)", 0},
      {"statement_timeout", Kind::kInt, "0", "milliseconds a statement may run (0: no limit)", 0},
      {"iceberg.path_map", Kind::kString, "",
       "FROM=TO prefix rewrites (separated by ';') for the paths Iceberg metadata names", 0},
      {"iceberg.read_concurrency", Kind::kInt, "2",
       "data files one Iceberg scan partition reads at once (1: one after another)", 1, 64},
      {"iceberg.read_ahead_bytes", Kind::kBytes, "64MB",
       "column chunk bytes an Iceberg scan's Parquet reader reads ahead of decoding (0: none)", 0},
      {"iceberg.use_page_index", Kind::kBool, "on",
       "Iceberg scans skip Parquet pages with the column and offset indexes", 0},
      {"parquet.verify_page_checksums", Kind::kBool, "on",
       "Parquet pages that carry a CRC are checked against it", 0},
      {"text_files.min_split_bytes", Kind::kBytes, "32MB",
       "the smallest byte range of a local CSV or JSON-lines file one scan partition reads "
       "(larger files are split at record starts)",
       1},
  };
}

// PostgreSQL's names of floe's settings.
std::string_view Canonical(std::string_view name) {
  if (name == "timezone") return "time_zone";
  return name;
}

const SettingInfo* Find(std::string_view name) {
  name = Canonical(name);
  for (const SettingInfo& info : SessionConfig::Registered()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

// The time zones that are UTC: floe computes timestamptz values in UTC only.
Result<std::string> CheckTimeZone(std::string_view value) {
  const std::string lower = AsciiLower(Trim(value));
  for (std::string_view utc : {"utc", "etc/utc", "gmt", "etc/gmt", "z", "zulu", "universal",
                               "etc/universal", "0", "+0", "-0", "+00", "+00:00"}) {
    if (lower == utc) return std::string(Trim(value));
  }
  return Status::NotSupported(
      "time zone \"{}\" is not supported: floe computes and prints timestamptz values in UTC "
      "only",
      value);
}

// PostgreSQL's DateStyle as floe has it: "ISO, MDY" (DEFAULT, ISO, MDY, US, NonEuropean in
// any combination); the other output styles and input orders are not supported.
Result<std::string> CheckDateStyle(std::string_view value) {
  std::string word;
  auto check = [&]() -> Status {
    if (word.empty() || word == "iso" || word == "mdy" || word == "us" || word == "noneuropean" ||
        word == "default") {
      return Status::OK();
    }
    if (word == "sql" || word == "postgres" || word == "german") {
      return Status::NotSupported(
          "DateStyle \"{}\" is not supported: floe prints dates and times in the ISO style only",
          value);
    }
    if (word == "dmy" || word == "ymd" || word == "european" || word == "euro") {
      return Status::NotSupported(
          "DateStyle \"{}\" is not supported: floe reads ambiguous dates in month-day-year "
          "order only",
          value);
    }
    return Status::Invalid("invalid value for parameter \"DateStyle\": \"{}\"", value);
  };
  for (char c : value) {
    if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      FLOE_RETURN_NOT_OK(check());
      word.clear();
    } else {
      word.push_back(AsciiToLower(c));
    }
  }
  FLOE_RETURN_NOT_OK(check());
  return std::string("ISO, MDY");
}

Result<int64_t> ParseInt(std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (!text.empty() && text.front() == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end) {
    return Status::Invalid("invalid integer \"{}\"", text);
  }
  return value;
}

Result<bool> ParseBool(std::string_view text) {
  std::string lower = AsciiLower(Trim(text));
  if (lower == "true" || lower == "on" || lower == "yes" || lower == "1" || lower == "t" ||
      lower == "y") {
    return true;
  }
  if (lower == "false" || lower == "off" || lower == "no" || lower == "0" || lower == "f" ||
      lower == "n") {
    return false;
  }
  return Status::Invalid("invalid boolean \"{}\"", text);
}

// "1 .. 64" or "0 .. " (no upper bound).
std::string RangeText(const SettingInfo& info) {
  if (info.max == std::numeric_limits<int64_t>::max()) return fmt::format("{} .. ", info.min);
  return fmt::format("{} .. {}", info.min, info.max);
}

int64_t PhysicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{8} << 30;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page_size);
}

}  // namespace

Result<int64_t> ParseBytes(std::string_view text) {
  std::string_view trimmed = Trim(text);
  size_t digits = 0;
  while (digits < trimmed.size() &&
         (std::isdigit(static_cast<unsigned char>(trimmed[digits])) || trimmed[digits] == '.')) {
    ++digits;
  }
  std::string number(trimmed.substr(0, digits));
  std::string unit = AsciiLower(Trim(trimmed.substr(digits)));
  if (number.empty() || std::count(number.begin(), number.end(), '.') > 1) {
    return Status::Invalid(
        "invalid byte size \"{}\" (expected a number with an optional unit "
        "such as 512MB or 2GB)",
        text);
  }
  int64_t multiplier = 0;
  if (unit.empty() || unit == "b" || unit == "byte" || unit == "bytes") {
    multiplier = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    multiplier = int64_t{1} << 10;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    multiplier = int64_t{1} << 20;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    multiplier = int64_t{1} << 30;
  } else if (unit == "t" || unit == "tb" || unit == "tib") {
    multiplier = int64_t{1} << 40;
  } else {
    return Status::Invalid("invalid byte size \"{}\": unknown unit \"{}\"", text, unit);
  }
  char* end = nullptr;
  double value = std::strtod(number.c_str(), &end);
  double bytes = value * static_cast<double>(multiplier);
  if (bytes >= 9.2e18) return Status::Invalid("byte size \"{}\" is too large", text);
  return static_cast<int64_t>(bytes);
}

SessionConfig::SessionConfig() {
  for (const SettingInfo& info : Registered()) values_[info.name] = info.default_value;
  defaults_ = values_;
}

const std::vector<SettingInfo>& SessionConfig::Registered() {
  static const std::vector<SettingInfo> registered = MakeRegistered();
  return registered;
}

Status SessionConfig::Set(std::string_view name, std::string_view value) {
  std::string key(Canonical(AsciiLower(Trim(name))));
  const SettingInfo* info = Find(key);
  if (info == nullptr) {
    return Status::Invalid("unrecognized configuration parameter \"{}\"", name);
  }
  std::string stored;
  switch (info->kind) {
    case SettingInfo::Kind::kInt: {
      Result<int64_t> parsed = ParseInt(value);
      if (!parsed.ok()) {
        return Status::Invalid("invalid value for parameter \"{}\": \"{}\" (an integer)", key,
                               value);
      }
      if (*parsed < info->min || *parsed > info->max) {
        return Status::Invalid("{} is outside the valid range for parameter \"{}\" ({})", *parsed,
                               key, RangeText(*info));
      }
      if (key == "target_partitions" && *parsed > std::numeric_limits<int>::max()) {
        return Status::Invalid("{} is outside the valid range for parameter \"{}\"", *parsed, key);
      }
      stored = std::to_string(*parsed);
      break;
    }
    case SettingInfo::Kind::kBytes: {
      Result<int64_t> parsed = ParseBytes(value);
      if (!parsed.ok()) {
        return parsed.status().WithPrefix(fmt::format("parameter \"{}\": ", key));
      }
      if (*parsed < info->min || *parsed > info->max) {
        return Status::Invalid("{} is outside the valid range for parameter \"{}\" ({})", *parsed,
                               key, RangeText(*info));
      }
      stored = std::string(Trim(value));
      break;
    }
    case SettingInfo::Kind::kBool: {
      Result<bool> parsed = ParseBool(value);
      if (!parsed.ok()) {
        return Status::Invalid("parameter \"{}\" requires a Boolean value, got \"{}\"", key, value);
      }
      stored = *parsed ? "on" : "off";
      break;
    }
    case SettingInfo::Kind::kString:
      if (key == "time_zone") {
        FLOE_ASSIGN_OR_RAISE(stored, CheckTimeZone(value));
      } else if (key == "datestyle") {
        FLOE_ASSIGN_OR_RAISE(stored, CheckDateStyle(value));
      } else {
        stored = std::string(value);
      }
      break;
  }
  values_[key] = std::move(stored);
  return Status::OK();
}

Status SessionConfig::Reset(std::string_view name) {
  std::string key(Canonical(AsciiLower(Trim(name))));
  const SettingInfo* info = Find(key);
  if (info == nullptr) {
    return Status::Invalid("unrecognized configuration parameter \"{}\"", name);
  }
  values_[key] = defaults_[key];
  return Status::OK();
}

Status SessionConfig::SetDefault(std::string_view name, std::string_view value) {
  FLOE_RETURN_NOT_OK(Set(name, value));
  std::string key(Canonical(AsciiLower(Trim(name))));
  defaults_[key] = values_[key];
  return Status::OK();
}

Result<std::string> SessionConfig::Get(std::string_view name) const {
  std::string key(Canonical(AsciiLower(Trim(name))));
  auto it = values_.find(key);
  if (it == values_.end()) {
    return Status::Invalid("unrecognized configuration parameter \"{}\"", name);
  }
  return it->second;
}

int64_t SessionConfig::memory_limit() const {
  int64_t limit = GetInt("memory_limit");
  if (limit > 0) return limit;
  return PhysicalMemory() / 4;
}

std::string SessionConfig::spill_directory() const {
  std::string dir = GetString("spill_directory");
  if (!dir.empty()) return dir;
  std::error_code ec;
  std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
  if (ec) return "/tmp";
  return temp.string();
}

int64_t SessionConfig::GetInt(std::string_view name) const {
  const SettingInfo* info = Find(name);
  FLOE_CHECK(info != nullptr, "unknown setting");
  auto it = values_.find(name);
  FLOE_CHECK(it != values_.end(), "unset setting");
  if (info->kind == SettingInfo::Kind::kBytes) {
    Result<int64_t> bytes = ParseBytes(it->second);
    return bytes.ok() ? *bytes : 0;
  }
  Result<int64_t> value = ParseInt(it->second);
  return value.ok() ? *value : 0;
}

bool SessionConfig::GetBool(std::string_view name) const {
  auto it = values_.find(name);
  FLOE_CHECK(it != values_.end(), "unknown setting");
  return it->second == "on";
}

std::string SessionConfig::GetString(std::string_view name) const {
  auto it = values_.find(name);
  FLOE_CHECK(it != values_.end(), "unknown setting");
  return it->second;
}

}  // namespace floe::exec
