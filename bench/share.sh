#!/usr/bin/env bash
# Share consumers side by side on the same local broker(s): Apache Kafka's
# Java ShareConsumerPerformance (-Xmx512M, as its script runs it) and kbench
# share-consumer-perf-test, each reading the same topic of RECORDS records
# (100 B) from the start in a share group of its own (its
# share.auto.offset.reset set to earliest before the run, untimed). For each
# cluster shape the broker is warmed by one untimed read per client; then
# ROUNDS rounds (default 5) alternate which client goes first. Records/s is
# each tool's own final nMsg.sec (the whole run, joining the group
# included, the same rule for both). Prints every run, then the median
# records/s with its range, client CPU per record and kbench's ratios.
#
#   bash bench/share.sh                       # 1 and 3 brokers, 200k records, 1 consumer
#   BROKERS=1 RECORDS=500000 THREADS=4 bash bench/share.sh
#
# --timeout is long on purpose: the Apache tool (4.3) waits --timeout in
# total for its consumers and interrupts those still reading.
set -euo pipefail
cd "$(dirname "$0")/.."

BROKERS=${BROKERS:-"1 3"}
ROUNDS=${ROUNDS:-5}
RECORDS=${RECORDS:-200000}
THREADS=${THREADS:-1}
PARTITIONS=${PARTITIONS:-3}
CLIENTS=(java kbench)

TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
CP=$("$K" cluster classpath)
NAME=bench-share
cleanup() { "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
echo "$(date -u +%Y-%m-%dT%H:%MZ)  $RECORDS records of 100 B per run, $PARTITIONS partitions, $THREADS consumer(s), $ROUNDS rounds; $(nproc) CPUs shared by brokers and clients"
echo "$(go version | awk '{print $3}'), $(java -version 2>&1 | head -1)"

# earliest GROUP: the group reads the topic's existing records.
earliest() {
  java -Xmx512M -cp "$CP" kafka.admin.ConfigCommand --bootstrap-server "$B" --alter --entity-type groups \
    --entity-name "$1" --add-config share.auto.offset.reset=earliest >/dev/null 2>&1
}

# client NAME TOPIC RECORDS GROUP: runs one share consumer; prints "RATE CPU_SECONDS".
client() {
  local name=$1 t=$2 n=$3 g=$4 out=$TMP/out
  earliest "$g"
  local args=(--bootstrap-server "$B" --topic "$t" --num-records "$n" --group "$g" --threads "$THREADS" --timeout 600000)
  local cmd
  case $name in
    java) cmd=(java -Xmx512M -cp "$CP" org.apache.kafka.tools.ShareConsumerPerformance "${args[@]}") ;;
    kbench) cmd=("$K" share-consumer-perf-test "${args[@]}") ;;
  esac
  /usr/bin/time -f '%U %S' -o "$TMP/cpu" "${cmd[@]}" >"$out" 2>&1 || { echo "$name failed:" >&2; tail -5 "$out" >&2; return 1; }
  local last
  last=$(grep -E '^[0-9]{4}-' "$out" | tail -1)
  [ "$(echo "$last" | awk -F', ' '{print $6}')" = "$n" ] || { echo "$name read short: $last" >&2; return 1; }
  echo "$(echo "$last" | awk -F', ' '{print $5}') $(awk '{print $1 + $2}' "$TMP/cpu")"
}

RESULTS=$TMP/results
: >"$RESULTS"
run=0
for brokers in $BROKERS; do
  "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true
  B=$("$K" cluster up --name "$NAME" --brokers "$brokers" 2>/dev/null | tail -1 | sed 's/^bootstrap.servers=//')
  echo
  echo "== $brokers broker(s) at $B"
  "$K" producer-perf-test --topic share-read --partitions "$PARTITIONS" --replication-factor "$brokers" --num-records "$RECORDS" \
    --record-size 100 --throughput -1 --bootstrap-server "$B" --command-property acks=all >/dev/null
  for c in "${CLIENTS[@]}"; do
    run=$((run + 1))
    client "$c" share-read "$RECORDS" "warm-$run" >/dev/null
  done
  for ((r = 0; r < ROUNDS; r++)); do
    order=("${CLIENTS[@]:r % 2}" "${CLIENTS[@]:0:r % 2}")
    line="   round $((r + 1)):"
    for c in "${order[@]}"; do
      run=$((run + 1))
      read -r rate cpu < <(client "$c" share-read "$RECORDS" "g-$run")
      echo "$brokers 100 $c $r $rate $cpu $RECORDS" >>"$RESULTS"
      line+=$(printf '  %s %.0f/s' "$c" "$rate")
    done
    echo "$line"
  done
done

echo
python3 bench/sidebyside.py "$RESULTS"
echo
echo "As Markdown (docs/benchmarks.md):"
python3 bench/sidebyside.py --markdown "$RESULTS"
