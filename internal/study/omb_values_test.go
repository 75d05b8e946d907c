package study

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/workload"
)

// TestPlanOMBRecords: the plan forms of OpenMessaging Benchmark's records
// reach the producers: a payload file read whole (delimiter: none), a pool
// of random bytes then zeros, OMB's keys, and the send-time header for the
// consumers' end-to-end latency.
func TestPlanOMBRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := []byte("6b8d0ca6\nd616a2e3\n") // a newline would split it into two records
	if err := os.WriteFile(filepath.Join(dir, "payload.data"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, message string
		stamp         bool
		check         func(t *testing.T, r PreviewRecord)
	}{
		{"whole file", "{payload_file: payload.data, delimiter: none}", false, func(t *testing.T, r PreviewRecord) {
			if !bytes.Equal(r.Value, file) || r.Key != nil {
				t.Errorf("value %q key %q, want the whole file and no key", r.Value, r.Key)
			}
		}},
		{"pool, keys in turn", "{size: 100, random_ratio: 0.5, pool: 10, key: {distribution: sequential, count: 10000, format: omb}}", true, func(t *testing.T, r PreviewRecord) {
			if len(r.Value) != 100 || !bytes.Equal(r.Value[50:], make([]byte, 50)) || bytes.Equal(r.Value[:50], make([]byte, 50)) {
				t.Errorf("value %x: want 50 random bytes then 50 zeros", r.Value)
			}
			if b, err := base64.RawURLEncoding.DecodeString(string(r.Key)); err != nil || len(b) != 7 {
				t.Errorf("key %q is not OMB's (7 bytes of base64url)", r.Key)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := "name: omb\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    records: 10\n    message: " + tt.message + "\n"
			if tt.stamp {
				text += "    send_time_header: true\n"
			}
			p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			p.Dir = dir
			scs, _ := p.Scenarios()
			recs, _, err := Preview(p, &scs[0], "", 3, 1)
			if err != nil || len(recs["p"]) != 3 {
				t.Fatalf("%d records: %v", len(recs["p"]), err)
			}
			for _, r := range recs["p"] {
				tt.check(t, r)
			}
			sc, err := scenarioOf(p, &scs[0], "127.0.0.1:9092", &build{seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.Workloads[0].Spec.(workload.Producing).Producer().StampSent; got != tt.stamp {
				t.Errorf("send-time header %v, want %v", got, tt.stamp)
			}
		})
	}
}

// TestIntervalHistogramsOnlyForOMB: only a plan translated from OMB keeps
// each interval's 3-digit histograms (its result's periods read them at
// OMB's precision); another plan's result.json does not carry them. Every
// run keeps the compact series histogram (workload's
// TestIntervalsKeepSeriesHistograms).
func TestIntervalHistogramsOnlyForOMB(t *testing.T) {
	t.Parallel()
	text := "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 10, message: {size: 10}}\n  - {name: c, type: consume, topic: t}\n"
	for _, omb := range []bool{false, true} {
		p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		if omb {
			p.OMB = &plan.OMBSource{}
		}
		scs, _ := p.Scenarios()
		sc, err := scenarioOf(p, &scs[0], "127.0.0.1:9092", &build{seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Workloads[0].Spec.(workload.Producing).Producer().IntervalHistograms; got != omb {
			t.Errorf("OMB %v: producer keeps interval histograms %v", omb, got)
		}
		if got := sc.Workloads[1].Spec.(workload.Consume).Spec.IntervalHistograms; got != omb {
			t.Errorf("OMB %v: consumer keeps interval histograms %v", omb, got)
		}
	}
}
