#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace floe::iceberg {

std::string Snapshot::operation() const {
  auto it = summary.find("operation");
  return it == summary.end() ? std::string() : it->second;
}

SchemaPtr TableMetadata::SchemaById(int32_t schema_id) const {
  for (const auto& s : schemas) {
    if (s->schema_id() == schema_id) return s;
  }
  return nullptr;
}

PartitionSpecPtr TableMetadata::SpecById(int32_t spec_id) const {
  for (const auto& s : partition_specs) {
    if (s->spec_id() == spec_id) return s;
  }
  return nullptr;
}

SortOrderPtr TableMetadata::SortOrderById(int32_t order_id) const {
  for (const auto& s : sort_orders) {
    if (s->order_id() == order_id) return s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::SnapshotById(int64_t snapshot_id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == snapshot_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  if (!current_snapshot_id) return nullptr;
  return SnapshotById(*current_snapshot_id);
}

Result<const Snapshot*> TableMetadata::SnapshotByRef(std::string_view ref_name) const {
  auto it = refs.find(std::string(ref_name));
  if (it == refs.end()) {
    if (ref_name == kMainBranch && current_snapshot_id) {
      if (const Snapshot* s = CurrentSnapshot()) return s;
    }
    return Status::NotFound("table {} has no branch or tag named '{}'", location, ref_name);
  }
  const Snapshot* s = SnapshotById(it->second.snapshot_id);
  if (s == nullptr) {
    return Status::NotFound(
        "ref '{}' of table {} points at snapshot {}, which is not in the "
        "metadata",
        ref_name, location, it->second.snapshot_id);
  }
  return s;
}

std::vector<int64_t> TableMetadata::Ancestors(int64_t snapshot_id) const {
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  const Snapshot* s = SnapshotById(snapshot_id);
  while (s != nullptr && seen.insert(s->snapshot_id).second) {
    out.push_back(s->snapshot_id);
    if (!s->parent_snapshot_id) break;
    s = SnapshotById(*s->parent_snapshot_id);
  }
  return out;
}

Result<const Snapshot*> TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  std::optional<int64_t> found;
  if (!snapshot_log.empty()) {
    for (const auto& entry : snapshot_log) {
      if (entry.timestamp_ms <= timestamp_ms) found = entry.snapshot_id;
    }
  } else if (current_snapshot_id) {
    // Without a log, walk the current snapshot's ancestry: the newest one committed in time.
    for (int64_t id : Ancestors(*current_snapshot_id)) {
      if (SnapshotById(id)->timestamp_ms <= timestamp_ms) {
        found = id;
        break;
      }
    }
  }
  if (!found) {
    return Status::NotFound("table {} has no snapshot at or before timestamp {} ms", location,
                            timestamp_ms);
  }
  const Snapshot* s = SnapshotById(*found);
  if (s == nullptr) {
    return Status::NotFound(
        "the snapshot current at timestamp {} ms ({}) has expired from "
        "table {}",
        timestamp_ms, *found, location);
  }
  return s;
}

SchemaPtr TableMetadata::SchemaForSnapshot(const Snapshot& snapshot) const {
  if (snapshot.schema_id) {
    if (auto s = SchemaById(*snapshot.schema_id)) return s;
  }
  return CurrentSchema();
}

std::string TableMetadata::Property(std::string_view key, std::string_view default_value) const {
  auto it = properties.find(std::string(key));
  return it == properties.end() ? std::string(default_value) : it->second;
}

namespace {

// A log (snapshot-log, metadata-log) must be in time order, and not after last-updated-ms.
// Writers on different machines may disagree a little about the time: one minute is
// tolerated, as the Java library does. `describe` names an entry in messages.
template <typename Entry, typename Describe>
Status CheckLogInTime(const std::vector<Entry>& log, std::string_view name, int64_t last_updated_ms,
                      Describe describe) {
  constexpr int64_t kClockSkewMs = 60'000;
  for (size_t i = 1; i < log.size(); ++i) {
    if (log[i].timestamp_ms < log[i - 1].timestamp_ms - kClockSkewMs) {
      return Status::Corrupt(
          "{} is out of order: entry {} ({}, {} ms) is before entry {} ({}, {} ms)", name, i,
          describe(log[i]), log[i].timestamp_ms, i - 1, describe(log[i - 1]),
          log[i - 1].timestamp_ms);
    }
  }
  if (!log.empty() && last_updated_ms < log.back().timestamp_ms - kClockSkewMs) {
    return Status::Corrupt("last-updated-ms {} is before the last {} entry ({} ms)",
                           last_updated_ms, name, log.back().timestamp_ms);
  }
  return Status::OK();
}

}  // namespace

Status TableMetadata::Validate() const {
  if (format_version < 1 || format_version > kMaxSupportedFormatVersion) {
    return Status::NotSupported("format-version {} is not supported (1 to {} are)", format_version,
                                kMaxSupportedFormatVersion);
  }
  std::set<int32_t> ids;
  for (const auto& s : schemas) {
    if (!ids.insert(s->schema_id()).second) {
      return Status::Corrupt("schema id {} appears twice in 'schemas'", s->schema_id());
    }
  }
  if (CurrentSchema() == nullptr) {
    return Status::Corrupt("current-schema-id {} is not among the schemas", current_schema_id);
  }
  ids.clear();
  for (const auto& s : partition_specs) {
    if (!ids.insert(s->spec_id()).second) {
      return Status::Corrupt("spec id {} appears twice in 'partition-specs'", s->spec_id());
    }
  }
  if (DefaultSpec() == nullptr) {
    return Status::Corrupt("default-spec-id {} is not among the partition-specs", default_spec_id);
  }
  ids.clear();
  for (const auto& s : sort_orders) {
    if (!ids.insert(s->order_id()).second) {
      return Status::Corrupt("sort order id {} appears twice in 'sort-orders'", s->order_id());
    }
  }
  if (DefaultSortOrder() == nullptr && !(default_sort_order_id == 0 && sort_orders.empty())) {
    return Status::Corrupt("default-sort-order-id {} is not among the sort-orders",
                           default_sort_order_id);
  }
  std::set<int64_t> snapshot_ids;
  for (const auto& s : snapshots) {
    if (!snapshot_ids.insert(s.snapshot_id).second) {
      return Status::Corrupt("snapshot id {} appears twice in 'snapshots'", s.snapshot_id);
    }
  }
  if (current_snapshot_id && snapshot_ids.count(*current_snapshot_id) == 0) {
    return Status::Corrupt("current-snapshot-id {} is not among the snapshots",
                           *current_snapshot_id);
  }
  for (const auto& [name, ref] : refs) {
    if (snapshot_ids.count(ref.snapshot_id) == 0) {
      return Status::Corrupt("ref '{}' points at snapshot {}, which is not among the snapshots",
                             name, ref.snapshot_id);
    }
  }
  // The main branch is the current snapshot: metadata where they disagree would scan one
  // snapshot for the other (or nothing at all), so it is refused as the Java library does.
  if (auto main = refs.find(std::string(kMainBranch)); main != refs.end()) {
    if (!current_snapshot_id) {
      return Status::Corrupt(
          "current-snapshot-id is not set, but the main branch points at snapshot {}",
          main->second.snapshot_id);
    }
    if (main->second.snapshot_id != *current_snapshot_id) {
      return Status::Corrupt(
          "current-snapshot-id {} does not match the main branch, which points at snapshot {}",
          *current_snapshot_id, main->second.snapshot_id);
    }
  }
  // Sequence numbers order snapshots and decide which deletes apply to which data files
  // (spec: "Sequence Numbers"); last-sequence-number is the highest one assigned.
  if (format_version >= 2) {
    for (const auto& s : snapshots) {
      if (s.sequence_number > last_sequence_number) {
        return Status::Corrupt(
            "snapshot {} has sequence number {}, above the table's last-sequence-number {}",
            s.snapshot_id, s.sequence_number, last_sequence_number);
      }
    }
  }
  // Time travel picks snapshots from the logs by time, so they must be in order.
  FLOE_RETURN_NOT_OK(CheckLogInTime(
      snapshot_log, "snapshot-log", last_updated_ms,
      [](const SnapshotLogEntry& e) { return "snapshot " + std::to_string(e.snapshot_id); }));
  FLOE_RETURN_NOT_OK(CheckLogInTime(metadata_log, "metadata-log", last_updated_ms,
                                    [](const MetadataLogEntry& e) { return e.metadata_file; }));
  return Status::OK();
}

bool TableMetadata::Equals(const TableMetadata& o) const {
  auto same_list = [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i]->Equals(*b[i])) return false;
    }
    return true;
  };
  return format_version == o.format_version && table_uuid == o.table_uuid &&
         location == o.location && last_sequence_number == o.last_sequence_number &&
         last_updated_ms == o.last_updated_ms && last_column_id == o.last_column_id &&
         same_list(schemas, o.schemas) && current_schema_id == o.current_schema_id &&
         same_list(partition_specs, o.partition_specs) && default_spec_id == o.default_spec_id &&
         last_partition_id == o.last_partition_id && properties == o.properties &&
         current_snapshot_id == o.current_snapshot_id && snapshots == o.snapshots &&
         snapshot_log == o.snapshot_log && metadata_log == o.metadata_log &&
         same_list(sort_orders, o.sort_orders) &&
         default_sort_order_id == o.default_sort_order_id && refs == o.refs &&
         statistics == o.statistics && partition_statistics == o.partition_statistics &&
         next_row_id == o.next_row_id && encryption_keys == o.encryption_keys;
}

}  // namespace floe::iceberg
