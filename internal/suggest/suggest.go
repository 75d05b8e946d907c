// Package suggest finds the known name nearest to a mistyped one and words
// the hint: the one "did you mean" of kbench, for flags, properties,
// commands, plan fields, values and metrics alike.
package suggest

import (
	"strconv"
	"strings"
)

// Style is how a hint writes the name it suggests.
type Style int

// The styles of hints.
const (
	// Quoted writes the name as a Go-quoted string, for names inside a
	// sentence (plan fields and values, commands, metrics): did you mean
	// "acks"?
	Quoted Style = iota
	// Bare writes it as the user types it, for flags and properties as
	// their tools print them: did you mean --topic?
	Bare
)

// Hint is the "did you mean" for the candidate nearest to name (Nearest),
// or "" when none is near enough to be a likely typo.
func Hint(name string, candidates []string, style Style) string {
	return Mean(Nearest(name, candidates), style)
}

// Mean words a suggestion the caller chose itself: did you mean "x"? or
// did you mean x?; "" when near is "".
func Mean(near string, style Style) string {
	if near == "" {
		return ""
	}
	if style == Quoted {
		near = strconv.Quote(near)
	}
	return "did you mean " + near + "?"
}

// Nearest returns the candidate closest to name, or "" if none is close
// enough to be a likely typo: within an edit distance of a third of the
// name (at least 2), ties going to the longer shared prefix; failing that,
// the candidate sharing a long prefix ("linger" → "linger.ms"). Case is
// ignored.
func Nearest(name string, candidates []string) string {
	k := strings.ToLower(name)
	best, bestDist, bestPrefix := "", 1<<30, 0
	for _, c := range candidates {
		n := strings.ToLower(c)
		d := Distance(k, n)
		p := commonPrefix(k, n)
		if d < bestDist || (d == bestDist && p > bestPrefix) {
			best, bestDist, bestPrefix = c, d, p
		}
	}
	if best == "" {
		return ""
	}
	if bestDist <= max(2, len(k)/3) {
		return best
	}
	// No close spelling; fall back to the longest shared prefix.
	best, bestPrefix = "", 0
	for _, c := range candidates {
		if p := commonPrefix(k, strings.ToLower(c)); p > bestPrefix {
			best, bestPrefix = c, p
		}
	}
	if bestPrefix >= 5 && 2*bestPrefix >= min(len(k), len(best)) {
		return best
	}
	return ""
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Distance is the Levenshtein edit distance between a and b, in bytes
// (flag and property names are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
