// The decoder: interprets a resolution plan over the bytes of one block, appending values to
// the target's builders (Avro specification, "Binary Encoding").

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "floe/batch/builder.h"
#include "floe/format/avro/encoding_internal.h"
#include "floe/format/avro/reader_internal.h"

namespace floe::avro::internal {

void ResetReservations(const Op& op) {
  op.data_reserved_to = -1;
  for (const Op& c : op.children) ResetReservations(c);
}

bool Decoder::AppendBinary(const Op& op, const uint8_t* p, int64_t n) {
  auto* b = static_cast<BinaryBuilder*>(op.builder);
  const int64_t length = b->data_length();
  if (length + n > op.data_reserved_to) [[unlikely]] {
    // The first reservation after Finish also writes the builder's leading offset, so
    // data_reserved_to is -1 until then and even an empty value takes this branch.
    int64_t step = std::max(n, std::min<int64_t>(end_ - p, kDataReserveStep));
    Status s = b->ReserveData(step);
    if (!s.ok()) return AppendFailed(s);
    op.data_reserved_to = length + step;
  }
  b->UnsafeAppend(std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n)));
  return true;
}

IntMapSink::IntMapSink(MapBuilder* target, bool binary_values, MemoryPool* pool)
    : target_(target),
      binary_values_(binary_values),
      offsets_(pool),
      valid_(pool),
      keys_(pool),
      values_(pool),
      data_(pool),
      bitmap_(pool) {}

Status IntMapSink::Flush() {
  if (length_ == 0) return Status::OK();
  const DataType& type = *target_->type();
  auto wrap = [](const BufferBuilder& b) { return Buffer::Wrap(b.data(), b.size(), nullptr); };
  // The leading offsets are written here rather than at each reset, so an empty sink
  // holds nothing.
  std::memset(offsets_.mutable_data(), 0, 4);
  // Buffers of empty columns still need memory to point at.
  for (BufferBuilder* b : {&keys_, &values_, &data_}) FLOE_RETURN_NOT_OK(b->Reserve(8));
  if (binary_values_ && values_.size() == 0) values_.UnsafeAdvance(4);
  FLOE_ASSIGN_OR_RAISE(ArrayPtr keys,
                       Array::Make(type.field(0).type(), count_, {nullptr, wrap(keys_)}));
  ArrayPtr values;
  if (binary_values_) {
    std::memset(values_.mutable_data(), 0, 4);
    FLOE_ASSIGN_OR_RAISE(
        values, Array::Make(type.field(1).type(), count_, {nullptr, wrap(values_), wrap(data_)}));
  } else {
    FLOE_ASSIGN_OR_RAISE(values,
                         Array::Make(type.field(1).type(), count_, {nullptr, wrap(values_)}));
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr entries, Array::Make(type.map_entries_type(), count_, {nullptr},
                                                     {std::move(keys), std::move(values)}));
  BufferPtr validity;
  if (null_count_ > 0) {
    bitmap_.Reset();
    FLOE_RETURN_NOT_OK(bitmap_.Resize(bit_util::BytesForBits(length_)));
    const uint8_t* v = valid_.data();
    for (int64_t i = 0; i < length_; ++i) {
      if (v[i]) bit_util::SetBit(bitmap_.mutable_data(), i);
    }
    validity = wrap(bitmap_);
  }
  FLOE_ASSIGN_OR_RAISE(ArrayPtr maps,
                       Array::Make(target_->type(), length_, {std::move(validity), wrap(offsets_)},
                                   {std::move(entries)}, null_count_));
  FLOE_RETURN_NOT_OK(target_->AppendArraySlice(*maps, 0, length_));
  length_ = null_count_ = count_ = 0;
  offsets_.Reset();
  valid_.Reset();
  keys_.Reset();
  values_.Reset();
  data_.Reset();
  return Status::OK();
}

