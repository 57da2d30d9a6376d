#include "floe/iceberg/single_value.h"

#include <cstring>

namespace floe::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  // floe only builds on little-endian hosts (the array layout assumes it too).
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

template <typename T>
T ReadLittleEndian(std::string_view bytes) {
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

Status WrongLength(const DataType& type, size_t length, std::string_view expected) {
  return Status::Invalid("single-value bound for type {} has {} bytes, expected {}",
                         type.ToString(), length, expected);
}

}  // namespace

std::string DecimalToMinimalBytes(Int128 unscaled) {
  unsigned char be[16];
  auto u = static_cast<unsigned __int128>(unscaled);
  for (int i = 15; i >= 0; --i) {
    be[i] = static_cast<unsigned char>(u & 0xff);
    u >>= 8;
  }
  // Drop leading bytes that only repeat the sign of the byte after them.
  int start = 0;
  while (start < 15) {
    bool neg_next = (be[start + 1] & 0x80) != 0;
    if ((be[start] == 0x00 && !neg_next) || (be[start] == 0xff && neg_next)) {
      ++start;
    } else {
      break;
    }
  }
  return std::string(reinterpret_cast<const char*>(be + start), static_cast<size_t>(16 - start));
}

Result<std::string> SerializeValue(const Scalar& value) {
  if (value.is_null()) return Status::Invalid("cannot serialize a NULL single value");
  const DataType& type = *value.type();
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::string(1, value.get<bool>() ? '\x01' : '\x00');
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      return LittleEndian<int32_t>(value.get<int32_t>());
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return LittleEndian<int64_t>(value.get<int64_t>());
    case TypeId::kFloat32:
      return LittleEndian<float>(value.get<float>());
    case TypeId::kFloat64:
      return LittleEndian<double>(value.get<double>());
    case TypeId::kDecimal:
      return DecimalToMinimalBytes(value.get<Int128>());
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid:
      return value.get<std::string>();
    default:
      return Status::Invalid("type {} has no single-value serialization", type.ToString());
  }
}

Result<Scalar> DeserializeValue(const TypePtr& type, std::string_view bytes) {
  const size_t n = bytes.size();
  switch (type->id()) {
    case TypeId::kBoolean:
      if (n != 1) return WrongLength(*type, n, "1");
      if (bytes[0] != 0 && bytes[0] != 1) {
        return Status::Invalid("single-value boolean bound has byte {}, expected 0 or 1",
                               static_cast<int>(static_cast<unsigned char>(bytes[0])));
      }
      return Scalar::Make(type, bytes[0] == 1);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      if (n != 4) return WrongLength(*type, n, "4");
      return Scalar::Make(type, ReadLittleEndian<int32_t>(bytes));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (n == 8) return Scalar::Make(type, ReadLittleEndian<int64_t>(bytes));
      // An int column promoted to long keeps 4-byte bounds in older manifests.
      if (n == 4 && type->id() == TypeId::kInt64) {
        return Scalar::Make(type, static_cast<int64_t>(ReadLittleEndian<int32_t>(bytes)));
      }
      return WrongLength(*type, n, "8");
    case TypeId::kFloat32:
      if (n != 4) return WrongLength(*type, n, "4");
      return Scalar::Make(type, ReadLittleEndian<float>(bytes));
    case TypeId::kFloat64:
      if (n == 8) return Scalar::Make(type, ReadLittleEndian<double>(bytes));
      if (n == 4) return Scalar::Make(type, static_cast<double>(ReadLittleEndian<float>(bytes)));
      return WrongLength(*type, n, "8");
    case TypeId::kDecimal: {
      if (n == 0 || n > 16) return WrongLength(*type, n, "1 to 16");
      unsigned __int128 u =
          (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (char c : bytes) u = (u << 8) | static_cast<unsigned char>(c);
      return Scalar::Make(type, static_cast<Int128>(u));
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return Scalar::Make(type, std::string(bytes));
    case TypeId::kFixed:
    case TypeId::kUuid:
      if (n != static_cast<size_t>(type->byte_width())) {
        return WrongLength(*type, n, std::to_string(type->byte_width()));
      }
      return Scalar::Make(type, std::string(bytes));
    default:
      return Status::Invalid("type {} has no single-value serialization", type->ToString());
  }
}

}  // namespace floe::iceberg
