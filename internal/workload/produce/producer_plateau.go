package produce

import (
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
)

// PlateauResult is what a ramp of virtual users measured while it held a
// number of users (load.Plateau): the records sent within it and
// acknowledged, and their latency (µs). Little's law checks it: records/s
// × mean latency is the users busy on average, a little under Users
// (the time between an acknowledgement and a user's next send is not
// latency).
type PlateauResult struct {
	load.Plateau
	Acked, Bytes int64
	Latency      *measure.Histogram
}

// plateaus counts a client's acknowledged records by the plateau they
// were sent in. Only the client's promise worker writes it.
type plateaus struct {
	of []PlateauResult
}

func newPlateaus(r *load.VURamp) *plateaus {
	if r == nil {
		return nil
	}
	p := &plateaus{}
	for _, pl := range r.Plateaus() {
		p.of = append(p.of, PlateauResult{Plateau: pl, Latency: measure.NewHistogram()})
	}
	if len(p.of) == 0 {
		return nil
	}
	return p
}

// add counts a record sent at sent (since the run's start).
func (p *plateaus) add(sent time.Duration, size int, lat int64) {
	for i := range p.of {
		if pl := &p.of[i]; sent >= pl.From && sent < pl.To {
			pl.Acked++
			pl.Bytes += int64(size)
			pl.Latency.Record(lat)
			return
		}
	}
}

// mergePlateaus adds every client's plateaus up (all clients share the
// ramp, so their plateaus are the same).
func mergePlateaus(clients []*producerClient) []PlateauResult {
	var out []PlateauResult
	for _, c := range clients {
		if c.plateaus == nil {
			continue
		}
		if out == nil {
			for _, pl := range c.plateaus.of {
				out = append(out, PlateauResult{Plateau: pl.Plateau, Latency: measure.NewHistogram()})
			}
		}
		for i, pl := range c.plateaus.of {
			out[i].Acked += pl.Acked
			out[i].Bytes += pl.Bytes
			out[i].Latency.Merge(pl.Latency)
		}
	}
	return out
}
