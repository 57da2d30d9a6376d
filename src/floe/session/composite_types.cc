#include "floe/session/composite_types.h"

#include <utility>
#include <vector>

#include "floe/type/sql_type_name.h"

namespace floe::session {

namespace {

// The one-part name of a type as written (`t` or `public.t`).
Result<std::string> TypeKey(const std::vector<std::string>& name) {
  if (name.size() == 2 && name[0] == "public") return name[1];
  if (name.size() != 1) {
    std::string joined;
    for (const std::string& part : name) joined += (joined.empty() ? "" : ".") + part;
    return Status::NotSupported("composite types live in the session, not in schema \"{}\"",
                                joined.substr(0, joined.rfind('.')));
  }
  return name[0];
}

bool IsBuiltinTypeName(const std::string& name) {
  return TypeFromSqlName(name) != nullptr || name == "numeric" || name == "decimal" ||
         name == "record" || name == "interval";
}

}  // namespace

Status CompositeTypeRegistry::Create(const sql::CreateTypeStatement& statement,
                                     std::string_view text) {
  FLOE_ASSIGN_OR_RAISE(std::string name, TypeKey(statement.name));
  if (types_->count(name) > 0 || IsBuiltinTypeName(name)) {
    return Status::Constraint("type \"{}\" already exists", name);
  }
  std::vector<Field> fields;
  std::set<std::string> seen;
  std::set<std::string> uses;
  for (const sql::ColumnDef& column : statement.fields) {
    if (!seen.insert(column.name).second) {
      return Status::Bind("column \"{}\" specified more than once", column.name);
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr type, plan::BindType(column.type, text, types_));
    // A field of another composite type (or an array of one) depends on it.
    for (std::string used : {column.type.name, column.type.name.substr(1)}) {
      if (used.starts_with("public.")) used = used.substr(7);
      if (types_->count(used) > 0) uses.insert(used);
    }
    fields.emplace_back(column.name, std::move(type), true);
  }
  auto next = std::make_shared<plan::CompositeTypes>(*types_);
  next->emplace(name, Struct(std::move(fields)));
  types_ = std::move(next);
  uses_[name] = std::move(uses);
  return Status::OK();
}

Status CompositeTypeRegistry::Drop(const sql::DropStatement& statement) {
  std::vector<std::string> names;
  for (const std::vector<std::string>& parts : statement.names) {
    FLOE_ASSIGN_OR_RAISE(std::string name, TypeKey(parts));
    if (types_->count(name) == 0) {
      if (statement.if_exists) continue;
      return Status::NotFound("type \"{}\" does not exist", name);
    }
    names.push_back(std::move(name));
  }
  const std::set<std::string> dropping(names.begin(), names.end());
  for (const auto& [user, used] : uses_) {
    if (dropping.count(user) > 0) continue;
    for (const std::string& name : names) {
      if (used.count(name) == 0) continue;
      if (statement.cascade) {
        return Status::NotSupported(
            "DROP TYPE {} CASCADE: composite type {} has a field of it, which PostgreSQL would "
            "drop; drop or recreate {} first",
            name, user, user);
      }
      return Status::Constraint(
          "cannot drop type {} because other objects depend on it (composite type {} has a field "
          "of it)",
          name, user);
    }
  }
  auto next = std::make_shared<plan::CompositeTypes>(*types_);
  for (const std::string& name : names) {
    next->erase(name);
    uses_.erase(name);
  }
  types_ = std::move(next);
  return Status::OK();
}

}  // namespace floe::session
