#include "floe/exec/iceberg_write.h"

namespace floe::exec {}  // namespace floe::exec
