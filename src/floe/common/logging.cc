#include "floe/common/logging.h"

#include <cstdio>
#include <cstdlib>

namespace floe::internal {

void CheckFailed(const char* file, int line, const char* condition, std::string_view detail) {
  std::fprintf(stderr, "%s:%d: check failed: %s (%.*s)\n", file, line, condition,
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace floe::internal
