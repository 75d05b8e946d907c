package sizing

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestWriteTextGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden string
		input  func(t *testing.T) Input
	}{
		{"seed002.golden", seedInput},
		{"measured.golden", func(t *testing.T) Input {
			in := seedInput(t)
			in.Consumers = 2
			in.Headroom = Headroom{Text: "30%", Fraction: 0.3}
			in.Measured = Measured{
				Producer: &PartitionRate{RecordsPerSec: 2000, From: "median of 3 producer-perf-test results"},
				Consumer: &PartitionRate{RecordsPerSec: 3000, From: "--partition-consumer-rate 3000/s"},
				Sources: []Source{
					{Path: "results/p1.json", Kind: "producer-perf-test", Partitions: 1, RecordsPerSec: 2000, RecordBytes: 2500, SteadyState: true},
					{Path: "results/p2.json", Kind: "producer-perf-test", Partitions: 2, RecordsPerSec: 3000, RecordBytes: 2500},
					{Path: "results/p3.json", Kind: "producer-perf-test", Partitions: 1, RecordsPerSec: 2500, RecordBytes: 100, TargetRate: 2500},
					{Path: "results/c1.json", Kind: "consumer-perf-test", Partitions: 1, RecordsPerSec: 2650, RecordBytes: 2500, Skipped: "replaced by --partition-consumer-rate 3000/s"},
					{Path: "results/e2e.json", Kind: "end-to-end-latency", Skipped: "end-to-end-latency measures latency, not per-partition throughput"},
				},
			}
			return in
		}},
		{"small.golden", func(t *testing.T) Input {
			return Input{
				Rate:        Rate{Text: "6000/min", PerSec: 100},
				RecordSize:  Size{Text: "1KiB", Bytes: 1024, Unit: "KiB"},
				Retention:   Duration{Text: "1h", Seconds: 3600},
				Replication: 1, Brokers: 1, Consumers: 0,
				Measured: Measured{Consumer: &PartitionRate{RecordsPerSec: 30, From: "--partition-consumer-rate 30/s"}},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			e, err := Compute(tt.input(t))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteText(&buf, e); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tt.golden), buf.Bytes())
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run go test -update after checking it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// errWriter fails every write, as a closed pipe does.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteTextReportsWriteError(t *testing.T) {
	t.Parallel()
	e, err := Compute(seedInput(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteText(errWriter{}, e); err == nil {
		t.Fatal("WriteText to a failing writer returned nil")
	}
}
