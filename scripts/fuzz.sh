#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#
# Builds the `fuzz` preset (clang-14, libFuzzer, ASan + UBSan) and runs every
# target in fuzz/ for SECONDS_PER_TARGET on a copy of its seed corpus and
# regression inputs (the repository is never written), FUZZ_JOBS targets at
# a time (default: the number of CPUs). Any crash, leak, sanitizer report or
# timeout fails the script; the reproducer is kept in
# build-fuzz/artifacts/<target>/ and printed as base64, with the command
# that replays it. To pin a finding: fix it, then add the file to
# fuzz/regressions/<target>/ (ctest replays that folder in every build).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
jobs=${FUZZ_JOBS:-$(nproc)}

scripts/deps.sh
[ -f build-fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

work=$(mktemp -d "${TMPDIR:-/tmp}/signet-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# run_target NAME: fuzzes one target; writes $work/NAME/status (0 = clean).
run_target() {
  local name=$1 dir=$work/$1
  rm -rf "build-fuzz/artifacts/$name"
  mkdir -p "$dir/corpus" "$dir/tmp" "build-fuzz/artifacts/$name"
  cp fuzz/corpus/"$name"/* "$dir/corpus/" 2>/dev/null || true
  cp fuzz/regressions/"$name"/* "$dir/corpus/" 2>/dev/null || true
  local status=0
  TMPDIR=$dir/tmp "build-fuzz/fuzz/${name}_fuzz" \
    -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/artifacts/$name/" "$dir/corpus" >"$dir/log" 2>&1 || status=$?
  echo "$status" >"$dir/status"
}

targets=()
for source in fuzz/*_fuzz.cc; do
  targets+=("$(basename "$source" _fuzz.cc)")
done

start=$SECONDS
running=0
for name in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$name" &
  running=$((running + 1))
done
wait

failed=0
for name in "${targets[@]}"; do
  dir=$work/$name
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo "?")
  if [ "$(cat "$dir/status")" = 0 ]; then
    echo "fuzz: $name: clean, $runs runs in ${seconds}s, corpus $(ls "$dir/corpus" | wc -l) inputs"
    continue
  fi
  failed=1
  echo "fuzz: $name: FAILED (exit $(cat "$dir/status")); last lines of its log:"
  grep -v '^signetd: ' "$dir/log" | tail -n 60
  for artifact in build-fuzz/artifacts/"$name"/*; do
    [ -f "$artifact" ] || continue
    echo "fuzz: $name: reproducer $artifact ($(stat -c %s "$artifact") bytes), base64:"
    head -c 65536 "$artifact" | base64
    echo "fuzz: replay with: build-fuzz/fuzz/${name}_fuzz $artifact"
    echo "fuzz: or, after the fix, pin it: cp $artifact fuzz/regressions/$name/"
  done
done
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time: $((SECONDS - start))s"
exit "$failed"
