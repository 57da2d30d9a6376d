#include "floe/codec/iceberg_codec.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "floe/codec/value_codec.h"
#include "floe/iceberg/manifest_io.h"

namespace floe::codec {

namespace {

using iceberg::Operation;
using PbOp = proto::IcebergExpression;

PbOp::Op ToProtoOp(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return PbOp::OP_TRUE;
    case Operation::kFalse:
      return PbOp::OP_FALSE;
    case Operation::kAnd:
      return PbOp::OP_AND;
    case Operation::kOr:
      return PbOp::OP_OR;
    case Operation::kNot:
      return PbOp::OP_NOT;
    case Operation::kIsNull:
      return PbOp::OP_IS_NULL;
    case Operation::kNotNull:
      return PbOp::OP_NOT_NULL;
    case Operation::kIsNan:
      return PbOp::OP_IS_NAN;
    case Operation::kNotNan:
      return PbOp::OP_NOT_NAN;
    case Operation::kLt:
      return PbOp::OP_LT;
    case Operation::kLtEq:
      return PbOp::OP_LT_EQ;
    case Operation::kGt:
      return PbOp::OP_GT;
    case Operation::kGtEq:
      return PbOp::OP_GT_EQ;
    case Operation::kEq:
      return PbOp::OP_EQ;
    case Operation::kNotEq:
      return PbOp::OP_NOT_EQ;
    case Operation::kIn:
      return PbOp::OP_IN;
    case Operation::kNotIn:
      return PbOp::OP_NOT_IN;
    case Operation::kStartsWith:
      return PbOp::OP_STARTS_WITH;
    case Operation::kNotStartsWith:
      return PbOp::OP_NOT_STARTS_WITH;
  }
  return PbOp::OP_TRUE;
}

Result<Operation> FromProtoOp(int op) {
  switch (op) {
    case PbOp::OP_TRUE:
      return Operation::kTrue;
    case PbOp::OP_FALSE:
      return Operation::kFalse;
    case PbOp::OP_AND:
      return Operation::kAnd;
    case PbOp::OP_OR:
      return Operation::kOr;
    case PbOp::OP_NOT:
      return Operation::kNot;
    case PbOp::OP_IS_NULL:
      return Operation::kIsNull;
    case PbOp::OP_NOT_NULL:
      return Operation::kNotNull;
    case PbOp::OP_IS_NAN:
      return Operation::kIsNan;
    case PbOp::OP_NOT_NAN:
      return Operation::kNotNan;
    case PbOp::OP_LT:
      return Operation::kLt;
    case PbOp::OP_LT_EQ:
      return Operation::kLtEq;
    case PbOp::OP_GT:
      return Operation::kGt;
    case PbOp::OP_GT_EQ:
      return Operation::kGtEq;
    case PbOp::OP_EQ:
      return Operation::kEq;
    case PbOp::OP_NOT_EQ:
      return Operation::kNotEq;
    case PbOp::OP_IN:
      return Operation::kIn;
    case PbOp::OP_NOT_IN:
      return Operation::kNotIn;
    case PbOp::OP_STARTS_WITH:
      return Operation::kStartsWith;
    case PbOp::OP_NOT_STARTS_WITH:
      return Operation::kNotStartsWith;
    default:
      break;
  }
  return Status::Corrupt("Iceberg expression with unknown operation {}", op);
}

// The operands of the left-deep chain of `op` rooted at `expr`, leftmost first.
void Flatten(const iceberg::ExpressionPtr& expr, Operation op,
             std::vector<const iceberg::Expression*>* out) {
  if (expr->op() == op) {
    Flatten(expr->left(), op, out);
    out->push_back(expr->right().get());
    return;
  }
  out->push_back(expr.get());
}

Status EncodeExpression(const iceberg::Expression& expr, proto::IcebergExpression* out) {
  out->set_op(ToProtoOp(expr.op()));
  switch (expr.op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return Status::OK();
    case Operation::kAnd:
    case Operation::kOr: {
      std::vector<const iceberg::Expression*> operands;
      Flatten(expr.left(), expr.op(), &operands);
      operands.push_back(expr.right().get());
      for (const iceberg::Expression* operand : operands) {
        FLOE_RETURN_NOT_OK(EncodeExpression(*operand, out->add_args()));
      }
      return Status::OK();
    }
    case Operation::kNot:
      return EncodeExpression(*expr.child(), out->add_args());
    default:
      break;
  }
  const iceberg::Term& term = expr.term();
  if (term.position >= 0) {
    return Status::NotSupported("Iceberg predicate {} is bound to a partition tuple",
                                expr.ToString());
  }
  proto::IcebergTerm* t = out->mutable_term();
  t->set_name(term.name);
  t->set_bound(term.bound());
  if (term.bound()) t->set_field_id(term.field_id);
  if (term.transform) t->set_transform(term.transform->ToString());
  t->set_position(term.position);
  for (const Scalar& literal : expr.literals()) {
    FLOE_RETURN_NOT_OK(EncodeScalar(literal, out->add_literals()));
  }
  return Status::OK();
}

Result<iceberg::ExpressionPtr> DecodePredicate(Operation op, const proto::IcebergExpression& m,
                                               const iceberg::Schema& schema) {
  if (!m.has_term()) return Status::Corrupt("Iceberg predicate without a term");
  if (m.args_size() != 0) return Status::Corrupt("Iceberg predicate with operands");
  const proto::IcebergTerm& t = m.term();
  std::optional<iceberg::Transform> transform;
  if (!t.transform().empty()) {
    Result<iceberg::Transform> parsed = iceberg::Transform::Parse(t.transform());
    if (!parsed.ok() || parsed->kind() == iceberg::TransformKind::kUnknown) {
      return Status::Corrupt("Iceberg term on \"{}\" has unknown transform \"{}\"", t.name(),
                             t.transform());
    }
    transform = *parsed;
  }
  std::vector<Scalar> literals;
  for (const proto::Scalar& literal : m.literals()) {
    Result<Scalar> value = DecodeScalar(literal);
    if (!value.ok()) {
      return value.status().WithPrefix(fmt::format("Iceberg predicate on \"{}\": ", t.name()));
    }
    literals.push_back(std::move(*value));
  }
  if (!t.bound()) {
    Result<iceberg::ExpressionPtr> unbound =
        iceberg::Expression::Predicate(op, iceberg::Term::Ref(t.name(), transform), literals);
    if (!unbound.ok()) return Status::Corrupt("Iceberg predicate: {}", unbound.status().message());
    return iceberg::Bind(*unbound, schema, /*case_sensitive=*/true);
  }
  if (t.position() != -1) {
    return Status::Corrupt("Iceberg predicate on \"{}\" is bound to a partition tuple", t.name());
  }
  const Field* field = schema.FindFieldById(t.field_id());
  if (field == nullptr) {
    return Status::Corrupt("Iceberg predicate on \"{}\": schema {} has no field id {}", t.name(),
                           schema.schema_id(), t.field_id());
  }
  iceberg::Term term;
  term.name = schema.FindColumnName(field->field_id()).value_or(field->name());
  if (term.name != t.name()) {
    return Status::Corrupt("Iceberg predicate: field id {} is \"{}\" in schema {}, not \"{}\"",
                           t.field_id(), term.name, schema.schema_id(), t.name());
  }
  if (field->type()->is_nested()) {
    return Status::Corrupt("Iceberg predicate on \"{}\" of nested type {}", t.name(),
                           field->type()->ToString());
  }
  term.transform = transform;
  term.field_id = field->field_id();
  term.source_type = field->type();
  term.nullable = field->nullable();
  if (transform && !transform->CanTransform(*field->type())) {
    return Status::Corrupt("Iceberg predicate: transform {} cannot apply to \"{}\" of type {}",
                           transform->ToString(), t.name(), field->type()->ToString());
  }
  const TypePtr type = term.type();
  if ((op == Operation::kIsNan || op == Operation::kNotNan) && !type->is_floating()) {
    return Status::Corrupt("Iceberg NaN test on \"{}\" of type {}", t.name(), type->ToString());
  }
  if ((op == Operation::kStartsWith || op == Operation::kNotStartsWith) &&
      type->id() != TypeId::kString) {
    return Status::Corrupt("Iceberg STARTS WITH on \"{}\" of type {}", t.name(), type->ToString());
  }
  for (const Scalar& literal : literals) {
    if (literal.is_null() || !literal.type()->Equals(*type)) {
      return Status::Corrupt("Iceberg predicate on \"{}\" ({}) has a literal {} of type {}",
                             t.name(), type->ToString(), literal.is_null() ? "NULL" : "value",
                             literal.type()->ToString());
    }
  }
  Result<iceberg::ExpressionPtr> bound =
      iceberg::Expression::Predicate(op, std::move(term), std::move(literals));
  if (!bound.ok()) return Status::Corrupt("Iceberg predicate: {}", bound.status().message());
  return bound;
}

Result<iceberg::ExpressionPtr> DecodeExpression(const proto::IcebergExpression& m,
                                                const iceberg::Schema& schema) {
  FLOE_ASSIGN_OR_RAISE(Operation op, FromProtoOp(m.op()));
  switch (op) {
    case Operation::kTrue:
    case Operation::kFalse:
      if (m.args_size() != 0 || m.has_term() || m.literals_size() != 0) {
        return Status::Corrupt("Iceberg constant with operands");
      }
      return op == Operation::kTrue ? iceberg::Expression::True() : iceberg::Expression::False();
    case Operation::kAnd:
    case Operation::kOr: {
      if (m.args_size() < 2) {
        return Status::Corrupt("Iceberg {} with {} operands", op == Operation::kAnd ? "AND" : "OR",
                               m.args_size());
      }
      iceberg::ExpressionPtr out;
      for (const proto::IcebergExpression& arg : m.args()) {
        FLOE_ASSIGN_OR_RAISE(iceberg::ExpressionPtr e, DecodeExpression(arg, schema));
        if (out == nullptr) {
          out = std::move(e);
        } else {
          out = op == Operation::kAnd ? iceberg::Expression::And(std::move(out), std::move(e))
                                      : iceberg::Expression::Or(std::move(out), std::move(e));
        }
      }
      return out;
    }
    case Operation::kNot: {
      if (m.args_size() != 1) return Status::Corrupt("Iceberg NOT with {} operands", m.args_size());
      FLOE_ASSIGN_OR_RAISE(iceberg::ExpressionPtr child, DecodeExpression(m.args(0), schema));
      return iceberg::Expression::Not(std::move(child));
    }
    default:
      return DecodePredicate(op, m, schema);
  }
}

void EncodeCounts(const std::map<int32_t, int64_t>& counts,
                  google::protobuf::RepeatedPtrField<proto::IntPair>* out) {
  for (const auto& [key, value] : counts) {
    proto::IntPair* pair = out->Add();
    pair->set_key(key);
    pair->set_value(value);
  }
}

void EncodeBounds(const std::map<int32_t, std::string>& bounds,
                  google::protobuf::RepeatedPtrField<proto::BytesPair>* out) {
  for (const auto& [key, value] : bounds) {
    proto::BytesPair* pair = out->Add();
    pair->set_key(key);
    pair->set_value(value);
  }
}

// Keys ascending and unique (what a std::map encodes to), values as they are.
template <typename Pair, typename Value>
Status DecodePairs(const google::protobuf::RepeatedPtrField<Pair>& pairs, std::string_view what,
                   const std::string& path, std::map<int32_t, Value>* out) {
  for (const Pair& pair : pairs) {
    if (!out->empty() && pair.key() <= out->rbegin()->first) {
      return Status::Corrupt("data file {}: {} keys are not ascending at field id {}", path, what,
                             pair.key());
    }
    out->emplace_hint(out->end(), pair.key(), pair.value());
  }
  return Status::OK();
}

}  // namespace

