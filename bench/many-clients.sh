#!/usr/bin/env bash
# Many clients in one process: what a client costs kbench. On a local
# broker, three plans, each run by one kbench process:
#   producers: CLIENTS producer clients at RATE records/s each for DURATION s;
#   consumers: CLIENTS consumers in one group reading a topic of PARTITIONS
#              partitions that one producer has filled at CLIENTS x RATE
#              records/s for DURATION s, from the earliest offset. The group
#              starts once the feed has ended: one broker on two cores,
#              taking 1,000 members' joins and fetch sessions while it
#              takes acks=all writes to 1,000 partitions, failed a tenth of
#              the feed's records (112,772 of 300,000) and the readers
#              stalled, so the join storm and the writes are measured apart;
#   soak:      bench/soak.sh's plan, SOAK_RATE records/s produced and consumed
#              for SOAK_SECONDS s.
# Each is run once more with one client (the baseline), and the script prints
# kbench's peak RSS (VmHWM), CPU seconds and peak goroutines (from the
# result's repeats[].process), in all and per client over the baseline, and
# checks that every record due was acknowledged and every record read.
# Goals: at most 2 MB of RSS per client, at most 64 MB for the soak.
#
#   bash bench/many-clients.sh                                 # 1,000 clients, 120 s; soak 600 s
#   CLIENTS=50 DURATION=20 SOAK_SECONDS=30 bash bench/many-clients.sh   # a smoke test
#
# 1,000 clients take some 4,000 connections on kbench's side and as many on
# the broker's: the script raises the open-file limit (ulimit -n) to its hard
# limit before starting the broker, which inherits it, and stops if that is
# too low.
set -euo pipefail
CLIENTS=${CLIENTS:-1000}
RATE=${RATE:-10}             # records/s per producer client
DURATION=${DURATION:-120}    # seconds
PARTITIONS=${PARTITIONS:-$CLIENTS}
SOAK_RATE=${SOAK_RATE:-20000}
SOAK_SECONDS=${SOAK_SECONDS:-600}
cd "$(dirname "$0")/.."

# Connections: a producer keeps a seed, a metadata and a produce connection,
# a consumer a seed, a coordinator and a fetch connection; plus the broker's
# log segments and indexes (three files per partition).
need=$((4 * CLIENTS + 3 * PARTITIONS + 1024))
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
  echo "bench/many-clients.sh: $CLIENTS clients need about $need open files, and the hard limit (ulimit -Hn) is $hard: raise it (as root: ulimit -Hn $need, or LimitNOFILE for a service) or set CLIENTS lower" >&2
  exit 2
fi
ulimit -n "$hard" 2>/dev/null || ulimit -n "$need"

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
NAME=bench-many
B=$("$K" cluster up --name "$NAME" 2>/dev/null | tail -1 | cut -d= -f2)
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  $CLIENTS clients at $RATE records/s each for $DURATION s, $PARTITIONS partitions; soak $SOAK_RATE records/s for $SOAK_SECONDS s; open files $(ulimit -n); $(nproc) CPUs shared with the broker"

# plan NAME CLIENTS: writes the plan NAME for CLIENTS clients.
plan() {
  local name=$1 n=$2 total=$(($2 * RATE))
  case $name in
    producers) cat <<PLAN
name: producers
cluster: {bootstrap: "$B"}
topics: [{name: many-p-$n, partitions: 3}]
workloads:
  - {name: producers, type: produce, topic: many-p-$n, clients: $n, message: {size: 100}, rate: $total/s, duration: ${DURATION}s, properties: {acks: all}}
PLAN
    ;;
    consumers) cat <<PLAN
name: consumers
cluster: {bootstrap: "$B"}
topics: [{name: many-c-$n, partitions: $((n < PARTITIONS ? n : PARTITIONS))}]
workloads:
  - {name: feed, type: produce, topic: many-c-$n, message: {size: 100}, rate: $total/s, duration: ${DURATION}s, properties: {acks: all}}
  - {name: consumers, type: consume, topic: many-c-$n, clients: $n, group: many-$n, records: $((total * DURATION)), timeout: 60s, start_after: feed, properties: {auto.offset.reset: earliest}}
PLAN
    ;;
    soak) cat <<PLAN
name: soak
cluster: {bootstrap: "$B"}
topics: [{name: soak, partitions: 3}]
workloads:
  - {name: producer, type: produce, topic: soak, message: {size: 100}, rate: $SOAK_RATE/s, duration: ${SOAK_SECONDS}s, properties: {acks: 1}}
  - {name: consumer, type: consume, topic: soak, duration: ${SOAK_SECONDS}s}
