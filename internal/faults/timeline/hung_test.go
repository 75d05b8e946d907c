package timeline

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/faults"
)

// hungBroker accepts connections and reads requests, and never answers,
// as a paused broker does; asked is told of each connection's first
// request, once it has arrived.
func hungBroker(t *testing.T) (addr string, asked <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 64)
	var conns []net.Conn
	var readers sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			readers.Add(1)
			go func() {
				defer readers.Done()
				if _, err := c.Read(make([]byte, 1)); err == nil {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
		readers.Wait()
	})
	return ln.Addr().String(), ch
}

// TestTimelineReturnsFromAHungBroker: regression: the timeline's metadata
// requests waited on franz-go, which notices a cancelled context only
// between the steps of a request: with a paused broker, an interrupted
// run's timeline went on finding a leader, and Finish waited for it.
// Every request now returns when its context ends.
func TestTimelineReturnsFromAHungBroker(t *testing.T) {
	addr, asked := hungBroker(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tl, err := Start(ctx, Config{
		Admin: []kgo.Opt{kgo.SeedBrokers(addr)}, Topics: []string{"t"}, Actor: newEventActor(nil), Poll: time.Hour,
		Faults: []faults.Fault{{Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}}},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	<-asked // the request for the leader waits on the broker's answer
	began := time.Now()
	cancel()
	<-tl.done
	tl.Finish(context.Background())
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the timeline took %s to end after its context did; want it at once", took.Round(time.Millisecond))
	}
}
