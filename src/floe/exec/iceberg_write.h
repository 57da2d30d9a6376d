#pragma once

namespace floe::exec {}  // namespace floe::exec
