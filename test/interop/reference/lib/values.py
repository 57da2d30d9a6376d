"""Rows of every Iceberg type as pyarrow writes them, and one canonical form for the values
each engine hands back (Spark's Rows, pyarrow's Python values, floe's JSON lines), so that
rows read by different engines compare exactly.

The canonical form of a value depends on its column's type (a 16-byte value is a uuid in
one column and fixed[16] in another), so canon() takes the pyarrow type of the column.
"""

import datetime
import math
import uuid
import decimal
from decimal import Decimal

UTC = datetime.timezone.utc
_WIDE = decimal.Context(prec=80)  # room for decimal(38, s) at any scale


def all_types_table():
    """A pyarrow table with a column of every Iceberg type, nested types with NULLs at every
    level, and edge values (extremes, NaN, -0.0, empty strings and collections)."""
    import pyarrow as pa

    D = Decimal
    dt = datetime
    rows = {
        "id": [1, 2, 3, 4],
        "b": [True, None, False, True],
        "i": [1, None, -2147483648, 2147483647],
        "l": [2**63 - 1, None, -(2**63), 0],
        "f": [1.5, None, float("nan"), -0.0],
        "d": [-0.0, None, 1e300, float("-inf")],
        "dec9": [D("1234567.89"), None, D("-0.01"), D("0.00")],
        "dec38": [D("12345678901234567890123456789012345.678"), None, D("-0.001"),
                  D("-99999999999999999999999999999999999.999")],
        "dt": [dt.date(2024, 2, 29), None, dt.date(1, 1, 1), dt.date(1969, 12, 31)],
        "tm": [dt.time(23, 59, 59, 999999), None, dt.time(0, 0), dt.time(12, 30, 1)],
        "ts": [dt.datetime(2024, 1, 1, 12, 0, 0, 123456), None, dt.datetime(1969, 12, 31, 23, 59, 59),
               dt.datetime(2262, 4, 11, 23, 47, 16)],
        "tstz": [dt.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=UTC), None,
                 dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(1900, 1, 1, 0, 0, 1, tzinfo=UTC)],
        "s": ["héllo wörld", None, "", "a'b\"c\\d\n"],
        "u": [uuid.UUID("12345678-1234-5678-1234-567812345678").bytes, None, bytes(16),
              b"\xff" * 16],
        "fx": [b"abcd", None, b"\x00\x01\x02\x03", b"\xff\xfe\xfd\xfc"],
        "bin": [b"\x00\xff", None, b"", b"binary"],
        "st": [{"x": 1, "y": "a", "z": {"w": 1.25}}, None, {"x": None, "y": None, "z": None},
               {"x": -1, "y": "", "z": {"w": None}}],
        "li": [[1, None, 3], None, [], [None]],
        "lst": [[{"k": "a", "v": 1}, None], None, [], [{"k": None, "v": None}]],
        "mp": [[("k1", 1), ("k2", None)], None, [], [("", 0)]],
        "mpl": [[("a", [1, 2]), ("b", None)], None, [], [("c", [])]],
    }
    inner = pa.struct([("w", pa.float64())])
    kv = pa.struct([("k", pa.string()), ("v", pa.int32())])
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        ("b", pa.bool_()),
        ("i", pa.int32()),
        ("l", pa.int64()),
        ("f", pa.float32()),
        ("d", pa.float64()),
        ("dec9", pa.decimal128(9, 2)),
        ("dec38", pa.decimal128(38, 3)),
        ("dt", pa.date32()),
        ("tm", pa.time64("us")),
        ("ts", pa.timestamp("us")),
        ("tstz", pa.timestamp("us", tz="UTC")),
        ("s", pa.string()),
        ("u", pa.uuid()),
        ("fx", pa.binary(4)),
        ("bin", pa.binary()),
        ("st", pa.struct([("x", pa.int32()), ("y", pa.string()), ("z", inner)])),
        ("li", pa.list_(pa.int64())),
        ("lst", pa.list_(kv)),
        ("mp", pa.map_(pa.string(), pa.int32())),
        ("mpl", pa.map_(pa.string(), pa.list_(pa.int32()))),
    ])
    return pa.table({name: pa.array(rows[name], schema.field(name).type) for name in schema.names},
                    schema=schema)


def _float(v):
    if math.isnan(v):
        return "NaN"
    if v == 0 and math.copysign(1.0, v) < 0:
        return "-0.0"
    return repr(float(v))


