#!/usr/bin/env bash
# What does a schema format cost a producer? The virtual-users study's
# template as plain JSON, Avro, JSON Schema and Protobuf
# (examples/schemas/), measured as the project measures: one local broker
# with its schema registry (Apicurio), the broker warmed with 2M records,
# then 5 rounds that rotate which format goes first, each run on a fresh
# topic, 2M records per run (500k warm-up), acks=1. Prints steady-state
# records/s, CPU µs per record and bytes per record per format, and each
# format's records/s ÷ JSON's per round with the median and range.
#
#   bash bench/schemas.sh               # one producer client
#   CLIENTS=2 bash bench/schemas.sh
set -euo pipefail
CLIENTS=${CLIENTS:-1}
RECORDS=${RECORDS:-2M}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
NAME=bench-schemas
UP=$("$K" cluster up --name "$NAME" --schema-registry 2>/dev/null | tail -2)
B=$(echo "$UP" | sed -n 's/^bootstrap.servers=//p')
R=$(echo "$UP" | sed -n 's/^schema.registry.url=//p')
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
echo "warming the broker with 2M records" >&2
"$K" producer-perf-test --topic warm --num-records 2000000 --record-size 140 --throughput -1 \
  --bootstrap-server "$B" --command-property acks=1 >/dev/null

T='{id: {_type: uuid}, name: {_type: constant, _value: name}, description: {_type: random_string, _length: 40}, value: {_type: random_int, _min: 0, _max: 100}, timestamp: {_type: now, _format: epoch_millis}}'
S=$PWD/examples/schemas
declare -A MSG=(
  [json]="{template: $T}"
  [avro]="{format: avro, schema_file: $S/user.avsc, template: $T}"
  [json-schema]="{format: json_schema, schema_file: $S/user.schema.json, template: $T}"
  [protobuf]="{format: protobuf, schema_file: $S/user.proto, template: $T}"
)
ORDER=(json avro json-schema protobuf)
{
  cat <<PLAN
name: schema-formats-bench
schema_registry: {schema.registry.url: "$R"}
topics: [{name: "bench-\${kind}-\${round}", partitions: 3}]
workloads:
  - {name: producer, type: produce, topic: "bench-\${kind}-\${round}", clients: $CLIENTS, properties: {acks: 1}, message: "\${message}", records: $RECORDS, warmup: 500k}
matrix:
PLAN
  for r in 1 2 3 4 5; do
    for i in 0 1 2 3; do
      k=${ORDER[$(( (i + r - 1) % 4 ))]}
      echo "  - {kind: $k, round: $r, message: ${MSG[$k]}}"
    done
  done
} > "$TMP/plan.yaml"
"$K" run "$TMP/plan.yaml" --set cluster.bootstrap="$B" --out "$TMP/out" 2>/dev/null >/dev/null
python3 - "$TMP/out/result.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rate, cpu, size = {}, {}, {}
for sc in d["plan"]["scenarios"]:
    p = {x["name"]: x["value"] for x in sc["params"]}
    rep = sc["repeats"][0]
    prod = rep["workloads"][0]["producer"]
    steady = prod.get("steady_state") or prod
    key = (p["kind"], p["round"])
    rate[key] = steady["records_per_sec"]
    cpu[key] = prod.get("cpu_us_per_record", 0)
    size[key] = prod.get("bytes_per_record", 0)
kinds = ["json", "avro", "json-schema", "protobuf"]
rounds = "12345"
print("format       records/s (median)  CPU µs/record  bytes/record  ÷ json per round            median  range")
for k in kinds:
    rs = [rate[(k, r)] for r in rounds]
    ratios = [rate[(k, r)] / rate[("json", r)] for r in rounds]
    print(f"{k:12} {statistics.median(rs):18.0f}  {statistics.median([cpu[(k, r)] for r in rounds]):13.2f}  "
          f"{statistics.median([size[(k, r)] for r in rounds]):12.1f}  " + " ".join(f"{x:.2f}" for x in ratios) +
          f"   {statistics.median(ratios):.2f}  {min(ratios):.2f}-{max(ratios):.2f}")
reg = d["plan"].get("schema_registry") or {}
print(f"registry: {len(reg.get('subjects', []))} subjects, cold {reg.get('cold_requests')} requests in {reg.get('cold_ms')} ms, "
      f"warm {reg.get('warm_requests')} requests")
PY
