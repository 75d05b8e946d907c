package kafkaconf

import (
	"fmt"
	"strings"
)

// Warning is a property kbench accepted but does not apply as written: an
// unknown name, a Java-only setting, or a value franz-go cannot honor exactly.
type Warning struct{ Key, Source, Message string }

// String formats the warning for a terminal, e.g.
//
//	property "send.buffer.bytes" (--producer-props): known to the Java client but has no effect in kbench (...); ignored
func (w Warning) String() string {
	if w.Source == "" {
		return fmt.Sprintf("property %q: %s", w.Key, w.Message)
	}
	return fmt.Sprintf("property %q (%s): %s", w.Key, w.Source, w.Message)
}

// redacted replaces secret values in Settings, errors and warnings.
const redacted = "[redacted]"

// isSecret reports whether a property name (or a malformed item) may hold a
// secret: anything mentioning a password, secret, JAAS config or token, and
// the PEM keys (ssl.keystore.key, ...).
func isSecret(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "jaas", "token"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key")
}

// redact returns value, or "[redacted]" if key may hold a secret.
func redact(key, value string) string {
	if isSecret(key) {
		return redacted
	}
	return value
}

// suggest returns the known name closest to key, or "" if none is close
// enough to be a likely typo: within an edit distance of a third of the name
// (at least 2), or sharing a long common prefix ("linger" → "linger.ms").
func suggest(key string, known []string) string {
	k := strings.ToLower(key)
	best, bestDist, bestPrefix := "", 1<<30, 0
	for _, name := range known {
		n := strings.ToLower(name)
		d := levenshtein(k, n)
		p := commonPrefix(k, n)
		if d < bestDist || (d == bestDist && p > bestPrefix) {
			best, bestDist, bestPrefix = name, d, p
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
	for _, name := range known {
		if p := commonPrefix(k, strings.ToLower(name)); p > bestPrefix {
			best, bestPrefix = name, p
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

// levenshtein is the edit distance between a and b (bytes; property names
// are ASCII).
func levenshtein(a, b string) int {
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
