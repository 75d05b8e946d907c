package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/userr"
)

// richDoc is a plan run of two scenarios with every kind of section a
// result holds: repeats of a producer and a consumer with their series,
// steady state, faults, verification, the process, an aggregate, and a
// scenario known only by its aggregate.
func richDoc(t testing.TB) *Document {
	t.Helper()
	rep := newRun(7, 3000, 12).repeat(t)
	rep2 := newRun(8, 2500, 12).repeat(t)
	rep2.Index = 3
	election, unavailable := 812.5, 1304.0
	rep.Faults = []Fault{{Name: "kill", Action: "kill", Target: "leader", Broker: 1, AtSeconds: 4, ActionMs: 12,
		ElectionMs: &election, UnavailableMs: &unavailable, Status: "done",
		Partitions: []FaultPartition{{Topic: "t", Partition: 0, From: 1, To: 2, UnavailableMs: &unavailable}}}}
	rep.Verification = []Verification{{Workload: "load", Topic: "t", Acks: "all", Acked: 3000, Read: 3000, Passed: true,
		Partitions: []VerificationPartition{{Partition: 0, Acked: 3000}}, Unseen: []UnseenPoint{{Seconds: 1, Unseen: 3, Acked: 10}}}}
	rep.Process = &Process{CPUSeconds: 1.5, PeakGoroutines: 40, PeakRSSBytes: 50 << 20}
	rep.Workloads[1].Consumer.Lag = []LagPoint{{ElapsedSeconds: 1, Records: 12}}
	rep.Workloads[0].Config = map[string]string{"acks": "all", "linger.ms": "5"}
	sc := Scenario{Index: 1, Name: "acks=all", Params: []Param{{Name: "acks", Value: "all"}}, Repeats: []Repeat{rep, rep2}}
	if err := AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	old := Scenario{Index: 2, Name: "acks=1", Aggregate: &Aggregate{Repeats: 2, Records: Describe([]float64{10, 12}), RecordsPerSec: Describe([]float64{5, 6})}}
	doc := New(KindPlan, "test", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), map[string]string{"bootstrap.servers": "b:9092"})
	doc.Status, doc.EndedAt = StatusOK, doc.StartedAt.Add(time.Minute)
	doc.Plan = &PlanRun{Name: "study", Parameters: []string{"acks"}, Repeat: 2, Seed: 42, PlanYAML: "name: study\n",
		Environment: &Environment{Cluster: "local", CPUs: 2, GoMaxProcs: 2}, Scenarios: []Scenario{sc, old}}
	return doc
}

