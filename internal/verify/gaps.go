package verify

import (
	"sort"
	"time"
)

// MinGap is the shortest pause between two acknowledgements on a partition
// that the ledger keeps: shorter ones are the rate's own spacing.
const MinGap = 50 * time.Millisecond

// maxGaps bounds the gaps kept per partition; past it the shortest go.
const maxGaps = 256

// Gap is a time without acknowledgements on one partition, from the last
// acknowledgement before it to the first after it (offsets since the run's
// start).
type Gap struct {
	Partition int32
	From, To  time.Duration
}

// Length is the gap's duration.
func (g Gap) Length() time.Duration { return g.To - g.From }

type ackGaps struct {
	last time.Duration
	seen bool
	gaps []Gap
}

// AckAt notes an acknowledgement on partition p at time at.
func (l *Ledger) AckAt(p int32, at time.Duration) {
	l.gapMu.Lock()
	defer l.gapMu.Unlock()
	g := l.parts[p]
	if g == nil {
		g = &ackGaps{}
		l.parts[p] = g
	}
	// Promise workers of different clients race: an acknowledgement may be
	// noted a moment after a later one.
	if g.seen && at-g.last >= MinGap {
		g.add(Gap{Partition: p, From: g.last, To: at})
	}
	if !g.seen || at > g.last {
		g.last, g.seen = at, true
	}
}

func (g *ackGaps) add(gap Gap) {
	if len(g.gaps) < maxGaps {
		g.gaps = append(g.gaps, gap)
		return
	}
	shortest := 0
	for i, x := range g.gaps {
		if x.Length() < g.gaps[shortest].Length() {
			shortest = i
		}
	}
	if gap.Length() > g.gaps[shortest].Length() {
		g.gaps[shortest] = gap
	}
}

// Gaps returns every partition's kept gaps, by partition and time; a
// partition still without acknowledgements at until (the run's end) gets a
// gap from its last one to until.
func (l *Ledger) Gaps(until time.Duration) []Gap {
	l.gapMu.Lock()
	defer l.gapMu.Unlock()
	var out []Gap
	for p, g := range l.parts {
		out = append(out, g.gaps...)
		if g.seen && until-g.last >= MinGap {
			out = append(out, Gap{Partition: p, From: g.last, To: until})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].From < out[j].From
	})
	return out
}