Status EncodeIcebergExpression(const iceberg::Expression& expr, proto::IcebergExpression* out) {
  out->Clear();
  return EncodeExpression(expr, out);
}

Result<iceberg::ExpressionPtr> DecodeIcebergExpression(const proto::IcebergExpression& message,
                                                       const iceberg::Schema& schema) {
  return DecodeExpression(message, schema);
}

Status EncodeDataFile(const iceberg::DataFile& file, proto::IcebergDataFile* out) {
  out->Clear();
  out->set_content(static_cast<proto::IcebergDataFile::Content>(file.content));
  out->set_file_path(file.file_path);
  out->set_file_format(std::string(iceberg::FileFormatName(file.file_format)));
  out->set_spec_id(file.spec_id);
  for (const Scalar& value : file.partition) {
    Status s = EncodeScalar(value, out->add_partition());
    if (!s.ok()) return s.WithPrefix(fmt::format("data file {}: ", file.file_path));
  }
  out->set_record_count(file.record_count);
  out->set_file_size_in_bytes(file.file_size_in_bytes);
  EncodeCounts(file.column_sizes, out->mutable_column_sizes());
  EncodeCounts(file.value_counts, out->mutable_value_counts());
  EncodeCounts(file.null_value_counts, out->mutable_null_value_counts());
  EncodeCounts(file.nan_value_counts, out->mutable_nan_value_counts());
  EncodeBounds(file.lower_bounds, out->mutable_lower_bounds());
  EncodeBounds(file.upper_bounds, out->mutable_upper_bounds());
  if (file.key_metadata) out->set_key_metadata(*file.key_metadata);
  for (int64_t offset : file.split_offsets) out->add_split_offsets(offset);
  for (int32_t id : file.equality_ids) out->add_equality_ids(id);
  if (file.sort_order_id) out->set_sort_order_id(*file.sort_order_id);
  if (file.first_row_id) out->set_first_row_id(*file.first_row_id);
  if (file.referenced_data_file) out->set_referenced_data_file(*file.referenced_data_file);
  if (file.content_offset) out->set_content_offset(*file.content_offset);
  if (file.content_size_in_bytes) out->set_content_size_in_bytes(*file.content_size_in_bytes);
  return Status::OK();
}

