package compat

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/kbench/kbench/internal/measure"
)

// PrintMetrics writes ms as the Apache tools' ToolsUtils.printMetrics does
// for --print-metrics: a blank line, a "Metric Name   Value" header, then one
// row per metric sorted by key (Java String order; a later duplicate key
// wins, as in Java's TreeMap), every key padded to the longest. It writes
// nothing for no metrics.
func PrintMetrics(w io.Writer, ms []measure.Metric) {
	if len(ms) == 0 {
		return
	}
	rows := make(map[string]any, len(ms))
	width := 0
	for _, m := range ms {
		k := m.Key()
		width = max(width, javaLen(k))
		rows[k] = m.Value
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, javaCompare)

	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(padRight("Metric Name", width))
	b.WriteString("   Value\n")
	for _, k := range keys {
		b.WriteString(padRight(k, width))
		b.WriteString(" : ")
		b.WriteString(javaString(rows[k]))
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// javaString formats v as printMetrics does: %.3f for a Double, else %s.
func javaString(v any) string {
	if f, ok := v.(float64); ok {
		return javaFixed(f, 3)
	}
	return fmt.Sprint(v)
}

// padRight pads s with spaces to width like Java's %-<width>s, which counts
// UTF-16 code units (String.length), not bytes or runes.
func padRight(s string, width int) string {
	if n := javaLen(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// javaLen is Java's String.length of s: its length in UTF-16 code units.
func javaLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// javaCompare orders strings like Java's String.compareTo (the TreeMap
// printMetrics sorts with): by UTF-16 code unit. It differs from Go's byte
// order only between U+E000–U+FFFF and characters beyond U+FFFF.
func javaCompare(a, b string) int {
	ua := utf16.Encode([]rune(a))
	ub := utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}
