#!/usr/bin/env bash
# The broker-failure plan, repeated: the leader of partition 0 is killed
# under an acks=all load (replication 3, min.insync.replicas 2) and
# restarted, RUNS times (default 10), each repeat on a fresh topic of the
# same local 3-broker cluster. Prints each repeat's election,
# unavailability and ISR recovery times and what verification found, and
# exits 1 if any acknowledged record was ever lost (or a fault failed).
#
#   bash bench/faults-soak.sh            # about 15 minutes
#   RUNS=3 bash bench/faults-soak.sh
set -euo pipefail
RUNS=${RUNS:-10}
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
echo "$(date -u +%Y-%m-%dT%H:%MZ): $RUNS repeats of examples/broker-failure.yaml (kill at 15 s, restart 20 s later, 60 s runs)" >&2
status=0
"$K" run examples/broker-failure.yaml --out "$TMP/out" --set repeat="$RUNS" \
  --set 'workloads[0].duration=60s' --set 'faults[0].at=15s' --set 'faults[1].delay=20s' >/dev/null || status=$?
# The faults and verification tables of summary.md: one row per repeat.
sed -n '/^## Faults/,$p' "$TMP/out/summary.md"
py=0
python3 - "$TMP/out/result.json" <<'PY' || py=$?
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
reps = doc["plan"]["scenarios"][0]["repeats"]
def col(key, action):
    return [f[key] for r in reps for f in r.get("faults", []) if f["action"] == action and f.get(key) is not None]
def show(name, xs):
    if xs:
        print(f"{name}: median {statistics.median(xs):.0f} ms, range {min(xs):.0f}-{max(xs):.0f} ms over {len(xs)} faults")
show("election_ms", col("election_ms", "kill"))
show("unavailable_ms", col("unavailable_ms", "kill"))
show("isr_recovered_ms", col("isr_recovered_ms", "restart"))
lost = sum(v["lost"] for r in reps for v in r.get("verification", []))
acked = sum(v["acked"] for r in reps for v in r.get("verification", []))
ok = sum(1 for r in reps if r["status"] == "ok")
print(f"{ok} of {len(reps)} repeats ok; {acked} records acknowledged, {lost} lost")
sys.exit(1 if lost or ok != len(reps) else 0)
PY
rm -rf "$TMP"
[ "$status" = 0 ] && [ "$py" = 0 ]
