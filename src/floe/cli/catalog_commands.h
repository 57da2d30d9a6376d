#pragma once

// `floe catalog serve`: the Iceberg REST catalog specification served over a floe catalog.

#include "floe/cli/command.h"

namespace floe::cli {

/// Registers `floe catalog ...` on `app`; the parsed command is stored into `action`.
void AddCatalogCommands(CLI::App* app, CommandAction* action);

}  // namespace floe::cli
