package result

import (
	"testing"
	"time"
)

// TestShiftTimes: every timestamp of a repeat moves, however deep, and a
// zero one stays zero.
func TestShiftTimes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := t0.Add(time.Second)
	rep := Repeat{StartedAt: t0, EndedAt: t0.Add(time.Minute), Workloads: []Workload{{Name: "p",
		Producer: &Producer{Records: 7, FirstSendAt: &first, Intervals: []Interval{{Start: t0}, {Start: t0.Add(time.Second)}}}}}}
	m := map[string]Interval{"a": {Start: t0}}
	d := -1500 * time.Millisecond
	ShiftTimes(&rep, d)
	ShiftTimes(&m, d)
	p := rep.Workloads[0].Producer
	switch {
	case !rep.StartedAt.Equal(t0.Add(d)) || !rep.EndedAt.Equal(t0.Add(time.Minute+d)):
		t.Errorf("repeat %v .. %v", rep.StartedAt, rep.EndedAt)
	case !p.FirstSendAt.Equal(t0.Add(time.Second + d)):
		t.Errorf("first send %v", p.FirstSendAt)
	case !p.Intervals[0].Start.Equal(t0.Add(d)) || !p.Intervals[1].Start.Equal(t0.Add(time.Second+d)):
		t.Errorf("intervals %v, %v", p.Intervals[0].Start, p.Intervals[1].Start)
	case !m["a"].Start.Equal(t0.Add(d)):
		t.Errorf("map value %v", m["a"].Start)
	case p.Records != 7 || p.FirstAckAt != nil:
		t.Errorf("other fields changed: %+v", p)
	}
	var zero Repeat
	ShiftTimes(&zero, d)
	if !zero.StartedAt.IsZero() {
		t.Errorf("a zero time moved to %v", zero.StartedAt)
	}
}
