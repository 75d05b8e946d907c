package sizing

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// CoreRate is the records/s one broker core carried in a kbench run on a
// cluster kbench started: records acknowledged per broker CPU second,
// every broker's CPU (replication included) counted.
type CoreRate struct {
	RecordsPerSec float64
	Path          string // the result.json read
	Scenario      string // the scenario the figure is from
	Repeats       int    // repeats behind its mean
	// Replication and RecordBytes are the run's, to compare with the
	// sizing's own: 0 when unknown.
	Replication int
	RecordBytes float64
	// Others is how many other scenarios measured it (their rates were
	// higher: the lowest is taken).
	Others int
}

// BrokerCores is the broker CPU the rate needs at a CoreRate.
type BrokerCores struct {
	Cluster   float64 // rate / records per core
	PerBroker float64 // Cluster / brokers
}

// FromResult reads records per broker core from a plan run's result: its
// result.json, or the results folder holding it. Each scenario's figure
// is the mean over its repeats that ended ok; with several scenarios the
// lowest (the costliest records) is taken, so the sizing errs towards
// more cores. A result without the figure (a remote cluster, a run
// before kbench read the brokers' /proc) is the user's error.
func FromResult(path string) (*CoreRate, error) {
	file := path
	if info, err := os.Stat(path); err != nil {
		return nil, userr.Errorf("read result: %w", err)
	} else if info.IsDir() {
		file = filepath.Join(path, "result.json")
	}
	doc, err := result.Read(file)
	if err != nil {
		return nil, userr.Errorf("%w; expected a kbench run's result.json or its results folder", err)
	}
	if doc.Plan == nil {
		return nil, userr.Errorf("%s: a %s result, not a plan run's: records per broker core come from kbench run on a cluster kbench started", file, doc.Kind)
	}
	var best *CoreRate
	measured := 0
	for _, sc := range doc.Plan.Scenarios {
		s := result.BrokerSeriesOf(sc.Repeats)
		if len(s.RecordsPerCore) == 0 {
			continue
		}
		measured++
		c := &CoreRate{RecordsPerSec: math.Round(result.Describe(s.RecordsPerCore).Mean), Path: file, Scenario: sc.Name, Repeats: len(s.RecordsPerCore)}
		c.Replication, c.RecordBytes = shapeOf(sc)
		if best == nil || c.RecordsPerSec < best.RecordsPerSec {
			best = c
		}
	}
	if best == nil {
		return nil, userr.Errorf("%s: no scenario measured records per broker core (only a run on a cluster kbench started reads its brokers' CPU)", file)
	}
	best.Others = measured - 1
	return best, nil
}

// shapeOf is a scenario's producers' replication factor (the largest)
// and mean record size over its repeats that ended ok.
func shapeOf(sc result.Scenario) (replication int, recordBytes float64) {
	var records, bytes int64
	for _, rep := range sc.Repeats {
		if rep.Status != result.StatusOK {
			continue
		}
		for _, w := range rep.Workloads {
			if w.Producer == nil {
				continue
			}
			records += w.Producer.Records
			bytes += w.Producer.Bytes
			if w.Topic != nil {
				replication = max(replication, w.Topic.ReplicationFactor)
			}
		}
	}
	if records > 0 {
		recordBytes = float64(bytes) / float64(records)
	}
	return replication, recordBytes
}

// coresFor is the broker CPU rate records/s need at c; nil without c.
func coresFor(in Input) *BrokerCores {
	c := in.Cores
	if c == nil || c.RecordsPerSec <= 0 {
		return nil
	}
	cluster := fig(in.Rate.PerSec / c.RecordsPerSec)
	return &BrokerCores{Cluster: cluster, PerBroker: fig(cluster / float64(in.Brokers))}
}

// coreCaveats say where the run measured differs from what is sized:
// another replication factor or a record size off by half or more
// changes what a record costs.
func coreCaveats(in Input) []string {
	c := in.Cores
	if c == nil {
		return nil
	}
	var out []string
	if c.Replication > 0 && c.Replication != in.Replication {
		out = append(out, fmt.Sprintf("the run had replication %d, not %d: each replica costs its broker CPU", c.Replication, in.Replication))
	}
	if c.RecordBytes > 0 && math.Abs(math.Log2(c.RecordBytes/in.RecordSize.Bytes)) >= 1 {
		out = append(out, fmt.Sprintf("the run's records were %s B, not about %s B: a record's cost depends on its size", num(math.Round(c.RecordBytes)), num(in.RecordSize.Bytes)))
	}
	return out
}

// writeCores prints the broker CPU the rate needs, when a run's records
// per broker core were given (--from), saying where the figure came from.
func writeCores(p *printer, e *Estimate) {
	in, c := e.Input, e.Cores
	if c == nil {
		return
	}
	src := in.Cores
	p.printf("\nBroker CPU (measured: --from %s)\n", filepath.ToSlash(src.Path))
	from := fmt.Sprintf("scenario %s, mean of %s", src.Scenario, plural(src.Repeats, "repeat", "repeats"))
	if src.Others > 0 {
		from += fmt.Sprintf("; the lowest of %d scenarios", src.Others+1)
	}
	p.line("per core", "one broker core carried %s rec/s (%s)", num(src.RecordsPerSec), from)
	p.line("", "(records acknowledged per CPU second of all brokers, replication included)")
	p.line("cluster", "= %s rec/s / %s rec/s = %s cores", num(in.Rate.PerSec), num(src.RecordsPerSec), num(c.Cluster))
	p.line("per broker", "= %s cores / %s = %s cores", num(c.Cluster), brokers(in), num(c.PerBroker))
	for _, cv := range coreCaveats(in) {
		p.line("", "careful: %s", cv)
	}
}
