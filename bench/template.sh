#!/usr/bin/env bash
# Does a JSON template cost the producer? The virtual-users study's message
# against random values of its mean rendered size (measured from `kbench
# preview`, not guessed), measured as the project measures: one local broker
# warmed with 2M records, then 5 rounds that alternate which message goes
# first, each run on a fresh topic; with one producer client, then two (the
# same clients for both messages). Prints, per round and as the median with
# its range, the steady-state records/s of each and their ratio, and
# kbench's CPU per record acknowledged (µs: the whole process, over the
# run) of each and their ratio. The goal: template ÷ fixed-size at least
# 0.95 for records/s and at most 1.10 for CPU per record.
#
#   bash bench/template.sh                       # the judged run (1 and 2 clients)
#   CLIENTS=2 bash bench/template.sh             # two clients only
#   RECORDS=300k WARMUP=100k ROUNDS=2 WARM_RECORDS=300000 bash bench/template.sh   # a smoke check
set -euo pipefail
CLIENTS=${CLIENTS:-1 2}
ROUNDS=${ROUNDS:-5}
RECORDS=${RECORDS:-2M}
WARMUP=${WARMUP:-500k}
WARM_RECORDS=${WARM_RECORDS:-2000000}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench

TMPL='{template: {id: {_type: uuid}, name: {_type: constant, _value: name}, description: {_type: random_string, _length: 40}, value: {_type: random_int, _min: 0, _max: 100}, timestamp: {_type: now, _format: epoch_millis}}}'

# The fixed-size values' size: the template's mean over 10,000 rendered
# values (a 13-digit epoch_millis, a value of 0-100: about 153 bytes).
cat > "$TMP/preview.yaml" <<PLAN
name: template-size
topics: [{name: preview, partitions: 1}]
workloads:
  - {name: producer, type: produce, topic: preview, message: $TMPL, records: 20000}
PLAN
SIZE=$("$K" preview "$TMP/preview.yaml" -n 10000 | python3 -c '
import sys
v = [l.rstrip("\n").encode() for l in sys.stdin if not l.startswith("#")]
assert len(v) == 10000, len(v)
print(round(sum(map(len, v)) / len(v)))')
echo "template: mean rendered size $SIZE bytes (10,000 values); fixed-size values of $SIZE bytes" >&2

NAME=bench-template
B=$("$K" cluster up --name "$NAME" 2>/dev/null | tail -1 | cut -d= -f2)
trap '"$K" cluster down --name "$NAME" >/dev/null 2>&1 || true' EXIT
echo "warming the broker with $WARM_RECORDS records" >&2
"$K" producer-perf-test --topic warm --num-records "$WARM_RECORDS" --record-size "$SIZE" --throughput -1 \
  --bootstrap-server "$B" --command-property acks=1 >/dev/null

FIXED="{kind: size, round: ROUND, message: {size: $SIZE}}"
TEMPLATE="{kind: template, round: ROUND, message: $TMPL}"
for c in $CLIENTS; do
  {
    cat <<PLAN
name: template-vs-size-$c
topics: [{name: "bench-\${kind}-$c-\${round}", partitions: 3}]
workloads:
  - {name: producer, type: produce, topic: "bench-\${kind}-$c-\${round}", clients: $c, properties: {acks: 1}, message: "\${message}", records: $RECORDS, warmup: $WARMUP}
matrix:
PLAN
    for r in $(seq 1 "$ROUNDS"); do
      if [ $((r % 2)) = 1 ]; then first=$FIXED second=$TEMPLATE; else first=$TEMPLATE second=$FIXED; fi
      echo "  - ${first//ROUND/$r}"
      echo "  - ${second//ROUND/$r}"
    done
  } > "$TMP/plan-$c.yaml"
  echo "$c client(s): $ROUNDS rounds of $RECORDS records ($WARMUP warm-up) each" >&2
  if ! "$K" run "$TMP/plan-$c.yaml" --set cluster.bootstrap="$B" --out "$TMP/out-$c" > "$TMP/run-$c.log" 2>&1; then
    tail -20 "$TMP/run-$c.log" >&2
    exit 1
  fi
  python3 - "$TMP/out-$c/result.json" "$c" "$ROUNDS" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
clients, rounds = sys.argv[2], int(sys.argv[3])
rate, cpu = {}, {}
for sc in d["plan"]["scenarios"]:
    p = {x["name"]: str(x["value"]) for x in sc["params"]}
    k = (p["kind"], p["round"])
    rate[k] = sc["aggregate"]["records_per_sec"]["mean"]
    # kbench's whole process CPU over the run, per record acknowledged.
    cpu[k] = sc["repeats"][0]["workloads"][0]["producer"]["cpu_us_per_record"]
rs = [str(r) for r in range(1, rounds + 1)]
rr = [rate[("template", r)] / rate[("size", r)] for r in rs]
cr = [cpu[("template", r)] / cpu[("size", r)] for r in rs]
print(f"\n{clients} client(s)")
print("| round | fixed-size rec/s | template rec/s | ratio | fixed-size µs/rec | template µs/rec | ratio |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for i, r in enumerate(rs):
    first = "fixed-size" if int(r) % 2 else "template"
    print(f"| {r} ({first} first) | {rate[('size', r)]:,.0f} | {rate[('template', r)]:,.0f} | {rr[i]:.2f} "
          f"| {cpu[('size', r)]:.2f} | {cpu[('template', r)]:.2f} | {cr[i]:.2f} |")
def med(xs):
    return f"median {statistics.median(xs):.2f} (range {min(xs):.2f}-{max(xs):.2f})"
def medv(k, f):
    xs = [f[(k, r)] for r in rs]
    return statistics.median(xs), min(xs), max(xs)
for name, f, fmt in (("records/s", rate, "{:,.0f}"), ("CPU µs/record", cpu, "{:.2f}")):
    for k in ("size", "template"):
        m, lo, hi = medv(k, f)
        print(f"{'fixed-size' if k == 'size' else 'template'} {name}: median " + fmt.format(m) + " (range " + fmt.format(lo) + "-" + fmt.format(hi) + ")")
print(f"template ÷ fixed-size records/s: {med(rr)}; goal at least 0.95")
print(f"template ÷ fixed-size CPU per record: {med(cr)}; goal at most 1.10")
PY
done
