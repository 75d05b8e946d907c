package study

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// TestCollectKeepsTheRunsTimes guards kbench collect's times: its
// result.json's ended_at and its default folder's name were the collect's
// time (result.Document.Finish's now, the folder opened now), not the
// run's, which may have ended days before.
func TestCollectKeepsTheRunsTimes(t *testing.T) {
	const runID = "r1"
	_, results := coord.Topics(runID)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, results))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	header := result.New(result.KindPlan, "test", started, nil)
	header.Plan = &result.PlanRun{Name: "collected", Repeat: 1, PlanYAML: `name: collected
workloads:
  - name: p
    type: produce
    topic: t
    records: 10
    message: {size: 100}
`}
	slice := sliceDoc{Repeat: result.Repeat{Index: 1, Status: result.StatusOK, StartedAt: started.Add(time.Second), EndedAt: started.Add(11 * time.Second)}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for key, v := range map[string]any{headerName + "/0": header, sliceName(1, 1) + "/0": slice} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: results, Key: []byte(key), Value: data}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	doc, p, err := Collect(ctx, strings.Join(c.ListenAddrs(), ","), nil, runID, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := started.Add(11 * time.Second); !doc.EndedAt.Equal(want) || !doc.StartedAt.Equal(started) {
		t.Errorf("started_at %v, ended_at %v; want the run's, %v and %v (its last repeat's end)", doc.StartedAt, doc.EndedAt, started, want)
	}
	t.Chdir(t.TempDir())
	f, err := OpenFolder(p, FolderOptions{Started: doc.StartedAt})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if want := filepath.Join("results", "collected-20260102T030405Z"); f.Dir != want {
		t.Errorf("folder %s, want %s: named after the run's start", f.Dir, want)
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "plan.yaml")); err != nil {
		t.Error(err)
	}
}

// produceTo writes records to topic, keyed key → value.
func produceTo(t *testing.T, addrs []string, topic string, recs ...[2]string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, kv := range recs {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: []byte(kv[0]), Value: []byte(kv[1])}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCollectSkipsDamagedRecords guards the hostile trial's junk records:
// one {"garbage":true} under a slice key made collect fail ("merge
// repeats: worker 1 ran repeat 0, worker 0 repeat 1"), and one under the
// header's key printed "its header is not a kbench run's: <nil>". Each is
// skipped and named by its offset.
func TestCollectSkipsDamagedRecords(t *testing.T) {
	const runID, only = "junk", "junk-header"
	_, results := coord.Topics(runID)
	_, onlyResults := coord.Topics(only)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, results, onlyResults))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	header := result.New(result.KindPlan, "test", started, nil)
	header.Plan = &result.PlanRun{Name: "junk", Repeat: 1, Distributed: &result.Distributed{RunID: runID, Workers: 2}, PlanYAML: `name: junk
workloads:
  - name: p
    type: produce
    topic: t
    records: 10
    message: {size: 100}
`}
	slice := func(k int) string {
		return jsonOf(t, sliceDoc{Worker: k, Repeat: result.Repeat{Index: 1, Status: result.StatusOK, StartedAt: started, EndedAt: started.Add(time.Second)}})
	}
	produceTo(t, c.ListenAddrs(), results,
		[2]string{headerName + "/0", `{"garbage":true}`}, // offset 0
		[2]string{headerName + "/0", jsonOf(t, header)},
		[2]string{sliceName(1, 1) + "/0", slice(0)},
		[2]string{sliceName(1, 1) + "/1", slice(1)},
		[2]string{sliceName(1, 1) + "/1", `{"garbage":true}`}, // offset 4
		[2]string{"no key of ours", "x"},                      // offset 5
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var log strings.Builder
	doc, _, err := Collect(ctx, strings.Join(c.ListenAddrs(), ","), nil, runID, &log)
	if err != nil {
		t.Fatalf("collect: %v\n%s", err, log.String())
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || rep.Workers != 2 {
		t.Errorf("repeat: %s (%s) from %d workers; want ok from 2, the junk skipped", rep.Status, rep.Error, rep.Workers)
	}
	for _, want := range []string{"offset 0 of " + results + ": not a kbench run's header", "offset 4 of " + results + ": a second result slice s1.r1 of worker 1", "offset 5: its key"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("collect's lines do not say %q:\n%s", want, log.String())
		}
	}

	// Only junk under the header's key: an error that says so, never a
	// Go nil.
	results = onlyResults
	produceTo(t, c.ListenAddrs(), results, [2]string{headerName + "/0", `{"garbage":true}`})
	log.Reset()
	_, _, err = Collect(ctx, strings.Join(c.ListenAddrs(), ","), nil, only, &log)
	if err == nil || strings.Contains(err.Error()+log.String(), "<nil>") || !strings.Contains(log.String(), "offset 0 of "+results) {
		t.Errorf("collect of a junk header: %v\n%s", err, log.String())
	}
}

// TestCollectCreatesNothing guards kbench collect of an unknown run id:
// on a broker that auto-creates topics (Kafka's default) its own fetch
// created the results topic and then said the topic did not exist, and a
// second collect gave another cause. A run id that is no topic name's was
// sent to the broker (INVALID_TOPIC_EXCEPTION).
func TestCollectCreatesNothing(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bootstrap := strings.Join(c.ListenAddrs(), ",")
	for range 2 {
		_, _, err := Collect(ctx, bootstrap, nil, "unknown-run", io.Discard)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), `run "unknown-run" has no results topic`) {
			t.Fatalf("collect of an unknown run: %v", err)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	topics, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := topics.Names(); len(names) != 0 {
		t.Errorf("collect created %v", names)
	}
	if _, _, err := Collect(ctx, bootstrap, nil, "../x", io.Discard); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), `run id "../x": use letters`) {
		t.Errorf("collect ../x: %v", err)
	}
}
