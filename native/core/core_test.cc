#include <atomic>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/byte_io.h"
#include "core/csr.h"
#include "core/errors.h"
#include "core/interner.h"
#include "core/test_harness.h"
#include "core/thread_pool.h"

using namespace structrank;

TEST(interner_assigns_dense_ids) {
  Interner in;
  CHECK(in.Intern("NP") == 0);
  CHECK(in.Intern("VP") == 1);
  CHECK(in.Intern("NP") == 0);
  CHECK(in.Find("VP") == 1);
  CHECK(in.Find("PP") == -1);
  CHECK(in.Name(1) == "VP");
  for (int i = 0; i < 1000; ++i) in.Intern("x" + std::to_string(i));  // forces rehash/realloc
  CHECK(in.Find("NP") == 0);
  CHECK(in.Name(in.Find("x999")) == "x999");
}

TEST(parallel_for_covers_every_index_once) {
  for (int threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> hits(1003);
    ParallelFor(hits.size(), threads, 7, [&](std::size_t b, std::size_t e, int) {
      for (std::size_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) CHECK(h.load() == 1);
  }
}

TEST(parallel_for_rethrows_worker_exceptions) {
  CHECK_THROWS(ParallelFor(100, 2, 1, [](std::size_t b, std::size_t, int) {
    if (b == 50) throw std::runtime_error("boom");
  }));
}

TEST(parallel_for_honours_cancellation) {
  std::atomic<bool> cancel{true};
  bool cancelled = false;
  try {
    ParallelFor(100, 2, 1, [](std::size_t, std::size_t, int) {}, &cancel);
  } catch (const Cancelled&) {
    cancelled = true;
  }
  CHECK(cancelled);
}

TEST(resolve_threads_caps_absurd_requests) {
  // Per-thread buffers are sized by this: --threads 100000 must not mean 100000 of them.
  const int cores = ResolveThreads(0);
  CHECK(cores >= 1 && cores <= kMaxThreads);
  CHECK(ResolveThreads(1) == 1);
  CHECK(ResolveThreads(3) == std::min(3, cores));
  CHECK(ResolveThreads(kMaxThreads) == cores);
  CHECK(ResolveThreads(100000) == cores);
  std::atomic<int> calls{0};
  ParallelFor(10, 100000, 1, [&](std::size_t, std::size_t, int thread) {
    CHECK(thread >= 0 && thread < kMaxThreads);
    calls++;
  });
  CHECK(calls.load() == 10);
}

TEST(csr_rows_and_validation) {
  CsrMatrix m;
  int32_t a[] = {0, 3};
  int32_t b[] = {2};
  m.AddRow(a, nullptr, 2);
  m.AddRow(b, nullptr, 1);
  m.AddRow(nullptr, nullptr, 0);
  CHECK(m.rows() == 3);
  CHECK(m.nnz() == 3);
  CHECK(m.RowEnd(2) == m.RowBegin(2));
  m.Validate(4);
  CHECK_THROWS(m.Validate(3));
}

TEST(byte_io_round_trip_and_truncation) {
  ByteWriter w;
  w.Put<int32_t>(-7);
  w.PutVector(std::vector<double>{1.5, 2.5});
  w.PutString("model");
  auto bytes = w.bytes();
  ByteReader r(bytes.data(), bytes.size());
  CHECK(r.Get<int32_t>() == -7);
  auto v = r.GetVector<double>();
  CHECK(v.size() == 2 && v[1] == 2.5);
  CHECK(r.GetString() == "model");
  CHECK(r.AtEnd());
  ByteReader cut(bytes.data(), bytes.size() - 3);
  cut.Get<int32_t>();
  cut.GetVector<double>();
  CHECK_THROWS(cut.GetString());
}
