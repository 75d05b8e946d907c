package coord

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestInterruptedWorkerZeroCleansUp guards the hostile trial's Ctrl-C of
// worker 0 while it waited for the others to join: the run's control and
// results topics were left behind, so the run id stayed taken. Worker 0,
// interrupted at any point of its join, deletes the run's topics when no
// other worker announced itself.
func TestInterruptedWorkerZeroCleansUp(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after time.Duration // how long worker 0 waits before Ctrl-C
	}{
		{"while reading the control topic", 0},
		{"while waiting for the others", time.Second},
		{"just after creating the topics", 20 * time.Millisecond},
		{"early", 100 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := fakeOpts(t)
			ctx, cancel := context.WithCancel(context.Background())
			if tt.after == 0 {
				cancel()
			} else {
				time.AfterFunc(tt.after, cancel)
			}
			_, err := Join(ctx, opts, run("cut", 2, 0), fast)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Join: %v; want it interrupted", err)
			}
			if left := runTopics(t, opts, "cut"); len(left) > 0 {
				t.Errorf("the interrupted worker 0 left the run's topics %v", left)
			}
		})
	}
}

// runTopics lists which of the run's topics exist.
func runTopics(t *testing.T, opts []kgo.Opt, id string) []string {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	control, results := Topics(id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	details, err := kadm.NewClient(cl).ListTopics(ctx, control, results)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range details {
		if d.Err == nil {
			out = append(out, d.Topic)
		}
	}
	return out
}