bool Decoder::SinkEndMap(const Op& op, IntMapSink& sink, bool valid) {
  if (sink.count_ > INT32_MAX) [[unlikely]] {
    return Fail(fmt::format("'{}' has more than {} map entries in one batch", op.name, INT32_MAX));
  }
  // offsets_ holds a slot for the leading offset (written by Flush) before the ends.
  Status s = sink.offsets_.Reserve(sink.offsets_.size() == 0 ? 8 : 4);
  if (s.ok()) s = sink.valid_.Reserve(1);
  if (!s.ok()) return AppendFailed(s);
  if (sink.offsets_.size() == 0) sink.offsets_.UnsafeAdvance(4);
  sink.offsets_.UnsafeAppendValue(static_cast<int32_t>(sink.count_));
  sink.valid_.UnsafeAppendValue(static_cast<uint8_t>(valid));
  ++sink.length_;
  if (!valid) ++sink.null_count_;
  return true;
}

bool Decoder::SinkMapIntLong(const Op& op, const uint8_t*& p) {
  IntMapSink& sink = *op.sink;
  const uint8_t* q = p;
  const uint8_t* const end = end_;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    Status s = sink.keys_.Reserve(n * 4);
    if (s.ok()) s = sink.values_.Reserve(n * 8);
    if (!s.ok()) return AppendFailed(s);
    int32_t* keys = reinterpret_cast<int32_t*>(sink.keys_.mutable_data() + sink.keys_.size());
    int64_t* values = reinterpret_cast<int64_t*>(sink.values_.mutable_data() + sink.values_.size());
    for (int64_t i = 0; i < n; ++i) {
      int64_t k, v;
      if (!ReadVarLong(q, end, &k) || !ReadVarLong(q, end, &v)) return Truncated(op);
      if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
        return Fail(fmt::format("int value {} of '{}' out of range", k, op.children[0].name));
      }
      keys[i] = static_cast<int32_t>(k);
      values[i] = v;
    }
    sink.keys_.UnsafeAdvance(n * 4);
    sink.values_.UnsafeAdvance(n * 8);
    sink.count_ += n;
  }
  p = q;
  return SinkEndMap(op, sink, true);
}

bool Decoder::SinkMapIntBinary(const Op& op, const uint8_t*& p) {
  IntMapSink& sink = *op.sink;
  const uint8_t* q = p;
  const uint8_t* const end = end_;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    // values_ holds a slot for the leading offset (written by Flush) before the ends.
    Status s = sink.keys_.Reserve(n * 4);
    if (s.ok()) s = sink.values_.Reserve(n * 4 + 4);
    if (!s.ok()) return AppendFailed(s);
    if (sink.values_.size() == 0) sink.values_.UnsafeAdvance(4);
    int32_t* keys = reinterpret_cast<int32_t*>(sink.keys_.mutable_data() + sink.keys_.size());
    int32_t* ends = reinterpret_cast<int32_t*>(sink.values_.mutable_data() + sink.values_.size());
    BufferBuilder& data = sink.data_;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k, len;
      if (!ReadVarLong(q, end, &k) || !ReadVarLong(q, end, &len)) return Truncated(op);
      if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
        return Fail(fmt::format("int value {} of '{}' out of range", k, op.children[0].name));
      }
      if (len < 0 || len > end - q) [[unlikely]] {
        return Fail(fmt::format("length {} of '{}' is out of range", len, op.children[1].name));
      }
      if (data.size() + len > BinaryBuilder::kMaxDataBytes) [[unlikely]] {
        return Fail(fmt::format("'{}' has more than {} bytes of values in one batch",
                                op.children[1].name, BinaryBuilder::kMaxDataBytes));
      }
      // 16 bytes of slack let short values (most bounds are 1 to 16 bytes) move in one
      // fixed-size copy when the input has as much left.
      s = data.Reserve(len + 16);
      if (!s.ok()) return AppendFailed(s);
      uint8_t* dst = data.mutable_data() + data.size();
      if (len <= 16 && end - q >= 16) {
        std::memcpy(dst, q, 16);
      } else {
        std::memcpy(dst, q, static_cast<size_t>(len));
      }
      data.UnsafeAdvance(len);
      q += len;
      keys[i] = static_cast<int32_t>(k);
      ends[i] = static_cast<int32_t>(data.size());
    }
    sink.keys_.UnsafeAdvance(n * 4);
    sink.values_.UnsafeAdvance(n * 4);
    sink.count_ += n;
  }
  p = q;
  return SinkEndMap(op, sink, true);
}

