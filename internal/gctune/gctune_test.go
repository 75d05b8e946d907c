package gctune

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/kbench/kbench/internal/leaktest"
)

// TestTunerStep: the percent halves while collecting is cheap, down to
// Low; doubles while it is dear, up to High; holds in between and over an
// idle interval, whose readings are carried to the next.
func TestTunerStep(t *testing.T) {
	type reading struct{ gc, cpu float64 }
	tests := []struct {
		name     string
		start    int
		readings []reading
		want     []int
	}{
		{"cheap: down to Low and no further", High, []reading{{0, 0}, {0.001, 1}, {0.002, 2}, {0.003, 3}}, []int{400, 200, 100, 100}},
		{"dear: back up to High", Low, []reading{{0, 0}, {0.1, 1}, {0.2, 2}, {0.3, 3}}, []int{100, 200, 400, 400}},
		{"in between: held", 200, []reading{{0, 0}, {0.02, 1}, {0.04, 2}}, []int{200, 200, 200}},
		{"idle intervals carried over", High, []reading{{0, 0}, {0.0001, 0.01}, {0.0002, 0.02}, {0.0003, 1}}, []int{400, 400, 400, 200}},
		{"an idle interval's GC counts with the next", High, []reading{{0, 0}, {0.005, 0.01}, {0.012, 1}}, []int{400, 400, 400}}, // 1.2%; the last interval alone 0.7%
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := &Tuner{Percent: tt.start}
			for i, r := range tt.readings {
				if got, _ := tu.Step(r.gc, r.cpu); got != tt.want[i] {
					t.Fatalf("reading %d %+v: percent %d, want %d", i, r, got, tt.want[i])
				}
			}
		})
	}
}

func TestMain(m *testing.M) { leaktest.Main(m, nil) }

// TestStartAndFix: Start sets the high percent; Fix sets another and ends
// the tuning, whose goroutine ends with its context.
func TestStartAndFix(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ctx, cancel := context.WithCancel(context.Background())
	Start(ctx)
	if p := debug.SetGCPercent(High); p != High {
		t.Errorf("percent %d after Start, want %d", p, High)
	}
	Fix(Low)
	if p := debug.SetGCPercent(Low); p != Low {
		t.Errorf("percent %d after Fix, want %d", p, Low)
	}
	cancel()
}