// TestDecodeAsUnmarshal: the streaming decoder reads a document exactly as
// encoding/json's Unmarshal does: kbench's own documents (v1 and v2, a
// drop-in's), members of other case, unknown members (a newer kbench's)
// and nulls.
func TestDecodeAsUnmarshal(t *testing.T) {
	t.Parallel()
	rich, err := json.MarshalIndent(richDoc(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	v1, err := os.ReadFile("testdata/v1-result.json")
	if err != nil {
		t.Fatal(err)
	}
	dropIn, err := json.Marshal(&Document{Schema: Schema, Kind: KindProducerPerf, Producer: &Producer{Records: 3, Latency: *latencyOf(t, 1, 2, 3)},
		EndToEnd: latencyOf(t, 5), Consumer: &Consumer{Records: 2, Errors: map[string]int64{"x": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text []byte
	}{
		{"v2 plan", rich},
		{"v1 plan", v1},
		{"drop-in", dropIn},
		{"other case", bytes.ReplaceAll(rich, []byte(`"records_per_sec"`), []byte(`"Records_Per_Sec"`))},
		{"unknown members", bytes.Replace(rich, []byte(`"plan": {`), []byte(`"future": {"a": [1, {"b": null}, "c"], "d": {}}, "plan": {"more": [[]],`), 1)},
		{"a member twice", bytes.Replace(rich, []byte(`"intervals": [`), []byte(`"intervals": [{"records": 7, "final": true}, {"bytes": 1}], "intervals": [`), 1)},
		{"nulls", bytes.Replace(bytes.ReplaceAll(rich, []byte(`"params": [`), []byte(`"params": null, "x": [`)), []byte(`"config": {`), []byte(`"config": null, "y": {`), 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want Document
			if err := json.Unmarshal(tt.text, &want); err != nil {
				t.Fatal(err)
			}
			got, err := decode(bytes.NewReader(tt.text), "r.json", readLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("decoded differently from json.Unmarshal:\n%+v\nwant\n%+v", got.Plan, want.Plan)
			}
		})
	}
}

// FuzzDecode: whatever both read, the streaming decoder reads as
// json.Unmarshal does, and it never panics.
func FuzzDecode(f *testing.F) {
	for _, doc := range []*Document{richDoc(f), planDoc(f)} {
		b, err := json.Marshal(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"plan":{"scenarios":[{"repeats":[{"workloads":[{"producer":{"records_per_sec":NaN}}]}]}]}}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		got, err := decode(bytes.NewReader(text), "f.json", limits{file: 1 << 20, value: 1 << 16, kept: 1 << 20})
		var want Document
		if err != nil || json.Unmarshal(text, &want) != nil {
			return
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("decoded differently from json.Unmarshal")
		}
	})
}

// fifo makes a FIFO at path fed with head, then body forever, until the
// reader goes.
func fifo(t *testing.T, path, head, body string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{}, 1) // (close is a helper of this package's tests)
	go func() {
		defer func() { done <- struct{}{} }()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		if _, err := f.WriteString(head); err != nil {
			return
		}
		buf := []byte(strings.Repeat(body, max(1, 64<<10/len(body))))
		for {
			if _, err := f.Write(buf); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		// A reader that never came: open (and close) the other end so
		// the writer's open returns and its write fails.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		<-done
	})
}

// peakHeap runs f and returns the most heap it saw in use above what was
// in use before, sampled every millisecond.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var peak atomic.Uint64
	stop, done := make(chan struct{}, 1), make(chan struct{}, 1)
	go func() {
		defer func() { done <- struct{}{} }()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	stop <- struct{}{}
	<-done
	return peak.Load()
}

// TestReadEndlessDocuments: regression: kbench report and compare on a
// FIFO of endless valid JSON grew to 2 GB with no message: the decoder
// held the whole text before decoding it, and what it decoded was not
// bounded. Each endless document now fails at a bound, with the file, the
// field, the byte and the bound in the message, as the user's error, its
// memory within a few times the bounds (shrunk here). Not parallel: it
// measures the heap.
func TestReadEndlessDocuments(t *testing.T) {
	const head = `{"schema": "kbench.result/v2", "kind": "plan", `
	lim := limits{file: 16 << 20, value: 1 << 20, kept: 4 << 20}
	tests := []struct {
		name       string
		head, body string
		want       []string
	}{
		{"intervals", head + `"producer": {"intervals": [{}`, `, {"records": 1}`,
			[]string{"producer.intervals[", "more than 4 MiB once decoded, the most kbench keeps of a result document"}},
		{"a string", head + `"error": "`, "x",
			[]string{fmt.Sprintf("error at byte %d: a single value longer than 1 MiB, the most kbench decodes at once", len(head)+len(`"error": `))}},
		{"a map", head + `"config": {"a": "b"`, `, "a": "b"`,
			[]string{`config["a"]`, "more than 4 MiB once decoded"}},
		{"an unknown member", head + `"future": [0`, ", 0",
			[]string{"is larger than 16 MiB, the most kbench reads for a result document"}},
		{"nested arrays", head + `"plan": {"scenarios": [{"repeats": [`, `{"workloads": [{"name": "w"}]}, `,
			[]string{"plan.scenarios[0].repeats[", "once decoded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "result.json")
			fifo(t, path, tt.head, tt.body)
			var err error
			peak := peakHeap(func() { _, err = read(path, lim) })
			if !errors.Is(err, infile.ErrTooLarge) || !userr.Is(err) {
				t.Fatalf("err = %v, want the user's ErrTooLarge", err)
			}
			for _, w := range append(tt.want, path, "is it the right file?") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			t.Logf("heap in use reached %d KiB", peak>>10)
			if most := uint64(4 * (lim.kept + lim.value + readChunk)); peak > most {
				t.Errorf("heap in use reached %d KiB, want under %d KiB", peak>>10, most>>10)
			}
		})
	}
}

// TestReadLargeDocument: regression: a 137 MB result (an 11-day soak's
// intervals) took 1.47 GB to report, 10.7 times the file: the decoder's
// buffer (grown by doubling), the document, and a histogram built for
// every interval to check it (here 187 MB for a 33 MB file). Reading
// holds about what it keeps (14 MB), twice that at most while it grows.
func TestReadLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB result")
	}
	doc := richDoc(t)
	rep := newRun(9, 400_000, 20_000).repeat(t)
	doc.Plan.Scenarios[0].Repeats = append(doc.Plan.Scenarios[0].Repeats, rep)
	path := filepath.Join(t.TempDir(), "result.json")
	if err := Write(path, doc); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var got *Document
	peak := peakHeap(func() { got, err = Read(path) })
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Plan.Scenarios[0].Repeats[2].Workloads[0].Producer.Intervals); n != 20_000 {
		t.Fatalf("%d intervals read, want 20000", n)
	}
	t.Logf("%d MB file: heap in use reached %d MB", fi.Size()>>20, peak>>20)
	if most := uint64(fi.Size()) * 3 / 2; peak > most {
		t.Errorf("heap in use reached %d MB reading a %d MB file, want under %d MB", peak>>20, fi.Size()>>20, most>>20)
	}
}

// TestReadRefusesALargeFileBySize: regression: a 1.37 GB result was
// refused as larger than 1 GiB only after 3.1 GB were resident. A regular
// file over the bound is refused before it is read.
func TestReadRefusesALargeFileBySize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "result.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: its size without its bytes. Read past the bound, it would
	// still fail, at the bound.
	if _, err := f.WriteString(`{"schema": "kbench.result/v2", "error": "`); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(path)
	want := fmt.Sprintf("%s is larger than 1 GiB, the most kbench reads for a result document", path)
	if !errors.Is(err, infile.ErrTooLarge) || !userr.Is(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
