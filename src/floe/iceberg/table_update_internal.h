#pragma once

// What table_update.cc and table_update_json.cc share. Private to floe/iceberg.

#include <cstdint>

#include "floe/iceberg/table_update.h"

namespace floe::iceberg::internal {

/// The newest format version floe writes (upgrade-format-version, new tables, add-snapshot
/// JSON).
inline constexpr int kMaxWrittenFormatVersion = 3;

/// A std::visit visitor made of one lambda per alternative.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// A requirement of `kind` on the id `id` (the assert-...-id requirements).
TableRequirement MakeIdRequirement(TableRequirement::Kind kind, int32_t id);

}  // namespace floe::iceberg::internal
