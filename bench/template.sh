#!/usr/bin/env bash
# Does a JSON template cost producer throughput? The virtual-users study's
# message against random values of about its size, measured as the project
# measures: one local broker warmed with 2M records, then 5 rounds that
# alternate which message goes first, each run on a fresh topic. Prints the
# summary (steady-state records/s per run) and the median ratio with its range.
#
#   bash bench/template.sh              # one producer client
#   CLIENTS=2 bash bench/template.sh    # two, for both messages
set -euo pipefail
CLIENTS=${CLIENTS:-1}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
NAME=bench-template
B=$("$K" cluster up --name "$NAME" 2>/dev/null | tail -1 | cut -d= -f2)
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
echo "warming the broker with 2M records" >&2
"$K" producer-perf-test --topic warm --num-records 2000000 --record-size 140 --throughput -1 \
  --bootstrap-server "$B" --command-property acks=1 >/dev/null

SIZE='{kind: size, round: ROUND, message: {size: 140}}'
TMPL='{kind: template, round: ROUND, message: {template: {id: {_type: uuid}, name: {_type: constant, _value: name}, description: {_type: random_string, _length: 40}, value: {_type: random_int, _min: 0, _max: 100}, timestamp: {_type: now, _format: epoch_millis}}}}'
{
  cat <<PLAN
name: template-vs-size
topics: [{name: "bench-\${kind}-\${round}", partitions: 3}]
workloads:
  - {name: producer, type: produce, topic: "bench-\${kind}-\${round}", clients: $CLIENTS, properties: {acks: 1}, message: "\${message}", records: 2M, warmup: 500k}
matrix:
PLAN
  for r in 1 2 3 4 5; do
    if [ $((r % 2)) = 1 ]; then first=$SIZE second=$TMPL; else first=$TMPL second=$SIZE; fi
    echo "  - ${first//ROUND/$r}"
    echo "  - ${second//ROUND/$r}"
  done
} > "$TMP/plan.yaml"
"$K" run "$TMP/plan.yaml" --set cluster.bootstrap="$B" --out "$TMP/out" 2>/dev/null
python3 - "$TMP/out/result.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rate = {}
for sc in d["plan"]["scenarios"]:
    p = {x["name"]: x["value"] for x in sc["params"]}
    rate[(p["kind"], p["round"])] = sc["aggregate"]["records_per_sec"]["mean"]
ratios = [rate[("template", r)] / rate[("size", r)] for r in "12345"]
print("template ÷ fixed-size per round: " + ", ".join(f"{x:.2f}" for x in ratios))
print(f"median {statistics.median(ratios):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}")
PY