bool Decoder::DecodeMapIntLong(const Op& op, const uint8_t*& p) {
  Status s = static_cast<MapBuilder*>(op.builder)->Append();
  if (!s.ok()) return AppendFailed(s);
  const Op& key = op.children[0];
  auto* kb = static_cast<Int32Builder*>(key.builder);
  auto* vb = static_cast<Int64Builder*>(op.children[1].builder);
  // Entries are decoded into local arrays and appended a chunk at a time: writing
  // through the builders value by value costs more than the decoding itself.
  constexpr int64_t kChunk = 64;
  int32_t keys[kChunk];
  int64_t values[kChunk];
  const uint8_t* q = p;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    while (n > 0) {
      int64_t m = std::min(n, kChunk);
      for (int64_t i = 0; i < m; ++i) {
        int64_t k, v;
        if (!ReadVarLong(q, end_, &k) || !ReadVarLong(q, end_, &v)) return Truncated(op);
        if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
          return Fail(fmt::format("int value {} of '{}' out of range", k, key.name));
        }
        keys[i] = static_cast<int32_t>(k);
        values[i] = v;
      }
      s = kb->AppendValues(keys, m);
      if (s.ok()) s = vb->AppendValues(values, m);
      if (!s.ok()) return AppendFailed(s);
      n -= m;
    }
  }
  p = q;
  return true;
}

bool Decoder::DecodeMapIntBinary(const Op& op, const uint8_t*& p) {
  Status s = static_cast<MapBuilder*>(op.builder)->Append();
  if (!s.ok()) return AppendFailed(s);
  const Op& key = op.children[0];
  const Op& value = op.children[1];
  auto* kb = static_cast<Int32Builder*>(key.builder);
  auto* vb = static_cast<BinaryBuilder*>(value.builder);
  constexpr int64_t kChunk = 64;
  int32_t keys[kChunk];
  const uint8_t* q = p;
  while (true) {
    int64_t n;
    if (!ReadCount(q, &n, false, op)) return false;
    if (n == 0) break;
    s = vb->Reserve(n);
    if (!s.ok()) return AppendFailed(s);
    while (n > 0) {
      int64_t m = std::min(n, kChunk);
      for (int64_t i = 0; i < m; ++i) {
        int64_t k, len;
        if (!ReadVarLong(q, end_, &k) || !ReadVarLong(q, end_, &len)) return Truncated(op);
        if (k < INT32_MIN || k > INT32_MAX) [[unlikely]] {
          return Fail(fmt::format("int value {} of '{}' out of range", k, key.name));
        }
        if (len < 0 || len > end_ - q) [[unlikely]] {
          return Fail(fmt::format("length {} of '{}' is out of range", len, value.name));
        }
        keys[i] = static_cast<int32_t>(k);
        if (!AppendBinary(value, q, len)) return false;
        q += len;
      }
      s = kb->AppendValues(keys, m);
      if (!s.ok()) return AppendFailed(s);
      n -= m;
    }
  }
  p = q;
  return true;
}

bool Decoder::Fail(std::string message) {
  if (error_.ok()) error_ = Status::Corrupt("{}", message);
  return false;
}

bool Decoder::Truncated(const Op& op) {
  return Fail(fmt::format("value of '{}' runs past the end of the block", op.name));
}

bool Decoder::AppendFailed(const Status& s) {
  if (error_.ok()) error_ = s;
  return false;
}

