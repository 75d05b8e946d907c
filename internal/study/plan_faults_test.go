package study

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/faults/timeline"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/verify"
)

func TestJudgeVerification(t *testing.T) {
	tests := []struct {
		name       string
		v          result.Verification
		passed     bool
		noteHas    string
		problemHas string
	}{
		{"clean acks=all", result.Verification{Acks: "all", Idempotent: true, Acked: 10}, true, "", ""},
		{"lost with acks=all fails", result.Verification{Acks: "all", Lost: 3}, false, "", "3 acknowledged records lost with acks=all"},
		{"lost with acks=1 is allowed", result.Verification{Acks: "1", Lost: 3}, true, "acks=1 acknowledges before replication", ""},
		{"duplicates with idempotence fail", result.Verification{Acks: "all", Idempotent: true, Duplicated: 2}, false, "", "2 duplicated with idempotence on"},
		{"reordering with idempotence fails", result.Verification{Acks: "all", Idempotent: true, OutOfOrder: 1}, false, "", "1 out of order"},
		{"duplicates without idempotence", result.Verification{Acks: "1", Duplicated: 2, OutOfOrder: 1}, true, "allowed with idempotence off", ""},
		{"unacknowledged never fails", result.Verification{Acks: "all", Idempotent: true, Unacknowledged: 4}, true, "4 records were written although their send failed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			judgeVerification(&v)
			if v.Passed != tt.passed || !strings.Contains(v.Note, tt.noteHas) {
				t.Fatalf("passed %v, note %q; want %v and a note with %q", v.Passed, v.Note, tt.passed, tt.noteHas)
			}
			if tt.problemHas != "" && !strings.Contains(verificationProblem(v), tt.problemHas) {
				t.Errorf("problem %q, want %q", verificationProblem(v), tt.problemHas)
			}
		})
	}
}

// TestFaultGaps: each acknowledgement gap goes to the first fault that
// happened during it; a resume or heal takes none.
func TestFaultGaps(t *testing.T) {
	s := time.Second
	d := func(x time.Duration) *time.Duration { return &x }
	frs := []timeline.Result{
		// Gaps as the timeline sets it from each kind's effect.
		{Name: "k", Action: faults.Kill, Broker: 2, At: 10 * s, Gaps: true, Election: d(3 * s), Status: timeline.StatusDone,
			Affected: []timeline.Moved{{Topic: "t", Partition: 0, From: 2, To: 1}}},
		{Action: faults.Pause, Broker: 1, At: 30 * s, Gaps: true, Status: timeline.StatusDone},
		{Action: faults.Resume, Broker: 1, At: 32 * s, Status: timeline.StatusDone},
		{Name: "heal", Action: faults.Restart, Broker: 2, At: 50 * s, ISRRecovered: d(4 * s), Status: timeline.StatusDone},
	}
	// Acknowledgements every 10 ms within these spans, none between.
	l := verify.New(false)
	for p, spans := range map[int32][][2]time.Duration{
		0: {{0, 9900 * time.Millisecond}, {14 * s, 29 * s}, {29*s + 300*time.Millisecond, 30 * s}, {40 * s, 60 * s}},
		1: {{0, 10 * s}, {12 * s, 60 * s}},
	} {
		for _, sp := range spans {
			for at := sp[0]; at <= sp[1]; at += 10 * time.Millisecond {
				l.AckAt(p, at)
			}
		}
	}
	tr := &tracked{topic: "t", ledger: l}
	out := faultResults(frs, []*tracked{tr}, 60*s)
	kill, pause, resume, heal := out[0], out[1], out[2], out[3]
	if kill.UnavailableMs == nil || *kill.UnavailableMs != 4100 || kill.ElectionMs == nil || *kill.ElectionMs != 3000 {
		t.Errorf("kill: unavailable %v, election %v; want 4100 and 3000", kill.UnavailableMs, kill.ElectionMs)
	}
	if len(kill.Partitions) != 2 || kill.Partitions[0].From != 2 || *kill.Partitions[0].UnavailableMs != 4100 || kill.Partitions[1].Partition != 1 || kill.Partitions[1].From != -1 {
		t.Errorf("kill partitions %+v; want the led partition 0 and the follower-side gap of partition 1", kill.Partitions)
	}
	if pause.UnavailableMs == nil || *pause.UnavailableMs != 10000 {
		t.Errorf("pause: unavailable %v, want 10000 (the 300 ms gap before it is not its)", pause.UnavailableMs)
	}
	if resume.UnavailableMs != nil || heal.UnavailableMs != nil || heal.ISRRecoveredMs == nil || *heal.ISRRecoveredMs != 4000 {
		t.Errorf("resume %+v, heal %+v", resume, heal)
	}
}

// TestHealContext: regression: a second Ctrl-C during the heal after the
// workloads waited for it past the exit's grace, and nothing was written.
// The heal outlives the first Ctrl-C (ctx) but not the second (abort).
func TestHealContext(t *testing.T) {
	t.Parallel()
	ctx, interrupt := context.WithCancel(context.Background())
	abort, stopWaits := context.WithCancel(context.Background())
	hctx, cancel := healContext(ctx, abort)
	defer cancel()
	interrupt()
	if hctx.Err() != nil {
		t.Fatal("the first Ctrl-C ended the heal")
	}
	if d, ok := hctx.Deadline(); !ok || time.Until(d) > healTimeout {
		t.Errorf("deadline %v (%v); want within %v", d, ok, healTimeout)
	}
	stopWaits()
	select {
	case <-hctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the second Ctrl-C did not end the heal")
	}
	if h, c := healContext(context.Background(), nil); h.Err() != nil {
		t.Error("no abort: the heal ended at once")
	} else {
		c()
	}
}
