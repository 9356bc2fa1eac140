#!/usr/bin/env bash
# bench-ring.sh: the shared-memory ring against the socket (issue 17), A/B in
# alternating rounds on the same build: mode "socket" sets
# SIGNET_SHARED_MEMORY=no, which keeps both the PKCS#11 module and the
# bench's own throw-away signetd (`signetd --no-shared-memory`) on the
# socket; mode "ring" is the default. Per round and mode:
#   module  `signet bench parallel --via pkcs11` (signet's module), ALGOS at
#           CLIENTS, with --raw (so the c = 1 latency line is printed);
#   daemon  `signet bench parallel` (C++ client), RSA-2048 at DAEMON_CLIENTS
#           with n = DAEMON_N;
# then medians per mode (scripts/ab-medians.py). Finally, once per mode,
# `signet bench profile` (RSA-2048 and P-256 at c = 8) for signetd's CPU
# per request, and `openssl speed -multi 2 rsa2048` for the raw peak.
#
# usage: scripts/bench-ring.sh [BUILD_DIR] [ROUNDS]
#   environment: ALGOS (default rsa:2048,ec:p256,ed25519), CLIENTS (1,2,4,8),
#   N (3000), DAEMON_CLIENTS (1,2,4,8,64,256), DAEMON_N (8000), OUT_DIR.
set -euo pipefail

BUILD=${1:-build}
ROUNDS=${2:-3}
ALGOS=${ALGOS:-rsa:2048,ec:p256,ed25519}
CLIENTS=${CLIENTS:-1,2,4,8}
N=${N:-3000}
DAEMON_CLIENTS=${DAEMON_CLIENTS:-1,2,4,8,64,256}
DAEMON_N=${DAEMON_N:-8000}
SIGNET=$BUILD/bin/signet
MODULE=$(realpath "$BUILD/lib/libsignet-pkcs11.so")
OUT_DIR=${OUT_DIR:-$(mktemp -d /tmp/signet-ring.XXXXXX)}
mkdir -p "$OUT_DIR/module" "$OUT_DIR/daemon"
unset SIGNET_SOCKET SIGNET_CONF  # `signet bench` starts its own signetd

shm_of() { [[ $1 == socket ]] && echo no || echo yes; }

for round in $(seq 1 "$ROUNDS"); do
  for mode in socket ring; do
    echo "== round $round: $mode" >&2
    SIGNET_SHARED_MEMORY=$(shm_of "$mode") "$SIGNET" bench parallel --via pkcs11 \
      --module "$MODULE" --raw --algo "$ALGOS" --clients "$CLIENTS" -n "$N" \
      --csv "$OUT_DIR/module/round$round-$mode.csv" >"$OUT_DIR/module-round$round-$mode.txt"
    grep '^# c = 1\|^# socketpair' "$OUT_DIR/module-round$round-$mode.txt" >&2 || true
    SIGNET_SHARED_MEMORY=$(shm_of "$mode") "$SIGNET" bench parallel --raw --algo rsa:2048 \
      --clients "$DAEMON_CLIENTS" -n "$DAEMON_N" --csv "$OUT_DIR/daemon/round$round-$mode.csv" \
      >"$OUT_DIR/daemon-round$round-$mode.txt"
  done
done

echo "== through the PKCS#11 module (medians of $ROUNDS rounds)"
python3 "$(dirname "$0")/ab-medians.py" "$OUT_DIR/module" "$ROUNDS" socket ring
echo "== through the daemon, C++ client (medians of $ROUNDS rounds)"
python3 "$(dirname "$0")/ab-medians.py" "$OUT_DIR/daemon" "$ROUNDS" socket ring
for mode in socket ring; do
  for algo in rsa:2048 ec:p256; do
    echo "== bench profile $algo c = 8, $mode"
    SIGNET_SHARED_MEMORY=$(shm_of "$mode") "$SIGNET" bench profile --algo "$algo" --clients 8 \
      -n 4000 | grep -E '^# (requests|signetd)|^(queue_wait|execute|outside_daemon|whole) '
  done
done
echo "== openssl speed -multi 2 rsa2048"
openssl speed -multi 2 -seconds 5 rsa2048 2>/dev/null | grep -E '^rsa 2048|^\+F' | tail -2
echo "(CSVs in $OUT_DIR)"
