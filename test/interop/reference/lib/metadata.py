"""floe's metadata tables (`t$snapshots`, `$files`, ...) against Spark's (`t.snapshots`,
`t.files`, ...): the columns both name alike, each value in one canonical form."""

import datetime
import json
import re
from decimal import Decimal

from peers import check

FLOE_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$")

# The metadata tables and the columns compared (both engines name them alike).
METADATA = {
    "snapshots": "snapshot_id, parent_id, operation, manifest_list, summary, committed_at",
    "files": "content, file_path, file_format, spec_id, partition, record_count, "
             "file_size_in_bytes, column_sizes, value_counts, null_value_counts, "
             "nan_value_counts, lower_bounds, upper_bounds, split_offsets, sort_order_id, "
             "readable_metrics",
    "partitions": "partition, spec_id, record_count, file_count, total_data_file_size_in_bytes, "
                  "position_delete_record_count, position_delete_file_count, "
                  "equality_delete_record_count, equality_delete_file_count, "
                  "last_updated_at, last_updated_snapshot_id",
    "manifests": "content, path, length, partition_spec_id, added_snapshot_id, "
                 "added_data_files_count, existing_data_files_count, deleted_data_files_count, "
                 "added_delete_files_count, existing_delete_files_count, "
                 "deleted_delete_files_count, partition_summaries",
    "history": "made_current_at, snapshot_id, parent_id, is_current_ancestor",
    "refs": "name, type, snapshot_id, max_reference_age_in_ms, min_snapshots_to_keep, "
            "max_snapshot_age_in_ms",
}


def canon(v):
    """One form for a value of either engine's metadata tables."""
    if v is None:
        return None
    if hasattr(v, "asDict"):
        return canon(v.asDict())
    if isinstance(v, dict):
        # A map (or struct) as a list of pairs: floe's JSON prints an empty map<int, ...> as
        # [], as it prints every map whose keys are not strings as a list.
        return sorted((str(k), canon(x)) for k, x in v.items())
    if isinstance(v, list):
        if v and all(isinstance(e, dict) and set(e) == {"key", "value"} for e in v):
            return canon({e["key"]: e["value"] for e in v})  # floe's JSON of a map<int, ...>
        return [canon(e) for e in v]
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, bool):
        return v
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return round(v.timestamp() * 1000)
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, str):
        if v.startswith("\\x"):
            return v[2:].lower()
        if FLOE_TIME.match(v):
            return canon(datetime.datetime.fromisoformat(v + ":00"))
        return v
    if isinstance(v, (float, Decimal)):
        d = Decimal(repr(v)) if isinstance(v, float) else v
        return "NaN" if d.is_nan() else format(d.normalize(), "f")
    return v


def floe_json(world, catalog, query):
    out = world.floe.ok(catalog, query, fmt="jsonl")
    return [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line]


def same_metadata(world, table, catalog=None):
    """Each metadata table floe has for `table` holds Spark's values (`world` has `floe`,
    `spark` and the catalog name `catalog`, default world.catalog)."""
    catalog = catalog or world.catalog
    ns, name = table.split(".")
    for kind, columns in METADATA.items():
        mine = sorted((tuple(canon(v) for v in r.values()) for r in floe_json(
            world, catalog, f'SELECT {columns} FROM {ns}."{name}${kind}"')), key=repr)
        theirs = sorted((tuple(canon(v) for v in r) for r in world.spark.rows(
            f"SELECT {columns} FROM {catalog}.{table}.{kind}")), key=repr)
        check(f"{table}${kind} (floe's, Spark's)", mine, theirs)
    return ", ".join(METADATA)
