#!/usr/bin/env bash
# Side-by-side producer benchmark: Apache Kafka's Java ProducerPerformance and
# kbench producer-perf-test, back to back against the same local broker, with
# the same properties. Prints records/s, their ratio, and each client's CPU
# time per million records; then kbench's own overhead against a bare
# franz-go produce loop (Go benchmark, same broker, same settings).
#
#   bash bench/producer.sh                       # 5M records of 100 B, acks=1
#   RECORDS=2000000 SIZE=1000 ACKS=all PARTITIONS=6 ROUNDS=3 bash bench/producer.sh
#
# Each client runs ROUNDS times (default 2), alternating which goes first,
# after an untimed warm-up run; the summary shows the means.
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-5000000}
SIZE=${SIZE:-100}
ACKS=${ACKS:-1}
PARTITIONS=${PARTITIONS:-1}
ROUNDS=${ROUNDS:-2}
NAME=bench-producer
TOPIC=bench-producer-$$
BIN=$(mktemp -d)/kbench

go build -o "$BIN" ./cmd/kbench
"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true
trap '"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
BOOTSTRAP=$("$BIN" cluster up --name "$NAME" | tail -1 | sed 's/^bootstrap.servers=//')
CP=$("$BIN" cluster classpath)
echo "broker: $BOOTSTRAP   records: $RECORDS x $SIZE B   acks=$ACKS   partitions: $PARTITIONS   Java-default properties otherwise"

# Create the topic, then warm the broker (JIT, page cache) untimed: a cold
# broker would handicap whichever client runs first.
"$BIN" producer-perf-test --topic "$TOPIC" --partitions "$PARTITIONS" --num-records "$RECORDS" --record-size "$SIZE" \
  --throughput -1 --bootstrap-server "$BOOTSTRAP" >/dev/null

# run LABEL CMD... : runs CMD, prints its final line, and appends records/s
# and CPU seconds (user+system of the child, from `times`) to LABEL_RATES
# and LABEL_CPUS.
java_RATES=(); java_CPUS=(); kbench_RATES=(); kbench_CPUS=()
run() {
  local label=$1; shift
  local log cpu_line final rate cpu
  log=$(mktemp)
  cpu_line=$(bash -c '"$@" >"$0" 2>&1; times' "$log" "$@" | tail -1) # children: "XmY.YYYs XmZ.ZZZs"
  final=$(grep 'records sent' "$log" | tail -1)
  rate=$(awk '{print $4}' <<<"$final")
  cpu=$(awk '{ split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]); print u[1]*60+u[2]+s[1]*60+s[2] }' <<<"$cpu_line")
  printf '%-8s %s\n' "$label" "$final"
  eval "${label}_RATES+=($rate); ${label}_CPUS+=($cpu)"
}
java_run() {
  run java java -Xms512m -Xmx512m -cp "$CP" org.apache.kafka.tools.ProducerPerformance \
    --topic "$TOPIC" --num-records "$RECORDS" --record-size "$SIZE" --throughput -1 \
    --producer-props acks="$ACKS" bootstrap.servers="$BOOTSTRAP"
}
kbench_run() {
  run kbench "$BIN" producer-perf-test \
    --topic "$TOPIC" --num-records "$RECORDS" --record-size "$SIZE" --throughput -1 \
    --producer-props acks="$ACKS" bootstrap.servers="$BOOTSTRAP"
}
# Alternate the order between rounds so neither client always follows the other.
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then java_run; kbench_run; else kbench_run; java_run; fi
done

mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { print s / NR }'; }
awk -v jr="$(mean "${java_RATES[@]}")" -v kr="$(mean "${kbench_RATES[@]}")" \
    -v jc="$(mean "${java_CPUS[@]}")" -v kc="$(mean "${kbench_CPUS[@]}")" -v n="$RECORDS" -v rounds="$ROUNDS" 'BEGIN {
  printf "\nmean of %d run(s) each   %14s %22s\n", rounds, "records/s", "CPU s per 1M records"
  printf "%-24s %14.0f %22.3f\n", "java", jr, jc / n * 1e6
  printf "%-24s %14.0f %22.3f\n", "kbench", kr, kc / n * 1e6
  printf "\nkbench/java: %.2fx the records/s, %.2fx the CPU per record\n", kr / jr, kc / jc
}'

echo
echo "kbench overhead against a bare franz-go produce loop (same broker, same settings; A/B runs vary"
echo "with the broker's state, so the microbenchmarks below isolate the per-record work):"
AB=$(KBENCH_TEST_BOOTSTRAP=$BOOTSTRAP KBENCH_BENCH_SIZE=$SIZE KBENCH_BENCH_ACKS=$ACKS KBENCH_BENCH_PARTITIONS=$PARTITIONS \
  go test -run '^$' -bench '^BenchmarkProduce$' -benchtime "${RECORDS}x" -count 2 ./internal/workload/ | grep '^BenchmarkProduce/')
printf '%s\n' "$AB"
BARE_CPU=$(awk '/bare/ { for (i = 1; i < NF; i++) if ($(i+1) == "cpu-ns/record") { s += $i; n++ } } END { print s / n }' <<<"$AB")
KB_CPU=$(awk '/kbench/ { for (i = 1; i < NF; i++) if ($(i+1) == "cpu-ns/record") { s += $i; n++ } } END { print s / n }' <<<"$AB")
MICRO=$(go test -run '^$' -bench '^(BenchmarkRecordOverhead|BenchmarkBareRecordWork)$' -count 5 ./internal/workload/ | grep '^Benchmark')
printf '%s\n' "$MICRO"
awk -v bare="$BARE_CPU" -v kb="$KB_CPU" '
  /RecordOverhead/ { k += $3; nk++ } /BareRecordWork/ { b += $3; nb++ }
  END {
    printf "\nA/B, mean CPU per record: bare loop %.0f ns, kbench %.0f ns (%+.1f%%)\n", bare, kb, (kb / bare - 1) * 100
    printf "per-record work outside franz-go: kbench %.0f ns, bare loop %.0f ns; net %+.0f ns = %+.1f%% of the bare loop'"'"'s CPU per record\n",
      k / nk, b / nb, k / nk - b / nb, (k / nk - b / nb) / bare * 100
  }' <<<"$MICRO"
