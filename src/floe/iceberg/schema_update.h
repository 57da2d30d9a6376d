#pragma once

// Schema evolution (spec, "Schema Evolution"): adds, drops, renames, moves, type
// promotions, nullability changes and identifier fields, applied by field id so that data
// written before the change keeps reading correctly.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/table_update.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// Builds a new schema from the table's current one and commits it (AddSchema +
/// SetCurrentSchema(-1), with the requirements assert-current-schema-id and
/// assert-last-assigned-field-id). Column names refer to the current schema (dotted names
/// reach nested fields); changes are recorded in call order and checked by Apply/Commit,
/// whose errors name the column. New fields get ids from the table's last-column-id + 1.
/// On a concurrent schema change the changes are applied again to the new schema.
class UpdateSchema {
 public:
  static std::unique_ptr<UpdateSchema> Make(TableOperationsPtr ops);

  /// Column names match ignoring ASCII case when false (default true).
  UpdateSchema& CaseSensitive(bool case_sensitive);
  /// Allows adding required columns without a default and making columns required.
  UpdateSchema& AllowIncompatibleChanges();

  /// Adds an optional column at the end of the top level (`parent` empty) or of the struct
  /// named `parent` (for a list or map, the struct of its element or value). Nested
  /// fields of `type` get fresh ids. A name that is already taken is kInvalidArgument
  /// (unless that column is deleted in this update).
  UpdateSchema& AddColumn(std::string parent, std::string name, TypePtr type,
                          std::optional<Scalar> default_value = std::nullopt);
  UpdateSchema& AddColumn(std::string name, TypePtr type,
                          std::optional<Scalar> default_value = std::nullopt) {
    return AddColumn("", std::move(name), std::move(type), std::move(default_value));
  }
  /// Adds a required column; it needs a default (rows written before it read as the
  /// default) unless incompatible changes are allowed.
  UpdateSchema& AddRequiredColumn(std::string parent, std::string name, TypePtr type,
                                  std::optional<Scalar> default_value = std::nullopt);
  UpdateSchema& AddRequiredColumn(std::string name, TypePtr type,
                                  std::optional<Scalar> default_value = std::nullopt) {
    return AddRequiredColumn("", std::move(name), std::move(type), std::move(default_value));
  }
  /// Drops a column (with its nested fields). Identifier fields and sources of the current
  /// partition spec cannot be dropped.
  UpdateSchema& DeleteColumn(std::string name);
  /// Renames a column (the last part of the dotted name only).
  UpdateSchema& RenameColumn(std::string name, std::string new_name);
  /// Promotes a primitive column's type: int -> long, float -> double, decimal(P,S) ->
  /// decimal(P',S) with P' > P. Anything else is kInvalidArgument naming the column and
  /// both types.
  UpdateSchema& UpdateColumn(std::string name, TypePtr new_type);
  UpdateSchema& MakeColumnOptional(std::string name);
  /// Makes a column required (an incompatible change; needs AllowIncompatibleChanges).
  UpdateSchema& RequireColumn(std::string name);
  UpdateSchema& MoveFirst(std::string name);
  UpdateSchema& MoveBefore(std::string name, std::string before_name);
  UpdateSchema& MoveAfter(std::string name, std::string after_name);
  /// Replaces the identifier fields (names resolved against the new schema).
  UpdateSchema& SetIdentifierFields(std::vector<std::string> names);

  /// The new schema for `base` and the table's new last-column-id.
  Result<std::pair<SchemaPtr, int32_t>> Apply(const TableMetadata& base) const;
  /// Applies the changes to the current metadata and commits them.
  Result<Table> Commit();

  /// One recorded change (defined with the implementation).
  struct Change;

 private:
  explicit UpdateSchema(TableOperationsPtr ops);

  TableOperationsPtr ops_;
  bool case_sensitive_ = true;
  bool allow_incompatible_ = false;
  std::vector<std::shared_ptr<const Change>> changes_;
  std::optional<std::vector<std::string>> identifier_names_;
};

}  // namespace floe::iceberg
