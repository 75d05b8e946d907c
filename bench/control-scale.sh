#!/usr/bin/env bash
# How a distributed run's control traffic grows with its workers,
# measured rather than multiplied: WORKERS in-process workers (default
# 10,100,1000), each with its own Kafka clients as a worker process has,
# join a run on a local one-broker cluster, meet at a barrier every 10 s
# for SECONDS (default 60) with the default one-second heartbeat, and the
# table gives the slowest join, the control topic's bytes and records per
# minute, what worker 0 and the busiest other worker read per minute, and
# the memory one worker's coordination holds.
#
#   bash bench/control-scale.sh
#   WORKERS=10,100 SECONDS=30 bash bench/control-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${WORKERS:-10,100,1000}
SECONDS_=${SECONDS:-60}
TMP=$(mktemp -d)
K=$TMP/kbench
NAME=control-scale-$$
go build -o "$K" ./cmd/kbench
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
B=$("$K" cluster up --name "$NAME" 2>/dev/null | tail -1 | sed 's/^bootstrap.servers=//')
echo "$(date -u +%Y-%m-%dT%H:%MZ)  $(git rev-parse --short HEAD)  workers $WORKERS, ${SECONDS_} s each, one local broker; $(nproc) CPUs shared by the broker and the workers"
KBENCH_SCALE_BOOTSTRAP=$B KBENCH_SCALE_WORKERS=$WORKERS KBENCH_SCALE_SECONDS=$SECONDS_ \
  go test -count=1 -timeout 60m -run 'TestControlAtScale$' -v ./internal/coord/ 2>&1 |
  grep -E '^\s+scale_test.go:[0-9]+: \|' | sed -E 's/^\s+scale_test.go:[0-9]+: //'
