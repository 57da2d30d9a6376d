#include "floe/exec/iceberg_metadata_tables.h"

namespace floe::exec {}  // namespace floe::exec
