#include "floe/iceberg/task_reader_internal.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "floe/batch/builder.h"
#include "floe/batch/value_format.h"
#include "floe/common/calendar.h"
#include "floe/type/type_visit.h"

namespace floe::iceberg::internal {

namespace {

// The same buffers under another type of the same physical layout.
Result<ArrayPtr> Retype(const ArrayPtr& array, const TypePtr& target) {
  return Array::Make(target, array->length(), array->buffers(), array->children(),
                     array->null_count(), array->offset());
}

template <typename Out, typename Fn>
Result<ArrayPtr> MapValues(const Array& array, const TypePtr& target, MemoryPool* pool, Fn fn) {
  NumericBuilder<Out> builder(target, pool);
  FLOE_RETURN_NOT_OK(builder.Reserve(array.length()));
  for (int64_t i = 0; i < array.length(); ++i) {
    if (array.IsNull(i)) {
      FLOE_RETURN_NOT_OK(builder.AppendNull());
    } else {
      builder.UnsafeAppend(fn(i));
    }
  }
  return builder.Finish();
}

// The physical types of integers (dates, times and timestamps share them; bool and the
// 128-bit decimal do not count).
template <typename T>
constexpr bool kIsInteger =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, Int128>;

// An integer array as the integer type `target`, value by value.
Result<ArrayPtr> CastIntegers(const ArrayPtr& array, const TypePtr& target, MemoryPool* pool) {
  return VisitPhysicalType(target->id(), [&]<typename Out>(TypeTag<Out>) -> Result<ArrayPtr> {
    return VisitPhysicalType(array->type_id(), [&]<typename In>(TypeTag<In>) -> Result<ArrayPtr> {
      if constexpr (kIsInteger<In> && kIsInteger<Out>) {
        const In* v = array->values<In>();
        return MapValues<Out>(*array, target, pool,
                              [v](int64_t i) { return static_cast<Out>(v[i]); });
      } else {
        return Status::Internal("{} to {} is not an integer conversion", array->type()->ToString(),
                                target->ToString());
      }
    });
  });
}

bool HasConstantBelow(const Field& field, const MissingValues& missing) {
  if (missing.count(field.field_id()) != 0) return true;
  for (const Field& child : field.type()->fields()) {
    if (HasConstantBelow(child, missing)) return true;
  }
  return false;
}

std::string Describe(const Field& field) {
  return "'" + field.name() + "' (id " + std::to_string(field.field_id()) + ")";
}

// The index of the child of a nested file type whose field id is `id`, or -1.
int ChildById(const DataType& type, int32_t id) {
  for (int i = 0; i < type.num_fields(); ++i) {
    if (type.field(i).field_id() == id) return i;
  }
  return -1;
}

Result<ArrayPtr> MissingArray(const Field& target, int64_t length, const MissingValues& missing,
                              const std::string& file_path, MemoryPool* pool) {
  const TypePtr& type = target.type();
  if (!type->is_nested()) {
    auto it = missing.find(target.field_id());
    if (it != missing.end()) {
      FLOE_ASSIGN_OR_RAISE(Scalar value, CastScalar(it->second, type));
      if (value.is_null() && !target.nullable()) {
        return Status::Invalid(
            "required field {} is absent from data file '{}' and its value there is NULL",
            Describe(target), file_path);
      }
      return ConstantArray(value, length, pool);
    }
  } else if (type->id() == TypeId::kStruct &&
             (!target.nullable() || HasConstantBelow(target, missing))) {
    // A struct whose fields have defaults reads as a struct of those defaults.
    std::vector<ArrayPtr> children;
    for (const Field& child : type->fields()) {
      FLOE_ASSIGN_OR_RAISE(ArrayPtr array, MissingArray(child, length, missing, file_path, pool));
      children.push_back(std::move(array));
    }
    return Array::Make(type, length, {nullptr}, std::move(children), 0);
  }
  if (!target.nullable()) {
    return Status::Invalid(
        "required field {} is absent from data file '{}' and has no initial default",
        Describe(target), file_path);
  }
  return Array::MakeNull(type, length, pool);
}

}  // namespace

Result<Scalar> CastScalar(const Scalar& value, const TypePtr& type) {
  const DataType& from = *value.type();
  if (from.Equals(*type)) return value;
  if (value.is_null()) return Scalar::Null(type);
  const TypeId to = type->id();
  if (from.is_integer() && type->is_integer() && from.byte_width() <= type->byte_width()) {
    int64_t v = from.id() == TypeId::kInt64 ? value.get<int64_t>() : value.get<int32_t>();
    if (to == TypeId::kInt64) return Scalar::Make(type, v);
    return Scalar::Make(type, static_cast<int32_t>(v));
  }
  if (from.id() == TypeId::kFloat32 && to == TypeId::kFloat64) {
    return Scalar::Make(type, static_cast<double>(value.get<float>()));
  }
  if (from.id() == TypeId::kDecimal && to == TypeId::kDecimal && from.scale() == type->scale() &&
      from.precision() <= type->precision()) {
    return Scalar::Make(type, value.get<Int128>());
  }
  if (from.id() == TypeId::kDate && type->is_timestamp()) {
    const int64_t per_day = (to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs)
                                ? kMicrosPerDay * 1000
                                : kMicrosPerDay;
    int64_t v = 0;
    if (__builtin_mul_overflow(int64_t{value.get<int32_t>()}, per_day, &v)) {
      return Status::Invalid("the date {} is out of the range of {}", FormatScalar(value),
                             type->ToString());
    }
    return Scalar::Make(type, v);
  }
  if ((from.id() == TypeId::kBinary && to == TypeId::kString) ||
      (from.id() == TypeId::kFixed && from.byte_width() == 16 && to == TypeId::kUuid)) {
    return Scalar::Make(type, value.get<std::string>());
  }
  return Status::Invalid("cannot read a {} value as {}", from.ToString(), type->ToString());
}

Result<ArrayPtr> ConstantArray(const Scalar& value, int64_t length, MemoryPool* pool) {
  if (value.is_null()) return Array::MakeNull(value.type(), length, pool);
  std::unique_ptr<ArrayBuilder> builder = MakeBuilder(value.type(), pool);
  FLOE_RETURN_NOT_OK(builder->Reserve(length));
  for (int64_t i = 0; i < length; ++i) FLOE_RETURN_NOT_OK(builder->AppendScalar(value));
  return builder->Finish();
}

Result<ArrayPtr> CastArray(const ArrayPtr& array, const TypePtr& target, const std::string& where,
                           MemoryPool* pool) {
  const DataType& from = *array->type();
  if (from.Equals(*target)) return array;
  const TypeId to = target->id();
  if (from.is_integer() && target->is_integer() && from.byte_width() <= target->byte_width()) {
    if (from.byte_width() == target->byte_width()) return Retype(array, target);
    return CastIntegers(array, target, pool);
  }
  if (from.id() == TypeId::kFloat32 && to == TypeId::kFloat64) {
    return MapValues<double>(*array, target, pool, [&](int64_t i) {
      return static_cast<double>(array->Value<float>(i));
    });
  }
  if (from.id() == TypeId::kDecimal && to == TypeId::kDecimal && from.scale() == target->scale() &&
      from.precision() <= target->precision()) {
    return Retype(array, target);
  }
  if (from.id() == TypeId::kDate && target->is_timestamp()) {
    const int64_t scale = (to == TypeId::kTimestampNs || to == TypeId::kTimestampTzNs)
                              ? kMicrosPerDay * 1000
                              : kMicrosPerDay;
    const int64_t max_days = std::numeric_limits<int64_t>::max() / scale;
    for (int64_t i = 0; i < array->length(); ++i) {
      const int64_t days = array->Value<int32_t>(i);
      if (array->IsValid(i) && (days > max_days || days < -max_days)) {
        return Status::Invalid("{}: the date {} is out of the range of {}", where,
                               FormatValue(*array, i), target->ToString());
      }
    }
    return MapValues<int64_t>(*array, target, pool, [&](int64_t i) {
      return static_cast<int64_t>(array->Value<int32_t>(i)) * scale;
    });
  }
  if ((from.id() == TypeId::kBinary && to == TypeId::kString) ||
      (from.id() == TypeId::kString && to == TypeId::kBinary) ||
      (from.id() == TypeId::kFixed && from.byte_width() == 16 && to == TypeId::kUuid) ||
      (from.id() == TypeId::kUuid && to == TypeId::kFixed && target->byte_width() == 16)) {
    return Retype(array, target);
  }
  return Status::Invalid("{}: cannot read the file's {} values as {}", where, from.ToString(),
                         target->ToString());
}

Result<ArrayPtr> ProjectArray(const ArrayPtr& file_array, const Field* file_field,
                              const Field& target, int64_t length, const MissingValues& missing,
                              const std::string& file_path, MemoryPool* pool) {
  if (file_array == nullptr) return MissingArray(target, length, missing, file_path, pool);
  const TypePtr& type = target.type();
  // The file field's type carries the field ids (assigned by a name mapping when the file
  // has none); the array's own type has the same layout.
  const DataType& file_type = file_field != nullptr ? *file_field->type() : *file_array->type();
  const std::string where = "data file '" + file_path + "', field " + Describe(target);
  if (!type->is_nested()) {
    if (file_type.is_nested()) {
      return Status::Invalid("{}: the file holds a {} where {} is expected", where,
                             file_type.ToString(), type->ToString());
    }
    return CastArray(file_array, type, where, pool);
  }
  if (file_type.id() != type->id()) {
    return Status::Invalid("{}: the file holds a {} where {} is expected", where,
                           file_type.ToString(), type->ToString());
  }
  // Children keep the parent's offset (struct children are indexed at offset + i, list
  // and map children through the offsets), so each child is projected whole.
  auto project_child = [&](const Field& child_target, const ArrayPtr& parent,
                           const DataType& parent_type, int64_t child_length) -> Result<ArrayPtr> {
    int index = ChildById(parent_type, child_target.field_id());
    ArrayPtr child = index >= 0 ? parent->child(index) : nullptr;
    const Field* child_field = index >= 0 ? &parent_type.field(index) : nullptr;
    return ProjectArray(child, child_field, child_target, child_length, missing, file_path, pool);
  };
  switch (type->id()) {
    case TypeId::kStruct: {
      const int64_t child_length = file_array->offset() + file_array->length();
      std::vector<ArrayPtr> children;
      for (const Field& child_target : type->fields()) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child,
                             project_child(child_target, file_array, file_type, child_length));
        children.push_back(std::move(child));
      }
      return Array::Make(type, file_array->length(), {file_array->buffer(0)}, std::move(children),
                         file_array->null_count(), file_array->offset());
    }
    case TypeId::kList: {
      const ArrayPtr& elements = file_array->child(0);
      FLOE_ASSIGN_OR_RAISE(
          ArrayPtr child, project_child(type->field(0), file_array, file_type, elements->length()));
      return Array::Make(type, file_array->length(), file_array->buffers(), {std::move(child)},
                         file_array->null_count(), file_array->offset());
    }
    case TypeId::kMap: {
      const ArrayPtr& entries = file_array->child(0);
      const int64_t entry_length = entries->offset() + entries->length();
      TypePtr entries_type = type->map_entries_type();
      std::vector<ArrayPtr> kv;
      for (int i = 0; i < 2; ++i) {
        FLOE_ASSIGN_OR_RAISE(ArrayPtr child,
                             project_child(type->field(i), entries, file_type, entry_length));
        kv.push_back(std::move(child));
      }
      FLOE_ASSIGN_OR_RAISE(ArrayPtr new_entries,
                           Array::Make(entries_type, entries->length(), {entries->buffer(0)},
                                       std::move(kv), entries->null_count(), entries->offset()));
      return Array::Make(type, file_array->length(), file_array->buffers(),
                         {std::move(new_entries)}, file_array->null_count(), file_array->offset());
    }
    default:
      return Status::Internal("unexpected nested type {}", type->ToString());
  }
}

