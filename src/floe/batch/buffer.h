#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

#include "floe/common/memory_pool.h"
#include "floe/common/result.h"

namespace floe {

class Buffer;
using BufferPtr = std::shared_ptr<const Buffer>;

/// A contiguous, immutable byte range. It either owns memory from a MemoryPool, or
/// views memory owned by something it keeps alive (a parent buffer, an imported
/// Arrow array, a string).
class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// A zero-filled buffer of `size` bytes from `pool`.
  static Result<std::shared_ptr<Buffer>> AllocateZeroed(int64_t size,
                                                        MemoryPool* pool = DefaultMemoryPool());
  /// A copy of `bytes` in memory from `pool`.
  static Result<BufferPtr> CopyOf(std::span<const uint8_t> bytes,
                                  MemoryPool* pool = DefaultMemoryPool());
  static Result<BufferPtr> CopyOf(std::string_view bytes, MemoryPool* pool = DefaultMemoryPool());
  /// A view of memory that `owner` keeps alive (owner may be null for static memory).
  static BufferPtr Wrap(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner);
  /// A view of bytes [offset, offset + length) of `parent`, sharing its memory.
  static BufferPtr Slice(const BufferPtr& parent, int64_t offset, int64_t length);

  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  /// The memory the buffer holds: for memory it owns, the block its pool took for it (a
  /// builder's buffer may have room past its size, and a pool rounds blocks up to its size
  /// classes); for a view (a slice, wrapped memory), its size.
  int64_t memory_size() const { return pool_ != nullptr ? pool_->BlockBytes(capacity_) : size_; }
  std::span<const uint8_t> span() const { return {data_, static_cast<size_t>(size_)}; }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  /// Writable access; only for the code that created the buffer and has not yet
  /// shared it (builders, readers filling a freshly allocated buffer).
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }

 private:
  friend class BufferBuilder;
  Buffer() = default;

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  // Owned memory: pool_ != nullptr and capacity_ bytes from it.
  MemoryPool* pool_ = nullptr;
  int64_t capacity_ = 0;
  // Borrowed memory: kept alive by owner_.
  std::shared_ptr<const void> owner_;
};

/// Builds a buffer by appending or by writing into reserved space; grows
/// geometrically through the pool. Finish() hands the bytes over without copying.
class BufferBuilder {
 public:
  explicit BufferBuilder(MemoryPool* pool = DefaultMemoryPool()) : pool_(pool) {}
  ~BufferBuilder();
  BufferBuilder(BufferBuilder&& other) noexcept;
  BufferBuilder& operator=(BufferBuilder&& other) noexcept;
  BufferBuilder(const BufferBuilder&) = delete;
  BufferBuilder& operator=(const BufferBuilder&) = delete;

  /// Ensures room for `additional` more bytes beyond size().
  Status Reserve(int64_t additional) {
    if (size_ + additional <= capacity_) [[likely]] return Status::OK();
    return Grow(size_ + additional);
  }
  /// Sets the size, growing (zero-filled) or shrinking.
  Status Resize(int64_t new_size);

  Status Append(const void* bytes, int64_t length) {
    FLOE_RETURN_NOT_OK(Reserve(length));
    UnsafeAppend(bytes, length);
    return Status::OK();
  }
  template <typename T>
  Status AppendValue(const T& value) {
    return Append(&value, sizeof(T));
  }
  void UnsafeAppend(const void* bytes, int64_t length) {
    if (length > 0) std::memcpy(data_ + size_, bytes, static_cast<size_t>(length));
    size_ += length;
  }
  template <typename T>
  void UnsafeAppendValue(const T& value) {
    std::memcpy(data_ + size_, &value, sizeof(T));
    size_ += sizeof(T);
  }
  /// Marks `length` bytes past size() (which must be reserved) as written.
  void UnsafeAdvance(int64_t length) { size_ += length; }

  uint8_t* mutable_data() { return data_; }
  const uint8_t* data() const { return data_; }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(data_);
  }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }

  /// The bytes written so far as a buffer; the builder is empty afterwards.
  Result<BufferPtr> Finish();
  /// Drops the contents, keeping the allocation.
  void Reset() { size_ = 0; }

 private:
  Status Grow(int64_t min_capacity);
  void Release();

  MemoryPool* pool_;
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

/// Bitmaps in the Arrow layout: bit i is bit (i % 8) of byte i / 8.
namespace bit_util {
inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool value) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) |
                                      (static_cast<unsigned>(value) << (i & 7)));
}
inline int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }
/// Number of set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);
/// Copies `length` bits from src at src_offset to dst at dst_offset.
void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset);
/// Sets bits [offset, offset + length) to `value`.
void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value);
}  // namespace bit_util

}  // namespace floe
