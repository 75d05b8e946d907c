package sizing

import (
	"math"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// headroomForms are ParseHeadroom's; the other values follow
// internal/units' grammar, whose errors give its forms.
const headroomForms = "use a percentage such as 30% or a fraction such as 0.3"

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

// ParseRate parses a record rate (internal/units): 10000/s, 10k/s,
// 600000/min, 10000 (per second).
func ParseRate(s string) (Rate, error) {
	v, err := units.ParseRate(s)
	if err != nil {
		return Rate{}, userr.New(err)
	}
	return Rate{Text: strings.TrimSpace(s), PerSec: v}, nil
}

// ParseSize parses an average record size with an explicit base
// (internal/units): 2.5KB is 2,500 bytes, 2.5KiB is 2,560, 1.3KiB 1331.2.
// A bare K, M or G is refused because it could mean either.
func ParseSize(s string) (Size, error) {
	n, unit, err := units.ParseSizeFraction(s)
	if err != nil {
		return Size{}, userr.New(err)
	}
	if n <= 0 {
		return Size{}, userr.Errorf("%q: the size must be more than 0; %s", s, units.SizeForms)
	}
	return Size{Text: strings.TrimSpace(s), Bytes: n, Unit: unit}, nil
}

// ParseDuration parses a retention period (internal/units): 7d, 168h, 1w,
// 30m, 1d12h.
func ParseDuration(s string) (Duration, error) {
	d, err := units.ParseDuration(s)
	if err != nil {
		return Duration{}, userr.New(err)
	}
	return Duration{Text: strings.TrimSpace(s), Seconds: d.Seconds()}, nil
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
