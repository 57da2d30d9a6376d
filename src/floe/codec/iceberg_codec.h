#pragma once

// Protobuf forms of the Iceberg values plan nodes hold (iceberg.proto): filter expressions
// and data files. Encoding writes every part; decoding validates every part and returns
// kCorrupt naming what is wrong.

#include "floe/codec/iceberg.pb.h"
#include "floe/common/result.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"

namespace floe::codec {

/// Writes an unbound or bound expression. kNotSupported for a term bound to a partition
/// tuple (only expressions over a table schema travel) and for literals without a scalar
/// form.
Status EncodeIcebergExpression(const iceberg::Expression& expr, proto::IcebergExpression* out);

/// Rebuilds an expression against `schema`: a bound term binds again by its field id (its
/// full name must match the schema's; the type, nullability and full name come from the
/// schema), its literals must have the term's type; an unbound term binds by name (kBind
/// errors of iceberg::Bind). kCorrupt naming what is wrong otherwise: an unknown operation
/// or transform, a literal count that does not suit the operation, a field id the schema
/// lacks, a NULL or mistyped literal.
Result<iceberg::ExpressionPtr> DecodeIcebergExpression(const proto::IcebergExpression& message,
                                                       const iceberg::Schema& schema);

/// Writes every field of a data or delete file. kNotSupported for a partition value without
/// a scalar form.
Status EncodeDataFile(const iceberg::DataFile& file, proto::IcebergDataFile* out);

/// The file, checked: a known content and format, a path, non-negative counts and sizes,
/// keys in ascending order.
Result<iceberg::DataFilePtr> DecodeDataFile(const proto::IcebergDataFile& message);

}  // namespace floe::codec