bool Decoder::ReadCount(const uint8_t*& p, int64_t* count, bool items_may_be_empty, const Op& op) {
  int64_t n;
  if (!ReadVarLong(p, end_, &n)) return Truncated(op);
  if (n < 0) {
    if (n == INT64_MIN) return Fail(fmt::format("block count of '{}' out of range", op.name));
    n = -n;
    int64_t bytes;
    if (!ReadVarLong(p, end_, &bytes)) return Truncated(op);
    if (bytes < 0 || bytes > end_ - p) {
      return Fail(fmt::format("block byte size {} of '{}' exceeds the {} bytes left", bytes,
                              op.name, end_ - p));
    }
  }
  // Every item takes at least one byte unless its type encodes in zero bytes.
  int64_t limit = items_may_be_empty ? (int64_t{1} << 16) : (end_ - p);
  if (n > limit) {
    return Fail(
        fmt::format("block count {} of '{}' exceeds the {} bytes left", n, op.name, end_ - p));
  }
  *count = n;
  return true;
}

bool Decoder::Skip(const Op& op, const uint8_t*& p) {
  switch (op.code) {
    case OpCode::kSkipNull:
      return true;
    case OpCode::kSkipBool:
      if (p >= end_) return Truncated(op);
      ++p;
      return true;
    case OpCode::kSkipVarint: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      return true;
    }
    case OpCode::kSkipVarints: {
      int64_t v;
      for (int32_t i = 0; i < op.size; ++i) {
        if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      }
      return true;
    }
    case OpCode::kSkipFixed:
      if (end_ - p < op.size) return Truncated(op);
      p += op.size;
      return true;
    case OpCode::kSkipBytes: {
      int64_t n;
      if (!ReadVarLong(p, end_, &n)) return Truncated(op);
      if (n < 0 || n > end_ - p) {
        return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
      }
      p += n;
      return true;
    }
    case OpCode::kRecord:
      for (const Op& c : op.children) {
        if (!Skip(c, p)) return false;
      }
      return true;
    case OpCode::kSkipArray:
    case OpCode::kSkipMap:
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, op.items_may_be_empty, op)) return false;
        if (n == 0) return true;
        const Op& item = op.children[0];
        if (op.code == OpCode::kSkipArray && item.code == OpCode::kSkipVarints) {
          // Skipped count maps (records of an int and a long): only varints.
          int64_t v;
          for (int64_t i = 0, total = n * item.size; i < total; ++i) {
            if (!ReadVarLong(p, end_, &v)) return Truncated(item);
          }
          continue;
        }
        if (op.code == OpCode::kSkipArray && item.code == OpCode::kRecord &&
            item.children.size() == 2 && item.children[0].code == OpCode::kSkipVarint &&
            item.children[1].code == OpCode::kSkipBytes) {
          // Skipped bound maps (records of an int and bytes).
          for (int64_t i = 0; i < n; ++i) {
            int64_t key, len;
            if (!ReadVarLong(p, end_, &key) || !ReadVarLong(p, end_, &len)) {
              return Truncated(item);
            }
            if (len < 0 || len > end_ - p) {
              return Fail(fmt::format("length {} of '{}' is out of range", len, op.name));
            }
            p += len;
          }
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          if (op.code == OpCode::kSkipMap) {
            int64_t len;
            if (!ReadVarLong(p, end_, &len)) return Truncated(op);
            if (len < 0 || len > end_ - p) {
              return Fail(fmt::format("map key length {} of '{}' is out of range", len, op.name));
            }
            p += len;
          }
          if (!Skip(op.children[0], p)) return false;
        }
      }
    case OpCode::kSkipUnion: {
      int64_t b;
      if (!ReadVarLong(p, end_, &b)) return Truncated(op);
      if (b < 0 || b >= static_cast<int64_t>(op.children.size())) {
        return Fail(fmt::format("union branch {} of '{}' out of range", b, op.name));
      }
      return Skip(op.children[static_cast<size_t>(b)], p);
    }
    default:
      return Decode(op, p);
  }
}

