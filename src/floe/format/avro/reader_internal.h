#pragma once

// The reader's resolution plan: a tree of decode operations compiled once from the
// writer schema and the target schema, interpreted per record.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/batch/builder.h"
#include "floe/format/avro/schema.h"
#include "floe/format/compression/codec.h"

namespace floe::avro::internal {

/// The codec kind of an Avro codec name; nullopt for "null".
Result<std::optional<compression::CodecKind>> CodecFromName(std::string_view name);

enum class OpCode : uint8_t {
  // Skip a value of the file without materializing it.
  kSkipNull,
  kSkipBool,
  kSkipVarint,
  /// `size` varints in a row.
  kSkipVarints,
  kSkipFixed,
  kSkipBytes,
  kSkipArray,
  kSkipMap,
  kSkipUnion,
  // Decode into op.builder.
  kBool,
  kIntToI32,
  kIntToI64,
  kLongToI64,
  kLongToF32,
  kLongToF64,
  kFloatToF32,
  kFloatToF64,
  kDoubleToF64,
  kBytes,
  kEnum,
  kFixed,
  kFixedToBinary,
  kDecimalFixed,
  kDecimalBytes,
  kAppendNull,
  kError,
  kUnion,
  /// A record whose fields go to the children's builders (top level, or skipped when
  /// builder is null).
  kRecord,
  /// A record appended to a StructBuilder.
  kStruct,
  kList,
  kMapFromMap,
  kMapFromArray,
  /// An Avro array of {int key, long value} records read as map<int32, int64> (Iceberg's
  /// column-metric count maps): decoded in chunks and appended in bulk.
  kMapIntLong,
  /// An Avro array of {int key, bytes value} records read as map<int32, binary or
  /// string> (Iceberg's bound maps): one loop without per-entry dispatch.
  kMapIntBinary,
  /// A NULL for a map decoded through an IntMapSink.
  kIntMapNull,
};

/// Collects one int-keyed metric-map column (see kMapIntLong and kMapIntBinary) in raw
/// buffers that the decoder writes without per-value bookkeeping, and hands a batch's
/// worth to the target MapBuilder in bulk. Used only when nothing else appends to that
/// builder (see Decoder and AvroBatchReader::Init), so values keep their order.
class IntMapSink {
 public:
  IntMapSink(MapBuilder* target, bool binary_values, MemoryPool* pool = DefaultMemoryPool());

  MapBuilder* target() const { return target_; }

  /// Appends everything collected since the last Flush to the target builder and clears
  /// the sink, keeping its memory.
  Status Flush();

 private:
  friend class Decoder;

  MapBuilder* target_;
  bool binary_values_;
  /// Maps so far and how many are NULL.
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  /// Entries so far.
  int64_t count_ = 0;
  /// int32 entry offsets (length_ + 1, starting with 0) and one byte per map (1 = valid).
  BufferBuilder offsets_;
  BufferBuilder valid_;
  BufferBuilder keys_;
  /// int64 values, or int32 value offsets (count_ + 1, starting with 0) and value data.
  BufferBuilder values_;
  BufferBuilder data_;
  BufferBuilder bitmap_;
};

struct Op {
  OpCode code = OpCode::kSkipNull;
  /// Bytes of a fixed value.
  int32_t size = 0;
  bool nullable = true;
  /// For arrays: items may encode in zero bytes (counts are then bounded by a cap).
  bool items_may_be_empty = false;
  /// Target builder; null for skip operations.
  ArrayBuilder* builder = nullptr;
  /// Record fields in file order, array element, map key and value, union branches.
  std::vector<Op> children;
  /// Target record fields absent from the file: appended NULL per record.
  std::vector<ArrayBuilder*> missing;
  std::vector<std::string> symbols;
  /// The target field's path, for errors; the error of a kError op.
  std::string name;
  std::string message;
  /// For ops appending to a BinaryBuilder (kBytes, kEnum, kFixedToBinary, and the value
  /// of kMapIntBinary): the builder's data length up to which room is known to be
  /// reserved, so appends skip ReserveData. -1 means unknown; ResetReservations sets it
  /// back after the builder is finished.
  mutable int64_t data_reserved_to = -1;
  /// For kMapIntLong, kMapIntBinary and kIntMapNull: the sink the values go to, or null
  /// to append to the builders.
  IntMapSink* sink = nullptr;
};

/// Value data is reserved in steps of at least this many bytes (bounded by the bytes left
/// in the block, which no value can exceed), so most appends need no ReserveData call.
inline constexpr int64_t kDataReserveStep = 64 << 10;

/// Forgets every op's known data reservation (after the plan's builders are finished).
void ResetReservations(const Op& op);

/// Compiles reading `file` into `builder` (of `target`'s type).
Result<Op> Compile(const AvroNode& file, const Field& target, ArrayBuilder* builder,
                   const std::string& path);
/// Compiles reading a record into one builder per target field.
Result<Op> CompileRecord(const AvroNode& file, const std::vector<Field>& targets,
                         const std::vector<ArrayBuilder*>& builders, const std::string& path);

/// Whether a value of this type may encode in zero bytes.
bool MinSizeIsZeroForTest(const AvroNode& node);

/// Interprets a plan over one block's bytes. Errors are kept in error(). Values are
/// appended without capacity checks: the caller reserves room for the records it decodes
/// in the top-level builders, and list and map blocks reserve their item count.
class Decoder {
 public:
  explicit Decoder(const uint8_t* end) : end_(end) {}
  bool Decode(const Op& op, const uint8_t*& p);
  bool Skip(const Op& op, const uint8_t*& p);
  const Status& error() const { return error_; }

 private:
  bool ReadCount(const uint8_t*& p, int64_t* count, bool items_may_be_empty, const Op& op);
  bool AppendBinary(const Op& op, const uint8_t* p, int64_t n);
  bool DecodeMapIntLong(const Op& op, const uint8_t*& p);
  bool DecodeMapIntBinary(const Op& op, const uint8_t*& p);
  bool SinkMapIntLong(const Op& op, const uint8_t*& p);
  bool SinkMapIntBinary(const Op& op, const uint8_t*& p);
  bool SinkEndMap(const Op& op, IntMapSink& sink, bool valid);
  bool Fail(std::string message);
  bool Truncated(const Op& op);
  bool AppendFailed(const Status& s);

  const uint8_t* end_;
  Status error_;
};

}  // namespace floe::avro::internal
