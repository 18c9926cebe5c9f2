// How the process heap serves the large buffers of a parse or a training (charts, posteriors,
// prepared sentences), which grow and shrink with the sentence.
//
// glibc raises its mmap threshold to the size of each mmapped block freed, up to 32 MB: after
// the first long sentence, blocks up to that size come from the heap arenas (one per thread
// that allocates: libuv's pool threads and ours) and stay there when freed, fragmented between
// sentence sizes. With the threshold fixed, every block of at least kLargeBlockBytes gets its
// own mapping, returned to the system when freed. floresta-pt-fn's test parse (its MBR trees)
// peaked at 1,064 MB, 754 MB with the threshold fixed, at the same CPU
// (docs/design/parser-speed.md, "Memory of a parse").
#pragma once
#include <cstddef>

namespace structrank {

constexpr std::size_t kLargeBlockBytes = std::size_t{1} << 20;

// Fixes glibc's mmap threshold at kLargeBlockBytes, unless the user set one
// (MALLOC_MMAP_THRESHOLD_, or GLIBC_TUNABLES glibc.malloc.mmap_threshold). Elsewhere: nothing.
void UseFixedMmapThreshold();

}  // namespace structrank