bool Decoder::Decode(const Op& op, const uint8_t*& p) {
  switch (op.code) {
    case OpCode::kIntToI32: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      if (v < INT32_MIN || v > INT32_MAX) {
        return Fail(fmt::format("int value {} of '{}' out of range", v, op.name));
      }
      static_cast<Int32Builder*>(op.builder)->UnsafeAppend(static_cast<int32_t>(v));
      return true;
    }
    case OpCode::kIntToI64:
    case OpCode::kLongToI64: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Int64Builder*>(op.builder)->UnsafeAppend(v);
      return true;
    }
    case OpCode::kLongToF32: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Float32Builder*>(op.builder)->UnsafeAppend(static_cast<float>(v));
      return true;
    }
    case OpCode::kLongToF64: {
      int64_t v;
      if (!ReadVarLong(p, end_, &v)) return Truncated(op);
      static_cast<Float64Builder*>(op.builder)->UnsafeAppend(static_cast<double>(v));
      return true;
    }
    case OpCode::kFloatToF32:
    case OpCode::kFloatToF64: {
      if (end_ - p < 4) return Truncated(op);
      float f;
      std::memcpy(&f, p, 4);
      p += 4;
      if (op.code == OpCode::kFloatToF32) {
        static_cast<Float32Builder*>(op.builder)->UnsafeAppend(f);
      } else {
        static_cast<Float64Builder*>(op.builder)->UnsafeAppend(static_cast<double>(f));
      }
      return true;
    }
    case OpCode::kDoubleToF64: {
      if (end_ - p < 8) return Truncated(op);
      double d;
      std::memcpy(&d, p, 8);
      p += 8;
      static_cast<Float64Builder*>(op.builder)->UnsafeAppend(d);
      return true;
    }
    case OpCode::kBool: {
      if (p >= end_) return Truncated(op);
      uint8_t b = *p++;
      if (b > 1) return Fail(fmt::format("boolean byte {} of '{}' is not 0 or 1", b, op.name));
      static_cast<BooleanBuilder*>(op.builder)->UnsafeAppend(b == 1);
      return true;
    }
    case OpCode::kBytes: {
      int64_t n;
      if (!ReadVarLong(p, end_, &n)) return Truncated(op);
      if (n < 0 || n > end_ - p) {
        return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
      }
      if (!AppendBinary(op, p, n)) return false;
      p += n;
      return true;
    }
    case OpCode::kEnum: {
      int64_t i;
      if (!ReadVarLong(p, end_, &i)) return Truncated(op);
      if (i < 0 || i >= static_cast<int64_t>(op.symbols.size())) {
        return Fail(fmt::format("enum index {} of '{}' out of range", i, op.name));
      }
      const std::string& sym = op.symbols[static_cast<size_t>(i)];
      const uint8_t* q = reinterpret_cast<const uint8_t*>(sym.data());
      return AppendBinary(op, q, static_cast<int64_t>(sym.size()));
    }
    case OpCode::kFixed: {
      if (end_ - p < op.size) return Truncated(op);
      static_cast<FixedSizeBinaryBuilder*>(op.builder)->UnsafeAppend(p);
      p += op.size;
      return true;
    }
    case OpCode::kFixedToBinary: {
      if (end_ - p < op.size) return Truncated(op);
      if (!AppendBinary(op, p, op.size)) return false;
      p += op.size;
      return true;
    }
    case OpCode::kDecimalFixed:
    case OpCode::kDecimalBytes: {
      int64_t n = op.size;
      if (op.code == OpCode::kDecimalBytes) {
        if (!ReadVarLong(p, end_, &n)) return Truncated(op);
        if (n < 0 || n > end_ - p) {
          return Fail(fmt::format("length {} of '{}' is out of range", n, op.name));
        }
        if (n > 16) return Fail(fmt::format("decimal of {} bytes in '{}' exceeds 16", n, op.name));
      }
      if (end_ - p < n) return Truncated(op);
      // Big-endian two's complement, sign-extended.
      unsigned __int128 u = (n > 0 && (p[0] & 0x80)) ? ~static_cast<unsigned __int128>(0) : 0;
      for (int64_t i = 0; i < n; ++i) u = (u << 8) | p[i];
      p += n;
      static_cast<DecimalBuilder*>(op.builder)->UnsafeAppend(static_cast<Int128>(u));
      return true;
    }
    case OpCode::kAppendNull: {
      if (!op.nullable) {
        return Fail(fmt::format("null value for required field '{}'", op.name));
      }
      Status s = op.builder->AppendNull();
      return s.ok() || AppendFailed(s);
    }
    case OpCode::kError:
      return Fail(op.message);
    case OpCode::kUnion: {
      int64_t b;
      if (!ReadVarLong(p, end_, &b)) return Truncated(op);
      if (b < 0 || b >= static_cast<int64_t>(op.children.size())) {
        return Fail(fmt::format("union branch {} of '{}' out of range", b, op.name));
      }
      const Op& branch = op.children[static_cast<size_t>(b)];
      // Optional longs and ints (Iceberg's sequence numbers, snapshot and sort order ids)
      // are decoded here rather than through another dispatch.
      if (branch.code == OpCode::kLongToI64) {
        int64_t v;
        if (!ReadVarLong(p, end_, &v)) return Truncated(branch);
        static_cast<Int64Builder*>(branch.builder)->UnsafeAppend(v);
        return true;
      }
      return Decode(branch, p);
    }
    case OpCode::kStruct: {
      Status s = static_cast<StructBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      [[fallthrough]];
    }
    case OpCode::kRecord: {
      for (const Op& c : op.children) {
        if (c.builder == nullptr) {
          if (!Skip(c, p)) return false;
        } else if (!Decode(c, p)) {
          return false;
        }
      }
      for (ArrayBuilder* m : op.missing) {
        Status s = m->AppendNull();
        if (!s.ok()) return AppendFailed(s);
      }
      return true;
    }
    case OpCode::kList: {
      Status s = static_cast<ListBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      const Op& elem = op.children[0];
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, op.items_may_be_empty, op)) return false;
        if (n == 0) return true;
        s = elem.builder->Reserve(n);
        if (!s.ok()) return AppendFailed(s);
        for (int64_t i = 0; i < n; ++i) {
          if (!Decode(elem, p)) return false;
        }
      }
    }
    case OpCode::kMapIntLong:
      return op.sink != nullptr ? SinkMapIntLong(op, p) : DecodeMapIntLong(op, p);
    case OpCode::kMapIntBinary:
      return op.sink != nullptr ? SinkMapIntBinary(op, p) : DecodeMapIntBinary(op, p);
    case OpCode::kIntMapNull:
      if (!op.nullable) return Fail(fmt::format("null value for required field '{}'", op.name));
      return SinkEndMap(op, *op.sink, false);
    case OpCode::kMapFromMap:
    case OpCode::kMapFromArray: {
      Status s = static_cast<MapBuilder*>(op.builder)->Append();
      if (!s.ok()) return AppendFailed(s);
      const Op& key = op.children[0];
      const Op& value = op.children[1];
      while (true) {
        int64_t n;
        if (!ReadCount(p, &n, false, op)) return false;
        if (n == 0) return true;
        s = key.builder->Reserve(n);
        if (s.ok()) s = value.builder->Reserve(n);
        if (!s.ok()) return AppendFailed(s);
        for (int64_t i = 0; i < n; ++i) {
          if (!Decode(key, p) || !Decode(value, p)) return false;
        }
      }
    }
    default:
      return Skip(op, p);
  }
}

}  // namespace floe::avro::internal
