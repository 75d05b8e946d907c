package compat

import (
	"math"
	"testing"
)

func TestJavaFixed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    float64
		prec int
		want string
	}{
		// Expected values are what Java 17's String.format printed for each.
		{0.125, 2, "0.13"},
		{0.25, 1, "0.3"},
		{2.5, 0, "3"},
		{1.005, 2, "1.01"},
		{195091.497913, 6, "195091.497913"},
		{46.5134, 2, "46.51"},
		{203.55, 2, "203.55"},
		{3076, 2, "3076.00"},
		{0, 1, "0.0"},
		{9.96, 1, "10.0"},
		{99.999, 2, "100.00"},
		{1e-7, 3, "0.000"},
		{123456789.0, 1, "123456789.0"},
		{1.5e21, 1, "1500000000000000000000.0"},
		{-0.05, 1, "-0.1"},
		{-0.04, 1, "-0.0"},
		{math.NaN(), 2, "NaN"},
		{math.Inf(1), 2, "Infinity"},
	}
	for _, tt := range tests {
		if got := javaFixed(tt.v, tt.prec); got != tt.want {
			t.Errorf("javaFixed(%v, %d) = %q, want %q", tt.v, tt.prec, got, tt.want)
		}
	}
}
