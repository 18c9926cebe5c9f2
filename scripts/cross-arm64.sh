#!/usr/bin/env bash
# Cross-compiles the linux-arm64 (glibc) prebuild on an x64 Debian machine and proves it
# loads and works under emulation:
#   1. installs Debian's g++-aarch64-linux-gnu and qemu-user (apt; root), enables arm64 multiarch;
#   2. builds prebuilds/linux-arm64/structrank.glibc.node with prebuildify in a scratch copy of
#      the sources (the worktree's build/ is left alone);
#   3. unpacks Debian's arm64 `nodejs` and the libraries it needs into a sysroot (apt-get
#      download + dpkg-deb -x: the host's own x64 node is not replaced);
#   4. packs the package with that prebuild, installs the tarball with the host npm, and runs
#      scripts/smoke-installed.mjs with the arm64 node under qemu-aarch64, including the
#      model fixtures (written on x64) loaded and re-saved byte for byte.
# Usage: bash scripts/cross-arm64.sh [--keep]   (after `npm ci`; needs root for apt)
# The arm64 binary is left in prebuilds/linux-arm64/ so a following `npm pack` ships it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
keep=""; [ "${1:-}" = "--keep" ] && keep=yes
work="$(mktemp -d /tmp/structrank-arm64-XXXXXX)"
cleanup() { [ -n "$keep" ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
export npm_config_nodedir="${npm_config_nodedir:-/usr}"   # local Node headers, no download
t0=$(date +%s)
step() { printf '\n--- %s (%ds)\n' "$1" "$(( $(date +%s) - t0 ))"; }

step "tools: g++-aarch64-linux-gnu, qemu-user, arm64 multiarch"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then dpkg --add-architecture arm64; fi
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null || ! apt-cache show nodejs:arm64 >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-aarch64-linux-gnu qemu-user >/dev/null
fi

step "cross-compile with prebuildify --napi --strip --tag-libc --arch arm64"
src="$work/src"
mkdir -p "$src"
cp -r "$root/package.json" "$root/binding.gyp" "$root/native" "$src/"
ln -s "$root/node_modules" "$src/node_modules"
(cd "$src" && CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ LINK=aarch64-linux-gnu-g++ AR=aarch64-linux-gnu-ar \
  PREBUILD_STRIP_BIN=aarch64-linux-gnu-strip JOBS=max \
  npx --no-install prebuildify --napi --strip --tag-libc --arch arm64 >"$work/build.log" 2>&1) || { tail -30 "$work/build.log"; exit 1; }
mkdir -p "$root/prebuilds/linux-arm64"
cp "$src/prebuilds/linux-arm64/structrank.glibc.node" "$root/prebuilds/linux-arm64/"
file "$root/prebuilds/linux-arm64/structrank.glibc.node" 2>/dev/null || ls -l "$root/prebuilds/linux-arm64/structrank.glibc.node"

step "arm64 sysroot: Debian's nodejs:arm64 and its libraries"
sysroot="$work/sysroot"
mkdir -p "$work/debs" "$sysroot"
debs=(nodejs:arm64 libnode108:arm64 libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 libbrotli1:arm64 libc-ares2:arm64
  libicu72:arm64 libnghttp2-14:arm64 libssl3:arm64 libuv1:arm64 zlib1g:arm64
  node-acorn node-cjs-module-lexer node-undici node-busboy)
# A stale package list names versions the mirror no longer has: refresh once and retry.
(cd "$work/debs" && { apt-get download -qq "${debs[@]}" 2>/dev/null || { apt-get update -qq && apt-get download -qq "${debs[@]}"; }; })
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
arm_node() { qemu-aarch64 -L "$sysroot" "$sysroot/usr/bin/node" "$@"; }
arm_node -p '`emulated node ${process.versions.node} on ${process.platform}-${process.arch}, N-API ${process.versions.napi}`'

step "pack, install the tarball with the host npm, smoke-test with the arm64 node"
ls "$root"/prebuilds/*/*.node
tarball="$work/$(cd "$root" && npm pack --ignore-scripts --silent --pack-destination "$work" | tail -1)"
app="$work/app"
mkdir -p "$app"
printf '{ "name": "structrank-arm64-smoke", "version": "1.0.0", "private": true, "type": "module" }\n' > "$app/package.json"
(cd "$app" && npm install --no-audit --no-fund --prefer-offline --ignore-scripts "$tarball" >/dev/null)
cp "$root/scripts/smoke-installed.mjs" "$app/"
(cd "$app" && arm_node smoke-installed.mjs "$app" --fixtures "$root/test/fixtures/models")
step "done: linux-arm64 prebuild cross-compiled and smoke-tested under qemu-aarch64"
