package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Point is one sample of the unseen series: at a time since the run's
// start, how many acknowledged records the live reader had not read.
type Point struct {
	At     time.Duration
	Unseen int64
	Acked  int64
}

// MaxPoints bounds the series: at it, neighbouring samples merge (the
// larger count kept), so a day-long run keeps no more than a short one;
// the older part of a long series is the coarser.
const MaxPoints = 4096

// Reader reads a topic while the run goes on and marks what it sees in the
// ledger, sampling Unseen every interval.
type Reader struct {
	cl     *kgo.Client
	ledger *Ledger
	start  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	points []Point
}

// StartReader starts reading topic from its start. opts are the client's
// connection options (bootstrap servers, security).
func StartReader(ctx context.Context, l *Ledger, opts []kgo.Opt, topic string, every time.Duration) (*Reader, error) {
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		kgo.ConsumeTopics(topic),
		// Both: the reset offset is what a fresh partition starts at when
		// the start offset is out of range, and a latest reset would skip
		// everything written before the reader joined.
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond),
		kgo.ClientID("kbench-verify-live"),
	)...)
	if err != nil {
		return nil, fmt.Errorf("verification reader: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Reader{cl: cl, ledger: l, start: time.Now(), cancel: cancel}
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachRecord(func(rec *kgo.Record) {
				if id, err := l.identify(rec); err == nil {
					l.seeLive(id)
				}
			})
		}
	}()
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				r.sample(r.now())
			}
		}
	}()
	return r, nil
}

func (r *Reader) now() Point {
	return Point{At: time.Since(r.start), Unseen: r.ledger.Unseen(), Acked: r.ledger.Acked()}
}

func (r *Reader) sample(p Point) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.points = append(r.points, p)
	if len(r.points) >= MaxPoints {
		r.points = mergePoints(r.points)
	}
}

// mergePoints halves a series: each pair becomes its later time with the
// larger unseen count (the peak is what the chart must not lose).
func mergePoints(ps []Point) []Point {
	out := ps[:0]
	for i := 0; i < len(ps); i += 2 {
		p := ps[i]
		if i+1 < len(ps) {
			q := ps[i+1]
			p.At, p.Acked = q.At, q.Acked
			p.Unseen = max(p.Unseen, q.Unseen)
		}
		out = append(out, p)
	}
	return out
}

// Stop ends the reader and returns the series, which ends with a sample
// taken at the stop: a run shorter than one interval still has its end.
func (r *Reader) Stop() []Point {
	r.cancel()
	r.wg.Wait()
	r.cl.Close()
	r.sample(r.now())
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Point(nil), r.points...)
}
