#!/usr/bin/env bash
# bench-observability.sh: what the metrics endpoint and the audit log cost
# the signing path (issue 15). Each round starts a fresh signetd twice on a
# throw-away token and runs `signet bench parallel` against it:
#   off  plain signetd
#   on   signetd --metrics-listen and --audit-log, with a scraper fetching
#        /metrics every 100 ms for the whole run
# The modes alternate within each round, so a drift of the shared machine
# hits both. Prints every round's figures and then, per algorithm and client
# count, the median of each mode and on/off.
#
# usage: scripts/bench-observability.sh [BUILD_DIR] [N] [ROUNDS] [CLIENTS]
#   BUILD_DIR default: build   N default: 4000   ROUNDS default: 5
#   CLIENTS default: 1,8       ALGOS environment, default ec:p256,rsa:2048
# The per-run CSVs stay in $OUT_DIR (default: a temp dir, printed).
set -euo pipefail

BUILD=${1:-build}
N=${2:-4000}
ROUNDS=${3:-5}
CLIENTS=${4:-1,8}
ALGOS=${ALGOS:-ec:p256,rsa:2048}
BIN=$BUILD/bin
WORK=$(mktemp -d /tmp/signet-observability.XXXXXX)
OUT_DIR=${OUT_DIR:-$WORK}
export SIGNET_PIN=bench-user-pin SIGNET_SO_PIN=bench-so-pin
PORT=$((20000 + $$ % 20000))

daemon_pid=""
scraper_pid=""
cleanup() {
  [[ -n $scraper_pid ]] && kill "$scraper_pid" 2>/dev/null || true
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# run_mode ROUND MODE: one daemon, one bench run, its CSV in $OUT_DIR.
run_mode() {
  local round=$1 mode=$2 data
  data=$(mktemp -d "$WORK/data.XXXXXX")
  "$BIN/signet" init --data "$data" --label bench >/dev/null
  local args=(--data "$data" --socket "$data/signetd.sock")
  if [[ $mode == on ]]; then
    args+=(--metrics-listen "127.0.0.1:$PORT" --audit-log "$data/audit.log")
  fi
  "$BIN/signetd" "${args[@]}" 2>"$data/signetd.log" &
  daemon_pid=$!
  for _ in $(seq 200); do
    grep -q "signetd: ready" "$data/signetd.log" && break
    kill -0 "$daemon_pid" || { cat "$data/signetd.log" >&2; exit 1; }
    sleep 0.05
  done
  if [[ $mode == on ]]; then
    python3 -c '
import sys, time, urllib.request
url = sys.argv[1]
while True:
    try:
        urllib.request.urlopen(url, timeout=2).read()
    except OSError:
        pass
    time.sleep(0.1)
' "http://127.0.0.1:$PORT/metrics" &
    scraper_pid=$!
  fi
  local algos clients
  IFS=, read -ra algos <<<"$ALGOS"
  IFS=, read -ra clients <<<"$CLIENTS"
  "$BIN/signet" --socket "$data/signetd.sock" bench parallel --algo "${algos[@]}" \
    --clients "${clients[@]}" -n "$N" --csv "$OUT_DIR/round$round-$mode.csv" >/dev/null
  if [[ $mode == on ]]; then
    # The scraper's target answered, and the audit log holds the logins.
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2).read()' \
      "http://127.0.0.1:$PORT/metrics" || { echo "the metrics endpoint did not answer" >&2; exit 1; }
    grep -q '"op":"login"' "$data/audit.log" || { echo "no login in the audit log" >&2; exit 1; }
  fi
  if [[ -n $scraper_pid ]]; then
    kill "$scraper_pid"
    wait "$scraper_pid" 2>/dev/null || true
    scraper_pid=""
  fi
  kill "$daemon_pid"
  wait "$daemon_pid" || true
  daemon_pid=""
  rm -rf "$data"
}

for round in $(seq "$ROUNDS"); do
  if ((round % 2)); then order=(off on); else order=(on off); fi
  for mode in "${order[@]}"; do
    echo "round $round: $mode" >&2
    run_mode "$round" "$mode"
  done
done

echo "CSVs in $OUT_DIR"
echo "off: plain signetd; on: metrics scraped every 100 ms + audit log"
"$(dirname "$0")/ab-medians.py" "$OUT_DIR" "$ROUNDS" off on
