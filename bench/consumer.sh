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
#   KBENCH_ARGS='--threads 3' SIZES=1000 BROKERS=3 bash bench/consumer.sh   # kbench only: extra flags
#
# librdkafka runs with queued.min.messages=1000000 (its default of 100000
# pauses the fetcher of a partition, and with small records it spent most
# of a run waiting: 1.2M records/s against 3.3M with it, 10 B, 3 brokers).
# librdkafka also checks each batch's CRC, as the Java consumer, kbench and
# franz-go do by default (check.crcs: librdkafka's own default is false).
# Needs librdkafka-dev (apt-get install librdkafka-dev) and a C compiler.
# The bare loop runs with GOGC=400, the collector setting kbench gives
# itself, so that the CPU columns compare the engines rather than GC tuning,
# and polls 500 records at a time, as kbench and the Java consumer do
# (max.poll.records): franz-go fetches from a broker again only once its
# last fetch is polled empty, so the poll size moves records/s.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"10 100 1000"}
BROKERS=${BROKERS:-"1 3"}
ROUNDS=${ROUNDS:-5}
RECORDS=${RECORDS:-} # default: 20M records of 10 B, 10M of 100 B, 2M of 1000 B (reads of a second or more)
WARMUP=${WARMUP:-2000000}
PARTITIONS=${PARTITIONS:-3}
CLIENTS=(java kbench rdkafka bare)
read -r -a KBENCH_EXTRA <<<"${KBENCH_ARGS:-}"
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
echo "$(date -u +%Y-%m-%dT%H:%MZ)  ${RECORDS:-20M, 10M, 2M} records per run, $PARTITIONS partitions, $ROUNDS rounds; $(nproc) CPUs shared by brokers and clients${KBENCH_ARGS:+; kbench with $KBENCH_ARGS}"
echo "librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(java -version 2>&1 | head -1)"

# records SIZE: records per run of that size.
records() {
  if [ -n "$RECORDS" ]; then echo "$RECORDS"; return; fi
  case $1 in 10) echo 20000000 ;; 100) echo 10000000 ;; *) echo 2000000 ;; esac
}

# client NAME TOPIC RECORDS GROUP: runs one consumer; prints "RATE CPU_SECONDS".
client() {
  local name=$1 t=$2 n=$3 g=$4 out=$TMP/out
  local cmd
  case $name in
    java) cmd=(java -Xmx512M -cp "$CP" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$B"
      --topic "$t" --messages "$n" --group "$g" --timeout 60000) ;;
    kbench) cmd=("$K" consumer-perf-test --bootstrap-server "$B" --topic "$t" --messages "$n" --group "$g" --timeout 60000 ${KBENCH_EXTRA[@]+"${KBENCH_EXTRA[@]}"}) ;;
    rdkafka) cmd=("$TMP/rdkafka" consume "$B" "$t" "$n" group.id="$g" queued.min.messages=1000000 check.crcs=true) ;;
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
    t=read-$size n=$(records "$size")
    "$K" producer-perf-test --topic "$t" --partitions "$PARTITIONS" --replication-factor "$brokers" --num-records "$n" \
      --record-size "$size" --throughput -1 --bootstrap-server "$B" --command-property acks=all >/dev/null
    for ((r = 0; r < ROUNDS; r++)); do
      order=("${CLIENTS[@]:r % 4}" "${CLIENTS[@]:0:r % 4}")
      line="   $size B, round $((r + 1)):"
      for c in "${order[@]}"; do
        run=$((run + 1))
        read -r rate cpu < <(client "$c" "$t" "$n" "g-$run")
        echo "$brokers $size $c $r $rate $cpu $n" >>"$RESULTS"
        line+=$(printf '  %s %.0f/s' "$c" "$rate")
      done
      echo "$line"
    done
  done
done

echo
python3 bench/sidebyside.py "$RESULTS"
echo
echo "As Markdown (docs/benchmarks.md):"
python3 bench/sidebyside.py --markdown "$RESULTS"
