package measure

import (
	"encoding/json"
	"strings"
	"testing"
)

// counted is a section of a test's own: a counter and a histogram.
type counted struct {
	Records int64     `json:"records"`
	Latency Histogram `json:"latency"`
}

func (c *counted) Add(other Section) error {
	o, err := AddSection[*counted](other)
	if err != nil {
		return err
	}
	c.Records += o.Records
	c.Latency.Merge(&o.Latency)
	return nil
}

type otherSection struct{}

func (otherSection) Add(Section) error { return nil }

func init() { RegisterSection("test.counted", func() Section { return &counted{} }) }

func TestMergeSections(t *testing.T) {
	a, b := &counted{Records: 2}, &counted{Records: 3}
	a.Latency.Record(100)
	a.Latency.Record(300)
	b.Latency.Record(5000)
	m, err := MergeSections("test.counted", []Section{a, b})
	if err != nil {
		t.Fatal(err)
	}
	got := m.(*counted)
	if got.Records != 5 || got.Latency.Count() != 3 || got.Latency.Max() != 5000 || got.Latency.Min() != 100 {
		t.Errorf("merged %+v: want 5 records, 3 latencies from 100 to 5000 µs", got)
	}
	if a.Records != 2 || a.Latency.Count() != 2 {
		t.Errorf("a part changed in the merge: %+v", a)
	}
	for _, tc := range []struct {
		name  string
		parts []Section
		want  string
	}{
		{"unknown", []Section{a}, "no such section type"},
		{"test.counted", []Section{a, otherSection{}}, "cannot add a measure.otherSection"},
	} {
		if _, err := MergeSections(tc.name, tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("MergeSections(%s): %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestHistogramJSONKeepsExactFigures(t *testing.T) {
	var c counted
	for _, us := range []int64{1, 1234567, 7, MaxLatencyMicros + 5, -3} {
		c.Latency.Record(us)
	}
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	var back counted
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	l, r := &c.Latency, &back.Latency
	if l.Count() != r.Count() || l.Sum() != r.Sum() || l.Min() != r.Min() || l.Max() != r.Max() ||
		l.OverRange() != r.OverRange() || l.Negative() != r.Negative() || l.Quantile(0.5) != r.Quantile(0.5) {
		t.Errorf("read back %+v, wrote %+v", r, l)
	}
	// An empty (zero) histogram writes and reads as empty.
	var zero counted
	if b, err = json.Marshal(&zero); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Latency.Count() != 0 {
		t.Errorf("empty histogram read back as %+v (%v)", back.Latency, err)
	}
	// A count that disagrees with the buckets is refused.
	bad := strings.Replace(string(b), `"count":0`, `"count":4`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "holds 0 values but count is 4") {
		t.Errorf("damaged count: %v", err)
	}
}
