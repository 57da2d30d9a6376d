#pragma once

// Text forms users type for a table's schema, partitioning and sort order (the `floe iceberg
// create` options, and SQL's `WITH (partitioning = '...', sorted_by = '...')`):
//
//   schema     "id bigint not null, ts timestamptz, name string, tags list<string>,
//               point struct<x: double not null, y: double>, attrs map<string, int>"
//   partition  "day(ts), bucket(16, id), truncate(4, name), region"
//   sort       "id DESC NULLS LAST, day(ts)"
//
// Names are matched case-insensitively when unquoted; "double quotes" keep a name exact.

#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

/// Parses a column list into a schema (id 0) with field ids assigned 1, 2, ... in order of
/// appearance (NewTableMetadata reassigns them anyway). Types: SQL and Iceberg names —
/// boolean/bool, int/integer/int4, bigint/long/int8, float/real/float4,
/// double/double precision/float8, decimal(p, s)/numeric(p, s), date, time,
/// timestamp (without time zone), timestamptz/timestamp with time zone, timestamp_ns,
/// timestamptz_ns, string/text/varchar[(n)], uuid, binary/bytea/varbinary, fixed(n)/fixed[n],
/// struct<name: type, ...>, list<type>/array<type>/type[], map<key type, value type>.
/// `not null` marks a field required (inside struct<...>, list<... not null> and maps too).
/// Errors are kInvalidArgument naming the offending text and its position.
Result<SchemaPtr> ParseSchemaText(std::string_view text);

/// Parses a partition spec (id 0, field ids from 1000) against `schema`. Each item is a
/// column (identity) or `transform(column)`, `bucket(N, column)`, `truncate(W, column)`
/// (also `bucket(column, N)` as Trino writes it); year/month/day/hour/void/identity.
/// Columns may be dotted paths into structs. Partition field names follow the reference
/// implementation: `col`, `col_bucket`, `col_trunc`, `col_year`, `col_month`, `col_day`,
/// `col_hour`, `col_null` (void); `... AS name` overrides. An empty text is unpartitioned.
Result<PartitionSpecPtr> ParsePartitionSpecText(std::string_view text, const Schema& schema);

/// Parses a sort order (id 1; unsorted for empty text) against `schema`: items as in a
/// partition spec, each optionally followed by ASC|DESC and NULLS FIRST|NULLS LAST (the
/// default null order is NULLS FIRST for ASC and NULLS LAST for DESC, as in SQL).
Result<SortOrderPtr> ParseSortOrderText(std::string_view text, const Schema& schema);

/// The text forms back (what `floe iceberg info` prints and what parses to the same).
std::string PartitionSpecText(const PartitionSpec& spec, const Schema& schema);
std::string SortOrderText(const SortOrder& order, const Schema& schema);

}  // namespace floe::iceberg