PLAN
    ;;
  esac
}

# run NAME CLIENTS: runs the plan; its result is $TMP/NAME-CLIENTS/result.json.
run() {
  local out=$TMP/$1-$2
  plan "$1" "$2" >"$TMP/$1-$2.yaml"
  if ! "$K" run "$TMP/$1-$2.yaml" --out "$out" >/dev/null 2>"$out.log"; then
    echo "the $1 run with $2 clients failed:" >&2
    grep -iE 'too many open files|error|fail' "$out.log" | tail -5 >&2 || tail -5 "$out.log" >&2
    # Go on: kbench wrote what it measured, and the table below says
    # what failed beside every other plan's figures.
  fi
}

for p in producers consumers; do
  echo "$p: 1 client (baseline), then $CLIENTS" >&2
  run "$p" 1
  run "$p" "$CLIENTS"
done
echo "soak: $SOAK_RATE records/s for $SOAK_SECONDS s" >&2
run soak 1

python3 - "$TMP" "$CLIENTS" "$RATE" "$DURATION" "$SOAK_RATE" "$SOAK_SECONDS" <<'PY'
import json, sys
tmp, clients, rate, duration, soak_rate, soak_s = sys.argv[1], *map(int, sys.argv[2:])
def load(name, n):
    try:
        rep = json.load(open(f"{tmp}/{name}-{n}/result.json"))["plan"]["scenarios"][0]["repeats"][0]
    except (OSError, KeyError, IndexError) as e:
        sys.exit(f"{name} with {n} clients: no result ({e}); see the lines above")
    return rep, {w["name"]: w for w in rep["workloads"]}
ok = True
def check(cond, what):
    global ok
    if not cond:
        ok = False
        print("  FAILED:", what)
print(f"{'plan':<10} {'clients':>7} {'peak RSS MB':>11} {'CPU s':>7} {'goroutines':>10} | per client over 1: {'RSS KB':>7} {'CPU ms':>7} {'goroutines':>10}")
for name in ("producers", "consumers"):
    rows = {}
    for n in (1, clients):
        rep, ws = load(name, n)
        p = rep.get("process") or {}
        rows[n] = (p.get("peak_rss_bytes", 0) / 2**20, p.get("cpu_seconds", 0), p.get("peak_goroutines", 0))
        check(rep["status"] == "ok", f"{name} with {n} clients: status {rep['status']} {rep.get('error', '')}")
        prod = ws.get("producers") or ws.get("feed")
        due = n * rate * duration
        pr = prod["producer"]
        check(pr["records"] == due and pr["failed"] == 0 and not pr.get("not_sent") and not pr.get("unresolved"),
              f"{name} with {n} clients: {pr['records']} of {due} records acknowledged, {pr['failed']} failed, {pr.get('not_sent', 0)} not sent, {pr.get('unresolved', 0)} unresolved")
        if name == "consumers":
            c = ws["consumers"]["consumer"]
            check(c["records"] == pr["records"], f"consumers with {n} clients read {c['records']} of {pr['records']} records")
    (r1, c1, g1), (rn, cn, gn) = rows[1], rows[clients]
    d = max(clients - 1, 1)
    for n in (1, clients):
        r, c, g = rows[n]
        extra = f"{(rn - r1) * 1024 / d:7.0f} {(cn - c1) * 1000 / d:7.1f} {(gn - g1) / d:10.1f}" if n == clients else ""
        print(f"{name:<10} {n:>7} {r:11.1f} {c:7.1f} {g:10d} | {extra}")
    if clients > 1:
        per = (rn - r1) / d
        print(f"  {name}: {per * 1024:.0f} KB of RSS per client: {'met' if per <= 2 else 'NOT met'} (goal: at most 2 MB)")
rep, ws = load("soak", 1)
p = rep["process"]
rss = p["peak_rss_bytes"] / 2**20
pr = ws["producer"]["producer"]
check(rep["status"] == "ok", f"soak: status {rep['status']}")
check(pr["failed"] == 0 and pr["records"] >= 0.99 * soak_rate * soak_s, f"soak: {pr['records']} records acknowledged of {soak_rate * soak_s}, {pr['failed']} failed")
print(f"soak {soak_rate} records/s, {soak_s} s: peak RSS {rss:.1f} MB, CPU {p['cpu_seconds']:.1f} s, {p['peak_goroutines']} goroutines: {'met' if rss <= 64 else 'NOT met'} (goal: at most 64 MB)")
print("every record acknowledged and read" if ok else "SOME CHECKS FAILED")
sys.exit(0 if ok else 1)
PY
