#pragma once

// The session's composite types (CREATE TYPE name AS (field type, ...)): kept in the
// session, for an Iceberg catalog has no place for them. A composite type is a struct of its
// fields; the binder resolves type names against the session's (plan::BindOptions), so that
// casts (ROW(...)::t, NULL::t), json(b)_populate_record and table columns can use them. A
// table column of a composite type is an Iceberg struct column.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/plan/binder.h"
#include "floe/sql/ast.h"

namespace floe::session {

class CompositeTypeRegistry {
 public:
  CompositeTypeRegistry() : types_(std::make_shared<const plan::CompositeTypes>()) {}

  /// The types by name as the binder takes them: a snapshot that later statements do not
  /// change.
  const std::shared_ptr<const plan::CompositeTypes>& types() const { return types_; }

  /// CREATE TYPE name AS (...). kConstraint "type \"t\" already exists" (also for the name of
  /// a built-in type); kBind for an unknown field type or a field given twice (`text` places
  /// it); kNotSupported for a name qualified by another schema than public. Field types bind
  /// as table columns' do (character(n) as text).
  Status Create(const sql::CreateTypeStatement& statement, std::string_view text);

  /// DROP TYPE [IF EXISTS] a, b [CASCADE]. kNotFound "type \"t\" does not exist" (unless IF
  /// EXISTS); kConstraint when another composite type has a field of the type (CASCADE is
  /// kNotSupported then: PostgreSQL would drop those fields).
  Status Drop(const sql::DropStatement& statement);

 private:
  std::shared_ptr<const plan::CompositeTypes> types_;
  /// Per type, the composite types its fields name.
  std::map<std::string, std::set<std::string>> uses_;
};

}  // namespace floe::session
