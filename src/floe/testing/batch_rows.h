#pragma once

// Rows of record batches as text in tests: every row as "v1|v2|..." in the PostgreSQL text
// forms (batch/value_format.h; NULL as NULL).

#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/value_format.h"

namespace floe::testing {

/// Appends every row of `batch` to `rows`, its values joined by `separator`.
inline void AppendBatchRows(const RecordBatch& batch, std::vector<std::string>* rows,
                            std::string_view separator = "|") {
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string row;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) row += separator;
      row += FormatValue(*batch.column(c), r);
    }
    rows->push_back(std::move(row));
  }
}

inline std::vector<std::string> BatchRows(const RecordBatch& batch) {
  std::vector<std::string> rows;
  AppendBatchRows(batch, &rows);
  return rows;
}

inline std::vector<std::string> BatchRows(const std::vector<RecordBatchPtr>& batches) {
  std::vector<std::string> rows;
  for (const RecordBatchPtr& batch : batches) AppendBatchRows(*batch, &rows);
  return rows;
}

}  // namespace floe::testing
