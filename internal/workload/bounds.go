package workload

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// closeBounded closes a client, waiting at most limit: with a broker
// paused, closing can wait on requests that never end.
func closeBounded(cl *kgo.Client, limit time.Duration) {
	done := make(chan struct{})
	go func() { cl.Close(); close(done) }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Bounds of closing the clients at the end of a run: leaving the group
// normally takes milliseconds, and waiting for it lets the next run of the
// group join without waiting out this one's session; after Ctrl-C (the
// caller's context ended) the run ends sooner.
const (
	closeBound          = 5 * time.Second
	interruptCloseBound = 2 * time.Second
)

// adminTimeout bounds each admin request of a consumer run, so that a
// broker that stops answering fails the step instead of hanging it.
const adminTimeout = 15 * time.Second
