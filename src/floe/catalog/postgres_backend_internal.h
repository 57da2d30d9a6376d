#pragma once

// Parts of the PostgreSQL backend that its tests reach directly.

#include <string>
#include <string_view>

namespace floe::catalog::internal {

/// A statement written with `?` placeholders (SqlSession's form) with each `?` replaced by
/// `$1`, `$2`, ... in order (PostgreSQL's form); `*count` is set to the number replaced.
/// A `?` inside a string literal ('...', E'...' with backslash escapes, $tag$...$tag$), a
/// quoted identifier ("...") or a comment (-- ..., /* ... */, nested) is text and stays.
std::string NumberPlaceholders(std::string_view sql, int* count);

}  // namespace floe::catalog::internal
