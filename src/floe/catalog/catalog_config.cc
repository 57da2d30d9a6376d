#include "floe/catalog/catalog_config.h"

namespace floe::catalog {}  // namespace floe::catalog
