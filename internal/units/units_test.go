package units

import (
	"strings"
	"testing"
	"time"
)

// The grammar, one table per kind of value; docs/units.md states the same.

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"20000000", 20_000_000, ""},
		{"20_000_000", 20_000_000, ""},
		{"20M", 20_000_000, ""},
		{"1.5k", 1500, ""},
		{"1.5K", 1500, ""},
		{"2G", 2_000_000_000, ""},
		{" 7 ", 7, ""},
		{"0", 0, ""},
		// Regression: 4.1 × 1,000,000 in floating point is
		// 4099999.9999999995, which was "not a whole number".
		{"4.1M", 4_100_000, ""},
		{"1.1k", 1100, ""},
		{"1.5", 0, "not a whole number"},
		{"1.0001k", 0, "not a whole number"},
		{"-5", 0, "is not a count"},
		{"", 0, "is not a count"},
		{"lots", 0, "is not a count"},
		{"20m", 0, "is not a count"}, // m is not M: milli or mega?
		{"99999999999G", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseCount(tt.in)
		check(t, "ParseCount", tt.in, got, tt.want, err, tt.err)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		unit string
		err  string
	}{
		{"100", 100, "B", ""},
		{"100B", 100, "B", ""},
		{"4KB", 4000, "KB", ""},
		{"4KiB", 4096, "KiB", ""},
		{"1MB", 1_000_000, "MB", ""},
		{"1MiB", 1 << 20, "MiB", ""},
		{"1 GB", 1_000_000_000, "GB", ""},
		{"1GiB", 1 << 30, "GiB", ""},
		{"2TB", 2_000_000_000_000, "TB", ""},
		{"1TiB", 1 << 40, "TiB", ""},
		{"1.5KiB", 1536, "KiB", ""},
		{"2.5KB", 2500, "KB", ""},
		{"1.1KB", 1100, "KB", ""}, // exact, as counts
		{"0", 0, "B", ""},
		{"4kb", 0, "", "write the unit as KB (1,000 bytes)"},
		{"4kib", 0, "", "write the unit as KiB (1,024 bytes)"},
		{"4b", 0, "", "write the unit as B (1 byte)"},
		{"2.5K", 0, "", "K is ambiguous; write 2.5KB (decimal, 1 KB = 1,000 B) or 2.5KiB (binary, 1 KiB = 1,024 B)"},
		{"4m", 0, "", "m is ambiguous; write 4MB (decimal, 1 MB = 1,000,000 B) or 4MiB"},
		{"4XB", 0, "", `unknown unit "XB"`},
		{"0.5", 0, "", "not a whole number"},
		{"-1", 0, "", "is not a size"},
		{"", 0, "", "is not a size"},
		{"9999999999GiB", 0, "", "too large"},
	}
	for _, tt := range tests {
		got, unit, err := ParseSizeUnit(tt.in)
		check(t, "ParseSize", tt.in, got, tt.want, err, tt.err)
		if err == nil && unit != tt.unit {
			t.Errorf("ParseSizeUnit(%q) unit %q, want %q", tt.in, unit, tt.unit)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"25000/s", 25000, ""},
		{"25000/sec", 25000, ""},
		{"25k/s", 25000, ""},
		{"25K / s", 25000, ""},
		{"1.5M/s", 1.5e6, ""},
		{"600/m", 10, ""},
		{"600000/min", 10000, ""},
		{"7200/h", 2, ""},
		{"8640k/d", 100, ""},
		// A number alone is per second, as the Apache tools' --throughput
		// (a plan's rate: 5000 used to be an error, kbench size's 5000 not).
		{"25000", 25000, ""},
		{"fast", 0, "is not a rate; write records per second such as 25000"},
		{"10/fortnight", 0, `unknown time unit "fortnight"`},
		{"10/w", 0, `unknown time unit "w" (s, sec, m, min, h, d)`},
		{"10/ms", 0, "unknown time unit"},
		{"10m/s", 0, "is not a rate"}, // milli or mega?
		{"0/s", 0, "must be above 0"},
		{"unlimited", 0, "is not a rate"},
		{"-5/s", 0, "is not a rate"},
		{"", 0, "is not a rate"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		check(t, "ParseRate", tt.in, got, tt.want, err, tt.err)
	}
	for _, tt := range []struct {
		in   string
		want float64
		err  string
	}{
		{"unlimited", 0, ""},
		{"25k/s", 25000, ""},
		{"fast", 0, `"fast" is not a rate; write 25000/s, 25k/s, 1.5M/s, 600/m or unlimited`},
	} {
		got, err := ParseLimit(tt.in)
		check(t, "ParseLimit", tt.in, got, tt.want, err, tt.err)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{"1m30s", 90 * time.Second, ""},
		{"500ms", 500 * time.Millisecond, ""},
		{"250us", 250 * time.Microsecond, ""},
		{"2h", 2 * time.Hour, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"7d", 7 * 24 * time.Hour, ""},
		{"1.5d", 36 * time.Hour, ""},
		{"1w", 7 * 24 * time.Hour, ""},
		{"1d12h", 36 * time.Hour, ""},
		{"30min", 30 * time.Minute, ""},
		{"10sec", 10 * time.Second, ""},
		{"90", 0, "has no unit"},
		{"0s", 0, "must be above 0"},
		{"-5s", 0, "must be above 0"},
		{"soon", 0, "is not a duration"},
		{"7x", 0, `"7x": unknown unit "x"`},
		{"7d x", 0, "is not a duration"},
		{"2562047h", 2562047 * time.Hour, ""},
		// Regression: an overflow was "not a duration", like a typo.
		{"99999999h", 0, `"99999999h" is longer than 2562047h (about 292 years)`},
		{"2562048h", 0, "is longer than 2562047h"},
		{"1h1h", 2 * time.Hour, ""},
		{"h", 0, "is not a duration"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		check(t, "ParseDuration", tt.in, got, tt.want, err, tt.err)
	}
	if d, err := ParseDurationOrZero("0"); d != 0 || err != nil {
		t.Errorf(`ParseDurationOrZero("0") = %v, %v; want 0`, d, err)
	}
}

func TestParseSizeFraction(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  string
	}{
		{"1.3KiB", 1331.2, ""},
		{"1.001B", 1.001, ""},
		{"2.5KB", 2500, ""},
		{"2.5K", 0, "K is ambiguous"},
	} {
		got, _, err := ParseSizeFraction(tt.in)
		check(t, "ParseSizeFraction", tt.in, got, tt.want, err, tt.err)
	}
}

// TestDurationFlag: flags take the same grammar, and leave 0 and negative
// values to the command's own checks.
func TestDurationFlag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{"1d", 24 * time.Hour, ""},
		{"0", 0, ""},
		{"0s", 0, ""},
		{"-5s", -5 * time.Second, ""},
		{"soon", 0, "is not a duration"},
		{"90", 0, "has no unit"},
	} {
		var d time.Duration
		f := Duration(&d, time.Minute)
		err := f.Set(tt.in)
		check(t, "DurationFlag.Set", tt.in, d, tt.want, err, tt.err)
		if err == nil && tt.want != 0 && f.String() != tt.want.String() {
			t.Errorf("%q: String %q", tt.in, f.String())
		}
	}
}

func check[T comparable](t *testing.T, fn, in string, got, want T, err error, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil || got != want {
			t.Errorf("%s(%q) = %v, %v; want %v", fn, in, got, err, want)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Errorf("%s(%q) error = %v; want it to contain %q", fn, in, err, wantErr)
	}
}
