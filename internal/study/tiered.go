package study

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/plan"
)

// remoteSayEvery is how often a wait for the remote tier says where the
// topic's records are.
const remoteSayEvery = 5 * time.Second

// remoteGate is a consume workload's wait_for: remote: it waits, at most
// plan.RemoteWait, until every partition of topic holding records has its
// oldest records only in the remote tier, saying so on progress as it
// waits and when it ends.
func remoteGate(admin []kgo.Opt, name, topic string, progress io.Writer) func(context.Context) error {
	if progress == nil {
		progress = io.Discard
	}
	return func(ctx context.Context) error {
		start := time.Now()
		fmt.Fprintf(progress, "kbench: %s: waiting up to %s until topic %s's oldest records are only in the remote tier\n", name, plan.RemoteWait, topic)
		t, err := kadmin.WaitRemote(ctx, admin, topic, plan.RemoteWait, remoteSayEvery, func(t kadmin.Tiers) {
			if !t.Done() {
				fmt.Fprintf(progress, "kbench: %s: topic %s: %s\n", name, topic, t)
			}
		})
		if err != nil {
			return fmt.Errorf("wait_for: remote: %w", err)
		}
		fmt.Fprintf(progress, "kbench: %s: topic %s: %s after %s; reading from the start\n", name, topic, t, time.Since(start).Round(100*time.Millisecond))
		return nil
	}
}