Result<iceberg::DataFilePtr> DecodeDataFile(const proto::IcebergDataFile& m) {
  auto file = std::make_shared<iceberg::DataFile>();
  if (m.file_path().empty()) return Status::Corrupt("data file without a path");
  file->file_path = m.file_path();
  const std::string& path = file->file_path;
  switch (m.content()) {
    case proto::IcebergDataFile::DATA:
      file->content = iceberg::FileContent::kData;
      break;
    case proto::IcebergDataFile::POSITION_DELETES:
      file->content = iceberg::FileContent::kPositionDeletes;
      break;
    case proto::IcebergDataFile::EQUALITY_DELETES:
      file->content = iceberg::FileContent::kEqualityDeletes;
      break;
    default:
      return Status::Corrupt("data file {}: unknown content {}", path,
                             static_cast<int>(m.content()));
  }
  Result<iceberg::FileFormat> format = iceberg::ParseFileFormat(m.file_format());
  if (!format.ok()) {
    return Status::Corrupt("data file {}: unknown file format \"{}\"", path, m.file_format());
  }
  file->file_format = *format;
  file->spec_id = m.spec_id();
  for (const proto::Scalar& value : m.partition()) {
    Result<Scalar> decoded = DecodeScalar(value);
    if (!decoded.ok()) {
      return decoded.status().WithPrefix(fmt::format("data file {}: partition value: ", path));
    }
    file->partition.push_back(std::move(*decoded));
  }
  if (m.record_count() < 0 || m.file_size_in_bytes() < 0) {
    return Status::Corrupt("data file {}: negative record count {} or size {}", path,
                           m.record_count(), m.file_size_in_bytes());
  }
  file->record_count = m.record_count();
  file->file_size_in_bytes = m.file_size_in_bytes();
  FLOE_RETURN_NOT_OK(DecodePairs(m.column_sizes(), "column_sizes", path, &file->column_sizes));
  FLOE_RETURN_NOT_OK(DecodePairs(m.value_counts(), "value_counts", path, &file->value_counts));
  FLOE_RETURN_NOT_OK(
      DecodePairs(m.null_value_counts(), "null_value_counts", path, &file->null_value_counts));
  FLOE_RETURN_NOT_OK(
      DecodePairs(m.nan_value_counts(), "nan_value_counts", path, &file->nan_value_counts));
  FLOE_RETURN_NOT_OK(DecodePairs(m.lower_bounds(), "lower_bounds", path, &file->lower_bounds));
  FLOE_RETURN_NOT_OK(DecodePairs(m.upper_bounds(), "upper_bounds", path, &file->upper_bounds));
  if (m.has_key_metadata()) file->key_metadata = m.key_metadata();
  file->split_offsets.assign(m.split_offsets().begin(), m.split_offsets().end());
  file->equality_ids.assign(m.equality_ids().begin(), m.equality_ids().end());
  if (m.has_sort_order_id()) file->sort_order_id = m.sort_order_id();
  if (m.has_first_row_id()) file->first_row_id = m.first_row_id();
  if (m.has_referenced_data_file()) file->referenced_data_file = m.referenced_data_file();
  if (m.has_content_offset()) file->content_offset = m.content_offset();
  if (m.has_content_size_in_bytes()) file->content_size_in_bytes = m.content_size_in_bytes();
  return iceberg::DataFilePtr(std::move(file));
}

}  // namespace floe::codec
