#pragma once

// Bytes as text: Base64 (RFC 4648: binary partition values, Content-MD5 headers, JWT
// claims, HTTP Basic credentials) and hexadecimal (digests, signatures, tokens, binary
// values in JSON).

#include <optional>
#include <string>
#include <string_view>

namespace floe {

/// Two lowercase hex digits per byte.
std::string HexEncode(std::string_view bytes);

/// The standard alphabet, padded with '='.
std::string Base64Encode(std::string_view bytes);

/// Decodes the standard or the URL-safe alphabet ('-' and '_'), padding optional; nullopt
/// for any other character.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace floe
