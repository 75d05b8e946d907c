#!/usr/bin/env bash
# Producers side by side on the same local broker(s), with identical
# settings: Apache Kafka's Java ProducerPerformance (run as its script runs
# it, -Xmx512M), kbench producer-perf-test, librdkafka (a 100-line C loop,
# bench/rdkafka/perf.c) and a bare franz-go loop (bench/bare). For each
# cluster shape the broker is first warmed with 2M records per client
# (untimed); then ROUNDS rounds (default 5) rotate which client goes first,
# every run writing to a fresh topic. Prints every run, then per size the
# median records/s with its range, client CPU per record (user + system,
# from the process's rusage) and the ratios: kbench against each.
#
#   bash bench/producer.sh                                  # 10, 100, 1000 B; 1 and 3 brokers
#   SIZES=100 BROKERS=1 ROUNDS=5 RECORDS=2000000 bash bench/producer.sh
#   PROFILE=throughput bash bench/producer.sh               # 1 MiB batches, linger 0, for every client
#
# Settings for all four: acks=$ACKS (default 1), batch.size and linger.ms
# of the profile (java: 16384 and 5, the Java defaults; throughput: 1048576
# and 0), no compression, idempotence off (acks=1), 32 MiB buffer
# (256 MiB with the throughput profile), 5 requests in flight per broker,
# records without keys spread as Java's built-in partitioner spreads them
# (librdkafka: its sticky partitioner), 3 partitions per topic. Needs
# librdkafka-dev (apt-get install librdkafka-dev) and a C compiler.
# The bare loop runs with GOGC=400, the collector setting kbench gives
# itself, so that the CPU columns compare the engines rather than GC tuning.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10 100 1000"}
BROKERS=${BROKERS:-"1 3"}
ROUNDS=${ROUNDS:-5}
RECORDS=${RECORDS:-1000000}
WARMUP=${WARMUP:-2000000}
ACKS=${ACKS:-1}
PROFILE=${PROFILE:-java}
PARTITIONS=${PARTITIONS:-3}
CLIENTS=(java kbench rdkafka bare)

case $PROFILE in
  java) BATCH=16384 LINGER=5 BUFFER=33554432 ;;
  throughput) BATCH=1048576 LINGER=0 BUFFER=268435456 ;;
  *) echo "PROFILE=$PROFILE: java or throughput" >&2; exit 2 ;;
esac
[ -f /usr/include/librdkafka/rdkafka.h ] || { echo "bench/producer.sh needs librdkafka-dev: apt-get install librdkafka-dev" >&2; exit 2; }

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
go build -o "$TMP/bare" ./bench/bare
cc -O2 -o "$TMP/rdkafka" bench/rdkafka/perf.c -lrdkafka
CP=$("$K" cluster classpath)
NAME=bench-producer
cleanup() { "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  acks=$ACKS batch.size=$BATCH linger.ms=$LINGER buffer=$BUFFER compression=none partitions=$PARTITIONS; $RECORDS records per run, $ROUNDS rounds; $(nproc) CPUs shared by brokers and clients"
echo "librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(java -version 2>&1 | head -1)"

# topic NAME RF: creates a topic with the Java admin tool.
topic() {
  java -Xmx256M -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --create \
    --topic "$1" --partitions "$PARTITIONS" --replication-factor "$2" >/dev/null
}

# client NAME TOPIC SIZE RECORDS: runs one producer; prints "RATE CPU_SECONDS".
client() {
  local name=$1 t=$2 size=$3 n=$4 out=$TMP/out
  local cmd
  case $name in
    java) cmd=(java -Xmx512M -cp "$CP" org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$n"
      --record-size "$size" --throughput -1 --producer-props bootstrap.servers="$B" acks="$ACKS" batch.size="$BATCH"
      linger.ms="$LINGER" buffer.memory="$BUFFER" compression.type=none) ;;
    kbench) cmd=("$K" producer-perf-test --topic "$t" --num-records "$n" --record-size "$size" --throughput -1
      --producer-props bootstrap.servers="$B" acks="$ACKS" batch.size="$BATCH" linger.ms="$LINGER"
      buffer.memory="$BUFFER" compression.type=none) ;;
    rdkafka) cmd=("$TMP/rdkafka" produce "$B" "$t" "$n" "$size" acks="$ACKS" batch.size="$BATCH" linger.ms="$LINGER"
      queue.buffering.max.kbytes=$((BUFFER / 1024)) queue.buffering.max.messages=10000000 compression.type=none max.in.flight=5) ;;
    bare) cmd=(env GOGC=400 "$TMP/bare" produce -bootstrap "$B" -topic "$t" -records "$n" -size "$size" -acks "$ACKS"
      -batch-size "$BATCH" -linger-ms "$LINGER" -buffer-memory "$BUFFER" -compression none -idempotence=false) ;;
  esac
  /usr/bin/time -f '%U %S' -o "$TMP/cpu" "${cmd[@]}" >"$out" 2>&1 || { echo "$name failed:" >&2; tail -5 "$out" >&2; return 1; }
  local rate
  case $name in
    java | kbench) rate=$(grep 'records sent' "$out" | tail -1 | awk '{print $4}') ;;
    *) rate=$(awk '/records\/s/ {print $5}' "$out") ;;
  esac
  echo "$rate $(awk '{print $1 + $2}' "$TMP/cpu")"
}

RESULTS=$TMP/results # brokers size client round rate cpu
: >"$RESULTS"
run=0
for brokers in $BROKERS; do
  "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true
  B=$("$K" cluster up --name "$NAME" --brokers "$brokers" 2>/dev/null | tail -1 | sed 's/^bootstrap.servers=//')
  echo
  echo "== $brokers broker(s) at $B: warming with $WARMUP records per client"
  for c in "${CLIENTS[@]}"; do
    run=$((run + 1)); topic "warm-$run" "$brokers"
    client "$c" "warm-$run" 100 "$WARMUP" >/dev/null
  done
  for size in $SIZES; do
    for ((r = 0; r < ROUNDS; r++)); do
      order=("${CLIENTS[@]:r % 4}" "${CLIENTS[@]:0:r % 4}")
      line="   $size B, round $((r + 1)):"
      for c in "${order[@]}"; do
        run=$((run + 1)); topic "run-$run" "$brokers"
        read -r rate cpu < <(client "$c" "run-$run" "$size" "$RECORDS")
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
