#pragma once

// Shapes of list types as PostgreSQL's arrays see them: a list of lists is a
// multidimensional array.

#include "floe/type/type.h"

namespace floe {

/// Lists nested in a list type: 1 for list<int32>, 2 for list<list<int32>>, 0 for non-lists.
inline int ListDepth(const DataType& t) {
  int depth = 0;
  for (const DataType* x = &t; x->id() == TypeId::kList; x = x->field(0).type().get()) ++depth;
  return depth;
}

/// The innermost element type of a list type (the type itself for non-lists).
inline TypePtr ListLeafType(const TypePtr& t) {
  TypePtr x = t;
  while (x->id() == TypeId::kList) x = x->field(0).type();
  return x;
}

}  // namespace floe
