#!/usr/bin/env bash
# Runs the producer commands of seeds 000, 001 and 002 exactly as written,
# with only the bootstrap address replaced, against a local 3-broker cluster
# (the seeds' clusters had 3 brokers), each topic created as the seed
# describes. After each command, checks with Apache's GetOffsetShell that the
# topic holds exactly the records the final line claims, then deletes it.
#
#   bash bench/seeds.sh                 # every command, unchanged (~10 min, needs ~10 GB disk)
#   SEEDS_ONLY=001 bash bench/seeds.sh  # one seed
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=bench-seeds
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
cd "$(dirname "$PAYLOAD")"   # seed 002 reads ./payload_test.json

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
    echo "seed $1: OK   topic $2 holds $got records, as claimed: $(grep '99.9th' "$3" | tail -1)"
  else
    echo "seed $1: FAIL topic $2 holds $got records, the tool claimed '${claimed:-nothing}'"; FAILED=1
  fi
  topics --delete --topic "$2" || true
}

run() { # run SEED TOPIC CREATE-ARGS -- COMMAND...
  local seed=$1 topic=$2; shift 2
  local create=(); while [ "$1" != "--" ]; do create+=("$1"); shift; done; shift
  case "${SEEDS_ONLY:-$seed}" in "$seed"*) ;; *) return 0 ;; esac
  topics --create --topic "$topic" "${create[@]}" >/dev/null
  local log; log=$(mktemp)
  echo "seed $seed: $*" | sed "s|$B|<bootstrap>|g"
  "$@" >"$log" 2>&1 || true
  check "$seed" "$topic" "$log"
}

# Seed 000 (topic: 10 partitions, replication 3).
run 000a performancetest --partitions 10 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 5000000 --record-size 250 --throughput 1000000 --producer-props acks=1 buffer.memory=67108864 compression.type=snappy batch.size=8196 bootstrap.servers=$B
run 000b performancetest --partitions 10 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 20000000 --record-size 10 --throughput 5000000 --print-metrics --producer-props bootstrap.servers=$B
# Seed 001 (topic: 5 partitions, replication 3).
run 001a performancetest --partitions 5 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 2000000 --record-size 1000 --throughput 100000 --producer-props bootstrap.servers=$B
run 001b performancetest --partitions 5 --replication-factor 3 -- \
  kafka-producer-perf-test --topic performancetest --num-records 2000000 --record-size 1000 --throughput 100000 --print-metrics --producer-props bootstrap.servers=$B
# Seed 002 (replication 3, max.message.bytes=20971520; client.properties has security.protocol=PLAINTEXT).
run 002a kafka-test --partitions 1 --replication-factor 3 -- \
  kafka-producer-perf-test.sh --topic kafka-test --num-records 1000000 --payload-file ./payload_test.json --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
for n in 1 10 100 500 1000; do
  run 002-$n-4000B kafka_test_$n --partitions $n --replication-factor 3 --config max.message.bytes=20971520 -- \
    kafka-producer-perf-test.sh --topic kafka_test_$n --num-records 1000000 --record-size 4000 --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
  run 002-$n-json kafka_test_$n --partitions $n --replication-factor 3 --config max.message.bytes=20971520 -- \
    kafka-producer-perf-test.sh --topic kafka_test_$n --num-records 1000000 --payload-file ./payload_test.json --throughput 25000 --producer-props acks=1 bootstrap.servers=$B --print-metrics
done
exit $FAILED
