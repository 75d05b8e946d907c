package engine

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// CloseBounded closes a client, waiting at most limit: with a broker
// paused, closing can wait on requests that never end.
func CloseBounded(cl *kgo.Client, limit time.Duration) {
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
	CloseBound          = 5 * time.Second
	InterruptCloseBound = 2 * time.Second
)

// AdminTimeout bounds each admin request of a consumer run, so that a
// broker that stops answering fails the step instead of hanging it.
const AdminTimeout = 15 * time.Second
