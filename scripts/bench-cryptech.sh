#!/usr/bin/env bash
# bench-cryptech.sh: seed 000's parallel-signatures load through signetd's
# Cryptech listener (libhal's RPC, `bench parallel --via cryptech`) next to
# signet's own protocol (`--via daemon`). One signetd serves both sockets
# on one throw-away token, so the two interfaces share the daemon, its
# workers and its key cache; only the front end differs (docs/CRYPTECH.md).
# The interfaces alternate within each round (and swap order between
# rounds), so a drift of the shared machine hits both. Prints every run and
# then, per algorithm and client count, the median of each interface and
# cryptech/native.
#
# usage: scripts/bench-cryptech.sh [BUILD_DIR] [N] [ROUNDS] [CLIENTS]
#   BUILD_DIR default: build   N default: 2000   ROUNDS default: 5
#   CLIENTS default: 1,2,4,8   ALGOS environment, default rsa:2048,rsa:1024
#   VERIFY environment: set to 0 for --no-verify
# The per-run CSVs stay in $OUT_DIR (default: a temp dir, printed).
set -euo pipefail

BUILD=${1:-build}
N=${2:-2000}
ROUNDS=${3:-5}
CLIENTS=${4:-1,2,4,8}
ALGOS=${ALGOS:-rsa:2048,rsa:1024}
VERIFY=${VERIFY:-1}
BIN=$BUILD/bin
WORK=$(mktemp -d /tmp/signet-cryptech.XXXXXX)
OUT_DIR=${OUT_DIR:-$WORK}
export SIGNET_PIN=bench-user-pin SIGNET_SO_PIN=bench-so-pin

daemon_pid=""
cleanup() {
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

data=$WORK/data
mkdir -p "$data"
"$BIN/signet" init --data "$data" --label bench >/dev/null
"$BIN/signetd" --data "$data" --socket "$data/signetd.sock" \
  --cryptech-socket "$data/cryptech.sock" --cryptech-token bench 2>"$WORK/signetd.log" &
daemon_pid=$!
for _ in $(seq 200); do
  grep -q "signetd: ready" "$WORK/signetd.log" && break
  kill -0 "$daemon_pid" || { cat "$WORK/signetd.log" >&2; exit 1; }
  sleep 0.05
done

IFS=, read -ra algos <<<"$ALGOS"
IFS=, read -ra clients <<<"$CLIENTS"
extra=()
[[ $VERIFY == 0 ]] && extra+=(--no-verify)

# run_mode ROUND MODE: one bench run through one interface, its CSV in $OUT_DIR.
run_mode() {
  local round=$1 mode=$2 via socket
  if [[ $mode == native ]]; then
    via=daemon socket=$data/signetd.sock
  else
    via=cryptech socket=$data/cryptech.sock
  fi
  "$BIN/signet" --socket "$socket" bench parallel --via "$via" --algo "${algos[@]}" \
    --clients "${clients[@]}" -n "$N" "${extra[@]}" --csv "$OUT_DIR/round$round-$mode.csv" |
    grep -v '^#' | grep -v '^$' | sed "s/^/$mode: /"
}

for round in $(seq "$ROUNDS"); do
  if ((round % 2)); then order=(native cryptech); else order=(cryptech native); fi
  for mode in "${order[@]}"; do
    echo "round $round: $mode" >&2
    run_mode "$round" "$mode"
  done
done

echo "CSVs in $OUT_DIR"
"$(dirname "$0")/ab-medians.py" "$OUT_DIR" "$ROUNDS" native cryptech
