package faults

import (
	"slices"
	"testing"
)

func TestKindsParams(t *testing.T) {
	kinds := Kinds()
	if got, want := Names(kinds), []string{Bandwidth, Bounce, Delay, HealLink, Kill, Loss, Cut, Pause, Restart, Resume, Stop}; !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	// A bounce runs the restart command: a remote cluster has no bounce.
	// Every network kind has a command to undo it; a heal runs that one.
	if got, want := CommandNames(kinds), []string{Bandwidth, Delay, "heal_bandwidth", "heal_delay", "heal_loss", "heal_partition", Kill, Loss, Cut, Pause, Restart, Resume, Stop}; !slices.Equal(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
	if got, want := ParamNames(kinds), []string{"duration", "jitter", "latency", "rate", "retransmit", "share", "times"}; !slices.Equal(got, want) {
		t.Errorf("params %v, want %v", got, want)
	}
	p := WithDefaults(kinds[Bounce], nil)
	if p.Count("times") != 1 {
		t.Errorf("a bounce's times default to %v, want 1", p)
	}
	if p := WithDefaults(kinds[Bounce], Params{"times": int64(3)}); p.Count("times") != 3 || p.String() != "times 3" {
		t.Errorf("times given: %v", p)
	}
}
