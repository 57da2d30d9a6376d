#pragma once

// Protobuf forms of the values plan nodes hold (values.proto): data types, fields,
// schemas, scalars and bound expressions. Encoding cannot fail for values the engine
// builds (except as noted); decoding validates everything and returns kCorrupt naming
// what is wrong.

#include "floe/batch/scalar.h"
#include "floe/codec/values.pb.h"
#include "floe/common/result.h"
#include "floe/expr/expr.h"
#include "floe/type/type.h"

namespace floe::codec {

void EncodeType(const DataType& type, proto::DataType* out);
Result<TypePtr> DecodeType(const proto::DataType& message);

void EncodeField(const Field& field, proto::Field* out);
Result<Field> DecodeField(const proto::Field& message);

void EncodeSchema(const Schema& schema, proto::Schema* out);
Result<SchemaPtr> DecodeSchema(const proto::Schema& message);

/// kNotSupported for a scalar whose type has no scalar form (nested types).
Status EncodeScalar(const Scalar& scalar, proto::Scalar* out);
/// The value must have the storage the type uses (int32 for dates, ...).
Result<Scalar> DecodeScalar(const proto::Scalar& message);

Status EncodeExpr(const expr::Expr& expr, proto::Expr* out);
/// The bound expression, structurally checked (argument counts of casts and CASE, a
/// literal's type equal to the expression's); column indexes and function names are
/// checked when it is compiled.
Result<expr::ExprPtr> DecodeExpr(const proto::Expr& message);

}  // namespace floe::codec
