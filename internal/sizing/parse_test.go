package sizing

import (
	"math"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

func TestParseRate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    float64 // records per second
		wantErr string  // substring of the error; "" for none
	}{
		{"10000/s", 10000, ""},
		{"10000", 10000, ""},
		{"10k/s", 10000, ""},
		{"10K/s", 10000, ""},
		{"1.5M/s", 1.5e6, ""},
		{"600000/min", 10000, ""},
		{"36000000/h", 10000, ""},
		{"2500/sec", 2500, ""},
		{"10000 msgs/s", 0, "is not a rate"}, // one grammar: words are not units
		{" 10000/s ", 10000, ""},
		{"fast", 0, `"fast" is not a rate; write records per second such as 25000, 25000/s, 25k/s, 1.5M/s or 600/m`},
		{"10000/fortnight", 0, `unknown time unit "fortnight"`},
		{"0/s", 0, "must be above 0"},
		{"-5/s", 0, "not a rate"},
		{"10m/s", 0, "not a rate"}, // m could be milli or mega: refused
		{"", 0, "not a rate"},
		{"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000/s", 0, "not a rate"}, // overflows float64

	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRate(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && got.PerSec != tt.want {
				t.Fatalf("ParseRate(%q) = %v/s, want %v/s", tt.in, got.PerSec, tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		want     float64 // bytes
		wantUnit string
		wantErr  string
	}{
		{"2500", 2500, "B", ""},
		{"2500B", 2500, "B", ""},
		{"2.5KB", 2500, "KB", ""},
		{"2.5kb", 0, "", "write the unit as KB (1,000 bytes)"}, // one grammar: a bit is not a byte
		{"2.5KiB", 2560, "KiB", ""},
		{"1MB", 1e6, "MB", ""},
		{"1MiB", 1 << 20, "MiB", ""},
		{"1 GB", 1e9, "GB", ""},
		{"1GiB", 1 << 30, "GiB", ""},
		{"2TB", 2e12, "TB", ""},
		{"1TiB", 1 << 40, "TiB", ""},
		{"2.5K", 0, "", "K is ambiguous; write 2.5KB (decimal, 1 KB = 1,000 B) or 2.5KiB (binary, 1 KiB = 1,024 B)"},
		{"2.5XB", 0, "", `unknown unit "XB"; write a number of bytes such as 100, 100B, 4KB`},
		{"big", 0, "", "is not a size; write a number of bytes"},
		{"0KB", 0, "", "more than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSize(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && (got.Bytes != tt.want || got.Unit != tt.wantUnit) {
				t.Fatalf("ParseSize(%q) = %v B %s, want %v B %s", tt.in, got.Bytes, got.Unit, tt.want, tt.wantUnit)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    float64 // seconds
		wantErr string
	}{
		{"7d", 604800, ""},
		{"168h", 604800, ""},
		{"1w", 604800, ""},
		{"30m", 1800, ""},
		{"30min", 1800, ""},
		{"90s", 90, ""},
		{"1d12h", 129600, ""},
		{"1.5d", 129600, ""},
		{"7x", 0, `"7x": unknown unit "x" (ns, us, ms, s, m, h, d or w); write a duration such as 90s, 1m30s, 500ms, 2h, 7d or 1w`},
		{"7", 0, `"7" has no unit; write a duration such as`},
		{"-1", 0, "has no unit"},
		{"7d x", 0, "is not a duration"},
		{"0d", 0, "must be above 0"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDuration(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && got.Seconds != tt.want {
				t.Fatalf("ParseDuration(%q) = %v s, want %v s", tt.in, got.Seconds, tt.want)
			}
		})
	}
}

func TestParseHeadroom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"", 0, ""},
		{"30%", 0.3, ""},
		{"0.3", 0.3, ""},
		{"0", 0, ""},
		{"150%", 1.5, ""},
		{"30", 0, "write 30% for 30 percent"},
		{"lots", 0, "use a percentage such as 30% or a fraction such as 0.3"},
		{"-10%", 0, "not a headroom"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseHeadroom(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && math.Abs(got.Fraction-tt.want) > 1e-12 {
				t.Fatalf("ParseHeadroom(%q) = %v, want %v", tt.in, got.Fraction, tt.want)
			}
		})
	}
}

// checkErr fails unless err contains want ("" meaning no error) and, when
// there is one, is marked as the user's to fix.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("no error, want one containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	case err != nil && !userr.Is(err):
		t.Fatalf("error %q is not marked userr, so the CLI would not exit 2", err)
	}
}
