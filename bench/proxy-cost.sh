#!/usr/bin/env bash
# What idle network proxies cost: the producer on a 3-broker local cluster
# whose every path runs through kbench's proxies (cluster up
# --network-faults, no fault set) against the same producer on a 3-broker
# cluster without proxies. Two clusters of identical settings run side by
# side (one cluster reached directly would still replicate through its
# proxies); each is first warmed with WARMUP records (untimed), then ROUNDS
# rounds (default 5) rotate which cluster goes first, every run writing to
# a fresh topic (3 partitions, replication 3). Each round runs the producer
# twice per cluster:
#   - at full speed (--throughput -1): records/s;
#   - at a fixed rate well under capacity (RATE, default 20k/s): p50 and p99
#     publish latency, measured from each record's intended send time.
# Prints every run, then medians and ranges, and the proxied cluster
# against the direct one: the goal is at most 10% fewer records/s and at
# most 1 ms more p50.
#
#   bash bench/proxy-cost.sh                                   # full size (minutes)
#   ROUNDS=1 WARMUP=10000 RECORDS=20000 RATE=2000 RATE_RECORDS=4000 bash bench/proxy-cost.sh   # a quick check
#
# Settings: acks=$ACKS (default all: replication crosses the proxies before
# the acknowledgement), $SIZE-byte records (default 100), the drop-in's
# defaults otherwise (the Java client's: batch.size 16384, linger.ms 5).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
WARMUP=${WARMUP:-2000000}
RECORDS=${RECORDS:-2000000}
RATE=${RATE:-20000}
RATE_RECORDS=${RATE_RECORDS:-400000}
SIZE=${SIZE:-100}
ACKS=${ACKS:-all}
HEAP=${HEAP:-1g}
PARTITIONS=3

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
CP=$("$K" cluster classpath)
DIRECT=proxy-cost-direct
PROXIED=proxy-cost-proxied
cleanup() {
  "$K" cluster down --name "$DIRECT" >/dev/null 2>&1 || true
  "$K" cluster down --name "$PROXIED" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  acks=$ACKS ${SIZE} B records; $RECORDS records at full speed, $RATE_RECORDS at ${RATE}/s; $ROUNDS rounds; $(nproc) CPUs shared by 6 brokers, the proxies and the producer"

declare -A BOOT
for name in "$DIRECT" "$PROXIED"; do
  flags=()
  [ "$name" = "$PROXIED" ] && flags=(--network-faults)
  "$K" cluster down --name "$name" >/dev/null 2>&1 || true
  BOOT[$name]=$("$K" cluster up --name "$name" --brokers 3 --heap "$HEAP" "${flags[@]}" 2>/dev/null | tail -1 | sed 's/^bootstrap.servers=//')
done

# topic CLUSTER NAME: creates a topic with the Java admin tool.
topic() {
  java -Xmx256M -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "${BOOT[$1]}" --create \
    --topic "$2" --partitions "$PARTITIONS" --replication-factor 3 >/dev/null
}

# drop CLUSTER PATTERN: deletes the topics matching PATTERN.
drop() {
  java -Xmx256M -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "${BOOT[$1]}" --delete --topic "$2" >/dev/null
}

# produce CLUSTER TOPIC RECORDS THROUGHPUT: prints "RATE P50 P99" from the
# drop-in's summary line.
produce() {
  local out=$TMP/out
  "$K" producer-perf-test --topic "$2" --num-records "$3" --record-size "$SIZE" --throughput "$4" \
    --producer-props bootstrap.servers="${BOOT[$1]}" acks="$ACKS" >"$out" 2>&1 || { echo "producer on $1 failed:" >&2; tail -5 "$out" >&2; return 1; }
  grep 'records sent' "$out" | tail -1 | awk '{
    for (i = 1; i <= NF; i++) { if ($i == "50th,") p50 = $(i-2); if ($i == "99th,") p99 = $(i-2) }
    print $4, p50, p99 }'
}

run=0
for name in "$DIRECT" "$PROXIED"; do
  run=$((run + 1)); topic "$name" "warm-$run"
  echo "== warming $name (${BOOT[$name]}) with $WARMUP records"
  produce "$name" "warm-$run" "$WARMUP" -1 >/dev/null
  drop "$name" 'warm-.*'
done

RESULTS=$TMP/results # cluster round phase rate p50 p99
: >"$RESULTS"
for ((r = 0; r < ROUNDS; r++)); do
  order=("$DIRECT" "$PROXIED")
  ((r % 2 == 1)) && order=("$PROXIED" "$DIRECT")
  line="round $((r + 1)):"
  for name in "${order[@]}"; do
    run=$((run + 1)); topic "$name" "max-$run"
    read -r rate p50 p99 < <(produce "$name" "max-$run" "$RECORDS" -1)
    echo "$name $r max $rate $p50 $p99" >>"$RESULTS"
    run=$((run + 1)); topic "$name" "rate-$run"
    read -r _ rp50 rp99 < <(produce "$name" "rate-$run" "$RATE_RECORDS" "$RATE")
    echo "$name $r rate 0 $rp50 $rp99" >>"$RESULTS"
    line+=$(printf '  %s %.0f/s, p50 %s ms p99 %s ms at %s/s' "${name#proxy-cost-}" "$rate" "$rp50" "$rp99" "$RATE")
    drop "$name" '(max|rate)-.*'
  done
  echo "$line"
done

echo
python3 - "$RESULTS" "$DIRECT" "$PROXIED" <<'EOF'
import statistics, sys
path, direct, proxied = sys.argv[1:4]
rows = [l.split() for l in open(path)]
def col(cluster, phase, i):
    return [float(r[i]) for r in rows if r[0] == cluster and r[2] == phase]
def fmt(xs, unit=""):
    return f"{statistics.median(xs):,.1f}{unit} ({min(xs):,.1f}–{max(xs):,.1f})"
print("| cluster | records/s at full speed, median (range) | p50 ms at the fixed rate | p99 ms at the fixed rate |")
print("| --- | ---: | ---: | ---: |")
for name, c in (("direct", direct), ("through idle proxies", proxied)):
    print(f"| {name} | {fmt(col(c, 'max', 3))} | {fmt(col(c, 'rate', 4))} | {fmt(col(c, 'rate', 5))} |")
rd, rp = statistics.median(col(direct, "max", 3)), statistics.median(col(proxied, "max", 3))
pd, pp = statistics.median(col(direct, "rate", 4)), statistics.median(col(proxied, "rate", 4))
qd, qp = statistics.median(col(direct, "rate", 5)), statistics.median(col(proxied, "rate", 5))
cost = 1 - rp / rd
print()
print(f"proxies' cost: {cost:+.1%} records/s (goal: at most 10%), {pp - pd:+.1f} ms p50 (goal: at most 1 ms), {qp - qd:+.1f} ms p99")
print("verdict:", "within the goal" if cost <= 0.10 and pp - pd <= 1 else "OVER the goal")
EOF
