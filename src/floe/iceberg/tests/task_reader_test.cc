#include "floe/iceberg/task_reader.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {
TEST(TaskReaderPlaceholder, Builds) {}
}  // namespace
}  // namespace floe::iceberg
