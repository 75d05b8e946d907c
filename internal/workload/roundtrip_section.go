package workload

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/units"
)

// RoundTripSectionName is the round-trip kind's section in a workload's
// result (its sections, under this name).
const RoundTripSectionName = "round_trip"

func init() {
	measure.RegisterSection(RoundTripSectionName, func() measure.Section { return &RoundTripSection{} })
}

// RoundTripSection is what a round-trip workload measured of its
// service: every record the cluster acknowledged is an output expected on
// the reply topic, matched by kbench's id (a header or the key). Its
// counts are exact; Latency and each interval's histogram give the
// percentiles. Clients, workers and repeats merge with Add.
type RoundTripSection struct {
	// Match is how outputs were matched: "header" or "key" ("mixed" when
	// merged from parts that differ).
	Match string `json:"match"`
	// ReplyTimeoutSeconds is how long after the last send the workload
	// read outputs before it counted the rest missing.
	ReplyTimeoutSeconds float64 `json:"reply_timeout_seconds"`
	// Acked is the records the cluster acknowledged: the outputs
	// expected. Matched are outputs of them read (each once), Missing
	// those not read by the timeout, Duplicated further reads of an
	// output already matched, Unmatched outputs read that carry no id of
	// this run (no header or key of kbench's, another run's, a client out
	// of range).
	Acked      int64 `json:"acked"`
	Matched    int64 `json:"matched"`
	Missing    int64 `json:"missing"`
	Duplicated int64 `json:"duplicated"`
	Unmatched  int64 `json:"unmatched"`
	// Latency is each matched output's round trip, µs: from its record's
	// intended send time (the actual one when sent early, or at an
	// unlimited rate) to the poll that read the output.
	Latency measure.Histogram `json:"latency"`
	// Reading is when the first and the last matched output were read,
	// one span per part merged: the service's rate divides by their union.
	Reading []RoundTripSpan `json:"reading,omitempty"`
	// IntervalSeconds is the series' interval; Series has one entry per
	// interval (from the scenario's epoch) in which outputs were matched.
	IntervalSeconds float64             `json:"interval_seconds"`
	Series          []RoundTripInterval `json:"series,omitempty"`
}

// RoundTripSpan is a part's reading of matched outputs, first to last.
type RoundTripSpan struct {
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// RoundTripInterval is the outputs matched in interval Index (from the
// scenario's epoch) and their round trips (µs; percentiles within 1%,
// count, sum, min and max exact).
type RoundTripInterval struct {
	Index   int
	Latency *measure.SeriesHistogram
}

type roundTripIntervalJSON struct {
	Index     int    `json:"index"`
	Matched   int64  `json:"matched"`
	Sum       int64  `json:"sum_us"`
	Min       int64  `json:"min_us"`
	Max       int64  `json:"max_us"`
	Histogram string `json:"histogram"`
}

// MarshalJSON writes the interval with its exact statistics beside the
// histogram's buckets.
func (iv RoundTripInterval) MarshalJSON() ([]byte, error) {
	h := iv.Latency
	if h == nil {
		h = measure.NewSeriesHistogram()
	}
	return json.Marshal(roundTripIntervalJSON{Index: iv.Index, Matched: h.Count(), Sum: h.Sum(), Min: h.Min(), Max: h.Max(), Histogram: h.Encode()})
}

// UnmarshalJSON reads what MarshalJSON wrote; buckets that do not hold
// the count are an error.
func (iv *RoundTripInterval) UnmarshalJSON(b []byte) error {
	var j roundTripIntervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	h := measure.NewSeriesHistogram()
	if err := h.AddEncoded(j.Histogram, j.Matched, j.Sum, j.Min, j.Max); err != nil {
		return fmt.Errorf("round-trip interval %d: %w", j.Index, err)
	}
	*iv = RoundTripInterval{Index: j.Index, Latency: h}
	return nil
}

// Add merges other, another part's round trips (a worker's, a repeat's).
func (s *RoundTripSection) Add(other measure.Section) error {
	o, err := measure.AddSection[*RoundTripSection](other)
	if err != nil {
		return err
	}
	switch {
	case s.Match == "":
		s.Match = o.Match
	case o.Match != "" && o.Match != s.Match:
		s.Match = "mixed"
	}
	s.ReplyTimeoutSeconds = max(s.ReplyTimeoutSeconds, o.ReplyTimeoutSeconds)
	s.Acked += o.Acked
	s.Matched += o.Matched
	s.Missing += o.Missing
	s.Duplicated += o.Duplicated
	s.Unmatched += o.Unmatched
	s.Latency.Merge(&o.Latency)
	s.Reading = append(s.Reading, o.Reading...)
	if s.IntervalSeconds == 0 {
		s.IntervalSeconds = o.IntervalSeconds
	}
	for _, iv := range o.Series {
		if iv.Latency == nil {
			continue
		}
		i, found := slices.BinarySearchFunc(s.Series, iv.Index, func(a RoundTripInterval, idx int) int { return a.Index - idx })
		if !found {
			s.Series = slices.Insert(s.Series, i, RoundTripInterval{Index: iv.Index, Latency: measure.NewSeriesHistogram()})
		}
		s.Series[i].Latency.Merge(iv.Latency)
	}
	return nil
}

// ReadingSeconds is the union of the parts' reading spans: concurrent
// workers overlap, repeats follow one another.
func (s *RoundTripSection) ReadingSeconds() float64 {
	spans := slices.Clone(s.Reading)
	slices.SortFunc(spans, func(a, b RoundTripSpan) int { return a.First.Compare(b.First) })
	var total time.Duration
	var cur RoundTripSpan
	for i, sp := range spans {
		switch {
		case i == 0:
			cur = sp
		case !sp.First.After(cur.Last):
			if sp.Last.After(cur.Last) {
				cur.Last = sp.Last
			}
		default:
			total += cur.Last.Sub(cur.First)
			cur = sp
		}
	}
	if len(spans) > 0 {
		total += cur.Last.Sub(cur.First)
	}
	return total.Seconds()
}

// OutputsPerSecond is the service's processing rate: matched outputs
// over the time from the first to the last read (0 when that is under a
// millisecond: one output, or none).
func (s *RoundTripSection) OutputsPerSecond() float64 {
	secs := s.ReadingSeconds()
	if secs < 1e-3 {
		return 0
	}
	return float64(s.Matched) / secs
}

// Table implements measure.Tabled: the reports' "Round trips" table.
func (s *RoundTripSection) Table() measure.SectionTable {
	ms := func(us int64) string { return units.Figure(float64(us)/1000, 1) }
	return measure.SectionTable{
		Title:   "Round trips",
		Columns: []string{"acked", "matched", "missing", "duplicated", "unmatched", "p50 ms", "p99 ms", "max ms", "outputs/s", "match"},
		Row: []string{strconv.FormatInt(s.Acked, 10), strconv.FormatInt(s.Matched, 10), strconv.FormatInt(s.Missing, 10),
			strconv.FormatInt(s.Duplicated, 10), strconv.FormatInt(s.Unmatched, 10),
			ms(s.Latency.Quantile(0.5)), ms(s.Latency.Quantile(0.99)), ms(s.Latency.Max()), units.Figure(s.OutputsPerSecond(), 0), s.Match},
		Note: "Round trips: every record the cluster acknowledged is an output expected on the reply topic. Matched outputs were read once each (duplicated: read again), missing ones were not read within the reply timeout after the last send, unmatched outputs carry no id of the run. Latency is from each record's intended send time to the read of its output; outputs/s is the service's rate, matched outputs from the first read to the last. Counts are summed over the repeats.",
	}
}
