#pragma once

// Checked access to nlohmann::json values for the Iceberg metadata parsers: every getter
// returns kCorrupt naming the context and the field instead of throwing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/common/result.h"

namespace floe::iceberg::internal {

/// Parses JSON text; a syntax error is kCorrupt naming `context` and the byte offset.
/// Nesting deeper than this is rejected, so the recursive readers above the parser stay
/// within bounded stack.
inline constexpr int kMaxJsonDepth = 128;

/// Parses JSON text; a syntax error is kCorrupt naming `context` and the byte offset.
inline Result<nlohmann::json> ParseJson(std::string_view text, std::string_view context) {
  bool too_deep = false;
  auto callback = [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  try {
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), callback);
    if (too_deep) {
      return Status::Corrupt("{}: JSON nested deeper than {} levels", context, kMaxJsonDepth);
    }
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    return Status::Corrupt("{}: invalid JSON at byte {}", context, e.byte);
  } catch (const std::exception& e) {
    return Status::Corrupt("{}: invalid JSON ({})", context, e.what());
  }
}

inline Status Missing(std::string_view context, std::string_view key) {
  return Status::Corrupt("{}: missing required field '{}'", context, key);
}

inline Status WrongType(std::string_view context, std::string_view key, std::string_view want,
                        const nlohmann::json& got) {
  return Status::Corrupt("{}: field '{}' must be {}, got {}", context, key, want, got.type_name());
}

inline Result<const nlohmann::json*> Find(const nlohmann::json& j, std::string_view key,
                                          std::string_view context) {
  auto it = j.find(key);
  if (it == j.end()) return Missing(context, key);
  return &*it;
}

inline Result<std::string> GetString(const nlohmann::json& j, std::string_view key,
                                     std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(const nlohmann::json* v, Find(j, key, context));
  if (!v->is_string()) return WrongType(context, key, "a string", *v);
  return v->get<std::string>();
}

inline Result<int64_t> AsInt(const nlohmann::json& v, std::string_view key,
                             std::string_view context) {
  if (!v.is_number_integer()) return WrongType(context, key, "an integer", v);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return Status::Corrupt("{}: field '{}' is out of range", context, key);
  }
  return v.get<int64_t>();
}

/// A snapshot id. Ids are Java longs; an unsigned value above INT64_MAX (written by tools
/// that treat ids as unsigned) is taken modulo 2^64, as Java readers do.
inline Result<int64_t> AsId(const nlohmann::json& v, std::string_view key,
                            std::string_view context) {
  if (!v.is_number_integer()) return WrongType(context, key, "an integer", v);
  if (v.is_number_unsigned()) return static_cast<int64_t>(v.get<uint64_t>());
  return v.get<int64_t>();
}

inline Result<int64_t> GetId(const nlohmann::json& j, std::string_view key,
                             std::string_view context) {
  auto it = j.find(key);
  if (it == j.end()) return Missing(context, key);
  return AsId(*it, key, context);
}

inline Result<std::optional<int64_t>> GetOptionalId(const nlohmann::json& j, std::string_view key,
                                                    std::string_view context) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RAISE(int64_t v, AsId(*it, key, context));
  return std::optional<int64_t>(v);
}

inline Result<int64_t> GetInt(const nlohmann::json& j, std::string_view key,
                              std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(const nlohmann::json* v, Find(j, key, context));
  return AsInt(*v, key, context);
}

inline Result<int32_t> GetInt32(const nlohmann::json& j, std::string_view key,
                                std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(int64_t v, GetInt(j, key, context));
  if (v < INT32_MIN || v > INT32_MAX) {
    return Status::Corrupt("{}: field '{}' is out of range for a 32-bit integer", context, key);
  }
  return static_cast<int32_t>(v);
}

inline Result<bool> GetBool(const nlohmann::json& j, std::string_view key,
                            std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(const nlohmann::json* v, Find(j, key, context));
  if (!v->is_boolean()) return WrongType(context, key, "a boolean", *v);
  return v->get<bool>();
}

inline Result<const nlohmann::json*> GetArray(const nlohmann::json& j, std::string_view key,
                                              std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(const nlohmann::json* v, Find(j, key, context));
  if (!v->is_array()) return WrongType(context, key, "an array", *v);
  return v;
}

inline Result<const nlohmann::json*> GetObject(const nlohmann::json& j, std::string_view key,
                                               std::string_view context) {
  FLOE_ASSIGN_OR_RAISE(const nlohmann::json* v, Find(j, key, context));
  if (!v->is_object()) return WrongType(context, key, "an object", *v);
  return v;
}

/// Optional members: absent or null gives nullopt; a present value of the wrong type is an
/// error.
inline Result<std::optional<int64_t>> GetOptionalInt(const nlohmann::json& j, std::string_view key,
                                                     std::string_view context) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RAISE(int64_t v, AsInt(*it, key, context));
  return std::optional<int64_t>(v);
}

inline Result<std::optional<std::string>> GetOptionalString(const nlohmann::json& j,
                                                            std::string_view key,
                                                            std::string_view context) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return WrongType(context, key, "a string", *it);
  return std::optional<std::string>(it->get<std::string>());
}

}  // namespace floe::iceberg::internal
