package compat

import (
	"math"
	"strconv"
	"strings"
)

// javaFixed formats v like Java's String.format("%.<prec>f"): Java rounds the
// shortest decimal representation of the double half-up (0.125 → "0.13"),
// where Go rounds the exact binary value half-to-even ("0.12"). Output lines
// must match the Apache tools byte for byte, ties included.
func javaFixed(v float64, prec int) string {
	if s, ok := javaSpecial(v); ok {
		return s
	}
	neg := v < 0 || (v == 0 && math.Signbit(v))
	digits, exp := shortestDigits(math.Abs(v))
	intPart, frac := splitDigits(digits, exp)
	if len(frac) > prec {
		roundUp := frac[prec] >= '5'
		frac = frac[:prec]
		if roundUp {
			intPart, frac = increment(intPart, frac)
		}
	} else {
		frac += strings.Repeat("0", prec-len(frac))
	}
	out := intPart
	if prec > 0 {
		out += "." + frac
	}
	if neg {
		out = "-" + out // Java keeps the sign of values that round to zero
	}
	return out
}

// javaSpecial is how Java prints NaN and the infinities, whatever the format.
func javaSpecial(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "NaN", true
	case math.IsInf(v, 1):
		return "Infinity", true
	case math.IsInf(v, -1):
		return "-Infinity", true
	}
	return "", false
}

// shortestDigits returns the shortest decimal digits that round-trip v (as
// Java's Double.toString chooses them) and the position of the decimal point.
func shortestDigits(v float64) (string, int) {
	if v == 0 {
		return "0", 1
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // d.ddddde±XX
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	return strings.Replace(mant, ".", "", 1), exp + 1
}

// splitDigits places the decimal point after point digits of digits
// (shortestDigits' result): the integer part ("0" when point <= 0) and the
// fraction ("" when there is none).
func splitDigits(digits string, point int) (intPart, frac string) {
	switch {
	case point <= 0:
		return "0", strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits)), ""
	default:
		return digits[:point], digits[point:]
	}
}

// increment adds one unit in the last place of intPart.frac.
func increment(intPart, frac string) (string, string) {
	b := []byte(intPart + frac)
	i := len(b) - 1
	for ; i >= 0; i-- {
		if b[i] == '9' {
			b[i] = '0'
			continue
		}
		b[i]++
		break
	}
	if i < 0 {
		b = append([]byte{'1'}, b...)
	}
	n := len(b) - len(frac)
	return string(b[:n]), string(b[n:])
}
