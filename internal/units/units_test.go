package units

import (
	"strings"
	"testing"
	"time"
)

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
		{"2G", 2_000_000_000, ""},
		{"0", 0, ""},
		{"1.5", 0, "not a whole number"},
		{"1.0001k", 0, "not a whole number"},
		{"-5", 0, "is not a count"},
		{"", 0, "is not a count"},
		{"lots", 0, "is not a count"},
		{"20m", 0, "is not a count"},
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
		err  string
	}{
		{"100", 100, ""},
		{"100B", 100, ""},
		{"4KB", 4000, ""},
		{"4KiB", 4096, ""},
		{"1MB", 1_000_000, ""},
		{"1MiB", 1 << 20, ""},
		{"1.5KiB", 1536, ""},
		{"4kb", 0, "write the unit as KB"},
		{"4XB", 0, `unknown unit "XB"`},
		{"0.5", 0, "not a whole number"},
		{"-1", 0, "is not a size"},
		{"", 0, "is not a size"},
		{"9999999999GiB", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		check(t, "ParseSize", tt.in, got, tt.want, err, tt.err)
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"25000/s", 25000, ""},
		{"25k/s", 25000, ""},
		{"1.5M/s", 1.5e6, ""},
		{"600/m", 10, ""},
		{"7200/h", 2, ""},
		{"unlimited", 0, ""},
		{"25000", 0, "has no time unit"},
		{"fast", 0, "is not a rate"},
		{"10/d", 0, "unknown time unit"},
		{"0/s", 0, "must be above 0"},
		{"", 0, "is not a rate"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		check(t, "ParseRate", tt.in, got, tt.want, err, tt.err)
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
		{"2h", 2 * time.Hour, ""},
		{"90", 0, "has no unit"},
		{"0s", 0, "must be above 0"},
		{"-5s", 0, "must be above 0"},
		{"soon", 0, "is not a duration"},
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
