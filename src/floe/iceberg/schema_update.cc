#include "floe/iceberg/schema_update.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/common/ascii.h"
#include "floe/iceberg/snapshot_producer.h"

namespace floe::iceberg {

struct UpdateSchema::Change {
  enum class Kind : uint8_t {
    kAdd,
    kDelete,
    kRename,
    kUpdateType,
    kMakeOptional,
    kRequire,
    kMoveFirst,
    kMoveBefore,
    kMoveAfter,
  };
  Kind kind = Kind::kAdd;
  std::string name;
  std::string parent;  // kAdd
  std::string other;   // kRename: new name; kMoveBefore/After: the reference column
  TypePtr type;        // kAdd, kUpdateType
  bool required = false;
  std::optional<Scalar> default_value;
};

namespace {

/// A mutable copy of a schema's field tree.
struct Node {
  Field field;
  /// Struct fields, a list's element, or a map's key and value.
  std::vector<Node> children;
};

Node ToNode(const Field& field) {
  Node node{field, {}};
  TypeId id = field.type()->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
    for (const Field& child : field.type()->fields()) node.children.push_back(ToNode(child));
  }
  return node;
}

Field ToField(const Node& node) {
  TypeId id = node.field.type()->id();
  std::vector<Field> children;
  for (const Node& child : node.children) children.push_back(ToField(child));
  switch (id) {
    case TypeId::kStruct:
      return node.field.WithType(Struct(std::move(children)));
    case TypeId::kList:
      return node.field.WithType(List(children[0]));
    case TypeId::kMap:
      return node.field.WithType(Map(children[0], children[1]));
    default:
      return node.field;
  }
}

/// The node with `id` under `root` and its parent (root for top-level fields).
bool FindNode(Node& root, int32_t id, Node** parent, size_t* index) {
  for (size_t i = 0; i < root.children.size(); ++i) {
    if (root.children[i].field.field_id() == id) {
      *parent = &root;
      *index = i;
      return true;
    }
    if (FindNode(root.children[i], id, parent, index)) return true;
  }
  return false;
}

void CollectIds(const Node& node, std::set<int32_t>* ids) {
  ids->insert(node.field.field_id());
  for (const Node& child : node.children) CollectIds(child, ids);
}

bool NamesEqual(std::string_view a, std::string_view b, bool case_sensitive) {
  if (case_sensitive) return a == b;
  return EqualsIgnoreAsciiCase(a, b);
}

std::string TypeName(const DataType& type) {
  auto name = IcebergTypeName(type);
  return name.has_value() ? *name : type.ToString();
}

}  // namespace

UpdateSchema::UpdateSchema(TableOperationsPtr ops) : ops_(std::move(ops)) {}

std::unique_ptr<UpdateSchema> UpdateSchema::Make(TableOperationsPtr ops) {
  return std::unique_ptr<UpdateSchema>(new UpdateSchema(std::move(ops)));
}

UpdateSchema& UpdateSchema::CaseSensitive(bool case_sensitive) {
  case_sensitive_ = case_sensitive;
  return *this;
}

UpdateSchema& UpdateSchema::AllowIncompatibleChanges() {
  allow_incompatible_ = true;
  return *this;
}

UpdateSchema& UpdateSchema::AddColumn(std::string parent, std::string name, TypePtr type,
                                      std::optional<Scalar> default_value) {
  auto c = std::make_shared<Change>();
  c->kind = Change::Kind::kAdd;
  c->parent = std::move(parent);
  c->name = std::move(name);
  c->type = std::move(type);
  c->default_value = std::move(default_value);
  changes_.push_back(std::move(c));
  return *this;
}

UpdateSchema& UpdateSchema::AddRequiredColumn(std::string parent, std::string name, TypePtr type,
                                              std::optional<Scalar> default_value) {
  AddColumn(std::move(parent), std::move(name), std::move(type), std::move(default_value));
  std::const_pointer_cast<Change>(changes_.back())->required = true;
  return *this;
}

namespace {
std::shared_ptr<UpdateSchema::Change> MakeChange(UpdateSchema::Change::Kind kind, std::string name,
                                                 std::string other = "") {
  auto c = std::make_shared<UpdateSchema::Change>();
  c->kind = kind;
  c->name = std::move(name);
  c->other = std::move(other);
  return c;
}
}  // namespace

UpdateSchema& UpdateSchema::DeleteColumn(std::string name) {
  changes_.push_back(MakeChange(Change::Kind::kDelete, std::move(name)));
  return *this;
}

