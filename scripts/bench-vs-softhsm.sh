#!/usr/bin/env bash
# bench-vs-softhsm.sh: the parallel-signatures table through PKCS#11, for
# signet's module (libsignet-pkcs11.so, on a throw-away signetd started by
# `signet bench`) and SoftHSMv2 (on a throw-away token in a temp dir), side
# by side, RSA-2048 and ECDSA P-256 at c = 1, 2, 4, 8, 16, and the same
# operations in-process with OpenSSL (`--raw`) in the same run. Every
# signature is verified in the client.
#
# usage: scripts/bench-vs-softhsm.sh [BUILD_DIR] [N] [CLIENTS]
#   BUILD_DIR  default: build        N  default: 1000   CLIENTS default: 1,2,4,8,16
#   ALGOS      environment, default rsa2048,ecp256; any `bench parallel
#              --algo` names, e.g. aes-gcm-1k,hmac-sha256-1k,ecdh-p256,x25519
# Output: the tables, then a summary "c signet softhsm raw signet/softhsm
# daemon" per algorithm (daemon: the same load through the client library,
# `--via daemon`, on its own throw-away signetd) ("-" where SoftHSMv2 lacks the mechanism); the CSVs stay in
# $OUT_DIR (default: a temp dir, printed).
set -euo pipefail

BUILD=${1:-build}
N=${2:-1000}
CLIENTS=${3:-1,2,4,8,16}
SIGNET=$BUILD/bin/signet
SIGNET_MODULE=$(realpath "$BUILD/lib/libsignet-pkcs11.so")
SOFTHSM_MODULE=${SOFTHSM_MODULE:-/usr/lib/softhsm/libsofthsm2.so}
ALGOS=${ALGOS:-rsa2048,ecp256}

for f in "$SIGNET" "$SIGNET_MODULE" "$SOFTHSM_MODULE"; do
  [[ -e $f ]] || { echo "missing $f" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/signet-vs-softhsm.XXXXXX)
OUT_DIR=${OUT_DIR:-$WORK}
mkdir -p "$OUT_DIR"
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

echo "== signet (libsignet-pkcs11.so over signetd), then raw OpenSSL in-process (--raw)"
"$SIGNET" bench parallel --via pkcs11 --module "$SIGNET_MODULE" --raw --algo "$ALGOS" \
  --clients "$CLIENTS" -n "$N" --csv "$OUT_DIR/signet.csv"
echo "== signet through the client library (--via daemon)"
"$SIGNET" bench parallel --via daemon --algo "$ALGOS" --clients "$CLIENTS" -n "$N" \
  --csv "$OUT_DIR/daemon.csv"
# One run per algorithm: SoftHSMv2 lacks some (X25519), which must not stop
# the others.
echo "== SoftHSMv2 ($SOFTHSM_MODULE)"
for algo in ${ALGOS//,/ }; do
  "$SIGNET" bench parallel --via pkcs11 --module "$SOFTHSM_MODULE" --token-label bench \
    --pin 1234 --algo "$algo" --clients "$CLIENTS" -n "$N" --csv "$OUT_DIR/softhsm-$algo.csv" ||
    echo "SoftHSMv2: $algo not measured (see its error above)"
done
echo "== operations/sec side by side (CSV in $OUT_DIR)"
python3 - "$OUT_DIR" <<'PY'
import csv, glob, sys
def load(backend, *paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["backend"] == backend:
                    rows[(r["algorithm"].removesuffix("/raw"), int(r["c"]))] = float(r["sigs/sec"])
    return rows
out = sys.argv[1]
a = load("pkcs11", f"{out}/signet.csv")
b = load("pkcs11", *glob.glob(f"{out}/softhsm-*.csv"))
raw = load("raw", f"{out}/signet.csv")
daemon = load("daemon", f"{out}/daemon.csv")
print(f"{'algorithm':<20} {'c':>3} {'signet':>10} {'softhsm':>10} {'raw':>10} {'signet/softhsm':>15} "
      f"{'daemon':>10}")
for key in sorted(a):
    soft = f"{b[key]:>10.1f}" if key in b else f"{'-':>10}"
    ratio = f"{a[key] / b[key]:>15.2f}" if key in b else f"{'-':>15}"
    r = f"{raw[key]:>10.1f}" if key in raw else f"{'-':>10}"
    d = f"{daemon[key]:>10.1f}" if key in daemon else f"{'-':>10}"
    print(f"{key[0]:<20} {key[1]:>3} {a[key]:>10.1f} {soft} {r} {ratio} {d}")
PY
