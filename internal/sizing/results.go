package sizing

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// PartitionRate is the throughput one partition sustains, in records per
// second, and where that figure came from.
type PartitionRate struct {
	RecordsPerSec float64
	From          string // "--partition-consumer-rate 2500/s", "median of 3 producer-perf-test results"
}

// Measured is per-partition producer and consumer throughput, each nil when
// unknown, and the result documents read to get them.
type Measured struct {
	Producer *PartitionRate
	Consumer *PartitionRate
	Sources  []Source
}

// Source is one result document read by FromResults.
type Source struct {
	Path          string
	Kind          string
	Partitions    int
	RecordsPerSec float64 // the whole topic; the steady state when the run recorded one
	SteadyState   bool    // RecordsPerSec excludes warm-up
	RecordBytes   float64 // average record size measured; 0 when unknown
	TargetRate    float64 // the producer's rate limit in records/s; 0 when unlimited
	Skipped       string  // why the document was not used; "" when it was
}

// PerPartition is the document's throughput divided by its partitions.
func (s Source) PerPartition() float64 {
	if s.Partitions <= 0 {
		return 0
	}
	return s.RecordsPerSec / float64(s.Partitions)
}

// FromResults reads per-partition producer and consumer throughput from
// kbench result documents (the --json output of producer-perf-test and
// consumer-perf-test). Each path is a file or a folder, walked for *.json.
//
// Several documents of one kind are combined by their median: repeats of one
// test scatter, and the median ignores one lucky or unlucky run where the
// mean would not. Failed runs and end-to-end results are listed but skipped.
// A file that is not a kbench result, or has no partition count, is an error
// naming it.
func FromResults(paths []string) (Measured, error) {
	files, err := resultFiles(paths)
	if err != nil {
		return Measured{}, err
	}
	var m Measured
	for _, f := range files {
		s, err := readSource(f)
		if err != nil {
			return Measured{}, err
		}
		m.Sources = append(m.Sources, s)
	}
	m.Producer = median(m.Sources, result.KindProducerPerf)
	m.Consumer = median(m.Sources, result.KindConsumerPerf)
	if m.Producer == nil && m.Consumer == nil {
		var why []string
		for _, s := range m.Sources {
			why = append(why, fmt.Sprintf("%s (%s)", s.Path, s.Skipped))
		}
		return Measured{}, userr.Errorf("no usable producer-perf-test or consumer-perf-test result among %s", strings.Join(why, ", "))
	}
	return m, nil
}

// Override replaces the measured rate of one kind (result.KindProducerPerf or
// result.KindConsumerPerf) with r, given by hand, and marks that kind's
// documents as not used.
func (m *Measured) Override(kind string, r *PartitionRate) {
	switch kind {
	case result.KindProducerPerf:
		m.Producer = r
	case result.KindConsumerPerf:
		m.Consumer = r
	}
	for i := range m.Sources {
		if m.Sources[i].Kind == kind && m.Sources[i].Skipped == "" {
			m.Sources[i].Skipped = "replaced by " + r.From
		}
	}
}

// resultFiles expands folders into their *.json files, keeping the order
// given and dropping repeats.
func resultFiles(paths []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, userr.Errorf("read results: %w", err)
		}
		if !info.IsDir() {
			add(p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".json") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, userr.Errorf("read results in %s: %w", p, err)
		}
		if len(found) == 0 {
			return nil, userr.Errorf("read results: no *.json result documents in folder %s", p)
		}
		for _, f := range found { // WalkDir visits in lexical order
			add(f)
		}
	}
	return files, nil
}

// readSource reads one document and says whether and how it can be used.
func readSource(path string) (Source, error) {
	doc, err := result.Read(path)
	if err != nil {
		// result.Read names the file; say what was expected instead.
		return Source{}, userr.Errorf("%w; expected the --json output of kbench producer-perf-test or consumer-perf-test", err)
	}
	s := Source{Path: path, Kind: doc.Kind}
	var records, bytes int64
	switch doc.Kind {
	case result.KindProducerPerf:
		if doc.Producer == nil {
			return Source{}, userr.Errorf("%s: producer-perf-test result has no producer section", path)
		}
		p := doc.Producer
		if p.SteadyState != nil && p.SteadyState.RecordsPerSec > 0 {
			p, s.SteadyState = p.SteadyState, true
		}
		s.RecordsPerSec, s.TargetRate, records, bytes = p.RecordsPerSec, doc.Producer.TargetRate, p.Records, p.Bytes
	case result.KindConsumerPerf:
		if doc.Consumer == nil {
			return Source{}, userr.Errorf("%s: consumer-perf-test result has no consumer section", path)
		}
		s.RecordsPerSec, records, bytes = doc.Consumer.RecordsPerSec, doc.Consumer.Records, doc.Consumer.Bytes
	case result.KindEndToEnd:
		s.Skipped = "end-to-end-latency measures latency, not per-partition throughput"
		return s, nil
	default:
		return Source{}, userr.Errorf("%s: result kind %q is not %s or %s", path, doc.Kind, result.KindProducerPerf, result.KindConsumerPerf)
	}
	if doc.Topic == nil || doc.Topic.Partitions <= 0 {
		return Source{}, userr.Errorf("%s: %s result does not say how many partitions its topic had (topic.partitions), so its throughput cannot be divided per partition", path, doc.Kind)
	}
	s.Partitions = doc.Topic.Partitions
	if records > 0 {
		s.RecordBytes = float64(bytes) / float64(records)
	}
	switch {
	case doc.Status != result.StatusOK:
		s.Skipped = fmt.Sprintf("status %q: a run that failed does not show what the cluster sustains", doc.Status)
	case s.RecordsPerSec <= 0:
		s.Skipped = "measured 0 records/s"
	}
	return s, nil
}

// median combines the used documents of one kind; nil when there are none.
func median(sources []Source, kind string) *PartitionRate {
	var v []float64
	for _, s := range sources {
		if s.Kind == kind && s.Skipped == "" {
			v = append(v, s.PerPartition())
		}
	}
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	mid := v[len(v)/2]
	if len(v)%2 == 0 {
		mid = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	from := fmt.Sprintf("1 %s result", kind)
	if len(v) > 1 {
		from = fmt.Sprintf("median of %d %s results", len(v), kind)
	}
	return &PartitionRate{RecordsPerSec: mid, From: from}
}
