/// @file device_array.hpp
/// DeviceArray<T>: an owning array in device memory (RAII over cudaMalloc/cudaFree) with host
/// copies in both directions, for trivially copyable T. Free of CUDA headers.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace softgrad::cuda {

namespace detail {
/// cudaMalloc of `bytes` (nullptr for 0). @throws InternalError naming the call (e.g. out of
/// memory, with the size asked for).
void* device_alloc(std::size_t bytes);
/// cudaFree; never throws.
void device_free(void* p) noexcept;
/// Host to device copy of `bytes`. @throws InternalError on failure.
void copy_to_device(void* dst, const void* src, std::size_t bytes);
/// Device to host copy of `bytes` (synchronises). @throws InternalError on failure.
void copy_to_host(void* dst, const void* src, std::size_t bytes);
/// Device to device copy of `bytes`. @throws InternalError on failure.
void copy_on_device(void* dst, const void* src, std::size_t bytes);
/// Sets `bytes` of device memory to zero. @throws InternalError on failure.
void device_zero(void* p, std::size_t bytes);
}  // namespace detail

/// A device array of n values of T.
template <class T>
class DeviceArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  DeviceArray() = default;
  /// n zero-initialised values.
  explicit DeviceArray(std::size_t n) { resize(n); }
  /// A device copy of the host values.
  explicit DeviceArray(const std::vector<T>& host) { assign(host.data(), host.size()); }
  ~DeviceArray() { detail::device_free(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }

  /// Reallocates (zeroed) only when n differs from the current size; else keeps the values.
  void resize(std::size_t n) {
    if (n == size_) return;
    detail::device_free(data_);
    data_ = nullptr;
    size_ = 0;
    data_ = static_cast<T*>(detail::device_alloc(n * sizeof(T)));
    size_ = n;
    set_zero();
  }
  /// Copies n host values in, resizing if needed.
  void assign(const T* host, std::size_t n) {
    resize(n);
    detail::copy_to_device(data_, host, n * sizeof(T));
  }
  /// Copies all values out to `host` (n = size()).
  void copy_to(T* host) const { detail::copy_to_host(host, data_, size_ * sizeof(T)); }
  std::vector<T> to_host() const {
    std::vector<T> v(size_);
    copy_to(v.data());
    return v;
  }
  void set_zero() { detail::device_zero(data_, size_ * sizeof(T)); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace softgrad::cuda
