#!/usr/bin/env bash
# How long and how much memory does checking a big plan take? Writes a plan
# of N scenarios (default 10,000, the most a plan may have: a 100 × N/100
# matrix of record sizes and partition counts, a producer with a payload
# file, a template and random values, and a consumer) and times
# `kbench run --dry-run` on it, five times. Prints the wall time and the
# peak resident memory of each run and their medians. Target: under 1 s
# and 200 MB at 10,000 scenarios. No broker is involved.
#
#   bash bench/dryrun.sh          # 10,000 scenarios
#   N=1000 bash bench/dryrun.sh   # a quick check
set -euo pipefail
N=${N:-10000}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
seq 1 1000 | sed 's/^/{"order": /; s/$/}/' > "$TMP/orders.json"
ROWS=$(( (N + 99) / 100 ))
{
  cat <<PLAN
name: dry-run-bench
topics:
  - {name: "bench-\${size}-\${partitions}", partitions: "\${partitions}", replication: 1}
workloads:
  - {name: sized, type: produce, topic: "bench-\${size}-\${partitions}", records: 1M, rate: 10k/s, properties: {acks: 1, linger.ms: 5}, message: {size: "\${size}"}}
  - {name: file, type: produce, topic: "bench-\${size}-\${partitions}", records: 1M, rate: 10k/s, message: {payload_file: orders.json}}
  - {name: json, type: produce, topic: "bench-\${size}-\${partitions}", records: 1M, rate: 10k/s, message: {template: {id: {_type: uuid}, note: {_type: random_string, _length: 40}}}}
  - {name: readers, type: consume, topic: "bench-\${size}-\${partitions}", group: readers, records: 3M}
matrix:
  size: [$(seq -s ', ' 1 100)]
  partitions: [$(seq -s ', ' 1 "$ROWS")]
PLAN
} > "$TMP/plan.yaml"
for i in 1 2 3 4 5; do
  /usr/bin/time -f '%e %M' -o "$TMP/time.$i" "$K" run "$TMP/plan.yaml" --dry-run > "$TMP/out.$i"
  read -r secs kb < "$TMP/time.$i"
  echo "run $i: $(tail -1 "$TMP/out.$i" | cut -d' ' -f1) scenarios checked in ${secs} s, peak ${kb} KiB resident" | sed 's/(s)//'
done
python3 - "$TMP" <<'PY'
import statistics, sys, glob
runs = [open(f).read().split() for f in sorted(glob.glob(sys.argv[1] + "/time.*"))]
secs = statistics.median(float(r[0]) for r in runs)
mb = statistics.median(int(r[1]) for r in runs) / 1024
print(f"median: {secs:.2f} s, {mb:.0f} MiB peak resident (target: under 1 s and 200 MB at 10,000 scenarios)")
PY
