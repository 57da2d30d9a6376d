#pragma once

// data_file structs <-> DataFile: the decoder the manifest reader and DecodeDataFiles
// share, and the appender the manifest writer and EncodeDataFiles share.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/builder.h"
#include "floe/common/result.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/manifest_io_internal.h"
#include "floe/type/type.h"

namespace floe::iceberg::internal {

inline std::optional<int64_t> OptI64(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return a->Value<int64_t>(i);
}
inline std::optional<int32_t> OptI32(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return a->Value<int32_t>(i);
}
inline std::optional<std::string> OptBytes(const Array* a, int64_t i) {
  if (a == nullptr || a->IsNull(i)) return std::nullopt;
  return std::string(a->BytesValue(i));
}

/// Appends an optional value to a builder of type B (NULL when absent).
template <typename B, typename T>
Status AppendOpt(ArrayBuilder* builder, const std::optional<T>& v) {
  if (!v) return builder->AppendNull();
  return static_cast<B*>(builder)->Append(*v);
}

inline Status AppendBytesOpt(ArrayBuilder* builder, const std::optional<std::string>& v) {
  if (!v) return builder->AppendNull();
  return static_cast<BinaryBuilder*>(builder)->Append(*v);
}

/// Decodes data_file values of one layout; built once per file, bound to each batch.
class DataFileDecoder {
 public:
  static Result<DataFileDecoder> Make(const TypePtr& partition_type, DataFileLayout layout,
                                      const ManifestReadOptions& options);

  /// Binds the struct's field arrays (`field(i)` of the data_file struct or the columns
  /// of a batch of data_file records).
  template <typename FieldAt>
  void Bind(FieldAt field_at) {
    auto get = [&](int idx) -> ArrayPtr { return idx < 0 ? nullptr : field_at(idx); };
    content_ = get(layout_.content);
    file_path_ = get(layout_.file_path);
    file_format_ = get(layout_.file_format);
    record_count_ = get(layout_.record_count);
    file_size_ = get(layout_.file_size);
    key_metadata_ = get(layout_.key_metadata);
    split_offsets_ = get(layout_.split_offsets);
    equality_ids_ = get(layout_.equality_ids);
    sort_order_id_ = get(layout_.sort_order_id);
    first_row_id_ = get(layout_.first_row_id);
    referenced_data_file_ = get(layout_.referenced_data_file);
    content_offset_ = get(layout_.content_offset);
    content_size_ = get(layout_.content_size);
    split_values_ = split_offsets_ ? split_offsets_->child(0) : nullptr;
    equality_values_ = equality_ids_ ? equality_ids_->child(0) : nullptr;
    partition_fields_.clear();
    partition_struct_ = nullptr;
    if (layout_.partition >= 0) {
      partition_struct_ = field_at(layout_.partition);
      for (int i = 0; i < partition_struct_->num_children(); ++i) {
        partition_fields_.push_back(partition_struct_->field(i));
      }
    }
    for (int m = 0; m < 6; ++m) {
      maps_[m] = get(layout_.metric_maps[m]);
      if (maps_[m]) {
        const ArrayPtr& entries = maps_[m]->child(0);
        map_keys_[m] = entries->field(0);
        map_values_[m] = entries->field(1);
      } else {
        map_keys_[m] = nullptr;
        map_values_[m] = nullptr;
      }
    }
  }

  /// The record count of row i (for first-row-id inheritance), 0 when null.
  int64_t record_count(int64_t i) const {
    return record_count_ && !record_count_->IsNull(i) ? record_count_->Value<int64_t>(i) : 0;
  }
  bool has_null_first_row_id(int64_t i) const {
    return first_row_id_ == nullptr || first_row_id_->IsNull(i);
  }
  FileContent content(int64_t i) const {
    if (content_ == nullptr || content_->IsNull(i)) return FileContent::kData;
    return static_cast<FileContent>(content_->Value<int32_t>(i));
  }

  /// Decodes row i. Errors name `what` (the file) and the record's `index` in it.
  Status Decode(int64_t i, int32_t spec_id, std::string_view what, int64_t index,
                DataFile* out) const;

 private:
  bool KeepStat(int32_t id) const;

  DataFileLayout layout_;
  TypePtr partition_type_;
  bool filter_stats_ = false;
  static constexpr int32_t kMaxBitmapStatsId = 1 << 20;
  std::vector<bool> stats_filter_;
  std::vector<int32_t> large_stats_ids_;

  ArrayPtr content_, file_path_, file_format_, record_count_, file_size_, key_metadata_,
      split_offsets_, split_values_, equality_ids_, equality_values_, sort_order_id_, first_row_id_,
      referenced_data_file_, content_offset_, content_size_;
  ArrayPtr partition_struct_;
  std::vector<ArrayPtr> partition_fields_;
  ArrayPtr maps_[6];
  ArrayPtr map_keys_[6];
  ArrayPtr map_values_[6];
};

/// The partition type to read a file with: the caller's type, each field typed as the
/// caller wants. The Avro reader resolves fields by id, so fields the file lacks read
/// as NULL.
TypePtr ReadPartitionType(const TypePtr& partition_type);

/// kInvalidArgument unless the file's partition values match the partition type's fields
/// in number and type (NULLs of any type allowed).
Status CheckPartition(const DataFile& f, const TypePtr& partition_type, std::string_view where);

/// Appends one data_file struct value to `sb` (built from DataFileFields(version)); the
/// partition values must have passed CheckPartition.
Status AppendDataFile(StructBuilder* sb, const DataFileLayout& l, const DataFile& f,
                      const TypePtr& partition_type, std::string_view where);

/// The Avro schema JSON of a record of `fields` named `name`.
Result<std::string> AvroSchemaFor(const std::vector<Field>& fields, std::string_view name);

}  // namespace floe::iceberg::internal
