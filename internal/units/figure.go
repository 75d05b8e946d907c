package units

import (
	"math"
	"strconv"
)

// FigureDigits is how many significant digits Figure keeps of a figure
// under 1.
const FigureDigits = 3

// Figure formats a measured figure for a table: with the column's
// decimals, or, for a nonzero figure under 1 in magnitude, with as many
// more as FigureDigits significant digits need (trailing zeros past the
// column's dropped). Two decimals printed 5-byte records' 0.0048 MB/s as
// 0.00; Figure prints 0.0048. Larger figures keep the column's format. Summaries, reports and comparisons all format
// their figures with it.
func Figure(v float64, decimals int) string {
	return strconv.FormatFloat(v, 'f', FigureDecimals(v, decimals), 64)
}

// FigureDecimals is the number of decimals Figure gives v in a column of
// decimals: a spread printed beside a mean (± stdev) takes the mean's, so
// the two read alike.
func FigureDecimals(v float64, decimals int) int {
	a := math.Abs(v)
	if a == 0 || a >= 1 || math.IsNaN(a) || math.IsInf(a, 0) {
		return decimals
	}
	// The decimals that give FigureDigits significant digits from the
	// first nonzero one (0.0048, first digit at 10^-3, takes 5), less the
	// trailing zeros past the column's: 0.0048 is 0.0048, 0.01 stays 0.01.
	first := int(math.Floor(math.Log10(a)))
	d := max(decimals, FigureDigits-1-first)
	s := strconv.FormatFloat(a, 'f', d, 64)
	for d > decimals && s[len(s)-1] == '0' {
		s, d = s[:len(s)-1], d-1
	}
	return d
}
