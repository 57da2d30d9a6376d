#pragma once

// Base64 (RFC 4648): binary partition values in text, Content-MD5 headers, JWT claims and
// HTTP Basic credentials.

#include <optional>
#include <string>
#include <string_view>

namespace floe {

/// The standard alphabet, padded with '='.
std::string Base64Encode(std::string_view bytes);

/// Decodes the standard or the URL-safe alphabet ('-' and '_'), padding optional; nullopt
/// for any other character.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace floe
