#pragma once

namespace floe::catalog {}  // namespace floe::catalog
