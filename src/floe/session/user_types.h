#pragma once

// The session's own types: composite types (CREATE TYPE name AS (field type, ...)) and
// domains (CREATE DOMAIN name AS type [NOT NULL] [CHECK (...)]), kept in the session, for an
// Iceberg catalog has no place for them. A composite type is a struct of its fields; a domain
// is its base type, whose values the binder checks against its constraints wherever a value
// becomes one of the domain (casts, json(b)_populate_record, attributes of composite types).
// The binder resolves type names against the session's (plan::BindOptions). A table column
// of a composite type is an Iceberg struct column; one of a domain is refused.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/plan/binder.h"
#include "floe/sql/ast.h"

namespace floe::session {

class UserTypeRegistry {
 public:
  UserTypeRegistry() : types_(std::make_shared<const plan::UserTypes>()) {}

  /// The types by name as the binder takes them: a snapshot that later statements do not
  /// change.
  const std::shared_ptr<const plan::UserTypes>& types() const { return types_; }

  /// CREATE TYPE name AS (...). kConstraint "type \"t\" already exists" (also for the name of
  /// a built-in type or a domain); kBind for an unknown field type or a field given twice
  /// (`text` places it); kNotSupported for a name qualified by another schema than public.
  Status Create(const sql::CreateTypeStatement& statement, std::string_view text);

  /// CREATE DOMAIN: as Create for its name; its CHECK expressions bind with VALUE of the base
  /// type (kBind placed in `text` when one does not, or is not boolean).
  Status CreateDomain(const sql::CreateDomainStatement& statement, std::string_view text,
                      const plan::BindOptions& options);

  /// DROP TYPE / DROP DOMAIN [IF EXISTS] a, b [CASCADE]. kNotFound "type \"t\" does not
  /// exist" (unless IF EXISTS); kBind "\"t\" is not a domain" (DROP DOMAIN of a composite
  /// type) or "\"t\" is a domain" (DROP TYPE of a domain); kConstraint when another type uses
  /// the type (a field of it, a domain over it; CASCADE is kNotSupported then: PostgreSQL
  /// would drop those fields).
  Status Drop(const sql::DropStatement& statement);

 private:
  // Records `name`'s uses of the session's types named in `type` (itself, or its element).
  void AddUses(const std::string& name, const sql::TypeName& type);

  std::shared_ptr<const plan::UserTypes> types_;
  /// Per type, the session's types it uses.
  std::map<std::string, std::set<std::string>> uses_;
};

}  // namespace floe::session
