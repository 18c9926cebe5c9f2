// Little-endian byte buffers for model payloads. The model *file* (magic, version,
// checksum, atomic rename) is written by lib/io/model-file.ts; native code only turns
// models into bytes and back, and must reject truncated or inconsistent bytes.
//
// Byte order is fixed, not the host's: every value is stored little-endian, IEEE-754 for
// float/double. Little-endian hosts (x86-64, arm64 on Linux, macOS and Windows: every
// platform we ship) copy whole arrays at once; a big-endian host byte-swaps each value, so a
// model file is the same bytes on every platform. Only exact-width types may be stored
// (int32_t, not long, whose size differs between Windows and Unix), and records only when
// they are nothing but 32-bit integer fields (no padding), stored as those words in order.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/errors.h"

namespace structrank {

namespace byte_order {

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
inline constexpr bool kHostIsLittleEndian = false;
#else
inline constexpr bool kHostIsLittleEndian = true;  // MSVC only targets little-endian CPUs
#endif

template <typename T>
inline constexpr bool kIsExactWidthScalar =
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
    std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, double>;

// Size of the little-endian unit T is stored as: the scalar itself, or a record's 32-bit words.
template <typename T>
constexpr std::size_t WordSize() {
  if constexpr (kIsExactWidthScalar<T>) {
    static_assert(!std::is_floating_point_v<T> || std::numeric_limits<T>::is_iec559,
                  "float/double must be IEEE-754");
    return sizeof(T);
  } else {
    static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T> &&
                      alignof(T) == 4 && sizeof(T) % 4 == 0,
                  "model payloads store exact-width scalars, or records of 32-bit integer fields only");
    return 4;
  }
}

// Reverses the bytes of each `word`-byte unit in [p, p + n): little-endian <-> big-endian host.
inline void SwapWords(uint8_t* p, std::size_t n, std::size_t word) {
  if (word == 1) return;
  for (std::size_t at = 0; at + word <= n; at += word)
    for (std::size_t i = 0, j = word - 1; i < j; ++i, --j) {
      const uint8_t t = p[at + i];
      p[at + i] = p[at + j];
      p[at + j] = t;
    }
}

}  // namespace byte_order

class ByteWriter {
 public:
  template <typename T>
  void Put(T value) {
    Append(&value, 1);
  }
  template <typename T>
  void PutVector(const std::vector<T>& v) {
    Put<uint64_t>(v.size());
    Append(v.data(), v.size());
  }
  void PutString(const std::string& s) {
    Put<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  template <typename T>
  void Append(const T* values, std::size_t count) {
    static_assert(byte_order::WordSize<T>() > 0);  // rejects types without a fixed layout
    const std::size_t at = bytes_.size();
    const auto* p = reinterpret_cast<const uint8_t*>(values);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
    if constexpr (!byte_order::kHostIsLittleEndian)
      byte_order::SwapWords(bytes_.data() + at, count * sizeof(T), byte_order::WordSize<T>());
  }
  std::vector<uint8_t> bytes_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  T Get() {
    Need(sizeof(T));
    T value;
    Copy(&value, 1);
    return value;
  }
  template <typename T>
  std::vector<T> GetVector() {
    uint64_t n = Get<uint64_t>();
    if (n > (size_ - pos_) / sizeof(T)) throw ModelError("model payload is truncated");
    std::vector<T> v(n);
    if (n > 0) Copy(v.data(), n);  // an empty vector's data() may be null
    return v;
  }
  std::string GetString() {
    uint64_t n = Get<uint64_t>();
    Need(n);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  bool AtEnd() const { return pos_ == size_; }

  // For payloads whose arrays are used in place: the offset and address of the next byte,
  // skipping bytes, and reading `count` values into `out` (host byte order).
  std::size_t position() const { return pos_; }
  const uint8_t* current() const { return data_ + pos_; }
  void Skip(std::size_t n) {
    Need(n);
    pos_ += n;
  }
  template <typename T>
  void GetInto(T* out, std::size_t count) {
    if (count > (size_ - pos_) / sizeof(T)) throw ModelError("model payload is truncated");
    if (count > 0) Copy(out, count);
  }

 private:
  void Need(std::size_t n) const {
    if (n > size_ - pos_) throw ModelError("model payload is truncated");
  }
  // Copies `count` stored values into `out` (bounds already checked), in host byte order.
  template <typename T>
  void Copy(T* out, std::size_t count) {
    static_assert(byte_order::WordSize<T>() > 0);  // rejects types without a fixed layout
    std::memcpy(out, data_ + pos_, count * sizeof(T));
    if constexpr (!byte_order::kHostIsLittleEndian)
      byte_order::SwapWords(reinterpret_cast<uint8_t*>(out), count * sizeof(T), byte_order::WordSize<T>());
    pos_ += count * sizeof(T);
  }
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace structrank
