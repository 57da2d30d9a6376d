#include "floe/iceberg/single_value.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "floe/type/type_visit.h"

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
  return VisitPhysicalType(type.id(), [&]<typename T>(TypeTag<T>) -> Result<std::string> {
    if constexpr (std::is_same_v<T, bool>) {
      return std::string(1, value.get<bool>() ? '\x01' : '\x00');
    } else if constexpr (std::is_same_v<T, Int128>) {
      return DecimalToMinimalBytes(value.get<Int128>());
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      return value.get<std::string>();
    } else if constexpr (!std::is_void_v<T>) {
      // int8 and int16 values are held, and serialized, as int32.
      using S = ScalarStorageOf<T>;
      return LittleEndian<S>(value.get<S>());
    } else {
      return Status::Invalid("type {} has no single-value serialization", type.ToString());
    }
  });
}

Result<Scalar> DeserializeValue(const TypePtr& type, std::string_view bytes) {
  const size_t n = bytes.size();
  return VisitPhysicalType(type->id(), [&]<typename T>(TypeTag<T>) -> Result<Scalar> {
    if constexpr (std::is_same_v<T, bool>) {
      if (n != 1) return WrongLength(*type, n, "1");
      if (bytes[0] != 0 && bytes[0] != 1) {
        return Status::Invalid("single-value boolean bound has byte {}, expected 0 or 1",
                               static_cast<int>(static_cast<unsigned char>(bytes[0])));
      }
      return Scalar::Make(type, bytes[0] == 1);
    } else if constexpr (std::is_same_v<T, Int128>) {
      if (n == 0 || n > 16) return WrongLength(*type, n, "1 to 16");
      unsigned __int128 u =
          (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (char c : bytes) u = (u << 8) | static_cast<unsigned char>(c);
      return Scalar::Make(type, static_cast<Int128>(u));
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      if (!type->is_binary_like() && n != static_cast<size_t>(type->byte_width())) {
        return WrongLength(*type, n, std::to_string(type->byte_width()));
      }
      return Scalar::Make(type, std::string(bytes));
    } else if constexpr (!std::is_void_v<T>) {
      // int8 and int16 values are held, and serialized, as int32.
      using S = ScalarStorageOf<T>;
      if (n == sizeof(S)) return Scalar::Make(type, ReadLittleEndian<S>(bytes));
      if constexpr (std::is_same_v<S, int64_t>) {
        // An int column promoted to long keeps 4-byte bounds in older manifests.
        if (n == 4 && type->id() == TypeId::kInt64) {
          return Scalar::Make(type, static_cast<int64_t>(ReadLittleEndian<int32_t>(bytes)));
        }
      } else if constexpr (std::is_same_v<S, double>) {
        // A float column promoted to double keeps 4-byte bounds.
        if (n == 4) return Scalar::Make(type, static_cast<double>(ReadLittleEndian<float>(bytes)));
      }
      return WrongLength(*type, n, std::to_string(sizeof(S)));
    } else {
      return Status::Invalid("type {} has no single-value serialization", type->ToString());
    }
  });
}

}  // namespace floe::iceberg
