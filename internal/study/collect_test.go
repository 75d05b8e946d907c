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

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/result"
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
