#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "floe/common/logging.h"
#include "floe/common/memory_pool.h"

namespace floe {

/// Uninitialised values of a trivially copyable T in memory from the default pool: large
/// buffers get the pool's recycled blocks and huge pages (fresh memory from the system
/// costs a page fault per 4 KiB, which is dear in virtual machines). Move-only.
///
/// Two ways to use one:
/// - as a fixed-length array (hash tables, sort keys, accumulator states): Resize, Assign
///   or Zero to exactly `n` values, size() is n;
/// - as a scratch area reused from batch to batch or page to page (decoding): Reserve
///   grows the capacity geometrically and never shrinks it, so steady-state work does
///   not allocate.
///
/// `kPaddingBytes` of slack past the capacity let word-at-a-time loops over-read safely.
/// An allocation the system refuses aborts, as std::vector would.
template <typename T, int64_t kPaddingBytes = 0>
class PoolBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PoolBuffer() = default;
  ~PoolBuffer() { Reset(); }
  PoolBuffer(PoolBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  PoolBuffer& operator=(PoolBuffer&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;

  /// Replaces the contents with `n` copies of `value`.
  void Assign(int64_t n, T value) {
    Resize(n);
    for (int64_t i = 0; i < n; ++i) data_[i] = value;
  }
  /// Replaces the contents with `n` values whose bytes are all zero (one memset; the
  /// zero of every integer and of a struct of them, padding included).
  void Zero(int64_t n) {
    Resize(n);
    if (n > 0) std::memset(static_cast<void*>(data_), 0, static_cast<size_t>(n) * sizeof(T));
  }
  /// Makes the buffer exactly `n` values long (its memory too) with unspecified contents.
  void Resize(int64_t n) {
    if (n == size_ && n == capacity_) return;
    Reset();
    if (n == 0) return;
    Allocate(n);
    size_ = n;
  }
  /// Ensures room for `n` values and returns the data: the capacity grows by at least half
  /// when it must grow; the contents are kept only when `keep`. size() is left as it is.
  T* Reserve(int64_t n, bool keep = false) {
    if (n > capacity_) Grow(n, keep);
    return data_;
  }
  /// Frees the memory.
  void Reset() {
    if (data_ != nullptr) {
      DefaultMemoryPool()->Free(reinterpret_cast<uint8_t*>(data_), AllocationBytes(capacity_));
    }
    data_ = nullptr;
    size_ = 0;
    capacity_ = 0;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t capacity() const { return capacity_; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  /// The bytes held (the capacity's, without the padding).
  int64_t memory_size() const { return capacity_ * static_cast<int64_t>(sizeof(T)); }

 private:
  static int64_t AllocationBytes(int64_t n) {
    return n * static_cast<int64_t>(sizeof(T)) + kPaddingBytes;
  }
  void Allocate(int64_t n) {
    Result<uint8_t*> p = DefaultMemoryPool()->Allocate(AllocationBytes(n));
    FLOE_CHECK(p.ok(), p.status().ToString());
    data_ = reinterpret_cast<T*>(*p);
    capacity_ = n;
  }
  void Grow(int64_t n, bool keep) {
    const int64_t cap = std::max<int64_t>(n, capacity_ + capacity_ / 2);
    T* old = data_;
    const int64_t old_capacity = capacity_;
    Allocate(cap);
    if (old != nullptr) {
      if (keep) std::memcpy(data_, old, static_cast<size_t>(old_capacity) * sizeof(T));
      DefaultMemoryPool()->Free(reinterpret_cast<uint8_t*>(old), AllocationBytes(old_capacity));
    }
  }

  T* data_ = nullptr;
  int64_t size_ = 0;      // the values in use (Resize); Reserve leaves it
  int64_t capacity_ = 0;  // the values the memory holds
};

}  // namespace floe
