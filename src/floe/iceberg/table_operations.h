#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

/// Where one table's metadata lives and how a new version replaces it: the seam between
/// transactions (which produce requirements and updates) and catalogs (which check them,
/// write the next metadata file and swap it in atomically). Implementations are
/// thread-safe; every call goes to the catalog (nothing is cached between calls).
class TableOperations {
 public:
  virtual ~TableOperations() = default;

  /// The table as currently committed. kNotFound when it does not exist (any more).
  virtual Result<Table> Refresh() const = 0;

  /// Checks `requirements` against the current metadata and, when they hold, applies
  /// `updates`, writes the next metadata file and atomically makes it current; returns
  /// the table as committed. A failed requirement or a lost compare-and-set is
  /// kCommitConflict (the caller may refresh and retry); kCommitStateUnknown means the
  /// outcome could not be learned (the new metadata may be current: the caller must not
  /// delete anything it references); other errors mean the commit did not happen. The
  /// metadata file is written only by this call.
  virtual Result<Table> Commit(const std::vector<TableRequirement>& requirements,
                               const std::vector<TableUpdate>& updates) = 0;

  /// The FileIO for the table's files (data, manifests, manifest lists).
  virtual std::shared_ptr<const io::FileIO> io() const = 0;

  /// The table's name for messages ("db.events").
  virtual std::string name() const = 0;
};

using TableOperationsPtr = std::shared_ptr<TableOperations>;

}  // namespace floe::iceberg
