#!/usr/bin/env bash
# bench-scale-out.sh: issue 18's scaling measurement, honest on one machine.
# Starts a throw-away PostgreSQL (as nobody when run as root) and a token on
# it, then for 1, 2 and 3 signetd nodes on that keystore, each held to a
# fixed CPU share (SHARE of one core: a cgroup CPU quota, v2 cpu.max or v1
# cpu.cfs_quota_us) so that a node is CPU-bound, runs `signet bench
# parallel` through the client library with the nodes' addresses listed
# (the clients spread over them, docs/SCALING.md) and prints the total
# signatures per second, the median of ROUNDS rounds, and the scaling
# against one node. Every signature is verified in the client.
#
# usage: scripts/bench-scale-out.sh [BUILD_DIR]
#   environment: SHARE (default 0.5), ROUNDS (3), ALGO (rsa:2048), CLIENTS
#   (8), N (2000 signatures a run), OUT (a CSV of every round; default:
#   in the work dir, printed)
# Needs root for the cgroup (without it the nodes run unlimited, and the
# script says so).
set -euo pipefail

BUILD=${1:-build}
SHARE=${SHARE:-0.5}
ROUNDS=${ROUNDS:-3}
ALGO=${ALGO:-rsa:2048}
CLIENTS=${CLIENTS:-8}
N=${N:-2000}
SIGNET=$BUILD/bin/signet
SIGNETD=$BUILD/bin/signetd
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
for f in "$SIGNET" "$SIGNETD" "$PGBIN/initdb"; do
  [[ -e $f ]] || { echo "missing $f (make build; scripts/deps.sh)" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/signet-scale-out.XXXXXX)
chmod 755 "$WORK"
OUT=${OUT:-$WORK/scale-out.csv}
PIDS=()
CGROUPS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for cg in "${CGROUPS[@]}"; do rmdir "$cg" 2>/dev/null || true; done
  as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

as_pg() {
  if [[ $(id -u) == 0 ]]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi
}

# The database: its own cluster, a free port on 127.0.0.1.
mkdir "$WORK/pg"
[[ $(id -u) == 0 ]] && chown 65534:65534 "$WORK/pg"
as_pg "$PGBIN/initdb" -D "$WORK/pg/data" -U signet --auth=trust -E UTF8 --no-sync >/dev/null
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg/data" -w -l "$WORK/pg/server.log" \
  -o "-p $PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
URI="postgresql://signet@127.0.0.1:$PORT/postgres"
PIN=scale-out-user-pin
"$SIGNET" init --keystore "$URI" --label scale-out --so-pin scale-out-so-pin --pin "$PIN" \
  --kdf-n 1024 >/dev/null

# CpuLimit PID: the node's own cgroup with SHARE of one core.
PERIOD=100000
QUOTA=$(python3 -c "print(int($SHARE * $PERIOD))")
LIMIT="none (not root, or no cgroup cpu controller here)"
cpu_limit() {
  local pid=$1 name=signet-scale-out-$1
  if [[ -w /sys/fs/cgroup/cgroup.subtree_control ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    mkdir "/sys/fs/cgroup/$name" && CGROUPS+=("/sys/fs/cgroup/$name")
    echo "$QUOTA $PERIOD" > "/sys/fs/cgroup/$name/cpu.max"
    echo "$pid" > "/sys/fs/cgroup/$name/cgroup.procs"
    LIMIT="cgroup v2 cpu.max $QUOTA $PERIOD"
  elif [[ -w /sys/fs/cgroup/cpu/cgroup.procs ]]; then
    mkdir "/sys/fs/cgroup/cpu/$name" && CGROUPS+=("/sys/fs/cgroup/cpu/$name")
    echo "$PERIOD" > "/sys/fs/cgroup/cpu/$name/cpu.cfs_period_us"
    echo "$QUOTA" > "/sys/fs/cgroup/cpu/$name/cpu.cfs_quota_us"
    for task in /proc/"$pid"/task/*; do echo "${task##*/}" > "/sys/fs/cgroup/cpu/$name/tasks"; done
    LIMIT="cgroup v1 cpu.cfs_quota_us $QUOTA of $PERIOD"
  fi
}

start_node() {
  local i=$1
  mkdir -p "$WORK/node$i"
  "$SIGNETD" --data "$WORK/node$i" --socket "$WORK/node$i.sock" --keystore "$URI" \
    --login-delay-base-ms 0 2>"$WORK/node$i.log" &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 100); do [[ -S $WORK/node$i.sock ]] && break; sleep 0.1; done
  sleep 0.3  # its worker threads are up: v1 moves them one by one
  cpu_limit "$pid"
}

stop_nodes() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
  for cg in "${CGROUPS[@]}"; do rmdir "$cg" 2>/dev/null || true; done
  CGROUPS=()
  rm -f "$WORK"/node*.sock
}

echo "nodes,round,sigs_per_sec" > "$OUT"
declare -A MEDIAN
for nodes in 1 2 3; do
  sockets=""
  for i in $(seq "$nodes"); do
    start_node "$i"
    sockets+="${sockets:+,}$WORK/node$i.sock"
  done
  rates=()
  for round in $(seq "$ROUNDS"); do
    SIGNET_PIN=$PIN "$SIGNET" bench parallel --socket "$sockets" --token-label scale-out \
      --algo "$ALGO" --clients "$CLIENTS" -n "$N" --json "$WORK/run.json" >/dev/null
    rate=$(python3 -c 'import json, sys
print(round(json.load(open(sys.argv[1]))["tables"][0]["rows"][0]["sigs/sec"]))' "$WORK/run.json")
    rates+=("$rate")
    echo "$nodes,$round,$rate" >> "$OUT"
    echo "  $nodes node(s), round $round: $rate signatures/s" >&2
  done
  MEDIAN[$nodes]=$(printf '%s\n' "${rates[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  stop_nodes
done

echo "CPU limit per node: $LIMIT; $ALGO, c = $CLIENTS, $N signatures a run, median of $ROUNDS rounds"
echo "nodes  sigs/s  scaling"
for nodes in 1 2 3; do
  printf '%5d  %6d  %7.2f\n' "$nodes" "${MEDIAN[$nodes]}" \
    "$(python3 -c "print(${MEDIAN[$nodes]} / ${MEDIAN[1]})")"
done
echo "every round: $OUT"
