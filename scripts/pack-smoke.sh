#!/usr/bin/env bash
# Installs the package the way a user does and proves it needs no compiler:
#   1. `npm pack` (prebuilds/ and dist/ must already be built: `npm run prebuild && npm run build:ts`);
#   2. checks the tarball: only redistributable data (data/gum-open), no tests/benchmarks, size;
#   3. publint and @arethetypeswrong/cli on the tarball;
#   4. `npm install <tarball>` into a fresh folder with a PATH holding only node, npm and
#      coreutils (no g++, cc, clang, make, python3), with node-gyp replaced by a trap that
#      records any call; times the install;
#   5. runs scripts/smoke-installed.mjs there under the same PATH: loads the prebuild, trains a
#      tagger and a parser, parses, computes a kernel, round-trips a model file.
# Usage: bash scripts/pack-smoke.sh [work folder]   (default: a new temp folder, removed after)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/structrank-pack-XXXXXX)}"
keep="${1:+yes}"
mkdir -p "$work"
cleanup() { [ -n "$keep" ] || rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "pack-smoke FAILED: $*" >&2; exit 1; }

cd "$root"
ls prebuilds/*/*.node >/dev/null 2>&1 || fail "no prebuilds/: run 'npm run prebuild' first"
[ -f dist/index.js ] || fail "no dist/: run 'npm run build:ts' first"

# 1. pack (scripts are skipped: prebuilds/ and dist/ are the ones just built and tested)
tarball="$work/$(npm pack --ignore-scripts --silent --pack-destination "$work" | tail -1)"
[ -f "$tarball" ] || fail "npm pack produced no tarball"
bytes=$(stat -c %s "$tarball")
listing="$(tar tzf "$tarball")"
echo "tarball: $(basename "$tarball") $bytes bytes ($(echo "$listing" | wc -l) files); prebuilds: $(echo "$listing" | grep '^package/prebuilds/.*\.node$' | sed 's|^package/prebuilds/||' | tr '\n' ' ')"

# 2. contents: data other than data/gum-open (PTB, CoNLL, UD samples) may not be redistributed
bad=$(echo "$listing" | grep -E '^package/(data/[^/]+|test|bench|build|scripts|examples|\.ci|\.github)/|_test\.(cc|h)$|/test_(main|harness)\.' | grep -vE '^package/data/(gum-open|head-rules)/' || true)
[ -z "$bad" ] || fail "tarball holds files that must not ship:
$bad"
echo "$listing" | grep -qx 'package/data/gum-open/train.mrg' || fail "tarball lacks data/gum-open"
[ "$bytes" -lt 5000000 ] || fail "tarball is $bytes bytes (goal < 5 MB)"

# 3. package lint on the tarball itself
npx --no-install publint run "$tarball" --strict
npx --no-install attw "$tarball" --profile esm-only --format table-flipped

# 4. a PATH with no compiler, make or python: symlinks to node, npm and the coreutils npm needs
bin="$work/bin"
mkdir -p "$bin"
node_bin="$(command -v node)"
ln -sf "$node_bin" "$bin/node"
npm_cli="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_bin" "$npm_cli" > "$bin/npm"
chmod +x "$bin/npm"
for tool in sh bash env cat ls mkdir rm cp mv ln chmod dirname basename readlink uname tar gzip grep sed; do
  path="$(command -v "$tool" || true)"
  [ -n "$path" ] && ln -sf "$path" "$bin/$tool"
done
for tool in g++ gcc cc c++ clang clang++ make python3 python node-gyp; do
  if PATH="$bin" command -v "$tool" >/dev/null 2>&1; then fail "$tool is still reachable on the restricted PATH"; fi
done
# Any source build would go through node-gyp: npm's own copy is found via npm_config_node_gyp.
trap_js="$work/node-gyp-trap.js"
printf 'require("fs").writeFileSync(%s, process.argv.join(" "));\nprocess.exit(1);\n' "\"$work/node-gyp-was-called\"" > "$trap_js"

# The restricted environment keeps only what npm needs to reach the registry.
keep_env=(HOME="$HOME" PATH="$bin" npm_config_node_gyp="$trap_js" npm_config_cache="${npm_config_cache:-$HOME/.npm}")
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY npm_config_registry; do
  if [ -n "${!var:-}" ]; then keep_env+=("$var=${!var}"); fi
done

app="$work/app"
mkdir -p "$app"
printf '{ "name": "structrank-smoke-app", "version": "1.0.0", "private": true, "type": "module" }\n' > "$app/package.json"
start=$(date +%s.%N)
(cd "$app" && env -i "${keep_env[@]}" npm install --no-audit --no-fund --prefer-offline --foreground-scripts "$tarball")
end=$(date +%s.%N)
install_seconds=$(node -e "console.log((${end} - ${start}).toFixed(1))")
echo "npm install of the tarball: ${install_seconds} s"
[ ! -e "$work/node-gyp-was-called" ] || fail "the install started node-gyp: $(cat "$work/node-gyp-was-called")"
[ ! -e "$app/node_modules/structrank/build" ] || fail "the install made a source build (node_modules/structrank/build)"

# 5. smoke test through the installed package, same PATH
cp "$root/scripts/smoke-installed.mjs" "$app/"
(cd "$app" && env -i "${keep_env[@]}" node smoke-installed.mjs "$app" --fixtures "$root/test/fixtures/models")
[ ! -e "$work/node-gyp-was-called" ] || fail "the smoke test started node-gyp"
echo "pack-smoke: tarball $bytes bytes, install ${install_seconds} s, smoke test passed"
