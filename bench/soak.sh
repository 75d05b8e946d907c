#!/usr/bin/env bash
# Memory and start-up. First, start-up: on a warmed local broker, 10 runs
# of a one-record producer-perf-test, each timed from just before the
# process starts to the first record handed to the client (first_send_at in
# the result JSON) and to its acknowledgement (first_ack_at); the median
# and range are printed (goal: first send under 50 ms). Then the soak: a
# fixed-rate producer and a consumer for MINUTES (default 10) in one plan,
# with kbench's resident memory (from /proc) and goroutines (from its
# Prometheus endpoint) printed every 30 s, and whether both stayed flat
# (RSS within 5% of its value after the first minute; goroutines unchanged).
# Each sample also says what the RSS holds: anonymous memory (the Go heap,
# stacks and the runtime's own) and file-backed pages (the binary), and the
# Go heap in use (from the endpoint); the goal is RSS at most 64 MB.
#
#   bash bench/soak.sh
#   MINUTES=2 RATE=5000 bash bench/soak.sh
set -euo pipefail
MINUTES=${MINUTES:-10}
RATE=${RATE:-20000}
PORT=${PORT:-19464}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
NAME=bench-soak
B=$("$K" cluster up --name "$NAME" 2>/dev/null | tail -1 | cut -d= -f2)
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ): warming the broker with 2M records" >&2
"$K" producer-perf-test --topic warm --num-records 2000000 --record-size 100 --throughput -1 \
  --bootstrap-server "$B" --command-property acks=1 >/dev/null
"$K" producer-perf-test --topic startup --num-records 1 --record-size 100 --throughput -1 \
  --bootstrap-server "$B" >/dev/null # the topic exists before timing

echo "start-up: 10 runs, from process start to the first record sent and acknowledged"
for i in $(seq 1 10); do
  t0=$(date +%s%N)
  "$K" producer-perf-test --topic startup --num-records 1 --record-size 100 --throughput -1 \
    --bootstrap-server "$B" --json "$TMP/start-$i.json" >/dev/null
  echo "$t0" > "$TMP/start-$i.t0"
done
python3 - "$TMP" <<'PY'
import datetime, glob, json, statistics, sys
def ns(s):  # RFC 3339 with nanoseconds
    base, frac = s.rstrip("Z").split(".") if "." in s else (s.rstrip("Z"), "0")
    t = datetime.datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 10**9 + int(frac.ljust(9, "0")[:9])
send, ack = [], []
for f in sorted(glob.glob(sys.argv[1] + "/start-*.json")):
    doc = json.load(open(f))
    t0 = int(open(f[:-5] + ".t0").read())
    p = doc["producer"]
    send.append((ns(p["first_send_at"]) - t0) / 1e6)
    ack.append((ns(p["first_ack_at"]) - t0) / 1e6)
for name, xs in (("first record sent", send), ("first record acknowledged", ack)):
    print(f"  {name}: median {statistics.median(xs):.1f} ms, range {min(xs):.1f}-{max(xs):.1f} ms")
print("  goal: first record sent under 50 ms:", "met" if statistics.median(send) < 50 else "NOT met")
PY

cat > "$TMP/soak.yaml" <<PLAN
name: soak
cluster: {bootstrap: "$B"}
topics: [{name: soak, partitions: 3}]
workloads:
  - {name: producer, type: produce, topic: soak, message: {size: 100}, rate: $RATE/s, duration: ${MINUTES}m, properties: {acks: 1}}
  - {name: consumer, type: consume, topic: soak, duration: ${MINUTES}m}
PLAN
echo "soak: $RATE records/s produced and consumed for $MINUTES minutes; kbench's RSS and goroutines every 30 s"
"$K" run "$TMP/soak.yaml" --out "$TMP/out" --metrics-addr "127.0.0.1:$PORT" >/dev/null 2>"$TMP/run.log" &
RUN=$!
sleep 2
: > "$TMP/samples"
for s in $(seq 30 30 $((MINUTES * 60))); do
  sleep 30
  kill -0 "$RUN" 2>/dev/null || break
  read -r rss anon file < <(awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {print r, a, f}' "/proc/$RUN/status")
  heap=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '$1 == "go_memstats_heap_inuse_bytes" {printf "%d", $2 / 1024}')
  # Goroutines: the fewest of five scrapes 0.1 s apart, the count without
  # the fetch or metadata request that happens to be under way.
  gor=$(for _ in 1 2 3 4 5; do
    curl -s "http://127.0.0.1:$PORT/metrics" | awk '$1 == "go_goroutines" {print $2}'
    sleep 0.1
  done | sort -n | head -1)
  printf '  %4d s  RSS %7d KiB  goroutines %s  anonymous %d KiB  file-backed %d KiB  Go heap in use %s KiB\n' \
    "$s" "$rss" "$gor" "$anon" "$file" "${heap:-?}" | tee -a "$TMP/samples"
done
wait "$RUN" || { echo "the soak run failed:"; tail -5 "$TMP/run.log"; exit 1; }
# The peak between samples: the run's own VmHWM (repeats[].process).
peak=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plan"]["scenarios"][0]["repeats"][0]["process"]["peak_rss_bytes"] // 1024)' "$TMP/out/result.json")
echo "  peak RSS over the run (VmHWM): $peak KiB"
python3 - "$TMP/samples" "$peak" <<'PY'
import statistics
import sys
rows = [l.split() for l in open(sys.argv[1])]  # "30 s RSS 196472 KiB goroutines 31 anonymous ..."
rss = [int(r[3]) for r in rows]
gor = [int(r[6]) for r in rows]
# After the first minute buffers and pools have grown to their working size.
base = rss[1] if len(rss) > 1 else rss[0]
spread = max(abs(x - base) for x in rss[1:] or rss) / base
print(f"RSS after the first minute: {base} KiB, largest change since {100*spread:.1f}% ({'flat' if spread <= 0.05 else 'NOT flat'} within 5%)")
peak = max(rss)
print(f"RSS at most {peak} KiB ({peak / 1024:.1f} MiB) in the samples")
# Goroutines that come and go (a connection, a fetch, a metadata refresh)
# are not growth; a leak raises the count steadily: compare the median of
# the last third of the samples with the median of the first.
third = max(1, len(gor) // 3)
first, last = statistics.median(gor[:third]), statistics.median(gor[-third:])
print(f"goroutines: {min(gor)}-{max(gor)}; median {first:g} in the first third, {last:g} in the last ({'no growth' if last <= first else 'GROWING'})")
hwm = int(sys.argv[2])
print(f"peak RSS (VmHWM) {hwm} KiB ({hwm / 1024:.1f} MiB): {'met' if hwm <= 64 * 1000 * 1000 / 1024 else 'NOT met'} (goal: at most 64 MB)")
PY
