package wallclock

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"": 0, "-3s": -3 * time.Second, "1.5s": 1500 * time.Millisecond, "250ms": 250 * time.Millisecond} {
		got, err := parse(in)
		if err != nil || got != want {
			t.Errorf("parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parse("3"); err == nil {
		t.Error("parse(\"3\"): no error; want one naming the hook")
	}
}

// TestMonotonic: the offset shifts the readings, not the durations
// between two of them.
func TestMonotonic(t *testing.T) {
	old := skew
	skew = -4 * time.Second
	defer func() { skew = old }()
	a := Now()
	time.Sleep(10 * time.Millisecond)
	b := Now()
	if d := b.Sub(a); d < 10*time.Millisecond || d > time.Second {
		t.Errorf("two readings %v apart, want about 10ms", d)
	}
	if d := time.Now().Round(0).Sub(Now().Round(0)); d < 4*time.Second-time.Second/10 || d > 4*time.Second+time.Second/10 {
		t.Errorf("wall readings %v apart, want 4s", d)
	}
	if p := Process(a); a.Sub(p) != skew {
		t.Errorf("Process moved %v, want %v", a.Sub(p), skew)
	}
}
