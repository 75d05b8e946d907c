#!/usr/bin/env bash
# Runs the producer commands of the record-size sweeps and the MSK partition study exactly as written,
# with only the bootstrap address replaced, against a local 3-broker cluster
# (the studies' clusters had 3 brokers), each topic created as the study
# describes. After each command, checks with Apache's GetOffsetShell that the
# topic holds exactly the records the final line claims, then deletes it.
#
#   bash bench/studies.sh                # every command, unchanged (~10 min, needs ~10 GB disk)
#   ONLY=sweep2 bash bench/studies.sh     # the commands whose label starts with sweep2
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=bench-studies
BIN=$(mktemp -d)/kbench
go build -o "$BIN" ./cmd/kbench
"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true
trap '"$BIN" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
B=$("$BIN" cluster up --name "$NAME" --brokers 3 | tail -1 | sed 's/^bootstrap.servers=//')
CP=$("$BIN" cluster classpath)
PAYLOAD=$PWD/cmd/kbench/testdata/payload_test.json
ln -sf "$BIN" "$(dirname "$BIN")/kafka-producer-perf-test"
ln -sf "$BIN" "$(dirname "$BIN")/kafka-producer-perf-test.sh"
export PATH=$(dirname "$BIN"):$PATH
cd "$(dirname "$PAYLOAD")"   # the MSK study reads ./payload_test.json

topics() { java -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" "$@" 2>/dev/null; }
held() { java -cp "$CP" org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$B" --topic "$1" 2>/dev/null |
  awk -F: '{ s += $3 } END { print s + 0 }'; }

# check SEED TOPIC LOG: the topic must hold what the final line of LOG claims.
# GetOffsetShell reports high watermarks, which trail the acknowledged log end
# while followers catch up (acks=1 on a loaded cluster), so the count is read
# until it reaches the claim or stops growing for 10 s.
FAILED=0
check() {
  local claimed got last=-1 still=0
  claimed=$(grep -E '^[0-9]+ records sent, [0-9.]+ records/sec .* 99\.9th\.$' "$3" | tail -1 | awk '{print $1}')
  while :; do
    got=$(held "$2")
    [ "$got" = "$claimed" ] && break
    if [ "$got" = "$last" ]; then still=$((still + 1)); else still=0; last=$got; fi
    [ "$still" -ge 5 ] && break
    sleep 2
  done
  if [ -n "$claimed" ] && [ "$claimed" = "$got" ]; then
    echo "$1: OK   topic $2 holds $got records, as claimed: $(grep '99.9th' "$3" | tail -1)"
  else
    echo "$1: FAIL topic $2 holds $got records, the tool claimed '${claimed:-nothing}'"; FAILED=1
  fi
  topics --delete --topic "$2" || true
}

run() { # run SEED TOPIC CREATE-ARGS -- COMMAND...
  local label=$1 topic=$2; shift 2
  local create=(); while [ "$1" != "--" ]; do create+=("$1"); shift; done; shift
  case "$label" in "${ONLY:-}"*) ;; *) return 0 ;; esac
  topics --create --topic "$topic" "${create[@]}" >/dev/null
  local log; log=$(mktemp)
  echo "$label: $*" | sed "s|$B|<bootstrap>|g"
  "$@" >"$log" 2>&1 || true
  check "$label" "$topic" "$log"
}

# The record-size sweep (topic: 10 partitions, replication 3).
run sweep-a performancetest --partitions 10 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 5000000 --record-size 250 --throughput 1000000 --producer-props acks=1 buffer.memory=67108864 compression.type=snappy batch.size=8196 bootstrap.servers=$B
run sweep-b performancetest --partitions 10 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 20000000 --record-size 10 --throughput 5000000 --print-metrics --producer-props bootstrap.servers=$B
# The second record-size sweep (topic: 5 partitions, replication 3).
run sweep2-a performancetest --partitions 5 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 2000000 --record-size 1000 --throughput 100000 --producer-props bootstrap.servers=$B
run sweep2-b performancetest --partitions 5 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 2000000 --record-size 1000 --throughput 100000 --print-metrics --producer-props bootstrap.servers=$B
# The MSK partition study (replication 3, max.message.bytes=20971520; client.properties has security.protocol=PLAINTEXT).
run msk-a kafka-test --partitions 1 --replication-factor 3 -- \
  kafka-producer-perf-test.sh --topic kafka-test --num-records 1000000 --payload-file ./payload_test.json --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
for n in 1 10 100 500 1000; do
  run msk-$n-4000B kafka_test_$n --partitions $n --replication-factor 3 --config max.message.bytes=20971520 -- \
    kafka-producer-perf-test.sh --topic kafka_test_$n --num-records 1000000 --record-size 4000 --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
  run msk-$n-json kafka_test_$n --partitions $n --replication-factor 3 --config max.message.bytes=20971520 -- \
    kafka-producer-perf-test.sh --topic kafka_test_$n --num-records 1000000 --payload-file ./payload_test.json --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
done
exit $FAILED
