#!/usr/bin/env bash
# Distributed workers on separate hosts, simulated on this machine: the
# brokers (one, from `kbench cluster up --advertise-host`) and each of N
# workers (default 5) in a network namespace of its own, joined by veth
# pairs to a bridge in the brokers' namespace; worker I's requests reach
# the brokers 5, 10, 15, 20 or 25 ms late (I mod 5: a delay line on its
# side, one way) and its clock is shifted by the test hook
# KBENCH_TEST_CLOCK_OFFSET (-4.3 s to +3.9 s, 130 ms more for every five
# workers). The run is TestWorkersOnSeparateHosts with N workers: every
# worker exits 0, the merge is exact, the offsets, starts and intervals
# within its bounds. Prints one row a worker: its delay, the injected
# offset and the measured one (their sum is the measurement's error: the
# offset is reference minus clock), the uncertainty kbench states, how
# late the worker released its workloads by its own reckoning, and its
# start's true distance from the common start (the brokers' clock is the
# true one here).
#
#   sudo bash bench/hosts.sh        # 5 workers
#   sudo bash bench/hosts.sh 20     # 20 workers
#
# Needs root and ip (iproute2); the namespaces are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-5}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
KBENCH_HOSTS_WORKERS=$N go test -count=1 -timeout 10m -run '^TestWorkersOnSeparateHosts$' -v ./cmd/kbench/ >"$log" 2>&1 || status=$?
if grep -q -- '--- SKIP' "$log"; then
  grep -A2 -- '--- SKIP' "$log" >&2
  exit 1
fi
echo "commit $(git rev-parse --short HEAD), $N workers, $(nproc) cores"
sed -n 's/^.*hosts: //p' "$log"
grep -E '^\s+hosts_test.go:[0-9]+: took' "$log" | sed 's/^ *hosts_test.go:[0-9]*: //' || true
if [ "$status" -ne 0 ]; then
  grep -E -- '--- FAIL|hosts_test.go' "$log" | grep -v 'hosts: |' >&2 || true
  echo "the run failed (exit $status); the whole log: rerun with -v" >&2
fi
exit "$status"
