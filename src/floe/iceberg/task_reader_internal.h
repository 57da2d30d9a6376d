#pragma once

// Private helpers of the Iceberg task reader and delete filter: projecting file columns
// onto Iceberg fields by field id, casting promoted types, constant columns and row
// filtering.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/array.h"
#include "floe/batch/scalar.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

namespace floe::iceberg::internal {

/// Values for fields a data file lacks: identity partition values and initial defaults,
/// by field id. A field absent from the file and from this map reads as NULL.
using MissingValues = std::map<int32_t, Scalar>;

/// `value` converted to `type` when Iceberg's promotion rules allow it (int -> long,
/// float -> double, decimal precision widening, date -> timestamp); kInvalidArgument
/// otherwise.
Result<Scalar> CastScalar(const Scalar& value, const TypePtr& type);

/// `length` copies of a primitive scalar (NULL scalars give a null array).
Result<ArrayPtr> ConstantArray(const Scalar& value, int64_t length, MemoryPool* pool);

/// `array` read as `target` (same values), for the promotions and representation
/// changes a reader must accept: integer widening, float -> double, decimal precision
/// widening, date -> timestamp, binary -> string, fixed[16] -> uuid. Anything else is
/// kInvalidArgument naming `where`.
Result<ArrayPtr> CastArray(const ArrayPtr& array, const TypePtr& target, const std::string& where,
                           MemoryPool* pool);

/// Builds the array of `target` from a file's array by field id, at every depth.
/// `file_field` is the file's field for the array (its type's ids are matched; nullptr
/// uses the array's type). `file_array` is nullptr when the file lacks the field;
/// `length` is then the number of values to produce. Missing fields come from `missing` or are
/// NULL; a required field with neither is kInvalidArgument naming the field and `file_path`.
Result<ArrayPtr> ProjectArray(const ArrayPtr& file_array, const Field* file_field,
                              const Field& target, int64_t length, const MissingValues& missing,
                              const std::string& file_path, MemoryPool* pool);

/// The rows of `batch` whose `keep` entry is nonzero (keep.size() == num_rows).
Result<RecordBatchPtr> FilterBatch(const RecordBatchPtr& batch, const std::vector<uint8_t>& keep,
                                   MemoryPool* pool);

/// The rows of several batches of one schema as one batch.
Result<RecordBatchPtr> ConcatenateBatches(const std::vector<RecordBatchPtr>& batches,
                                          MemoryPool* pool);

/// The array of the field with `field_id` inside `array` (struct children at any depth,
/// the array itself when its field has the id), with ancestor nulls applied as a validity
/// mask in `parent_null` (entry i nonzero when an enclosing struct is null at row i).
/// Returns nullptr when no struct path leads to the id.
ArrayPtr FindStructPath(const ArrayPtr& array, const Field& field, int32_t field_id,
                        std::vector<uint8_t>& parent_null);

/// Appends a canonical, type-normalised encoding of value i of `array` to `key`: a NULL
/// is one tag byte, integers of any width encode as int64, float as double, so keys from
/// files written before a promotion equal keys read after it.
void AppendKeyValue(const Array& array, int64_t i, bool is_null, std::string& key);

}  // namespace floe::iceberg::internal
