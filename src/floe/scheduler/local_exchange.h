#pragma once

// The exchange of a query that runs in one process (exec/exchange_service.h).

#include <memory>
#include <string>

#include "floe/exec/exchange_service.h"
#include "floe/exec/memory_manager.h"

namespace floe::scheduler {

/// The in-process exchange of one query. Buffers are counted in a reservation of
/// `memory`; a writer whose batches do not fit writes them to spill files in
/// `spill_directory`. Everything is released and every file removed when it is destroyed.
std::shared_ptr<exec::ExchangeService> MakeLocalExchange(
    std::shared_ptr<exec::MemoryManager> memory, std::string spill_directory);

}  // namespace floe::scheduler
