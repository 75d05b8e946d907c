// Package kfakehold holds requests inside kfake control functions, as a
// stalled or silent broker does, and closes the cluster only once every
// held request has returned. It is imported by tests only.
//
// kfake's Close does not wait for a control function that is entering its
// sleep as the cluster dies: the function's goroutine can take the control
// lock that kfake's run loop needs next, and the loop stays blocked for
// good (goleak found it in CI, once a test ended with a broker made silent).
// So a test that holds requests ends in three steps: no new holds, the held
// ones released, the cluster closed once each has returned.
package kfakehold

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Holder holds the requests of one cluster.
type Holder struct {
	c       *kfake.Cluster
	mu      sync.Mutex
	closing bool
	held    sync.WaitGroup
	release chan struct{}
}

// New returns c's holder and closes c when t ends; a test that uses it
// does not close c itself.
func New(t testing.TB, c *kfake.Cluster) *Holder {
	h := &Holder{c: c, release: make(chan struct{})}
	t.Cleanup(func() {
		h.mu.Lock()
		h.closing = true
		h.mu.Unlock()
		close(h.release)
		returned := make(chan struct{})
		go func() { h.held.Wait(); close(returned) }()
		select {
		case <-returned:
		case <-time.After(time.Minute):
			t.Error("kfakehold: held requests did not return within a minute of their release")
		}
		c.Close()
	})
	return h
}

// For holds the request being controlled for d, or until the test ends.
// Call it from a control function only.
func (h *Holder) For(d time.Duration) {
	h.hold(func() {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-h.release:
		}
	})
}

// UntilEnd holds the request being controlled until the test ends, as a
// broker that stopped answering does. Call it from a control function only.
func (h *Holder) UntilEnd() { h.hold(func() { <-h.release }) }

func (h *Holder) hold(wait func()) {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return
	}
	h.held.Add(1)
	h.mu.Unlock()
	defer h.held.Done()
	h.c.SleepControl(wait)
}

// ProduceCluster is an in-process one-broker cluster with topic "t" of one
// partition whose produce requests go through control, given the holder
// and the request's count (nil: answered normally); it is closed when t
// ends. It returns the cluster's addresses.
func ProduceCluster(t testing.TB, control func(hold *Holder, n int64, req kmsg.Request) (kmsg.Response, error, bool)) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := New(t, c)
	var n atomic.Int64
	if control != nil {
		c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return control(hold, n.Add(1), req)
		})
	}
	return c.ListenAddrs()
}
