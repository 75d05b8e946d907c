#!/usr/bin/env bash
# Does the max-rate search give an answer that holds? Runs
# examples/max-rate.yaml as the docs give it RUNS times (default 3), each
# on a fresh local 3-broker cluster the plan starts itself, and prints
# each run's answer, its confirmation (runs that kept the SLO of those
# run), where the SLO was last met and first missed, the full-speed rate,
# and how far the answers lie apart (the goal: within 15%).
#
# With SHARED=1 the runs search one after another on a single local
# 3-broker cluster started (and warmed by the first run's warm-up) once,
# each on a topic of its own: that separates the search's own spread from
# the spread between fresh clusters.
#
#   bash bench/max-rate.sh
#   SET="workloads[0].slo.p99=20ms" bash bench/max-rate.sh
#   SHARED=1 bash bench/max-rate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
SHARED=${SHARED:-}
TMP=$(mktemp -d)
K=$TMP/kbench
go build -o "$K" ./cmd/kbench
NAME=bench-max-rate
cleanup() { [ -z "$SHARED" ] || "$K" cluster down --name "$NAME" >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
where="each on a fresh local cluster"
if [ -n "$SHARED" ]; then
  B=$("$K" cluster up --name "$NAME" --brokers 3 2>/dev/null | tail -1 | cut -d= -f2)
  where="all on one local 3-broker cluster ($B)"
fi
echo "$(date -u +%Y-%m-%dT%H:%MZ)  examples/max-rate.yaml, $RUNS runs, $where; $(nproc) CPUs shared by brokers and client"
for r in $(seq 1 "$RUNS"); do
  args=(run examples/max-rate.yaml --out "$TMP/run-$r")
  [ -n "${SET:-}" ] && args+=(--set "$SET")
  [ -z "$SHARED" ] || args+=(--set "cluster.bootstrap=$B" --set "topics[0].name=max-rate-$r" --set "workloads[0].topic=max-rate-$r")
  start=$(date +%s)
  if ! "$K" "${args[@]}" >"$TMP/log-$r" 2>&1; then
    echo "run $r failed; the last lines it printed:" >&2
    grep -v '^|' "$TMP/log-$r" | tail -15 >&2
  fi
  echo "run $r took $(( $(date +%s) - start )) s"
done
python3 - "$TMP" "$RUNS" <<'PY'
import json, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
answers = []
for r in range(1, runs + 1):
    try:
        d = json.load(open(f"{tmp}/run-{r}/result.json"))
        rep = d["plan"]["scenarios"][0]["repeats"][0]
        m = next(w["max_rate"] for w in rep["workloads"] if w.get("max_rate"))
    except (OSError, KeyError, IndexError, TypeError, StopIteration) as e:
        print(f"run {r}: no search result ({type(e).__name__}); see its lines above")
        continue
    conf = m.get("confirmations") or []
    last = conf[-1] if conf else {}
    steps = ", ".join(f"{c['rate']:.0f}: {c['met']} of {c['runs']}" for c in conf)
    print(f"run {r}: {m['rate']:.0f} records/s ({rep['status']}); search found {m['found']:.0f}; "
          f"confirmations {steps or 'none'}; SLO last met {m['last_met']:.0f}, first missed {m.get('first_missed', 0):.0f}; "
          f"full speed {m.get('full_speed', 0):.0f}; {len(m['probes'])} runs")
    if m["rate"] > 0:
        answers.append(m["rate"])
if len(answers) >= 2:
    lo, hi = min(answers), max(answers)
    print(f"answers {', '.join(f'{a:.0f}' for a in answers)}: the highest is {100 * (hi / lo - 1):.1f}% above the lowest (goal: within 15%)")
PY