Result<RecordBatchPtr> FilterBatch(const RecordBatchPtr& batch, const std::vector<uint8_t>& keep,
                                   MemoryPool* pool) {
  const int64_t n = batch->num_rows();
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) kept += keep[static_cast<size_t>(i)] != 0;
  if (kept == n) return batch;
  // Runs of kept rows are copied in bulk.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t i = 0; i < n;) {
    if (!keep[static_cast<size_t>(i)]) {
      ++i;
      continue;
    }
    int64_t start = i;
    while (i < n && keep[static_cast<size_t>(i)]) ++i;
    runs.emplace_back(start, i - start);
  }
  std::vector<ArrayPtr> columns;
  for (const ArrayPtr& column : batch->columns()) {
    std::unique_ptr<ArrayBuilder> builder = MakeBuilder(column->type(), pool);
    FLOE_RETURN_NOT_OK(builder->Reserve(kept));
    for (const auto& [start, length] : runs) {
      FLOE_RETURN_NOT_OK(builder->AppendArraySlice(*column, start, length));
    }
    FLOE_ASSIGN_OR_RAISE(ArrayPtr out, builder->Finish());
    columns.push_back(std::move(out));
  }
  return RecordBatch::Make(batch->schema(), kept, std::move(columns));
}

Result<RecordBatchPtr> ConcatenateBatches(const std::vector<RecordBatchPtr>& batches,
                                          MemoryPool* pool) {
  if (batches.size() == 1) return batches[0];
  int64_t rows = 0;
  for (const RecordBatchPtr& b : batches) rows += b->num_rows();
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < batches[0]->num_columns(); ++c) {
    std::vector<ArrayPtr> parts;
    for (const RecordBatchPtr& b : batches) parts.push_back(b->column(c));
    FLOE_ASSIGN_OR_RAISE(ArrayPtr column, Concatenate(parts, pool));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(batches[0]->schema(), rows, std::move(columns));
}

