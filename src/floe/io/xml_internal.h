#pragma once

// The little XML the AWS APIs floe calls answer with (S3, STS): the text of named elements,
// and escaping for the request bodies floe writes. Not a general XML parser: elements are
// found by name, without nesting of the same name, and the five predefined entities are
// decoded.

#include <string>
#include <string_view>
#include <vector>

namespace floe::io::internal {

/// The text of each <tag>...</tag> in `xml`, entities decoded.
std::vector<std::string> XmlValues(std::string_view xml, std::string_view tag);
/// The first one, or "" when there is none.
std::string XmlValue(std::string_view xml, std::string_view tag);
/// `text` with &, <, >, " and ' escaped.
std::string XmlEscape(std::string_view text);

}  // namespace floe::io::internal
