package ombresult

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// OMB writes its result with Jackson's default pretty printer: two-space
// indents, "key" : value, arrays on one line ("[ 1.0, 2.0 ]", "[ ]"),
// doubles as Java's Double.toString prints them (1.0, 1.0E7, 1.0E-4).
// jsonWriter writes the same, so a kbench file reads like OMB's, byte for
// byte in form; Python's json and every JSON reader take it.
type jsonWriter struct {
	b     bytes.Buffer
	first bool
}

func (w *jsonWriter) open() {
	w.b.WriteString("{")
	w.first = true
}

func (w *jsonWriter) close() { w.b.WriteString("\n}\n") }

// key starts a field of the top-level object.
func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b.WriteString(",")
	}
	w.first = false
	w.b.WriteString("\n  ")
	w.b.WriteString(strconv.Quote(k))
	w.b.WriteString(" : ")
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b.WriteString(jsonString(v))
}

func (w *jsonWriter) long(k string, v int64) {
	w.key(k)
	w.b.WriteString(strconv.FormatInt(v, 10))
}

func (w *jsonWriter) double(k string, v float64) {
	w.key(k)
	w.b.WriteString(javaDouble(v))
}

func (w *jsonWriter) doubles(k string, vs []float64) {
	w.key(k)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = javaDouble(v)
	}
	w.array(parts)
}

func (w *jsonWriter) longs(k string, vs []int64) {
	w.key(k)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	w.array(parts)
}

func (w *jsonWriter) array(parts []string) {
	if len(parts) == 0 {
		w.b.WriteString("[ ]")
		return
	}
	w.b.WriteString("[ ")
	w.b.WriteString(strings.Join(parts, ", "))
	w.b.WriteString(" ]")
}

// quantiles writes a TreeMap<Double, V>: keys ascending, as Double.toString
// strings, values as doubles or (long values) integers.
func (w *jsonWriter) quantiles(k string, qs []Quantile, long bool) {
	w.key(k)
	if len(qs) == 0 {
		w.b.WriteString("{ }")
		return
	}
	w.b.WriteString("{")
	for i, q := range qs {
		if i > 0 {
			w.b.WriteString(",")
		}
		w.b.WriteString("\n    ")
		w.b.WriteString(strconv.Quote(javaDouble(q.Percentile)))
		w.b.WriteString(" : ")
		if long {
			w.b.WriteString(strconv.FormatInt(int64(q.Value), 10))
		} else {
			w.b.WriteString(javaDouble(q.Value))
		}
	}
	w.b.WriteString("\n  }")
}

// jsonString quotes s for JSON (Go's strconv.Quote escapes more than JSON
// allows, such as \x00).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// javaDouble formats v as Java's Double.toString does: the shortest digits
// that read back as v, plain from 10^-3 up to 10^7 with at least one digit
// after the point, otherwise d.dddE±n. NaN and infinities, which JSON
// cannot hold, are written as 0.0 (kbench never produces them: rates over
// empty periods are 0).
func javaDouble(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0.0"
	}
	if v == 0 {
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // 1.234e+07, 1e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
