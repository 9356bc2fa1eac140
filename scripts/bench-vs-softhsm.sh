#!/usr/bin/env bash
# bench-vs-softhsm.sh: the parallel-signatures table through PKCS#11, for
# signet's module (libsignet-pkcs11.so, on a throw-away signetd started by
# `signet bench`) and SoftHSMv2 (on a throw-away token in a temp dir), side
# by side, RSA-2048 and ECDSA P-256 at c = 1, 2, 4, 8, 16. Every signature
# is verified in the client.
#
# usage: scripts/bench-vs-softhsm.sh [BUILD_DIR] [N] [CLIENTS]
#   BUILD_DIR  default: build        N  default: 1000   CLIENTS default: 1,2,4,8,16
# Output: both tables, then a summary "c signet softhsm ratio" per algorithm;
# the CSVs stay in $OUT_DIR (default: a temp dir, printed).
set -euo pipefail

BUILD=${1:-build}
N=${2:-1000}
CLIENTS=${3:-1,2,4,8,16}
SIGNET=$BUILD/bin/signet
SIGNET_MODULE=$(realpath "$BUILD/lib/libsignet-pkcs11.so")
SOFTHSM_MODULE=${SOFTHSM_MODULE:-/usr/lib/softhsm/libsofthsm2.so}
ALGOS=rsa2048,ecp256

for f in "$SIGNET" "$SIGNET_MODULE" "$SOFTHSM_MODULE"; do
  [[ -e $f ]] || { echo "missing $f" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/signet-vs-softhsm.XXXXXX)
OUT_DIR=${OUT_DIR:-$WORK}
trap 'rm -rf "$WORK/softhsm"' EXIT

# SoftHSMv2: its own config and token directory, one fresh token.
mkdir -p "$WORK/softhsm/tokens"
cat > "$WORK/softhsm/softhsm2.conf" <<CONF
directories.tokendir = $WORK/softhsm/tokens
objectstore.backend = file
log.level = ERROR
CONF
export SOFTHSM2_CONF=$WORK/softhsm/softhsm2.conf
softhsm2-util --init-token --free --label bench --so-pin 1234 --pin 1234 >/dev/null

# SIGNET_SOCKET / SIGNET_CONF unset: `signet bench` starts its own signetd
# for signet's module.
unset SIGNET_SOCKET SIGNET_CONF

echo "== signet (libsignet-pkcs11.so over signetd)"
"$SIGNET" bench parallel --via pkcs11 --module "$SIGNET_MODULE" --algo $ALGOS \
  --clients "$CLIENTS" -n "$N" --csv "$OUT_DIR/signet.csv"
echo "== SoftHSMv2 ($SOFTHSM_MODULE)"
"$SIGNET" bench parallel --via pkcs11 --module "$SOFTHSM_MODULE" --token-label bench \
  --pin 1234 --algo $ALGOS --clients "$CLIENTS" -n "$N" --csv "$OUT_DIR/softhsm.csv"

echo "== sigs/sec side by side (CSV in $OUT_DIR)"
python3 - "$OUT_DIR/signet.csv" "$OUT_DIR/softhsm.csv" <<'PY'
import csv, sys
def load(path):
    rows = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows[(r["algorithm"], int(r["c"]))] = float(r["sigs/sec"])
    return rows
a, b = load(sys.argv[1]), load(sys.argv[2])
print(f"{'algorithm':<12} {'c':>3} {'signet':>10} {'softhsm':>10} {'signet/softhsm':>15}")
for key in sorted(a):
    if key in b:
        print(f"{key[0]:<12} {key[1]:>3} {a[key]:>10.1f} {b[key]:>10.1f} {a[key]/b[key]:>15.2f}")
PY
