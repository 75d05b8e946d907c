package sizing

import (
	"fmt"
	"math"
	"strings"
)

// Decimal (SI) and binary (IEC) byte units, smallest first. kbench prints
// both because capacity is quoted either way: disks are sold in TB, while
// df -h, EBS and MSK volumes count in GiB/TiB.
var (
	decimalUnits = []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
	binaryUnits  = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
)

// num formats v with thousands separators: integers exactly, other values
// with up to two decimals ("2,500", "8,333.33", "0.2").
func num(v float64) string {
	if math.Abs(v-math.Round(v)) < 1e-9*math.Max(1, math.Abs(v)) {
		return group(fmt.Sprintf("%.0f", math.Round(v)))
	}
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return group(s)
}

// group inserts commas into the integer part of a formatted number.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// scaled formats bytes in the largest unit of units (step base) that keeps
// the value at least 1, with prec decimals: scaled(25e6, 1000, ...) = "25.0 MB".
func scaled(bytes float64, base float64, units []string, prec int) string {
	i := 0
	for i < len(units)-1 && bytes >= math.Pow(base, float64(i+1)) {
		i++
	}
	if i == 0 {
		return num(bytes) + " B"
	}
	return fmt.Sprintf("%.*f %s", prec, bytes/math.Pow(base, float64(i)), units[i])
}

// both formats bytes in decimal then binary units, each followed by per
// ("/s" for rates, "" for sizes): "25.0 MB/s (23.8 MiB/s)".
func both(bytes float64, prec int, per string) string {
	d := scaled(bytes, 1000, decimalUnits, prec)
	b := scaled(bytes, 1024, binaryUnits, prec)
	if bytes < 1000 { // both readings are plain bytes
		return d + per
	}
	return d + per + " (" + b + per + ")"
}

// bits formats a byte rate as network people quote it, in bits per second.
func bits(bytesPerSec float64) string {
	v := bytesPerSec * 8
	units := []string{"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"}
	i := 0
	for i < len(units)-1 && v >= math.Pow(1000, float64(i+1)) {
		i++
	}
	return num(math.Round(v/math.Pow(1000, float64(i))*10)/10) + " " + units[i]
}
