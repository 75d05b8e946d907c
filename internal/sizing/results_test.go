package sizing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// producerDoc is a producer-perf-test result over partitions partitions.
func producerDoc(partitions int, recPerSec float64) *result.Document {
	return &result.Document{
		Kind: result.KindProducerPerf, Status: result.StatusOK,
		Topic: &result.Topic{Name: "size-1p", Partitions: partitions},
		Producer: &result.Producer{
			Clients: 1, Records: 1000000, Bytes: 2500000000, DurationSeconds: 1000000 / recPerSec, RecordsPerSec: recPerSec,
			MiBPerSec: recPerSec * 2500 / (1 << 20),
		},
	}
}

// consumerDoc is a consumer-perf-test result over partitions partitions.
func consumerDoc(partitions int, recPerSec float64) *result.Document {
	return &result.Document{
		Kind: result.KindConsumerPerf, Status: result.StatusOK,
		Topic: &result.Topic{Name: "size-1p", Partitions: partitions},
		Consumer: &result.Consumer{
			Clients: 1, Records: 1000000, Bytes: 2500000000, DurationSeconds: 1000000 / recPerSec, RecordsPerSec: recPerSec,
			MiBPerSec: recPerSec * 2500 / (1 << 20),
		},
	}
}

// writeDocs writes each document to dir under its name and returns dir.
func writeDocs(t *testing.T, docs map[string]*result.Document) string {
	t.Helper()
	dir := t.TempDir()
	for name, d := range docs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := result.Write(p, d); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFromResults(t *testing.T) {
	t.Parallel()
	failed := producerDoc(1, 1)
	failed.Status = result.StatusFailed
	steady := producerDoc(2, 80000)
	steady.Producer.SteadyState = &result.Producer{RecordsPerSec: 100000, Records: 10, Bytes: 25000, DurationSeconds: 0.0001, MiBPerSec: 25000 / 0.0001 / (1 << 20)}
	e2e := &result.Document{Kind: result.KindEndToEnd, Status: result.StatusOK, Topic: &result.Topic{Partitions: 1}}
	tests := []struct {
		name         string
		docs         map[string]*result.Document
		paths        []string // relative to the folder; nil for the folder itself
		wantProducer float64  // per partition; 0 for none
		wantConsumer float64
		wantFrom     string // Producer.From, or Consumer.From when no producer
		wantUsed     int
	}{
		{
			name:         "one of each",
			docs:         map[string]*result.Document{"p.json": producerDoc(1, 50000), "c.json": consumerDoc(1, 2500)},
			paths:        []string{"p.json", "c.json"},
			wantProducer: 50000, wantConsumer: 2500, wantFrom: "1 producer-perf-test result", wantUsed: 2,
		},
		{
			name: "folder, median of three, divided by partitions",
			docs: map[string]*result.Document{
				"run1/p.json": producerDoc(4, 160000), // 40,000 per partition
				"run2/p.json": producerDoc(1, 60000),
				"run3/p.json": producerDoc(2, 100000), // 50,000: the median
				"notes.txt":   producerDoc(1, 1),      // not *.json: not read
			},
			wantProducer: 50000, wantFrom: "median of 3 producer-perf-test results", wantUsed: 3,
		},
		{
			name:         "even count averages the middle two",
			docs:         map[string]*result.Document{"a.json": consumerDoc(1, 2000), "b.json": consumerDoc(1, 3000)},
			wantConsumer: 2500, wantFrom: "median of 2 consumer-perf-test results", wantUsed: 2,
		},
		{
			name:         "failed and end-to-end runs are skipped",
			docs:         map[string]*result.Document{"bad.json": failed, "e2e.json": e2e, "c.json": consumerDoc(1, 2650)},
			wantConsumer: 2650, wantFrom: "1 consumer-perf-test result", wantUsed: 1,
		},
		{
			name:         "steady state preferred",
			docs:         map[string]*result.Document{"p.json": steady},
			wantProducer: 50000, wantFrom: "1 producer-perf-test result", wantUsed: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeDocs(t, tt.docs)
			paths := []string{dir}
			if tt.paths != nil {
				paths = nil
				for _, p := range tt.paths {
					paths = append(paths, filepath.Join(dir, p))
				}
			}
			m, err := FromResults(paths)
			if err != nil {
				t.Fatal(err)
			}
			if got := rateOf(m.Producer); got != tt.wantProducer {
				t.Errorf("producer per partition = %v, want %v", got, tt.wantProducer)
			}
			if got := rateOf(m.Consumer); got != tt.wantConsumer {
				t.Errorf("consumer per partition = %v, want %v", got, tt.wantConsumer)
			}
			from := m.Consumer
			if m.Producer != nil {
				from = m.Producer
			}
			if from.From != tt.wantFrom {
				t.Errorf("from = %q, want %q", from.From, tt.wantFrom)
			}
			used := 0
			for _, s := range m.Sources {
				if s.Skipped == "" {
					used++
				}
			}
			if used != tt.wantUsed {
				t.Errorf("used %d documents, want %d: %+v", used, tt.wantUsed, m.Sources)
			}
		})
	}
}

