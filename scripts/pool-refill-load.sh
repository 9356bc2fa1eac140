#!/usr/bin/env bash
# pool-refill-load.sh: issue 6's second target, measured in one run: does a
# saturating RSA-2048 signing load keep >= 90% of its throughput while the
# key pool refills, compared with a daemon whose pool is disabled?
#
# Two throw-away signetd on two fresh tokens (same cheap PIN KDF):
#   off: no pool
#   on:  --pool rsa:2048=TARGET, starting empty, so its generator refills
#        (at SCHED_IDLE, yielding to queued requests) for the whole run; a
#        drain loop also takes a pooled key every DRAIN_EVERY seconds with
#        `signet keygen` when the pool holds one (never a fresh key, which
#        would cost the load CPU for a reason other than the refill), so
#        takes happen during the load as well. POOL_THREADS generator
#        threads (default 2: one per core, the most the refill can use).
# The same `signet bench parallel --algo rsa:2048 --clients C -n N` runs
# against each, alternating off/on ROUNDS times (order swapped each round); the summary compares the
# median sigs/sec of each and prints the pool counters before/after.
#
# usage: scripts/pool-refill-load.sh [BUILD_DIR] [N] [CLIENTS] [ROUNDS]
#   defaults: build 2000 2 5   env: TARGET=400 DRAIN_EVERY=0.5 POOL_THREADS=2
set -euo pipefail

BUILD=${1:-build}
N=${2:-2000}
CLIENTS=${3:-2}
ROUNDS=${4:-5}
TARGET=${TARGET:-400}
DRAIN_EVERY=${DRAIN_EVERY:-0.5}
POOL_THREADS=${POOL_THREADS:-2}
SIGNET=$BUILD/bin/signet
SIGNETD=$BUILD/bin/signetd
PIN=refill-user-pin
WORK=$(mktemp -d /tmp/signet-refill.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_daemon NAME [signetd flags...]: a fresh token and its signetd.
start_daemon() {
  local name=$1; shift
  mkdir -p "$WORK/$name"
  "$SIGNET" --data "$WORK/$name" init --label bench --so-pin refill-so-pin --pin "$PIN" \
    --kdf-n 1024 >/dev/null
  "$SIGNETD" --data "$WORK/$name" --socket "$WORK/$name.sock" "$@" 2>"$WORK/$name.log" &
  PIDS+=($!)
  until [[ -f $WORK/$name.log ]] && grep -q "signetd: ready" "$WORK/$name.log"; do
    sleep 0.05
  done
}

signet_at() {  # signet_at NAME args...
  local name=$1; shift
  "$SIGNET" --socket "$WORK/$name.sock" --pin "$PIN" "$@"
}

# pool_line: "rsa:2048 size target generated taken misses keys/s".
pool_line() { signet_at on stats | grep -i "rsa:2048" || true; }

start_daemon off
start_daemon on --pool "rsa:2048=$TARGET" --pool-threads "$POOL_THREADS"
echo "# $(nproc) cores; N=$N clients=$CLIENTS rounds=$ROUNDS pool target=$TARGET" \
  "threads=$POOL_THREADS drain every ${DRAIN_EVERY}s"
echo "# pool columns: type size target generated taken misses keys/s"

# run_load NAME: one `bench parallel` run; prints its sigs/sec.
run_load() {
  signet_at "$1" bench parallel --algo rsa:2048 --clients "$CLIENTS" -n "$N" \
    --csv "$WORK/$1.csv" >/dev/null
  tail -1 "$WORK/$1.csv" | cut -d, -f5
}

# drain: take pooled keys while the load runs (each a token key pair).
drain() {
  local i=0
  while true; do
    if (($(pool_line | awk '{print $2}') > 0)); then
      signet_at on keygen --type rsa:2048 --label "drain-$BASHPID-$((i++))" >/dev/null 2>&1 || true
    fi
    sleep "$DRAIN_EVERY"
  done
}

# The benchmark key of each daemon exists before timing.
signet_at off bench parallel --algo rsa:2048 --clients 1 -n 10 >/dev/null
signet_at on bench parallel --algo rsa:2048 --clients 1 -n 10 >/dev/null
echo "# pool before: $(pool_line)"

off_rates=() on_rates=()
for ((r = 1; r <= ROUNDS; r++)); do
  # Alternate which goes first, so drift in the machine's other load
  # (a shared box) does not favour one side.
  ((r % 2 == 0)) && off_rates+=("$(run_load off)")
  drain >/dev/null 2>&1 & drain_pid=$!
  on_rates+=("$(run_load on)")
  kill "$drain_pid"; wait "$drain_pid" 2>/dev/null || true
  ((r % 2 == 1)) && off_rates+=("$(run_load off)")
  echo "round $r: pool off ${off_rates[-1]} sigs/sec, pool refilling ${on_rates[-1]} sigs/sec"
done
echo "# pool after:  $(pool_line)"

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
off_med=$(median "${off_rates[@]}")
on_med=$(median "${on_rates[@]}")
awk -v off="$off_med" -v on="$on_med" 'BEGIN {
  printf "median sigs/sec: pool off %.1f, pool refilling %.1f, ratio %.3f (target >= 0.90)\n",
         off, on, on / off }'