ArrayPtr FindStructPath(const ArrayPtr& array, const Field& field, int32_t field_id,
                        std::vector<uint8_t>& parent_null) {
  if (field.field_id() == field_id) return array;
  if (field.type()->id() != TypeId::kStruct) return nullptr;
  for (int i = 0; i < field.type()->num_fields(); ++i) {
    const Field& child_field = field.type()->field(i);
    std::vector<uint8_t> nulls = parent_null;
    for (int64_t r = 0; r < array->length(); ++r) {
      if (array->IsNull(r)) nulls[static_cast<size_t>(r)] = 1;
    }
    ArrayPtr found = FindStructPath(array->field(i), child_field, field_id, nulls);
    if (found != nullptr) {
      parent_null = std::move(nulls);
      return found;
    }
  }
  return nullptr;
}

void AppendKeyValue(const Array& array, int64_t i, bool is_null, std::string& key) {
  if (is_null || array.IsNull(i)) {
    key.push_back('\0');
    return;
  }
  key.push_back('\1');
  auto append_raw = [&](const void* p, size_t n) { key.append(static_cast<const char*>(p), n); };
  VisitPhysicalType(array.type_id(), [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      key.push_back(array.BoolValue(i) ? '\1' : '\0');
    } else if constexpr (std::is_same_v<T, Int128>) {
      const Int128 v = array.DecimalValue(i);
      append_raw(&v, sizeof(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      const double v = array.Value<T>(i);
      append_raw(&v, sizeof(v));
    } else if constexpr (std::is_integral_v<T>) {
      if (array.type()->is_integer()) {
        const int64_t v = array.Value<T>(i);
        append_raw(&v, sizeof(v));
      } else {
        // Dates, times and timestamps keep their own width (no promotion changes them).
        const T v = array.Value<T>(i);
        append_raw(&v, sizeof(v));
      }
    } else {
      // String, binary, fixed and uuid: length-prefixed bytes.
      std::string_view bytes = array.BytesValue(i);
      uint64_t size = bytes.size();
      append_raw(&size, sizeof(size));
      key.append(bytes);
    }
  });
}

}  // namespace floe::iceberg::internal