UpdateSchema& UpdateSchema::RenameColumn(std::string name, std::string new_name) {
  changes_.push_back(MakeChange(Change::Kind::kRename, std::move(name), std::move(new_name)));
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumn(std::string name, TypePtr new_type) {
  auto c = MakeChange(Change::Kind::kUpdateType, std::move(name));
  c->type = std::move(new_type);
  changes_.push_back(std::move(c));
  return *this;
}

UpdateSchema& UpdateSchema::MakeColumnOptional(std::string name) {
  changes_.push_back(MakeChange(Change::Kind::kMakeOptional, std::move(name)));
  return *this;
}

UpdateSchema& UpdateSchema::RequireColumn(std::string name) {
  changes_.push_back(MakeChange(Change::Kind::kRequire, std::move(name)));
  return *this;
}

UpdateSchema& UpdateSchema::MoveFirst(std::string name) {
  changes_.push_back(MakeChange(Change::Kind::kMoveFirst, std::move(name)));
  return *this;
}

UpdateSchema& UpdateSchema::MoveBefore(std::string name, std::string before_name) {
  changes_.push_back(
      MakeChange(Change::Kind::kMoveBefore, std::move(name), std::move(before_name)));
  return *this;
}

UpdateSchema& UpdateSchema::MoveAfter(std::string name, std::string after_name) {
  changes_.push_back(MakeChange(Change::Kind::kMoveAfter, std::move(name), std::move(after_name)));
  return *this;
}

UpdateSchema& UpdateSchema::SetIdentifierFields(std::vector<std::string> names) {
  identifier_names_ = std::move(names);
  return *this;
}

Result<std::pair<SchemaPtr, int32_t>> UpdateSchema::Apply(const TableMetadata& base) const {
  SchemaPtr schema = base.CurrentSchema();
  if (schema == nullptr) return Status::Corrupt("table {} has no current schema", ops_->name());
  int32_t last_id = std::max(base.last_column_id, schema->highest_field_id());
  Node root{Field("table", Struct({}), false), {}};
  for (const Field& f : schema->fields()) root.children.push_back(ToNode(f));

  // Columns added in this update, by full name, so later changes can name them.
  std::vector<std::pair<std::string, int32_t>> added;
  std::map<int32_t, FieldDefaults> added_defaults;

  auto resolve = [&](const std::string& name) -> Result<int32_t> {
    FLOE_ASSIGN_OR_RAISE(const Field* field, schema->FindFieldByName(name, case_sensitive_));
    if (field != nullptr) return field->field_id();
    for (const auto& [full, id] : added) {
      if (NamesEqual(full, name, case_sensitive_)) return id;
    }
    return Status::Invalid("table {}: cannot update schema: column '{}' does not exist",
                           ops_->name(), name);
  };
  auto find = [&](const std::string& name, Node** parent, size_t* index) -> Status {
    FLOE_ASSIGN_OR_RAISE(int32_t id, resolve(name));
    if (!FindNode(root, id, parent, index)) {
      return Status::Invalid("table {}: cannot update column '{}': it is deleted in this update",
                             ops_->name(), name);
    }
    return Status::OK();
  };
  auto check_sibling = [&](const Node& parent, const std::string& name,
                           const Node* except) -> Status {
    for (const Node& child : parent.children) {
      if (&child != except && NamesEqual(child.field.name(), name, case_sensitive_)) {
        return Status::Invalid("table {}: cannot name a column '{}': a column of that name exists",
                               ops_->name(), name);
      }
    }
    return Status::OK();
  };

  for (const auto& change : changes_) {
    const Change& c = *change;
    switch (c.kind) {
      case Change::Kind::kAdd: {
        Node* parent = &root;
        std::string full_name = c.name;
        if (!c.parent.empty()) {
          Node* grand = nullptr;
          size_t index = 0;
          FLOE_RETURN_NOT_OK(find(c.parent, &grand, &index));
          parent = &grand->children[index];
          TypeId pid = parent->field.type()->id();
          if (pid == TypeId::kList) {
            parent = &parent->children[0];
          } else if (pid == TypeId::kMap) {
            parent = &parent->children[1];
          }
          if (parent->field.type()->id() != TypeId::kStruct) {
            return Status::Invalid("table {}: cannot add column '{}' to '{}': it is not a struct",
                                   ops_->name(), c.name, c.parent);
          }
          full_name = c.parent + "." + c.name;
        } else if (c.name.find('.') != std::string::npos) {
          return Status::Invalid(
              "table {}: cannot add column '{}': the name contains '.'; name the parent struct "
              "separately",
              ops_->name(), c.name);
        }
        if (c.name.empty())
          return Status::Invalid("table {}: cannot add a column with no name", ops_->name());
        FLOE_RETURN_NOT_OK(check_sibling(*parent, c.name, nullptr));
        if (c.required && !c.default_value && !allow_incompatible_) {
          return Status::Invalid(
              "table {}: cannot add required column '{}' without a default value (incompatible "
              "change)",
              ops_->name(), full_name);
        }
        if (c.type == nullptr) {
          return Status::Invalid("table {}: column '{}' has no type", ops_->name(), full_name);
        }
        int32_t id = ++last_id;
        FreshFieldIds fresh(last_id);
        TypePtr type = fresh.Type(c.type);
        last_id = fresh.last_id();
        if (c.default_value) {
          if (c.default_value->is_null() && c.required) {
            return Status::Invalid("table {}: required column '{}' cannot default to null",
                                   ops_->name(), full_name);
          }
          if (!c.default_value->is_null()) {
            added_defaults[id] = FieldDefaults{c.default_value, c.default_value};
          }
        }
        parent->children.push_back(ToNode(Field(c.name, type, !c.required, id)));
        added.emplace_back(full_name, id);
        break;
      }
      case Change::Kind::kDelete: {
        Node* parent = nullptr;
        size_t index = 0;
        FLOE_RETURN_NOT_OK(find(c.name, &parent, &index));
        std::set<int32_t> ids;
        CollectIds(parent->children[index], &ids);
        for (int32_t id : schema->identifier_field_ids()) {
          if (ids.count(id) > 0) {
            return Status::Invalid("table {}: cannot delete identifier field '{}'", ops_->name(),
                                   c.name);
          }
        }
        if (PartitionSpecPtr spec = base.DefaultSpec(); spec != nullptr) {
          for (const PartitionField& pf : spec->fields()) {
            if (ids.count(pf.source_id) > 0 && pf.transform.kind() != TransformKind::kVoid) {
              return Status::Invalid(
                  "table {}: cannot delete column '{}': it is the source of partition field '{}' "
                  "of the current partition spec",
                  ops_->name(), c.name, pf.name);
            }
          }
        }
        parent->children.erase(parent->children.begin() + static_cast<ptrdiff_t>(index));
        break;
      }
      case Change::Kind::kRename: {
        Node* parent = nullptr;
        size_t index = 0;
        FLOE_RETURN_NOT_OK(find(c.name, &parent, &index));
        TypeId pid = parent->field.type()->id();
        if (parent != &root && pid != TypeId::kStruct) {
          return Status::Invalid(
              "table {}: cannot rename '{}': list elements and map keys and "
              "values have fixed names",
              ops_->name(), c.name);
        }
        if (c.other.empty() || c.other.find('.') != std::string::npos) {
          return Status::Invalid("table {}: cannot rename '{}' to '{}': invalid name", ops_->name(),
                                 c.name, c.other);
        }
        Node& node = parent->children[index];
        FLOE_RETURN_NOT_OK(check_sibling(*parent, c.other, &node));
        node.field = node.field.WithName(c.other);
        break;
      }
      case Change::Kind::kUpdateType: {
        Node* parent = nullptr;
        size_t index = 0;
        FLOE_RETURN_NOT_OK(find(c.name, &parent, &index));
        Node& node = parent->children[index];
        const DataType& from = *node.field.type();
        if (c.type == nullptr) {
          return Status::Invalid("table {}: no type given for column '{}'", ops_->name(), c.name);
        }
        if (from.Equals(*c.type)) break;
        bool nested =
            from.id() == TypeId::kStruct || from.id() == TypeId::kList || from.id() == TypeId::kMap;
        if (nested || !IsPromotionAllowed(from, *c.type, base.format_version >= 3)) {
          return Status::Invalid("table {}: cannot change column '{}' from {} to {}", ops_->name(),
                                 c.name, TypeName(from), TypeName(*c.type));
        }
        node.field = node.field.WithType(c.type);
        break;
      }
      case Change::Kind::kMakeOptional:
      case Change::Kind::kRequire: {
        Node* parent = nullptr;
        size_t index = 0;
        FLOE_RETURN_NOT_OK(find(c.name, &parent, &index));
        Node& node = parent->children[index];
        bool make_required = c.kind == Change::Kind::kRequire;
        if (make_required && node.field.nullable() && !allow_incompatible_) {
          return Status::Invalid(
              "table {}: cannot make column '{}' required (incompatible change: existing rows "
              "may hold nulls)",
              ops_->name(), c.name);
        }
        node.field = node.field.WithNullable(!make_required);
        break;
      }
      case Change::Kind::kMoveFirst:
      case Change::Kind::kMoveBefore:
      case Change::Kind::kMoveAfter: {
        Node* parent = nullptr;
        size_t index = 0;
        FLOE_RETURN_NOT_OK(find(c.name, &parent, &index));
        Node moving = parent->children[index];
        size_t target = 0;
        if (c.kind != Change::Kind::kMoveFirst) {
          Node* ref_parent = nullptr;
          size_t ref_index = 0;
          FLOE_RETURN_NOT_OK(find(c.other, &ref_parent, &ref_index));
          if (ref_parent != parent) {
            return Status::Invalid(
                "table {}: cannot move '{}' next to '{}': they are not in the "
                "same struct",
                ops_->name(), c.name, c.other);
          }
          if (ref_index == index) {
            return Status::Invalid("table {}: cannot move '{}' relative to itself", ops_->name(),
                                   c.name);
          }
          int32_t ref_id = parent->children[ref_index].field.field_id();
          parent->children.erase(parent->children.begin() + static_cast<ptrdiff_t>(index));
          for (size_t i = 0; i < parent->children.size(); ++i) {
            if (parent->children[i].field.field_id() == ref_id) target = i;
          }
          if (c.kind == Change::Kind::kMoveAfter) ++target;
        } else {
          parent->children.erase(parent->children.begin() + static_cast<ptrdiff_t>(index));
        }
        parent->children.insert(parent->children.begin() + static_cast<ptrdiff_t>(target),
                                std::move(moving));
        break;
      }
    }
  }

  std::vector<Field> fields;
  for (const Node& n : root.children) fields.push_back(ToField(n));
  std::set<int32_t> present;
  for (const Node& n : root.children) CollectIds(n, &present);
  std::map<int32_t, FieldDefaults> defaults;
  for (const auto& [id, d] : schema->defaults()) {
    if (present.count(id) > 0) defaults[id] = d;
  }
  for (const auto& [id, d] : added_defaults) defaults[id] = d;

  std::vector<int32_t> identifiers = schema->identifier_field_ids();
  if (identifier_names_) {
    FLOE_ASSIGN_OR_RAISE(SchemaPtr probe, Schema::Make(0, fields, {}, defaults));
    identifiers.clear();
    for (const std::string& name : *identifier_names_) {
      FLOE_ASSIGN_OR_RAISE(const Field* field, probe->FindFieldByName(name, case_sensitive_));
      if (field == nullptr) {
        return Status::Invalid("table {}: identifier field '{}' does not exist", ops_->name(),
                               name);
      }
      identifiers.push_back(field->field_id());
    }
  }
  int32_t new_id = 0;
  for (const auto& s : base.schemas) new_id = std::max(new_id, s->schema_id() + 1);
  auto made = Schema::Make(new_id, std::move(fields), std::move(identifiers), std::move(defaults));
  if (!made.has_value()) {
    return made.error().WithPrefix(
        fmt::format("table {}: invalid schema after update: ", ops_->name()));
  }
  return std::make_pair(*made, last_id);
}

Result<Table> UpdateSchema::Commit() {
  FLOE_ASSIGN_OR_RAISE(Table current, ops_->Refresh());
  FLOE_ASSIGN_OR_RAISE(CommitRetryOptions retry,
                       CommitRetryOptions::FromProperties(current.metadata->properties));
  return RunWithRetries(retry, [&](int) -> Result<Table> {
    FLOE_ASSIGN_OR_RAISE(Table table, ops_->Refresh());
    const TableMetadata& base = *table.metadata;
    FLOE_ASSIGN_OR_RAISE(auto applied, Apply(base));
    // A schema equal to the current one changes nothing.
    SchemaPtr cur = base.CurrentSchema();
    auto same = Schema::Make(cur->schema_id(), applied.first->fields(),
                             applied.first->identifier_field_ids(), applied.first->defaults());
    if (same.has_value() && (*same)->Equals(*cur) && applied.second == base.last_column_id) {
      return table;
    }
    std::vector<TableRequirement> requirements = {
        TableRequirement::AssertCurrentSchemaId(base.current_schema_id),
        TableRequirement::AssertLastAssignedFieldId(base.last_column_id)};
    if (!base.table_uuid.empty()) {
      requirements.insert(requirements.begin(), TableRequirement::AssertTableUuid(base.table_uuid));
    }
    std::vector<TableUpdate> updates = {update::AddSchema{applied.first, applied.second},
                                        update::SetCurrentSchema{-1}};
    return ops_->Commit(requirements, updates);
  });
}

}  // namespace floe::iceberg
