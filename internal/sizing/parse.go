package sizing

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/userr"
)

// The accepted forms, repeated in every parse error so that a user sees how
// to write the value right away.
const (
	rateForms     = "use a number of records per second such as 10000/s, 10k/s or 600000/min"
	sizeForms     = "use a number of bytes with a unit such as 2500, 2500B, 2.5KB (1 KB = 1,000 B) or 2.5KiB (1 KiB = 1,024 B); units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"
	durationForms = "use a number and a unit such as 7d, 168h, 1w or 30m (units s, m or min, h, d, w; combined as 1d12h)"
	headroomForms = "use a percentage such as 30% or a fraction such as 0.3"
)

// Rate is a record rate as the user wrote it.
type Rate struct {
	Text   string
	PerSec float64 // records per second
}

// Size is a byte size as the user wrote it.
type Size struct {
	Text  string
	Bytes float64
	Unit  string // the unit as written, canonical case ("KB", "KiB"); "B" for bare numbers
}

// Duration is a retention period as the user wrote it.
type Duration struct {
	Text    string
	Seconds float64
}

// Headroom is extra storage kept on top of what retention needs, as a
// fraction: 0.3 means 30% more.
type Headroom struct {
	Text     string
	Fraction float64
}

var (
	rateRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([kKM]?)\s*(?:(?:rec|records?|msgs?|messages?|events?)\s*)?(?:/\s*([a-z]+))?$`)
	sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)
	durRE  = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?)\s*([a-z]+)`)
)

// ratePer maps a rate's time unit to seconds.
var ratePer = map[string]float64{
	"": 1, "s": 1, "sec": 1, "second": 1,
	"min": 60, "minute": 60,
	"h": 3600, "hour": 3600,
}

// ParseRate parses a record rate: 10000/s, 10k/s, 1.5M/s, 600000/min, 10000
// (per second). k and M count records in thousands and millions.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	m := rateRE.FindStringSubmatch(t)
	if m == nil {
		return Rate{}, userr.Errorf("%q: not a rate; %s", s, rateForms)
	}
	per, ok := ratePer[m[3]]
	if !ok {
		return Rate{}, userr.Errorf("%q: unknown time unit %q; %s", s, m[3], rateForms)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil { // the pattern admits only numbers, but they may overflow
		return Rate{}, userr.Errorf("%q: not a rate; %s", s, rateForms)
	}
	switch m[2] {
	case "k", "K":
		v *= 1e3
	case "M":
		v *= 1e6
	}
	if v <= 0 {
		return Rate{}, userr.Errorf("%q: the rate must be more than 0; %s", s, rateForms)
	}
	return Rate{Text: t, PerSec: v / per}, nil
}

// sizeUnits maps a lower-case size unit to its canonical spelling and bytes.
var sizeUnits = map[string]struct {
	name  string
	bytes float64
}{
	"": {"B", 1}, "b": {"B", 1}, "byte": {"B", 1}, "bytes": {"B", 1},
	"kb": {"KB", 1e3}, "mb": {"MB", 1e6}, "gb": {"GB", 1e9}, "tb": {"TB", 1e12}, "pb": {"PB", 1e15},
	"kib": {"KiB", 1 << 10}, "mib": {"MiB", 1 << 20}, "gib": {"GiB", 1 << 30}, "tib": {"TiB", 1 << 40}, "pib": {"PiB", 1 << 50},
}

// ParseSize parses a byte size with an explicit base: 2.5KB is 2,500 bytes,
// 2.5KiB is 2,560. A bare K, M or G is refused because it could mean either.
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	m := sizeRE.FindStringSubmatch(t)
	if m == nil {
		return Size{}, userr.Errorf("%q: not a size; %s", s, sizeForms)
	}
	u, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		switch l := strings.ToLower(m[2]); l {
		case "k", "m", "g", "t":
			U := strings.ToUpper(l)
			return Size{}, userr.Errorf("%q: %s is ambiguous; write %s%sB (decimal, 1 %sB = %s B) or %s%siB (binary, 1 %siB = %s B)",
				s, m[2], m[1], U, U, num(sizeUnits[l+"b"].bytes), m[1], U, U, num(sizeUnits[l+"ib"].bytes))
		}
		return Size{}, userr.Errorf("%q: unknown unit %q; %s", s, m[2], sizeForms)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return Size{}, userr.Errorf("%q: not a size; %s", s, sizeForms)
	}
	if v <= 0 {
		return Size{}, userr.Errorf("%q: the size must be more than 0; %s", s, sizeForms)
	}
	return Size{Text: t, Bytes: v * u.bytes, Unit: u.name}, nil
}

// durUnits maps a duration unit to seconds. There is no bare number: 7 could
// be days or hours.
var durUnits = map[string]float64{
	"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400,
}

// ParseDuration parses a retention period: 7d, 168h, 1w, 30m, 1d12h.
func ParseDuration(s string) (Duration, error) {
	t := strings.TrimSpace(s)
	parts := durRE.FindAllStringSubmatchIndex(t, -1)
	if len(parts) == 0 {
		return Duration{}, userr.Errorf("%q: not a duration; %s", s, durationForms)
	}
	var secs float64
	end := 0
	for _, p := range parts {
		if strings.TrimSpace(t[end:p[0]]) != "" { // text between the parts
			return Duration{}, userr.Errorf("%q: not a duration; %s", s, durationForms)
		}
		unit := t[p[4]:p[5]]
		per, ok := durUnits[unit]
		if !ok {
			return Duration{}, userr.Errorf("%q: unknown unit %q; %s", s, unit, durationForms)
		}
		v, err := strconv.ParseFloat(t[p[2]:p[3]], 64)
		if err != nil {
			return Duration{}, userr.Errorf("%q: not a duration; %s", s, durationForms)
		}
		secs += v * per
		end = p[1]
	}
	if end != len(t) {
		return Duration{}, userr.Errorf("%q: not a duration; %s", s, durationForms)
	}
	if secs <= 0 {
		return Duration{}, userr.Errorf("%q: retention must be more than 0; %s", s, durationForms)
	}
	return Duration{Text: t, Seconds: secs}, nil
}

// ParseHeadroom parses extra storage as 30% or 0.3. A bare number above 1 is
// refused: "30" is more likely 30% than 3,000%.
func ParseHeadroom(s string) (Headroom, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Headroom{}, nil
	}
	n, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return Headroom{}, userr.Errorf("%q: not a headroom; %s", s, headroomForms)
	}
	if pct {
		v /= 100
	} else if v > 1 {
		return Headroom{}, userr.Errorf("%q: ambiguous headroom; write %s%% for %s percent, or a fraction up to 1 such as 0.3", s, n, n)
	}
	return Headroom{Text: t, Fraction: v}, nil
}
