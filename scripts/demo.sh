#!/usr/bin/env bash
# make demo: a throw-away token in a temporary directory, a real signetd on a
# Unix socket, and every seed report's table beside this machine's figures
# (`signet bench seeds`: seeds 000 and 001 through this daemon, 002 in
# process, 003 through throw-away daemons without a key pool), ending with
# the summary. The daemon is stopped with SIGTERM and must exit cleanly.
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

echo "== the seed reports beside this machine (signet bench seeds; --full for the seeds' sizes)"
"$bin/signet" bench seeds --socket "$SIGNET_SOCKET"

echo "== stopping signetd (SIGTERM)"
kill -TERM "$daemon_pid"
status=0; wait "$daemon_pid" || status=$?
daemon_pid=
echo "signetd exited with status $status"
exit "$status"
