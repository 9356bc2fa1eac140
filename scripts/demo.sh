#!/usr/bin/env bash
# make demo: a throw-away token in a temporary directory, a real signetd on a
# Unix socket, and the seeds' parallel-signatures table for RSA-2048 through
# it. The daemon is stopped with SIGTERM and must exit cleanly.
set -euo pipefail
build_dir=${1:-build}
bin="$(cd "$build_dir/bin" && pwd)"
data=$(mktemp -d /tmp/signet-demo.XXXXXX)
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -TERM "$daemon_pid"; wait "$daemon_pid" || true; fi
  rm -rf "$data"
}
trap cleanup EXIT

export SIGNET_PIN=demo-user-pin SIGNET_SO_PIN=demo-so-pin
echo "== signet init: a throw-away token in $data"
"$bin/signet" init --data "$data" --label demo

echo "== starting signetd"
"$bin/signetd" --data "$data" --socket "$data/signetd.sock" 2> "$data/signetd.log" &
daemon_pid=$!
for _ in $(seq 1 200); do
  grep -q "signetd: ready" "$data/signetd.log" 2>/dev/null && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$data/signetd.log"; exit 1; }
  sleep 0.05
done
export SIGNET_SOCKET="$data/signetd.sock"

echo "== parallel signatures, RSA-2048, verified client-side (seed 000/001 format)"
"$bin/signet" bench parallel --socket "$SIGNET_SOCKET" --algo rsa2048 \
  --clients 1,2,3,4,5,6,7,8 -n 1000 --raw

echo "== stopping signetd (SIGTERM)"
kill -TERM "$daemon_pid"
status=0; wait "$daemon_pid" || status=$?
daemon_pid=
echo "signetd exited with status $status"
exit "$status"
