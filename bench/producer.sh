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
#   BASELINE=68947e3 CLIENTS="kbench base" SIZES=100 BROKERS=1 bash bench/producer.sh
#                                     # kbench now against kbench built at a commit ("base"), one run
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
RECORDS=${RECORDS:-} # default: 5M records of 10 B, 3M of 100 B, 1M of 1000 B (runs of a second or more)
WARMUP=${WARMUP:-2000000}
ACKS=${ACKS:-1}
PROFILE=${PROFILE:-java}
PARTITIONS=${PARTITIONS:-3}
BASELINE=${BASELINE:-} # a git revision: adds client "base", kbench built at it
read -r -a CLIENTS <<<"${CLIENTS:-java kbench rdkafka bare}"
if [ -n "$BASELINE" ] && [[ " ${CLIENTS[*]} " != *" base "* ]]; then CLIENTS+=(base); fi

case $PROFILE in
  java) BATCH=16384 LINGER=5 BUFFER=33554432 ;;
  throughput) BATCH=1048576 LINGER=0 BUFFER=268435456 ;;
  *) echo "PROFILE=$PROFILE: java or throughput" >&2; exit 2 ;;
esac
[[ " ${CLIENTS[*]} " != *" rdkafka "* ]] || [ -f /usr/include/librdkafka/rdkafka.h ] || { echo "bench/producer.sh needs librdkafka-dev: apt-get install librdkafka-dev" >&2; exit 2; }

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
go build -o "$TMP/bare" ./bench/bare
if [ -n "$BASELINE" ]; then
  mkdir "$TMP/base-src"
  git archive "$BASELINE" | tar -x -C "$TMP/base-src"
  (cd "$TMP/base-src" && go build -o "$TMP/base" ./cmd/kbench)
fi
if [[ " ${CLIENTS[*]} " == *" rdkafka "* ]]; then cc -O2 -o "$TMP/rdkafka" bench/rdkafka/perf.c -lrdkafka; fi
CP=$("$K" cluster classpath)
NAME=bench-producer
cleanup() { "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  acks=$ACKS batch.size=$BATCH linger.ms=$LINGER buffer=$BUFFER compression=none partitions=$PARTITIONS; ${RECORDS:-5M, 3M, 1M} records per run, $ROUNDS rounds; $(nproc) CPUs shared by brokers and clients"
echo "librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'), $(go version | awk '{print $3}'), $(java -version 2>&1 | head -1)"

# topic NAME RF: creates a topic with the Java admin tool.
topic() {
  java -Xmx256M -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --create \
    --topic "$1" --partitions "$PARTITIONS" --replication-factor "$2" >/dev/null
}

# records SIZE: records per run of that size.
records() {
  if [ -n "$RECORDS" ]; then echo "$RECORDS"; return; fi
  case $1 in 10) echo 5000000 ;; 100) echo 3000000 ;; *) echo 1000000 ;; esac
}

# drop PATTERN: deletes the topics matching PATTERN, so that the disk holds
# one round's data at a time.
drop() {
  java -Xmx256M -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --delete --topic "$1" >/dev/null
}

# client NAME TOPIC SIZE RECORDS: runs one producer; prints "RATE CPU_SECONDS".
client() {
  local name=$1 t=$2 size=$3 n=$4 out=$TMP/out
  local cmd
  case $name in
    java) cmd=(java -Xmx512M -cp "$CP" org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$n"
      --record-size "$size" --throughput -1 --producer-props bootstrap.servers="$B" acks="$ACKS" batch.size="$BATCH"
      linger.ms="$LINGER" buffer.memory="$BUFFER" compression.type=none) ;;
    kbench | base) local bin=$K
      [ "$name" = base ] && bin=$TMP/base
      cmd=("$bin" producer-perf-test --topic "$t" --num-records "$n" --record-size "$size" --throughput -1
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
    java | kbench | base) rate=$(grep 'records sent' "$out" | tail -1 | awk '{print $4}') ;;
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
  drop 'warm-.*'
  for size in $SIZES; do
    n=$(records "$size")
    for ((r = 0; r < ROUNDS; r++)); do
      k=$((r % ${#CLIENTS[@]}))
      order=("${CLIENTS[@]:k}" "${CLIENTS[@]:0:k}")
      line="   $size B, round $((r + 1)):"
      for c in "${order[@]}"; do
        run=$((run + 1)); topic "run-$run" "$brokers"
        read -r rate cpu < <(client "$c" "run-$run" "$size" "$n")
        echo "$brokers $size $c $r $rate $cpu $n" >>"$RESULTS"
        line+=$(printf '  %s %.0f/s' "$c" "$rate")
      done
      echo "$line"
      drop 'run-.*'
    done
  done
done

echo
python3 bench/sidebyside.py "$RESULTS"
echo
echo "As Markdown (docs/benchmarks.md):"
python3 bench/sidebyside.py --markdown "$RESULTS"
