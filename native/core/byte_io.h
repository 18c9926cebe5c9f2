// Little-endian byte buffers for model payloads. The model *file* (magic, version,
// checksum, atomic rename) is written by lib/io/model-file.ts; native code only turns
// models into bytes and back, and must reject truncated or inconsistent bytes.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/errors.h"

namespace structrank {

class ByteWriter {
 public:
  template <typename T>
  void Put(T value) {
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  template <typename T>
  void PutVector(const std::vector<T>& v) {
    Put<uint64_t>(v.size());
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    bytes_.insert(bytes_.end(), p, p + v.size() * sizeof(T));
  }
  void PutString(const std::string& s) {
    Put<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  T Get() {
    Need(sizeof(T));
    T value;
    std::memcpy(&value, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  template <typename T>
  std::vector<T> GetVector() {
    uint64_t n = Get<uint64_t>();
    if (n > (size_ - pos_) / sizeof(T)) throw ModelError("model payload is truncated");
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), data_ + pos_, n * sizeof(T));  // an empty vector's data() may be null
    pos_ += n * sizeof(T);
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

 private:
  void Need(std::size_t n) const {
    if (n > size_ - pos_) throw ModelError("model payload is truncated");
  }
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace structrank
