"""Writes the scan-planning benchmark's table with pyiceberg's own Avro writer.

A table of 100,000 data files in 1,000 manifests (one day of `ts` per manifest, 100 files
per manifest over 16 buckets of `id`), partitioned by `day(ts), bucket(16, id)`, with
column metrics for its 10 columns, committed as one append snapshot to a SQLite catalog.
Only metadata is written: the data files do not exist (planning never opens them).

    iceberg_plan_table.py DIR [--days 1000] [--files-per-day 100]

Prints the table's metadata file location. bench/iceberg_plan.sh runs floe on it.
"""

import argparse
import datetime
import os
import struct
import sys

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat, ManifestEntry, ManifestEntryStatus
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.snapshots import Operation
from pyiceberg.table.update.snapshot import _FastAppendFiles
from pyiceberg.transforms import BucketTransform, DayTransform
from pyiceberg.typedef import Record
from pyiceberg.types import (
    DateType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "ts", TimestamptzType(), required=False),
    NestedField(3, "qty", IntegerType(), required=False),
    NestedField(4, "price", DoubleType(), required=False),
    NestedField(5, "name", StringType(), required=False),
    NestedField(6, "day", DateType(), required=False),
    NestedField(7, "a", LongType(), required=False),
    NestedField(8, "b", LongType(), required=False),
    NestedField(9, "c", StringType(), required=False),
    NestedField(10, "d", DoubleType(), required=False),
)
SPEC = PartitionSpec(
    PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day"),
    PartitionField(source_id=1, field_id=1001, transform=BucketTransform(16), name="id_bucket"),
)
EPOCH_DAY = datetime.date(2024, 1, 1).toordinal() - datetime.date(1970, 1, 1).toordinal()
ROWS_PER_FILE = 10_000


def bounds(day, k):
    """Lower and upper bounds of the 10 columns of file k of `day`, in Iceberg's encoding."""
    micros = (EPOCH_DAY + day) * 86_400_000_000
    lo_id = (day * 1000 + k) * ROWS_PER_FILE
    lower = {
        1: struct.pack("<q", lo_id),
        2: struct.pack("<q", micros),
        3: struct.pack("<i", 1),
        4: struct.pack("<d", 0.5),
        5: b"name-%05d" % k,
        6: struct.pack("<i", EPOCH_DAY + day),
        7: struct.pack("<q", -k),
        8: struct.pack("<q", k),
        9: b"aaaa",
        10: struct.pack("<d", -1.0),
    }
    upper = {
        1: struct.pack("<q", lo_id + ROWS_PER_FILE - 1),
        2: struct.pack("<q", micros + 86_399_999_999),
        3: struct.pack("<i", 50),
        4: struct.pack("<d", 1000.5),
        5: b"name-%05d" % (k + 1000),
        6: struct.pack("<i", EPOCH_DAY + day),
        7: struct.pack("<q", k),
        8: struct.pack("<q", k + 100_000),
        9: b"zzzz",
        10: struct.pack("<d", 1.0),
    }
    return lower, upper


class ManifestPerDayAppend(_FastAppendFiles):
    """A fast append that writes one manifest per day instead of one for all files."""

    def __init__(self, files_by_day, **kwargs):
        super().__init__(**kwargs)
        self._files_by_day = files_by_day
        for files in files_by_day:
            for f in files:
                self.append_data_file(f)

    def _manifests(self):
        manifests = []
        spec = self._transaction.table_metadata.spec()
        for files in self._files_by_day:
            with self.new_manifest_writer(spec=spec) as writer:
                for data_file in files:
                    writer.add(
                        ManifestEntry.from_args(
                            status=ManifestEntryStatus.ADDED,
                            snapshot_id=self._snapshot_id,
                            sequence_number=None,
                            file_sequence_number=None,
                            data_file=data_file,
                        )
                    )
            manifests.append(writer.to_manifest_file())
        return manifests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--days", type=int, default=1000)
    parser.add_argument("--files-per-day", type=int, default=100)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    warehouse = os.path.abspath(args.dir)
    catalog = SqlCatalog(
        "bench", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}"
    )
    catalog.create_namespace_if_not_exists("bench")
    if catalog.table_exists("bench.plan100k"):
        catalog.drop_table("bench.plan100k")
    table = catalog.create_table(
        "bench.plan100k",
        schema=SCHEMA,
        partition_spec=SPEC,
        properties={"write.avro.compression-codec": "deflate"},
    )
    files_by_day = []
    for day in range(args.days):
        files = []
        for k in range(args.files_per_day):
            lower, upper = bounds(day, k)
            files.append(
                DataFile.from_args(
                    content=DataFileContent.DATA,
                    file_path=f"{table.location()}/data/ts_day={day}/id_bucket={k % 16}/"
                    f"{day:04d}-{k:03d}.parquet",
                    file_format=FileFormat.PARQUET,
                    partition=Record(EPOCH_DAY + day, k % 16),
                    record_count=ROWS_PER_FILE,
                    file_size_in_bytes=4_000_000 + k,
                    column_sizes={i: 400_000 for i in range(1, 11)},
                    value_counts={i: ROWS_PER_FILE for i in range(1, 11)},
                    null_value_counts={i: 0 for i in range(1, 11)},
                    nan_value_counts={4: 0, 10: 0},
                    lower_bounds=lower,
                    upper_bounds=upper,
                    split_offsets=[4],
                    sort_order_id=0,
                    spec_id=SPEC.spec_id,
                )
            )
        files_by_day.append(files)
    with table.transaction() as txn:
        ManifestPerDayAppend(
            files_by_day, operation=Operation.APPEND, transaction=txn, io=table.io
        ).commit()
    print(catalog.load_table("bench.plan100k").metadata_location)


if __name__ == "__main__":
    sys.exit(main())
