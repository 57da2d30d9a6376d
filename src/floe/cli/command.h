#pragma once

// What every command file shares: a subcommand's callback stores the action that main runs
// after parsing (so that parse errors print before anything starts).

#include <functional>

#include "floe/common/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace floe::cli {

using CommandAction = std::function<Status()>;

}  // namespace floe::cli
