#!/usr/bin/env bash
# Runs clang's thread-safety analysis (-Wthread-safety, with the lock-order
# checks of -Wthread-safety-beta) as errors over the C++ files of a built
# tree that use the annotated locks: a member marked GUARDED_BY(mu) touched
# without mu held, a REQUIRES(mu) function called without it, two locks
# taken against their ACQUIRED_BEFORE order (src/base/thread_annotations.h,
# src/base/mutex.h).
#
#   scripts/thread-safety.sh [--all] [BUILD_DIR]     default: build
#
# Which files: those whose last build read src/base/mutex.h (ninja's
# dependency log; a file that does not include it cannot name a guarded
# member), production sources only unless --all adds the tests. Each runs
# with its own flags from BUILD_DIR/compile_commands.json, through
# clang++-14 -fsyntax-only instead of g++: parsing and analysis, no code,
# $(nproc) files at a time. Prints each diagnostic; exits 1 on any.
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [ "${1:-}" = "--all" ]; then
  all=1
  shift
fi
build_dir=${1:-build}
clangxx=${CLANGXX:-clang++-14}
db="$build_dir/compile_commands.json"
command -v "$clangxx" >/dev/null || { echo "thread-safety: $clangxx not found (scripts/deps.sh installs it)" >&2; exit 1; }
[ -f "$db" ] && [ -f "$build_dir/.ninja_deps" ] ||
  { echo "thread-safety: build $build_dir first (its compile_commands.json and ninja deps)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Objects whose recorded dependencies include base/mutex.h.
ninja -C "$build_dir" -t deps |
  awk '/^[^ ].*: #deps/ { obj = $1; sub(/:$/, "", obj); next }
       /(^|[/ ])base\/mutex\.h$/ { print obj }' | sort -u >"$work/objects"
if [ "$all" = 0 ]; then
  grep -v -e '_test\.cc\.o$' -e '^tests/' -e '^fuzz/' "$work/objects" >"$work/keep" || true
  mv "$work/keep" "$work/objects"
fi
# CMake writes one "command" line per file ("<compiler> <flags> -o <obj> -c
# <src>"), JSON-escaped. Keep those of the chosen objects; swap the compiler,
# drop -o, silence every other warning (g++'s -Wall set is the release
# build's job) and add the analysis.
grep '"command":' "$db" |
  sed -e 's/^ *"command": "//' -e 's/",\{0,1\} *$//' \
      -e 's/\\\\/\x01/g' -e 's/\\"/"/g' -e 's/\x01/\\/g' |
  grep -F -f <(sed 's/.*/ -o & -c /' "$work/objects") |
  sed -E -e "s#^[^ ]+ #$clangxx #" -e 's# -o [^ ]+ -c # -c #' \
      -e 's#$# -fsyntax-only -Wno-everything -Wthread-safety -Wthread-safety-beta -Werror=thread-safety -Werror=thread-safety-beta#' \
      >"$work/commands"
total=$(wc -l <"$work/commands")
echo "thread-safety: $total files that include base/mutex.h, $clangxx -Wthread-safety"
[ "$total" -gt 0 ] || { echo "thread-safety: no file includes base/mutex.h?" >&2; exit 1; }
cd "$build_dir"
# One shell command per line; xargs exits non-zero when any of them failed.
if tr '\n' '\0' <"$work/commands" | xargs -0 -P "$(nproc)" -n 1 sh -c 'eval "$1"' sh; then
  echo "thread-safety: clean"
else
  echo "thread-safety: FAILED (see the diagnostics above)" >&2
  exit 1
fi
