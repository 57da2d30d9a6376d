// Placeholder; tests come with the feature.
#include <gtest/gtest.h>
