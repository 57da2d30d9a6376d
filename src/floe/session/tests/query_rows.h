#pragma once

// Reading a statement's result in tests: every row as "v1|v2|..." in the PostgreSQL text
// forms.

#include <string>
#include <vector>

#include "floe/session/session.h"
#include "floe/testing/batch_rows.h"

namespace floe::session {

inline Result<std::vector<std::string>> Rows(session::QueryResult& result) {
  std::vector<std::string> rows;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result.Next());
    if (!batch) break;
    ::floe::testing::AppendBatchRows(*batch, &rows);
  }
  return rows;
}

}  // namespace floe::session
