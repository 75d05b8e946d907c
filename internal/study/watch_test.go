package study

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestWatchGroupLag: a consumer group of "the system" reads the topic a
// plan writes; it stops consuming for 3 s mid-run. The watched lag rises
// while it stops and falls back after; each sample agrees, within one
// interval, with an independent read of the group's committed offsets.
func TestWatchGroupLag(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	group := topic + "-service"
	text := fmt.Sprintf(`name: watch
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - {name: w, type: produce, topic: %[2]s, rate: 2000/s, duration: 10s, message: {size: 100}}
watch: {groups: [%s]}
`, bootstrap, topic, group)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The system's service: consumes and commits every 200 ms, but not
	// from 4 s to 7 s after it first reads.
	app, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AutoCommitInterval(200*time.Millisecond), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	var paused atomic.Bool
	appCtx, stopApp := context.WithCancel(ctx)
	var appDone sync.WaitGroup
	appDone.Add(1)
	go func() {
		defer appDone.Done()
		var first time.Time
		for appCtx.Err() == nil {
			if !first.IsZero() {
				since := time.Since(first)
				paused.Store(since > 4*time.Second && since < 7*time.Second)
			}
			if paused.Load() {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			fs := app.PollFetches(appCtx)
			if fs.NumRecords() > 0 && first.IsZero() {
				first = time.Now()
			}
		}
	}()
	// The independent read: the group's lag from its committed offsets.
	adm := kadm.NewClient(app)
	type reading struct {
		at  time.Time
		lag int64
	}
	var readings []reading
	var readMu sync.Mutex
	readCtx, stopRead := context.WithCancel(ctx)
	var readDone sync.WaitGroup
	readDone.Add(1)
	go func() {
		defer readDone.Done()
		for readCtx.Err() == nil {
			if lags, err := adm.Lag(readCtx, group); err == nil {
				readMu.Lock()
				readings = append(readings, reading{time.Now(), lags[group].Lag.Total()})
				readMu.Unlock()
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()

	doc, err := Run(ctx, p, scs, Options{})
	stopApp()
	stopRead()
	appDone.Wait()
	readDone.Wait()
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if len(rep.Watched) != 1 || rep.Watched[0].Group != group || rep.Watched[0].Error != "" {
		t.Fatalf("watched %+v", rep.Watched)
	}
	w := rep.Watched[0]
	if len(w.Samples) < 8 {
		t.Fatalf("%d samples over a 10 s run, want one a second", len(w.Samples))
	}
	// The pause shows: 3 s at 2,000 records/s is about 6,000 behind.
	if w.MaxLag < 3000 {
		t.Errorf("max lag %d, want the 3 s pause to show (thousands)", w.MaxLag)
	}
	if last := w.Samples[len(w.Samples)-1].Records; last > w.MaxLag/4 {
		t.Errorf("last lag %d of a peak %d: the group's catching up does not show", last, w.MaxLag)
	}
	// Each sample within one interval of the independent reading.
	for _, s := range w.Samples {
		at := rep.StartedAt.Add(time.Duration(s.ElapsedSeconds * float64(time.Second)))
		readMu.Lock()
		lo, hi, n := int64(1<<62), int64(-1), 0
		for _, r := range readings {
			if r.at.After(at.Add(-time.Second)) && r.at.Before(at.Add(time.Second)) {
				lo, hi, n = min(lo, r.lag), max(hi, r.lag), n+1
			}
		}
		readMu.Unlock()
		// 2,000 records/s: one interval moves the lag by 2,000 at most.
		if n > 0 && (s.Records < lo-2000 || s.Records > hi+2000) {
			t.Errorf("at %.1f s the watch read %d, the independent reads within a second %d to %d", s.ElapsedSeconds, s.Records, lo, hi)
		}
	}
}
