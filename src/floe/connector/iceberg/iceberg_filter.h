#pragma once

// SQL filter conjuncts -> Iceberg filter expressions, for pushing a query's WHERE into an
// Iceberg scan (partition, file, row-group and page pruning; the TaskReader's residual).
//
// A converted expression is never stronger than the SQL predicate: every row for which the
// predicate is TRUE satisfies it. It may be weaker, because the SQL filter still runs
// above the scan. Polarity is tracked: under NOT, an AND becomes an OR of negations and
// needs both sides, so `NOT (a AND u)` with `u` not convertible is not pushed at all (never
// as `NOT a`), while `a AND u` pushes `a`. What converts:
//   column <op> constant (=, <>, <, <=, >, >= either way round; not > / >= on floating
//     columns, where NaN sorts above every number), IS [NOT] NULL, IN lists (NULLs in the
//     list drop out; NOT IN with a NULL is not pushed), LIKE 'prefix%' as STARTS WITH and
//     LIKE without wildcards as =, after ESCAPE handling (default escape: backslash);
//   columns under widening integer casts and decimal casts that keep the scale; any other
//   cast (CAST(f AS int) rounds) stops the conversion.

#include <optional>

#include "floe/expr/expr.h"
#include "floe/iceberg/expression.h"
#include "floe/type/type.h"

namespace floe::connector {

/// Whether ToIcebergFilter converts `conjunct` with exactly its SQL meaning on every row,
/// NULLs included: a comparison (=, <, <=, >, >=; not <>, which Iceberg holds true for NULL),
/// IN list or IS [NOT] NULL of a column itself (no cast) of one of the first `visible`
/// columns with non-NULL constants of the column's own type, for integer, date, timestamp,
/// string, decimal and (only = and IN) boolean columns. A file whose rows all satisfy the
/// Iceberg form then satisfies the SQL one row for row.
bool ConvertsExactly(const expr::Expr& conjunct, const Schema& columns, int visible);

/// The Iceberg form of a SQL conjunct over `columns` (an Iceberg table's top-level columns,
/// by index), unbound (by column name); nullopt when nothing of it can be pushed.
std::optional<iceberg::ExpressionPtr> ToIcebergFilter(const expr::Expr& conjunct,
                                                      const Schema& columns);

}  // namespace floe::connector
