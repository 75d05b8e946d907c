#!/usr/bin/env bash
# Side-by-side consumer benchmark: Apache Kafka's Java ConsumerPerformance and
# kbench consumer-perf-test, back to back on the same topic of the same local
# broker. Prints records/s and each client's CPU time per million records,
# first with one consumer on a 1-partition topic, then on a 3-partition topic
# (kbench with --threads 3; the Java tool has one consumer, 4.0 dropped its
# --threads, which never ran more than one), then kbench's own overhead
# against a bare franz-go poll loop (Go benchmark, same broker and topic).
#
#   bash bench/consumer.sh                    # 5M records of 100 B
#   RECORDS=2000000 SIZE=1000 bash bench/consumer.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-5000000}
SIZE=${SIZE:-100}
NAME=bench-consumer
TOPIC1=bench-consumer-1p-$$
TOPIC3=bench-consumer-3p-$$
BIN=$(mktemp -d)/kbench

go build ${KBENCH_BUILD_FLAGS:-} -o "$BIN" ./cmd/kbench
"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true
trap '"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
BOOTSTRAP=$("$BIN" cluster up --name "$NAME" | tail -1 | sed 's/^bootstrap.servers=//')
CP=$("$BIN" cluster classpath)
echo "broker: $BOOTSTRAP   records: $RECORDS x $SIZE B   Java-default properties otherwise"

# Fill both topics before timing anything (Java producer defaults: 16 KiB
# batches, no compression).
for t in "$TOPIC1:1" "$TOPIC3:3"; do
  "$BIN" producer-perf-test --topic "${t%:*}" --partitions "${t#*:}" --num-records "$RECORDS" --record-size "$SIZE" \
    --throughput -1 --bootstrap-server "$BOOTSTRAP" | tail -1 | sed "s/^/filled ${t%:*}: /"
done

# Read each topic once, untimed, so that both tools find the broker warm:
# its page cache, and the __consumer_offsets topic the first group creates.
for t in "$TOPIC1" "$TOPIC3"; do
  "$BIN" consumer-perf-test --bootstrap-server "$BOOTSTRAP" --topic "$t" --messages "$RECORDS" --hide-header >/dev/null
done

# run LABEL CMD... : runs CMD, prints its values line, and sets LABEL_RATE
# (nMsg.sec: records/s over the whole run, the group join included),
# LABEL_FETCH (fetch.nMsg.sec: the join left out) and LABEL_CPU (user+system
# seconds of the child process, from `times`; the JVM's start included, as
# it is part of what the Java tool costs).
run() {
  local label=$1; shift
  local log cpu_line values
  log=$(mktemp)
  cpu_line=$(bash -c '"$@" >"$0" 2>&1; times' "$log" "$@" | tail -1) # children: "XmY.YYYs XmZ.ZZZs"
  values=$(grep -E '^[0-9]{4}-' "$log" | tail -1)
  if [[ -z $values ]]; then
    echo "$label failed:" >&2
    cat "$log" >&2
    exit 1
  fi
  printf '%-12s %s\n' "$label" "$values"
  printf -v "${label}_RATE" '%s' "$(awk -F', ' '{print $6}' <<<"$values")"
  printf -v "${label}_FETCH" '%s' "$(awk -F', ' '{print $10}' <<<"$values")"
  printf -v "${label}_CPU" '%s' "$(awk '{ split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]); print u[1]*60+u[2]+s[1]*60+s[2] }' <<<"$cpu_line")"
}

# compare TITLE JAVA KBENCH: prints the table for two run labels.
compare() {
  local j=$2 k=$3 jr jf jc kr kf kc
  jr=${j}_RATE jf=${j}_FETCH jc=${j}_CPU kr=${k}_RATE kf=${k}_FETCH kc=${k}_CPU
  awk -v t="$1" -v jr="${!jr}" -v jf="${!jf}" -v jc="${!jc}" -v kr="${!kr}" -v kf="${!kf}" -v kc="${!kc}" -v n="$RECORDS" 'BEGIN {
    printf "\n%s\n%-8s %14s %20s %22s\n", t, "client", "records/s", "records/s (fetch)", "CPU s per 1M records"
    printf "%-8s %14.0f %20.0f %22.3f\n", "java", jr, jf, jc / n * 1e6
    printf "%-8s %14.0f %20.0f %22.3f\n", "kbench", kr, kf, kc / n * 1e6
    printf "kbench/java: %.2fx the records/s, %.2fx the CPU per record\n", kr / jr, kc / jc
  }'
}

echo
echo "Values lines: start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
# --messages: the cluster's Kafka (4.1) predates --num-records; kbench takes both.
run java_1p java -Xms512m -Xmx512m -cp "$CP" org.apache.kafka.tools.ConsumerPerformance \
  --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC1" --messages "$RECORDS" --timeout 30000
run kbench_1p "$BIN" consumer-perf-test \
  --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC1" --messages "$RECORDS" --timeout 30000
run java_3p java -Xms512m -Xmx512m -cp "$CP" org.apache.kafka.tools.ConsumerPerformance \
  --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC3" --messages "$RECORDS" --timeout 30000
run kbench_3p "$BIN" consumer-perf-test \
  --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC3" --messages "$RECORDS" --timeout 30000 --threads 3

compare "1 partition, 1 consumer" java_1p kbench_1p
compare "3 partitions: Java 1 consumer, kbench --threads 3" java_3p kbench_3p

echo
echo "kbench's engine against a bare franz-go poll loop (same broker, 1-partition topic, GOGC=${GOGC:-400}):"
GOGC=${GOGC:-400} KBENCH_TEST_BOOTSTRAP=$BOOTSTRAP KBENCH_BENCH_TOPIC=$TOPIC1 KBENCH_BENCH_SIZE=$SIZE \
  go test ${KBENCH_BUILD_FLAGS:-} -run '^$' -bench '^BenchmarkConsume$' -benchtime "${RECORDS}x" -count 1 ./internal/workload/ |
  awk '/^BenchmarkConsume\// { for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ns/record") cpu[$1] = $i; print }
       END { for (name in cpu) { if (name ~ /bare/) b = cpu[name]; if (name ~ /kbench/) k = cpu[name] }
             if (b > 0) printf "kbench CPU per record is %.1f%% above the bare loop\n", (k / b - 1) * 100 }'
