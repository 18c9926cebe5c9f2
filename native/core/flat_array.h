// An array that either owns its elements (a std::vector, as training builds them) or views
// elements that live in shared bytes it keeps alive (a model file read into memory, used in
// place: loading a tagger copies, parses and hashes nothing per feature).
// Reading is the same either way; the first change to a view copies it into its own vector.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

namespace structrank {

template <typename T>
class FlatArray {
 public:
  FlatArray() = default;
  FlatArray(std::initializer_list<T> values) : own_(values) { Sync(); }
  FlatArray(std::vector<T> values) : own_(std::move(values)) { Sync(); }  // NOLINT: implicit
  FlatArray(const FlatArray& o) { *this = o; }
  FlatArray(FlatArray&& o) noexcept { *this = std::move(o); }
  FlatArray& operator=(const FlatArray& o) {
    if (this == &o) return *this;
    own_ = o.own_;
    keep_ = o.keep_;
    if (keep_) {
      data_ = o.data_;
      size_ = o.size_;
    } else {
      Sync();
    }
    return *this;
  }
  FlatArray& operator=(FlatArray&& o) noexcept {
    own_ = std::move(o.own_);
    keep_ = std::move(o.keep_);
    data_ = o.data_;
    size_ = o.size_;
    if (!keep_) Sync();
    o.own_.clear();
    o.keep_.reset();
    o.Sync();
    return *this;
  }
  FlatArray& operator=(std::vector<T> values) {
    own_ = std::move(values);
    keep_.reset();
    Sync();
    return *this;
  }

  // Views `size` elements at `data`, which stay valid while `keep` lives.
  static FlatArray View(const T* data, std::size_t size, std::shared_ptr<const void> keep) {
    FlatArray a;
    a.keep_ = std::move(keep);
    a.data_ = data;
    a.size_ = size;
    return a;
  }
  bool is_view() const { return keep_ != nullptr; }

  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> ToVector() const { return std::vector<T>(begin(), end()); }

  // Changes go through the owned vector (a view is copied into it first): `change(vector)`.
  template <typename Change>
  void Edit(Change&& change) {
    change(Owned());
    Sync();
  }
  void assign(std::size_t n, const T& value) {
    Edit([&](std::vector<T>& v) { v.assign(n, value); });
  }
  void clear() {
    Edit([](std::vector<T>& v) { v.clear(); });
  }
  void push_back(const T& value) {
    Owned().push_back(value);
    Sync();
  }
  void resize(std::size_t n, const T& value = T()) {
    Edit([&](std::vector<T>& v) { v.resize(n, value); });
  }
  template <typename It>
  void append(It first, It last) {
    Edit([&](std::vector<T>& v) { v.insert(v.end(), first, last); });
  }

 private:
  std::vector<T>& Owned() {
    if (keep_) {
      own_.assign(data_, data_ + size_);
      keep_.reset();
    }
    return own_;
  }
  void Sync() {
    data_ = own_.data();
    size_ = own_.size();
  }
  std::vector<T> own_;
  std::shared_ptr<const void> keep_;  // the bytes a view points into; null when owning
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace structrank
