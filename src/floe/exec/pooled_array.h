#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "floe/common/logging.h"
#include "floe/common/memory_pool.h"

namespace floe::exec {

/// A fixed-length array of trivially copyable values in memory from the default pool:
/// large arrays get the pool's recycled blocks and huge pages (fresh memory from the
/// system costs a page fault per 4 KiB, which is dear in virtual machines). Move-only.
template <typename T>
class PooledArray {
 public:
  PooledArray() = default;
  ~PooledArray() { Reset(); }
  PooledArray(PooledArray&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  PooledArray& operator=(PooledArray&& other) noexcept {
    if (this != &other) {
      Reset();
      data_ = other.data_;
      size_ = other.size_;
      other.data_ = nullptr;
      other.size_ = 0;
    }
    return *this;
  }
  PooledArray(const PooledArray&) = delete;
  PooledArray& operator=(const PooledArray&) = delete;

  /// Replaces the contents with `n` copies of `value`; aborts when the system refuses
  /// the memory (as std::vector would).
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
  /// Makes the array `n` values long with unspecified contents.
  void Resize(int64_t n) {
    if (n == size_) return;
    Reset();
    if (n == 0) return;
    auto p = DefaultMemoryPool()->Allocate(n * static_cast<int64_t>(sizeof(T)));
    FLOE_CHECK(p.ok(), p.status().ToString());
    data_ = reinterpret_cast<T*>(*p);
    size_ = n;
  }
  void Reset() {
    if (data_ != nullptr) {
      DefaultMemoryPool()->Free(reinterpret_cast<uint8_t*>(data_),
                                size_ * static_cast<int64_t>(sizeof(T)));
    }
    data_ = nullptr;
    size_ = 0;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](int64_t i) { return data_[i]; }
  const T& operator[](int64_t i) const { return data_[i]; }
  int64_t memory_size() const { return size_ * static_cast<int64_t>(sizeof(T)); }

 private:
  T* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace floe::exec
