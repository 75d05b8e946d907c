#!/usr/bin/env bash
# Consumers side by side on the same local broker(s): Apache Kafka's Java
# ConsumerPerformance (-Xmx512M, as its script runs it), kbench
# consumer-perf-test, librdkafka (bench/rdkafka/perf.c) and a bare franz-go
# loop (bench/bare), each one consumer reading the same topic of RECORDS
# records from the start, in a group of its own. For each cluster shape the
# broker is warmed with 2M records read per client (untimed); then ROUNDS
# rounds (default 5) rotate which client goes first. Records/s is counted
# from the first record to the last (the Apache tool's fetch.nMsg.sec: the
# group join left out, as the two loops do). Prints every run, then per
# size the median records/s with its range, client CPU per record and the
# ratios.
#
#   bash bench/consumer.sh                         # 10, 100, 1000 B; 1 and 3 brokers
#   SIZES=100 BROKERS=1 RECORDS=5000000 bash bench/consumer.sh
#
# Needs librdkafka-dev (apt-get install librdkafka-dev) and a C compiler.
# The bare loop runs with GOGC=400, the collector setting kbench gives
# itself, so that the CPU columns compare the engines rather than GC tuning.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10 100 1000"}
BROKERS=${BROKERS:-"1 3"}
ROUNDS=${ROUNDS:-5}
RECORDS=${RECORDS:-2000000}
WARMUP=${WARMUP:-2000000}
PARTITIONS=${PARTITIONS:-3}
CLIENTS=(java kbench rdkafka bare)
[ -f /usr/include/librdkafka/rdkafka.h ] || { echo "bench/consumer.sh needs librdkafka-dev: apt-get install librdkafka-dev" >&2; exit 2; }

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
go build -o "$TMP/bare" ./bench/bare
cc -O2 -o "$TMP/rdkafka" bench/rdkafka/perf.c -lrdkafka
CP=$("$K" cluster classpath)
NAME=bench-consumer
cleanup() { "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  $RECORDS records per run, $PARTITIONS partitions, $ROUNDS rounds; $(nproc) CPUs shared by brokers and clients"
echo "librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(java -version 2>&1 | head -1)"

# client NAME TOPIC RECORDS GROUP: runs one consumer; prints "RATE CPU_SECONDS".
client() {
  local name=$1 t=$2 n=$3 g=$4 out=$TMP/out
  local cmd
  case $name in
    java) cmd=(java -Xmx512M -cp "$CP" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B"
      --topic "$t" --messages "$n" --group "$g" --timeout 60000) ;;
    kbench) cmd=("$K" consumer-perf-test --bootstrap-server "$B" --topic "$t" --messages "$n" --group "$g" --timeout 60000) ;;
    rdkafka) cmd=("$TMP/rdkafka" consume "$B" "$t" "$n" group.id="$g") ;;
    bare) cmd=(env GOGC=400 "$TMP/bare" consume -bootstrap "$B" -topic "$t" -records "$n") ;;
  esac
  /usr/bin/time -f '%U %S' -o "$TMP/cpu" "${cmd[@]}" >"$out" 2>&1 || { echo "$name failed:" >&2; tail -5 "$out" >&2; return 1; }
  local rate
  case $name in
    java | kbench) rate=$(grep -E '^[0-9]{4}-' "$out" | tail -1 | awk -F', ' '{print $10}') ;;
    *) rate=$(awk '/records\/s/ {print $5}' "$out") ;;
  esac
  echo "$rate $(awk '{print $1 + $2}' "$TMP/cpu")"
}

RESULTS=$TMP/results
: >"$RESULTS"
run=0
for brokers in $BROKERS; do
  "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true
  B=$("$K" cluster up --name "$NAME" --brokers "$brokers" 2>/dev/null | tail -1 | sed 's/^bootstrap.servers=//')
  echo
  echo "== $brokers broker(s) at $B"
  "$K" producer-perf-test --topic warm --partitions "$PARTITIONS" --replication-factor "$brokers" --num-records "$WARMUP" \
    --record-size 100 --throughput -1 --bootstrap-server "$B" --command-property acks=1 >/dev/null
  for c in "${CLIENTS[@]}"; do
    run=$((run + 1))
    client "$c" warm "$WARMUP" "warm-$run" >/dev/null
  done
  for size in $SIZES; do
    t=read-$size
    "$K" producer-perf-test --topic "$t" --partitions "$PARTITIONS" --replication-factor "$brokers" --num-records "$RECORDS" \
      --record-size "$size" --throughput -1 --bootstrap-server "$B" --command-property acks=all >/dev/null
    for ((r = 0; r < ROUNDS; r++)); do
      order=("${CLIENTS[@]:r % 4}" "${CLIENTS[@]:0:r % 4}")
      line="   $size B, round $((r + 1)):"
      for c in "${order[@]}"; do
        run=$((run + 1))
        read -r rate cpu < <(client "$c" "$t" "$RECORDS" "g-$run")
        echo "$brokers $size $c $r $rate $cpu" >>"$RESULTS"
        line+=$(printf '  %s %.0f/s' "$c" "$rate")
      done
      echo "$line"
    done
  done
done

echo
python3 - "$RESULTS" "$RECORDS" <<'PY'
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
n = int(sys.argv[2])
by = collections.defaultdict(lambda: collections.defaultdict(list))
for b, s, c, r, rate, cpu in rows:
    by[(int(b), int(s))][c].append((float(rate), float(cpu)))
print(f"{'brokers':>7} {'size':>5} {'client':>8} {'records/s median':>17} {'range':>21} {'CPU µs/record':>14}")
for (b, s), clients in sorted(by.items()):
    med = {}
    for c in ("java", "kbench", "rdkafka", "bare"):
        xs = clients.get(c)
        if not xs:
            continue
        rates = [x[0] for x in xs]
        cpus = [x[1] / n * 1e6 for x in xs]
        med[c] = (statistics.median(rates), statistics.median(cpus))
        print(f"{b:>7} {s:>5} {c:>8} {med[c][0]:>17,.0f} {min(rates):>10,.0f}-{max(rates):<10,.0f} {med[c][1]:>14.2f}")
    k = med.get("kbench")
    if k:
        others = "  ".join(f"{k[0] / med[c][0]:.2f}x {c}" for c in ("java", "rdkafka", "bare") if c in med)
        print(f"{'':>15} kbench records/s: {others}; CPU per record: {k[1] / med['bare'][1]:.2f}x the bare loop's")
        best = max(med[c][0] for c in ("rdkafka", "bare") if c in med)
        print(f"{'':>15} kbench / best native client: {k[0] / best:.2f}x")
PY
