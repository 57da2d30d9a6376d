#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/schema.h"
#include "floe/type/type.h"

namespace floe::iceberg {

/// The table property holding the default name mapping.
inline constexpr std::string_view kDefaultNameMappingProperty = "schema.name-mapping.default";

/// One entry of a name mapping (spec, "Column Projection" / "Name Mapping Serialization"):
/// the names a file column may carry, the field id they map to (absent: the names are
/// known but map to no field), and the mapping of its nested fields.
struct MappedField {
  std::optional<int32_t> field_id;
  std::vector<std::string> names;
  std::vector<MappedField> fields;

  bool operator==(const MappedField& other) const = default;
};

/// A name mapping: resolves the columns of data files written without field ids to
/// Iceberg field ids by their name paths.
class NameMapping {
 public:
  NameMapping() = default;
  explicit NameMapping(std::vector<MappedField> fields) : fields_(std::move(fields)) {}

  /// Parses the JSON form (an array of {"field-id", "names", "fields"} objects).
  /// `context` names the source in errors (kCorrupt).
  static Result<NameMapping> FromJson(const nlohmann::json& json, std::string_view context);
  static Result<NameMapping> FromJsonString(std::string_view text, std::string_view context);
  /// The mapping in `properties[schema.name-mapping.default]`, or nullopt when unset.
  static Result<std::optional<NameMapping>> FromTableProperties(
      const std::map<std::string, std::string>& properties, std::string_view context);
  /// The mapping that maps each field of `schema` by its current name (list elements as
  /// "element", map keys and values as "key" and "value").
  static NameMapping FromSchema(const Schema& schema);

  nlohmann::json ToJson() const;
  std::string ToJsonString() const;

  const std::vector<MappedField>& fields() const { return fields_; }

  /// The field id mapped for a name path (e.g. {"profile", "email"}, {"scores", "element"}),
  /// or nullopt when the path is not mapped or maps to no id.
  std::optional<int32_t> Find(const std::vector<std::string>& name_path) const;
  /// The mapping entry at a name path, or nullptr.
  const MappedField* FindEntry(const std::vector<std::string>& name_path) const;

  /// Applies the mapping to a data file's schema: every field (at every depth) gets the id
  /// its name path maps to; fields whose path is not mapped get kNoFieldId (readers treat
  /// them as absent). Fields that already carry ids are re-mapped too, since the mapping is
  /// only applied to files without ids. List elements and map keys/values are matched by
  /// their name in the file, falling back to "element" / "key" / "value".
  floe::SchemaPtr Apply(const floe::Schema& file_schema) const;

  bool operator==(const NameMapping& other) const { return fields_ == other.fields_; }

 private:
  std::vector<MappedField> fields_;
};

}  // namespace floe::iceberg
