#pragma once

#include <string>
#include <string_view>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// Encodes a non-null primitive value in the spec's single-value binary serialization
/// (Appendix D), as used for manifest bounds and partition summaries:
///   boolean            one byte, 0x00 or 0x01
///   int, date          4 bytes little-endian
///   long, time, timestamps (all units)   8 bytes little-endian
///   float / double     4 / 8 bytes little-endian IEEE 754
///   decimal(P,S)       the unscaled value as minimal big-endian two's complement
///   string             UTF-8 bytes; uuid 16 bytes big-endian; fixed and binary as is
/// kInvalidArgument for NULL and for nested types.
Result<std::string> SerializeValue(const Scalar& value);

/// Decodes bytes written by SerializeValue for a value of `type`. Also accepts the
/// narrower encodings of promoted types (4 bytes for a long, float bytes for a double),
/// since bounds written before a promotion keep their old width. A wrong length is
/// kInvalidArgument naming the type and the length; so is a decimal that does not fit
/// the type's precision (more than 16 bytes) and a nested type.
Result<Scalar> DeserializeValue(const TypePtr& type, std::string_view bytes);

/// The unscaled value of a decimal as its minimal big-endian two's-complement bytes
/// (at least one byte; 0 -> 0x00, -1 -> 0xff, 128 -> 0x00 0x80).
std::string DecimalToMinimalBytes(Int128 unscaled);

}  // namespace floe::iceberg
