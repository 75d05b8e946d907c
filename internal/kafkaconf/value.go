package kafkaconf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

// maxMillis is the largest millisecond count a time.Duration holds.
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// badValue is why a single value was rejected and what would be accepted;
// the parse loop turns it into a user error naming the property and source.
type badValue struct{ why, allowed string }

func (b *badValue) Error() string {
	if b.why == "" {
		return "invalid value; allowed: " + b.allowed
	}
	return "invalid value: " + b.why + "; allowed: " + b.allowed
}

// propError is a user error about one property, e.g.
//
//	--producer-props: acks=2: invalid value; allowed: 0, 1, all, -1
//
// Secret values are redacted.
func propError(p Prop, msg, allowed string) error {
	var b strings.Builder
	if p.Source != "" {
		b.WriteString(p.Source)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s=%s: %s", p.Key, redact(p.Key, p.Value), msg)
	if allowed != "" {
		b.WriteString("; allowed: ")
		b.WriteString(allowed)
	}
	return userr.New(errors.New(b.String()))
}

// invalid converts a set function's error into a propError.
func invalid(p Prop, err error) error {
	var b *badValue
	if !errors.As(err, &b) {
		return propError(p, "invalid value: "+err.Error(), "")
	}
	msg := "invalid value"
	if b.why != "" {
		msg += ": " + b.why
	}
	return propError(p, msg, b.allowed)
}

func rangeText(lo, hi int64) string {
	if hi == math.MaxInt64 || hi == maxMillis {
		return fmt.Sprintf("%d or more", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// parseInt parses a whole number in [lo, hi], trimmed as Java's ConfigDef does.
func parseInt(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		why := "not a whole number"
		if strings.TrimSpace(v) == "" {
			why = "empty"
		}
		return 0, &badValue{why: why, allowed: rangeText(lo, hi)}
	}
	if n < lo || n > hi {
		return 0, &badValue{allowed: rangeText(lo, hi)}
	}
	return n, nil
}

// parseBool accepts true and false in any case, as Java does.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &badValue{allowed: "true, false"}
}

// parseEnum returns the allowed entry v names. Java's validators are case
// sensitive except for a few (security.protocol, group.protocol): fold says
// which.
func parseEnum(v string, fold bool, allowed ...string) (string, error) {
	v = strings.TrimSpace(v)
	for _, a := range allowed {
		if v == a || (fold && strings.EqualFold(v, a)) {
			return a, nil
		}
	}
	return "", &badValue{allowed: strings.Join(allowed, ", ")}
}

// parseList splits a Java LIST value on commas; empty and duplicate entries
// are rejected, as by Java's ValidList for the lists kbench maps.
func parseList(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, &badValue{why: "empty list", allowed: "one or more comma-separated entries"}
	}
	var out []string
	seen := map[string]bool{}
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, &badValue{why: "empty entry", allowed: "one or more comma-separated entries"}
		}
		if seen[item] {
			return nil, &badValue{why: "duplicate entry " + strconv.Quote(item), allowed: "distinct comma-separated entries"}
		}
		seen[item] = true
		out = append(out, item)
	}
	return out, nil
}

// millis formats a duration as the Java client's millisecond value.
func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// parseISODuration parses the subset of ISO-8601 durations Java's
// Duration.parse accepts for auto.offset.reset=by_duration: PnDTnHnMn.nS.
func parseISODuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not an ISO-8601 duration such as PT1H or P1DT12H", s)
	rest := strings.ToUpper(strings.TrimSpace(s))
	if !strings.HasPrefix(rest, "P") || len(rest) < 3 {
		return 0, bad
	}
	rest = rest[1:]
	var (
		total  float64
		inTime bool
		units  = map[byte]time.Duration{'D': 24 * time.Hour, 'H': time.Hour, 'M': time.Minute, 'S': time.Second}
	)
	for rest != "" {
		if rest[0] == 'T' {
			if inTime || len(rest) == 1 {
				return 0, bad
			}
			inTime, rest = true, rest[1:]
			continue
		}
		i := strings.IndexAny(rest, "DHMS")
		if i <= 0 {
			return 0, bad
		}
		unit := rest[i]
		if (unit == 'D') == inTime {
			return 0, bad // days before T, hours/minutes/seconds after
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil || n < 0 || (unit != 'S' && n != math.Trunc(n)) {
			return 0, bad
		}
		total += n * float64(units[unit])
		rest = rest[i+1:]
	}
	if total > float64(math.MaxInt64) {
		return 0, bad
	}
	return time.Duration(total), nil
}
