#include "floe/session/user_types.h"

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
    return Status::NotSupported("types of the session live in it, not in schema \"{}\"",
                                joined.substr(0, joined.rfind('.')));
  }
  return name[0];
}

bool IsBuiltinTypeName(const std::string& name) {
  return TypeFromSqlName(name) != nullptr || name == "numeric" || name == "decimal" ||
         name == "record" || name == "interval";
}

// A struct equal to `type` that is another object (a domain's own, see plan::UserTypes);
// other types as they are.
TypePtr OwnStruct(const TypePtr& type) {
  if (type->id() != TypeId::kStruct) return type;
  std::vector<Field> fields(type->fields().begin(), type->fields().end());
  return Struct(std::move(fields));
}

}  // namespace

void UserTypeRegistry::AddUses(const std::string& name, const sql::TypeName& type) {
  for (std::string used : {type.name, type.name.substr(1)}) {
    if (used.starts_with("public.")) used = used.substr(7);
    if (types_->composites.count(used) > 0 || types_->domains.count(used) > 0) {
      uses_[name].insert(used);
    }
  }
}

Status UserTypeRegistry::Create(const sql::CreateTypeStatement& statement, std::string_view text) {
  FLOE_ASSIGN_OR_RAISE(std::string name, TypeKey(statement.name));
  if (types_->composites.count(name) > 0 || types_->domains.count(name) > 0 ||
      IsBuiltinTypeName(name)) {
    return Status::Constraint("type \"{}\" already exists", name);
  }
  plan::UserTypes::Composite composite;
  std::vector<Field> fields;
  std::set<std::string> seen;
  for (const sql::ColumnDef& column : statement.fields) {
    if (!seen.insert(column.name).second) {
      return Status::Bind("column \"{}\" specified more than once", column.name);
    }
    FLOE_ASSIGN_OR_RAISE(TypePtr type, plan::BindType(column.type, text, types_));
    fields.emplace_back(column.name, std::move(type), true);
    composite.field_types.push_back(column.type);
  }
  composite.type = Struct(std::move(fields));
  uses_.erase(name);
  for (const sql::ColumnDef& column : statement.fields) AddUses(name, column.type);
  auto next = std::make_shared<plan::UserTypes>(*types_);
  next->composites.emplace(name, std::move(composite));
  types_ = std::move(next);
  return Status::OK();
}

Status UserTypeRegistry::CreateDomain(const sql::CreateDomainStatement& statement,
                                      std::string_view text, const plan::BindOptions& options) {
  FLOE_ASSIGN_OR_RAISE(std::string name, TypeKey(statement.name));
  if (types_->composites.count(name) > 0 || types_->domains.count(name) > 0 ||
      IsBuiltinTypeName(name)) {
    return Status::Constraint("type \"{}\" already exists", name);
  }
  plan::UserTypes::Domain domain;
  FLOE_ASSIGN_OR_RAISE(TypePtr base, plan::BindType(statement.type, text, types_));
  domain.type = OwnStruct(base);
  domain.base = statement.type;
  domain.not_null = statement.not_null;
  plan::BindOptions check_options = options;
  check_options.user_types = types_;
  int unnamed = 0;
  for (const sql::CreateDomainStatement::Check& check : statement.checks) {
    plan::UserTypes::Domain::Check bound;
    // PostgreSQL names the unnamed ones <domain>_check, <domain>_check1, ...
    bound.name = !check.name.empty() ? check.name
                 : unnamed++ == 0    ? name + "_check"
                                     : name + "_check" + std::to_string(unnamed - 1);
    FLOE_ASSIGN_OR_RAISE(bound.predicate,
                         plan::BindDomainCheck(*check.expr, domain.type, text, check_options));
    domain.checks.push_back(std::move(bound));
  }
  // A DEFAULT applies to table columns of the domain, which floe refuses; it is not kept.
  uses_.erase(name);
  AddUses(name, statement.type);
  auto next = std::make_shared<plan::UserTypes>(*types_);
  next->domains.emplace(name, std::move(domain));
  types_ = std::move(next);
  return Status::OK();
}

Status UserTypeRegistry::Drop(const sql::DropStatement& statement) {
  const bool domains = statement.object == sql::DropStatement::ObjectKind::kDomain;
  std::vector<std::string> names;
  for (const std::vector<std::string>& parts : statement.names) {
    FLOE_ASSIGN_OR_RAISE(std::string name, TypeKey(parts));
    const bool is_domain = types_->domains.count(name) > 0;
    if (!is_domain && types_->composites.count(name) == 0) {
      if (statement.if_exists) continue;
      return Status::NotFound("type \"{}\" does not exist", name);
    }
    if (domains && !is_domain) return Status::Bind("\"{}\" is not a domain", name);
    names.push_back(std::move(name));
  }
  const std::set<std::string> dropping(names.begin(), names.end());
  for (const auto& [user, used] : uses_) {
    if (dropping.count(user) > 0) continue;
    for (const std::string& name : names) {
      if (used.count(name) == 0) continue;
      const char* how =
          types_->domains.count(user) > 0 ? "is a domain over it" : "has a field of it";
      if (statement.cascade) {
        return Status::NotSupported(
            "DROP {} {} CASCADE: type {} {}, which PostgreSQL would drop; drop or recreate {} "
            "first",
            domains ? "DOMAIN" : "TYPE", name, user, how, user);
      }
      return Status::Constraint(
          "cannot drop type {} because other objects depend on it (type {} {})", name, user, how);
    }
  }
  auto next = std::make_shared<plan::UserTypes>(*types_);
  for (const std::string& name : names) {
    next->composites.erase(name);
    next->domains.erase(name);
    uses_.erase(name);
  }
  types_ = std::move(next);
  return Status::OK();
}

}  // namespace floe::session
