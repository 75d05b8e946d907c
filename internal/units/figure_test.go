package units

import "testing"

// TestFigure guards small figures printed as zero: MB/s with two decimals
// showed 0.00 for 5-byte records (0.0048 MB/s) in summary.md, report.html
// and compare. A figure under 1 keeps 3 significant digits; a larger one
// keeps the column's decimals.
func TestFigure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v        float64
		decimals int
		want     string
	}{
		{0.0048, 2, "0.0048"},
		{0.004812, 2, "0.00481"},
		{-0.0048, 2, "-0.0048"},
		{0.123456, 2, "0.123"},
		{0.01, 2, "0.01"}, // trailing zeros past the column's dropped
		{0.2, 2, "0.20"},  // but not the column's own
		{0.0100004, 2, "0.01"},
		{0.9996, 2, "1.00"},
		{0.5, 0, "0.5"},
		{0.5, 3, "0.500"},     // the column's decimals suffice
		{0.4567, 4, "0.4567"}, // never fewer than the column's
		{0, 2, "0.00"},
		{1.5, 2, "1.50"},
		{1234.5678, 0, "1235"},
		{12.3456, 1, "12.3"},
	}
	for _, tt := range tests {
		if got := Figure(tt.v, tt.decimals); got != tt.want {
			t.Errorf("Figure(%v, %d) = %q, want %q", tt.v, tt.decimals, got, tt.want)
		}
	}
}
