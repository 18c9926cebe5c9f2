#!/usr/bin/env bash
# Proves the model byte writer/reader (native/core/byte_io.h) writes the same little-endian
# bytes on a big-endian host: builds the core unit tests for s390x (big-endian) with Debian's
# g++-s390x-linux-gnu, statically, and runs them under qemu-s390x. The test
# byte_io_writes_fixed_little_endian_bytes compares against fixed golden bytes; it fails if
# the byte swap is removed (checked by building with __BYTE_ORDER__ forced to little-endian).
# Usage: bash scripts/big-endian-check.sh   (root: installs the cross compiler and qemu-user)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v s390x-linux-gnu-g++ >/dev/null || ! command -v qemu-s390x >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-s390x-linux-gnu qemu-user >/dev/null
fi
out="$(mktemp -d /tmp/structrank-s390x-XXXXXX)"
trap 'rm -rf "$out"' EXIT
cd "$root"
s390x-linux-gnu-g++ -std=c++17 -O1 -Wall -Wextra -Wpedantic -Werror -static -pthread -Inative \
  native/core/core_test.cc native/core/test_main.cc native/core/csr.cc native/core/interner.cc native/core/thread_pool.cc native/core/exp.cc \
  -o "$out/core_test"
qemu-s390x "$out/core_test"
# Tagger models (format 2) are written and read on s390x too: the tagger tests include a
# golden-bytes check of a small payload and load models by copying their arrays there.
s390x-linux-gnu-g++ -std=c++17 -O1 -Wall -Wextra -Wpedantic -Werror -static -pthread -Inative \
  native/tagger/*.cc native/optim/lbfgs.cc native/core/test_main.cc native/core/csr.cc native/core/interner.cc \
  native/core/thread_pool.cc native/core/word_signature.cc native/core/exp.cc native/core/attribute_table.cc native/core/simd.cc \
  -o "$out/tagger_test"
qemu-s390x "$out/tagger_test"
