#include "floe/batch/buffer.h"

#include <algorithm>
#include <bit>

namespace floe {

Buffer::~Buffer() {
  if (pool_ != nullptr) pool_->Free(const_cast<uint8_t*>(data_), capacity_);
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateZeroed(int64_t size, MemoryPool* pool) {
  FLOE_ASSIGN_OR_RAISE(uint8_t * data, pool->Allocate(size));
  if (size > 0) std::memset(data, 0, static_cast<size_t>(size));
  auto buf = std::shared_ptr<Buffer>(new Buffer());
  buf->data_ = data;
  buf->size_ = size;
  buf->pool_ = pool;
  buf->capacity_ = size;
  return buf;
}

Result<BufferPtr> Buffer::CopyOf(std::span<const uint8_t> bytes, MemoryPool* pool) {
  BufferBuilder b(pool);
  FLOE_RETURN_NOT_OK(b.Append(bytes.data(), static_cast<int64_t>(bytes.size())));
  return b.Finish();
}

Result<BufferPtr> Buffer::CopyOf(std::string_view bytes, MemoryPool* pool) {
  return CopyOf(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                         bytes.size()),
                pool);
}

BufferPtr Buffer::Wrap(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner) {
  auto buf = std::shared_ptr<Buffer>(new Buffer());
  buf->data_ = data;
  buf->size_ = size;
  buf->owner_ = std::move(owner);
  return buf;
}

BufferPtr Buffer::Slice(const BufferPtr& parent, int64_t offset, int64_t length) {
  FLOE_CHECK(offset >= 0 && length >= 0 && offset + length <= parent->size(),
             fmt::format("slice [{}, +{}) of a {}-byte buffer", offset, length, parent->size()));
  return Wrap(parent->data() + offset, length, parent);
}

BufferBuilder::~BufferBuilder() { Release(); }

BufferBuilder::BufferBuilder(BufferBuilder&& other) noexcept
    : pool_(other.pool_), data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
  other.data_ = nullptr;
  other.size_ = other.capacity_ = 0;
}

BufferBuilder& BufferBuilder::operator=(BufferBuilder&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    data_ = other.data_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  return *this;
}

void BufferBuilder::Release() {
  if (data_ != nullptr) pool_->Free(data_, capacity_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

Status BufferBuilder::Grow(int64_t min_capacity) {
  int64_t new_capacity = std::max<int64_t>({min_capacity, capacity_ * 2, 64});
  if (data_ == nullptr) {
    FLOE_ASSIGN_OR_RAISE(data_, pool_->Allocate(new_capacity));
  } else {
    FLOE_ASSIGN_OR_RAISE(data_, pool_->Reallocate(data_, capacity_, new_capacity));
  }
  capacity_ = new_capacity;
  return Status::OK();
}

Status BufferBuilder::Resize(int64_t new_size) {
  if (new_size > size_) {
    FLOE_RETURN_NOT_OK(Reserve(new_size - size_));
    std::memset(data_ + size_, 0, static_cast<size_t>(new_size - size_));
  }
  size_ = new_size;
  return Status::OK();
}

Result<BufferPtr> BufferBuilder::Finish() {
  auto buf = std::shared_ptr<Buffer>(new Buffer());
  if (data_ == nullptr) {
    FLOE_ASSIGN_OR_RAISE(data_, pool_->Allocate(0));
  }
  buf->data_ = data_;
  buf->size_ = size_;
  buf->pool_ = capacity_ > 0 ? pool_ : nullptr;
  buf->capacity_ = capacity_;
  data_ = nullptr;
  size_ = capacity_ = 0;
  return BufferPtr(std::move(buf));
}

namespace bit_util {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i) count += GetBit(bits, i);
  // Whole bytes, eight at a time where possible.
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    count += std::popcount(word);
  }
  for (; i + 8 <= end; i += 8) count += std::popcount(static_cast<unsigned>(bits[i >> 3]));
  for (; i < end; ++i) count += GetBit(bits, i);
  return count;
}

void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    int64_t whole = length >> 3;
    std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    for (int64_t i = whole << 3; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  for (int64_t i = 0; i < length; ++i) SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
}

void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value) {
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i) SetBitTo(bits, i, value);
  int64_t whole = (end - i) >> 3;
  if (whole > 0) {
    std::memset(bits + (i >> 3), value ? 0xFF : 0, static_cast<size_t>(whole));
    i += whole << 3;
  }
  for (; i < end; ++i) SetBitTo(bits, i, value);
}

}  // namespace bit_util
}  // namespace floe
