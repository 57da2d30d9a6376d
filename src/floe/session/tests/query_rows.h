#pragma once

// Reading a statement's result in tests: every row as "v1|v2|..." in the PostgreSQL text
// forms.

#include <string>
#include <vector>

#include "floe/batch/value_format.h"
#include "floe/session/session.h"

namespace floe::session {

inline Result<std::vector<std::string>> Rows(session::QueryResult& result) {
  std::vector<std::string> rows;
  while (true) {
    FLOE_ASSIGN_OR_RAISE(RecordBatchPtr batch, result.Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        if (c > 0) row += "|";
        row += FormatValue(*batch->column(c), r);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace floe::session
