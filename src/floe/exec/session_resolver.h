#pragma once

// How a statement's relation names resolve in a session: catalog tables (loaded once per
// statement, by the binder's contract) and the built-in table functions.

#include <functional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/common/result.h"
#include "floe/plan/binder.h"

namespace floe::exec {

class SessionResolver final : public plan::RelationResolver {
 public:
  /// `catalog` returns the session's catalog, or nullptr when there is none yet (no table
  /// can exist then). `path_map` is the iceberg.path_map setting ("FROM=TO;...").
  SessionResolver(std::function<Result<catalog::Catalog*>()> catalog, std::string search_path,
                  std::string path_map);

  Result<plan::TableSourcePtr> ResolveTable(const std::vector<std::string>& name) override;
  Result<plan::TableSourcePtr> ResolveTableFunction(
      const std::string& name, const std::vector<plan::TableFunctionArg>& args) override;

 private:
  std::function<Result<catalog::Catalog*>()> catalog_;
  std::string search_path_;
  std::string path_map_;
};

}  // namespace floe::exec
