#!/usr/bin/env bash
# Side-by-side producer benchmark: Apache Kafka's Java ProducerPerformance and
# kbench producer-perf-test, back to back against the same local broker, with
# the same properties. Prints records/s, their ratio, and each client's CPU
# time per million records; then kbench's own overhead against a bare
# franz-go produce loop (Go benchmark, same broker, same settings).
#
#   bash bench/producer.sh                       # 5M records of 100 B, acks=1
#   RECORDS=2000000 SIZE=1000 ACKS=all bash bench/producer.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-5000000}
SIZE=${SIZE:-100}
ACKS=${ACKS:-1}
NAME=bench-producer
TOPIC=bench-producer-$$
BIN=$(mktemp -d)/kbench

go build ${KBENCH_BUILD_FLAGS:-} -o "$BIN" ./cmd/kbench
"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true
trap '"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
BOOTSTRAP=$("$BIN" cluster up --name "$NAME" | tail -1 | sed 's/^bootstrap.servers=//')
CP=$("$BIN" cluster classpath)
echo "broker: $BOOTSTRAP   records: $RECORDS x $SIZE B   acks=$ACKS   Java-default properties otherwise"

# Create the topic (1 partition) before timing anything.
"$BIN" producer-perf-test --topic "$TOPIC" --partitions 1 --num-records 1000 --record-size "$SIZE" \
  --throughput -1 --bootstrap-server "$BOOTSTRAP" >/dev/null

# run LABEL CMD... : runs CMD, prints its final line, and sets LABEL_RATE
# (records/s) and LABEL_CPU (user+system seconds of the child, from `times`).
run() {
  local label=$1; shift
  local log cpu_line final rate cpu
  log=$(mktemp)
  cpu_line=$(bash -c '"$@" >"$0" 2>&1; times' "$log" "$@" | tail -1) # children: "XmY.YYYs XmZ.ZZZs"
  final=$(grep 'records sent' "$log" | tail -1)
  rate=$(awk '{print $4}' <<<"$final")
  cpu=$(awk '{ split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]); print u[1]*60+u[2]+s[1]*60+s[2] }' <<<"$cpu_line")
  printf '%-8s %s\n' "$label" "$final"
  printf -v "${label}_RATE" '%s' "$rate"
  printf -v "${label}_CPU" '%s' "$cpu"
}

run java java -Xms512m -Xmx512m -cp "$CP" org.apache.kafka.tools.ProducerPerformance \
  --topic "$TOPIC" --num-records "$RECORDS" --record-size "$SIZE" --throughput -1 \
  --producer-props acks="$ACKS" bootstrap.servers="$BOOTSTRAP"
run kbench "$BIN" producer-perf-test \
  --topic "$TOPIC" --num-records "$RECORDS" --record-size "$SIZE" --throughput -1 \
  --producer-props acks="$ACKS" bootstrap.servers="$BOOTSTRAP"

awk -v jr="$java_RATE" -v kr="$kbench_RATE" -v jc="$java_CPU" -v kc="$kbench_CPU" -v n="$RECORDS" 'BEGIN {
  printf "\n%-8s %14s %22s\n", "client", "records/s", "CPU s per 1M records"
  printf "%-8s %14.0f %22.3f\n", "java", jr, jc / n * 1e6
  printf "%-8s %14.0f %22.3f\n", "kbench", kr, kc / n * 1e6
  printf "\nkbench/java: %.2fx the records/s, %.2fx the CPU per record\n", kr / jr, (kc / n) / (jc / n)
}'

echo
echo "kbench overhead against a bare franz-go produce loop (same broker, same settings):"
KBENCH_TEST_BOOTSTRAP=$BOOTSTRAP KBENCH_BENCH_SIZE=$SIZE KBENCH_BENCH_ACKS=$ACKS \
  go test ${KBENCH_BUILD_FLAGS:-} -run '^$' -bench '^BenchmarkProduce$' -benchtime "${RECORDS}x" -count 1 ./internal/workload/ |
  awk '/^BenchmarkProduce\// { for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ns/record") cpu[$1] = $i; print }
       END { b = cpu["BenchmarkProduce/bare"]; k = cpu["BenchmarkProduce/kbench"];
             for (name in cpu) { if (name ~ /bare/) b = cpu[name]; if (name ~ /kbench/) k = cpu[name] }
             if (b > 0) printf "kbench CPU per record is %.1f%% above the bare loop\n", (k / b - 1) * 100 }'