def _micros_naive(v):
    """A datetime (aware: converted to UTC) as ISO text without offset."""
    if v.tzinfo is not None:
        v = v.astimezone(UTC).replace(tzinfo=None)
    return v.isoformat(sep=" ", timespec="microseconds")


def _floe_text(value, t):
    """A value as floe's JSON lines print it (temporal values, uuids and bytes as text,
    special floats as strings) in the Python form the other engines hand back."""
    import pyarrow as pa

    if pa.types.is_floating(t):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[value]
    if pa.types.is_date(t):
        return datetime.date.fromisoformat(value)
    if pa.types.is_time(t):
        return datetime.time.fromisoformat(value)
    if pa.types.is_timestamp(t):
        return datetime.datetime.fromisoformat(value + ":00" if value.endswith("+00") else value)
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t) or isinstance(t, pa.UuidType) or \
            str(t) == "extension<arrow.uuid>":
        if value.startswith("\\x"):
            return bytes.fromhex(value[2:])
        return uuid.UUID(value)
    return value


def canon(value, pa_type):
    """The canonical form of one value of a column of `pa_type`, as Spark, pyarrow or floe
    (JSON lines) hand it back."""
    import pyarrow as pa

    if value is None:
        return None
    t = pa_type
    if isinstance(value, str) and not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        value = _floe_text(value, t)
    if pa.types.is_map(t) and isinstance(value, list) and value and isinstance(value[0], dict):
        value = [(e["key"], e["value"]) for e in value]  # floe's JSON of a non-string-keyed map
    if pa.types.is_boolean(t):
        return bool(value)
    if pa.types.is_integer(t):
        return int(value)
    if pa.types.is_floating(t):
        return _float(float(value))
    if pa.types.is_decimal(t):
        return str(Decimal(value).quantize(Decimal(1).scaleb(-t.scale), context=_WIDE))
    if pa.types.is_date(t):
        if isinstance(value, datetime.datetime):
            value = value.date()
        return value.isoformat() if isinstance(value, datetime.date) else str(value)
    if pa.types.is_time(t):
        if isinstance(value, datetime.time):
            return value.isoformat(timespec="microseconds")
        if isinstance(value, datetime.timedelta):  # Spark's TIME as a duration since midnight
            return (datetime.datetime(2000, 1, 1) + value).time().isoformat(timespec="microseconds")
        return str(value)
    if pa.types.is_timestamp(t):
        if isinstance(value, datetime.datetime):
            return _micros_naive(value)
        return str(value)
    if isinstance(t, pa.UuidType) or str(t) == "extension<arrow.uuid>":
        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, (bytes, bytearray)):
            return str(uuid.UUID(bytes=bytes(value)))
        return str(uuid.UUID(str(value)))
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return bytes(value).hex()
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return str(value)
    if pa.types.is_struct(t):
        get = (value.asDict() if hasattr(value, "asDict") else value)
        return tuple(canon(get.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        items = value.items() if isinstance(value, dict) else value
        return sorted(((canon(k, t.key_type), canon(v, t.item_type)) for k, v in items),
                      key=repr)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon(v, t.value_type) for v in value]
    raise TypeError(f"no canonical form for {t}")


def canon_rows(rows, schema, columns=None):
    """Rows (sequences in the order of `columns`, default all of `schema`) canonicalised and
    sorted by their first column."""
    names = columns or schema.names
    types = [schema.field(n).type for n in names]
    out = [tuple(canon(v, t) for v, t in zip(r, types)) for r in rows]
    return sorted(out, key=lambda r: repr(r[0]))


def arrow_rows(table, columns=None):
    """The rows of a pyarrow table as tuples in the order of `columns`."""
    names = columns or table.schema.names
    data = table.select(names).to_pylist()
    return [tuple(r[n] for n in names) for r in data]


def sql_values(rows):
    """Rows of Python values (None, str, Decimal as DECIMAL(10, 2), date, numbers) as the
    text of an SQL VALUES list that Spark and floe both take."""
    def lit(v):
        if v is None:
            return "NULL"
        if isinstance(v, str):
            return "'" + v.replace("'", "''") + "'"
        if isinstance(v, Decimal):
            return f"CAST({v} AS DECIMAL(10, 2))"
        if isinstance(v, datetime.date):
            return f"DATE '{v.isoformat()}'"
        return str(v)

    return ", ".join("(" + ", ".join(lit(v) for v in r) + ")" for r in rows)