func rateOf(r *PartitionRate) float64 {
	if r == nil {
		return 0
	}
	return r.RecordsPerSec
}

func TestFromResultsErrors(t *testing.T) {
	t.Parallel()
	noTopic := consumerDoc(1, 2500)
	noTopic.Topic = nil
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) string // returns the path to read
		wantErr []string
	}{
		{
			name: "zero partitions",
			setup: func(t *testing.T, dir string) string {
				return writeOne(t, dir, "zero.json", producerDoc(0, 50000))
			},
			wantErr: []string{"zero.json", "topic.partitions", "cannot be divided per partition"},
		},
		{
			name: "no topic",
			setup: func(t *testing.T, dir string) string {
				return writeOne(t, dir, "c.json", noTopic)
			},
			wantErr: []string{"c.json", "consumer-perf-test result does not say how many partitions"},
		},
		{
			name: "not a kbench result",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "other.json")
				if err := os.WriteFile(p, []byte(`{"hello": "world"}`), 0o644); err != nil {
					t.Fatal(err)
				}
				return dir // found by walking the folder
			},
			wantErr: []string{"other.json", "is not kbench.result"},
		},
		{
			name: "not JSON",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "broken.json")
				if err := os.WriteFile(p, []byte("ok 1000 records sent"), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			},
			wantErr: []string{"broken.json", "not a kbench result document"},
		},
		{
			name:    "missing file",
			setup:   func(t *testing.T, dir string) string { return filepath.Join(dir, "nope.json") },
			wantErr: []string{"nope.json", "no such file"},
		},
		{
			name:    "empty folder",
			setup:   func(t *testing.T, dir string) string { return dir },
			wantErr: []string{"no *.json result documents in folder"},
		},
		{
			name: "only unusable documents",
			setup: func(t *testing.T, dir string) string {
				d := producerDoc(1, 50000)
				d.Status = result.StatusFailed
				return writeOne(t, dir, "failed.json", d)
			},
			wantErr: []string{"no usable producer-perf-test or consumer-perf-test result", "failed.json (status \"failed\""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := FromResults([]string{tt.setup(t, t.TempDir())})
			checkErr(t, err, tt.wantErr[0])
			for _, w := range tt.wantErr[1:] {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func writeOne(t *testing.T, dir, name string, d *result.Document) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := result.Write(p, d); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOverride guards that a rate given by hand replaces the measured one
// and that the documents it replaces are listed as not used.
func TestOverride(t *testing.T) {
	t.Parallel()
	dir := writeDocs(t, map[string]*result.Document{"p.json": producerDoc(1, 50000), "c.json": consumerDoc(1, 2500)})
	m, err := FromResults([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	m.Override(result.KindConsumerPerf, &PartitionRate{RecordsPerSec: 2000, From: "--partition-consumer-rate 2000/s"})
	if m.Consumer.RecordsPerSec != 2000 || m.Producer.RecordsPerSec != 50000 {
		t.Fatalf("after override: producer %v, consumer %v", m.Producer, m.Consumer)
	}
	for _, s := range m.Sources {
		wantSkipped := s.Kind == result.KindConsumerPerf
		if (s.Skipped != "") != wantSkipped {
			t.Errorf("%s: skipped %q, want skipped %v", s.Path, s.Skipped, wantSkipped)
		}
	}
}
