package sizing

import (
	"bytes"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// input builds an Input from the flags' texts, failing the test on a parse error.
func input(t *testing.T, rate, size, retention string, replication, brokers int) Input {
	t.Helper()
	r, err := ParseRate(rate)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSize(size)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDuration(retention)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Rate: r, RecordSize: s, Retention: d, Replication: replication, Brokers: brokers, Consumers: 1}
}

// TestComputeBounds: regression: absurd inputs were sized, printing float
// digits (1e+20), inexact 36-digit byte counts and 100,000,002 partitions.
func TestComputeBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Input)
		want   string
	}{
		{"huge rate", func(in *Input) { in.Rate = Rate{Text: "2000000000/s", PerSec: 2e9} }, "--rate 2000000000/s: more than 1,000,000,000 records/s"},
		{"tiny rate", func(in *Input) { in.Rate = Rate{Text: "1/min", PerSec: 1.0 / 60} }, "--rate 1/min: less than 1 record/s"},
		{"huge record", func(in *Input) { in.RecordSize = Size{Text: "1PB", Bytes: 1e15} }, "--record-size 1PB: more than 2,147,483,647 B"},
		{"tiny record", func(in *Input) { in.RecordSize = Size{Text: "0.1B", Bytes: 0.1} }, "--record-size 0.1B: less than 1 B"},
		{"huge retention", func(in *Input) { in.Retention = Duration{Text: "10000w", Seconds: 10000 * 7 * 86400} }, "--retention 10000w: more than 100 years"},
		{"tiny retention", func(in *Input) { in.Retention = Duration{Text: "0.2s", Seconds: 0.2} }, "--retention 0.2s: less than 1 s"},
		{"brokers", func(in *Input) { in.Brokers = 10001 }, "--brokers 10001: kbench size plans for at most 10,000 brokers"},
		{"consumers", func(in *Input) { in.Consumers = 10001 }, "--consumers 10001"},
		{"headroom", func(in *Input) { in.Headroom = Headroom{Text: "2000%", Fraction: 20} }, `--headroom "2000%": more than 1,000%`},
		{"partitions", func(in *Input) {
			in.Rate = Rate{Text: "100000000/s", PerSec: 1e8}
			in.Measured.Producer = &PartitionRate{RecordsPerSec: 1, From: "--partition-producer-rate 1/s"}
		}, "per-partition rate from --partition-producer-rate 1/s: 100,000,000 rec/s needs more than 1,000,000 partitions"},
		{"storage past exact", func(in *Input) {
			in.Rate = Rate{Text: "1000000000/s", PerSec: 1e9}
			in.RecordSize = Size{Text: "1MB", Bytes: 1e6}
		}, "more than kbench size counts exactly (about 9 PB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(t, "10000/s", "2.5KB", "7d", 3, 4)
			tt.change(&in)
			_, err := Compute(in)
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a usage error containing %q", err, tt.want)
			}
		})
	}
}

// TestWriteTextArithmetic: regression: with fractional or huge figures the
// report printed "all replicas = X × 3 = Y" where Y was not 3 × X, and
// float exponents such as 1e+20.
func TestWriteTextArithmetic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		rate, size, retention string
		replication, brokers  int
	}{
		{"fractional bytes", "7/s", "1.001B", "1s", 3, 3},
		{"odd rate", "100/min", "1.3KiB", "1d", 3, 5},
		{"quarter bytes", "1.25/s", "1.25B", "3s", 3, 3},
		{"largest", "1000000000/s", "1KB", "1h", 2, 9},
		{"seed", "10000/s", "2.5KB", "7d", 3, 4},
	}
	lineRE := regexp.MustCompile(`(?m)^  (all replicas|replication) += (?:ingest × \(\d+ - 1\) = )?([0-9,.]+) B(?:/s)? × (\d+) = ([0-9,.]+) B`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(t, tt.rate, tt.size, tt.retention, tt.replication, tt.brokers)
			in.Measured.Producer = &PartitionRate{RecordsPerSec: in.Rate.PerSec / 3.5, From: "--partition-producer-rate"}
			e, err := Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteText(&b, e); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "e+") {
				t.Errorf("a float exponent in the report:\n%s", b.String())
			}
			ms := lineRE.FindAllStringSubmatch(b.String(), -1)
			if len(ms) != 2 {
				t.Fatalf("found %d of the 2 product lines in:\n%s", len(ms), b.String())
			}
			for _, m := range ms {
				x, y := decimal(t, m[2]), decimal(t, m[4])
				n, _ := new(big.Rat).SetString(m[3])
				if x.Mul(x, n).Cmp(y) != 0 {
					t.Errorf("%s: %s × %s ≠ %s", m[1], m[2], m[3], m[4])
				}
			}
		})
	}
}

func decimal(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(strings.ReplaceAll(s, ",", ""))
	if !ok {
		t.Fatalf("%q is not a number", s)
	}
	return r
}
