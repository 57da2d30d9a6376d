#pragma once

#include <cstdint>

#include "floe/batch/array.h"
#include "floe/common/result.h"
#include "floe/type/type.h"

// The Arrow C Data Interface structures, as the specification defines them
// (docs/source/format/CDataInterface.rst in apache/arrow). The guard is the
// specification's, so that other projects' copies of these definitions coexist.
#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifdef __cplusplus
}
#endif

namespace floe {

/// Metadata keys floe reads and writes on exported fields.
inline constexpr char kArrowExtensionName[] = "ARROW:extension:name";
inline constexpr char kArrowExtensionMetadata[] = "ARROW:extension:metadata";
inline constexpr char kArrowUuidExtension[] = "arrow.uuid";
inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";

/// Exports a type as an unnamed, nullable ArrowSchema. Formats: b c s i l f g,
/// d:P,S (decimal128), tdD, ttu, tsu: / tsu:UTC, tsn: / tsn:UTC, u, z, w:N, +s, +l,
/// +m (with a non-nullable "entries" struct child, keys not sorted); uuid is w:16
/// with ARROW:extension:name = arrow.uuid. The caller owns `out` and must call its
/// release callback.
Status ExportType(const DataType& type, ArrowSchema* out);
/// Exports a field: its name, nullability (ARROW_FLAG_NULLABLE), metadata, and its
/// field id as the metadata entry PARQUET:field_id. Children are exported the same way.
Status ExportField(const Field& field, ArrowSchema* out);
/// Exports a schema as a struct (+s) whose children are the fields and whose
/// metadata is the schema's.
Status ExportSchema(const Schema& schema, ArrowSchema* out);

/// Exports an array without copying: the ArrowArray keeps `array`'s buffers alive
/// until it is released. With `out_schema`, its type is exported too (as ExportType).
Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema = nullptr);
/// Exports a record batch as a struct array of its columns, and with `out_schema`
/// its schema (as ExportSchema).
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out,
                         ArrowSchema* out_schema = nullptr);

/// Imports a type / field / schema. These take ownership of `schema` and release
/// it before returning, on success and on error alike. kInvalidArgument for a
/// released or malformed schema (wrong child counts, bad metadata or field id),
/// kNotSupported naming the format for formats floe has no type for (and for
/// dictionary encoding). Any timestamp time zone imports as the tz-aware type;
/// w:16 with the arrow.uuid extension imports as uuid.
Result<TypePtr> ImportType(ArrowSchema* schema);
Result<Field> ImportField(ArrowSchema* schema);
/// The schema must be a struct (+s).
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

/// Imports an array without copying. Takes ownership of `array` (and `schema`): the
/// ArrowArray is moved out of `*array` (which is marked released) and released once
/// the last Array or Buffer that views it is gone, or at once on error.
/// kInvalidArgument when n_buffers or n_children do not match the type or the
/// buffers are too small (Array::Make's checks).
Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema);
Result<ArrayPtr> ImportArray(ArrowArray* array, const TypePtr& type);
/// Imports a struct array (without top-level nulls) as a record batch.
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema);

}  // namespace floe
