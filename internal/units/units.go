// Package units is kbench's one grammar for the numbers people type:
// counts (20M records), sizes (4KiB), rates (25k/s) and durations (90s,
// 7d), the same in plans, flags and kbench size. docs/units.md describes
// it; every error says which forms are accepted. Figure is the other way:
// how a measured figure is printed in every table.
//
// Numbers may have a decimal part and _ between digits; the value must
// come out whole where a whole one is needed (1.5k records is 1500, 1.5
// records an error). Arithmetic is exact (4.1M is 4,100,000, not
// 4099999.9999999995).
package units

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The accepted forms, quoted by every error.
const (
	CountForms = "write a whole number such as 20000000, 20_000_000, 20M, 1.5k (k = 1,000, M = 1,000,000, G = 1,000,000,000)"
	SizeForms  = "write a number of bytes such as 100, 100B, 4KB (4,000 B), 4KiB (4,096 B), 1MB or 1MiB"
	// RateForms are ParseRate's; LimitForms ParseLimit's.
	RateForms     = "write records per second such as 25000, 25000/s, 25k/s, 1.5M/s or 600/m"
	LimitForms    = "write 25000/s, 25k/s, 1.5M/s, 600/m or unlimited (a number alone is per second)"
	DurationForms = "write a duration such as 90s, 1m30s, 500ms, 2h, 7d or 1w"
)

const num = `([0-9][0-9_]*(?:\.[0-9]+)?)`

var (
	countRE = regexp.MustCompile(`^` + num + `([kKMG]?)$`)
	sizeRE  = regexp.MustCompile(`^` + num + `\s*([A-Za-z]*)$`)
	rateRE  = regexp.MustCompile(`^` + num + `([kKMG]?)(?:\s*/\s*([a-zµ]+))?$`)
	durRE   = regexp.MustCompile(`^` + num + `([a-zµμ]+)`)
)

// countScale are the count suffixes.
var countScale = map[string]int64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}

// sizeUnits are the size units, as written: decimal (KB = 1,000 B) and
// binary (KiB = 1,024 B). Case matters: a bit is not a byte.
var sizeUnits = map[string]int64{
	"B":  1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50,
}

// timeUnits are the units of durations and the per of rates, in
// nanoseconds; min and sec are the same as m and s.
var timeUnits = map[string]int64{
	"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6,
	"s": 1e9, "sec": 1e9, "m": 60e9, "min": 60e9, "h": 3600e9,
	"d": 24 * 3600e9, "w": 7 * 24 * 3600e9,
}

// rateUnits are the time units a rate may be per.
var rateUnits = []string{"s", "sec", "m", "min", "h", "d"}

// decimal is the exact value of a number as matched by num.
func decimal(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(strings.ReplaceAll(s, "_", ""))
	if !ok { // num admits only what SetString reads
		panic("units: not a number: " + s)
	}
	return r
}

var maxInt64 = new(big.Rat).SetInt64(math.MaxInt64)

// whole is r as an int64: an error when it has a fraction or is beyond
// int64.
func whole(r *big.Rat) (int64, error) {
	if r.Cmp(maxInt64) > 0 {
		return 0, errors.New("too large")
	}
	if !r.IsInt() {
		return 0, errors.New("not a whole number")
	}
	return r.Num().Int64(), nil
}

// ParseCount parses a record count: 20000000, 20_000_000, 20M, 1.5k.
func ParseCount(s string) (int64, error) {
	m := countRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a count; %s", s, CountForms)
	}
	n, err := whole(new(big.Rat).Mul(decimal(m[1]), big.NewRat(countScale[m[2]], 1)))
	if err != nil {
		return 0, fmt.Errorf("%q is %v; %s", s, err, CountForms)
	}
	return n, nil
}

// ParseSize parses a byte size: 100, 100B, 4KB, 4KiB, 1MB, 1MiB. KB is
// 1,000 bytes and KiB 1,024, as the units say; a bare K or M is refused,
// as it could mean either.
func ParseSize(s string) (int64, error) {
	n, _, err := ParseSizeUnit(s)
	return n, err
}

// ParseSizeUnit is ParseSize, also giving the unit as written ("B" for a
// number alone).
func ParseSizeUnit(s string) (bytes int64, unit string, err error) {
	r, unit, err := size(s)
	if err != nil {
		return 0, "", err
	}
	n, err := whole(r)
	if err != nil {
		return 0, "", fmt.Errorf("%q is %v of bytes; %s", s, err, SizeForms)
	}
	return n, unit, nil
}

// ParseSizeFraction is ParseSizeUnit for a size that may have a fraction
// of a byte, such as an average record size (1.3KiB is 1331.2 bytes).
func ParseSizeFraction(s string) (bytes float64, unit string, err error) {
	r, unit, err := size(s)
	if err != nil {
		return 0, "", err
	}
	v, _ := r.Float64()
	if math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%q is too large; %s", s, SizeForms)
	}
	return v, unit, nil
}

// size is the exact number of bytes s says, and its unit.
func size(s string) (*big.Rat, string, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, "", fmt.Errorf("%q is not a size; %s", s, SizeForms)
	}
	unit := m[2]
	if unit == "" {
		unit = "B"
	}
	scale, ok := sizeUnits[unit]
	if !ok {
		return nil, "", sizeUnitError(s, m[1], unit)
	}
	return new(big.Rat).Mul(decimal(m[1]), big.NewRat(scale, 1)), unit, nil
}

// sizeUnitError explains a size unit that is not one: written in the wrong
// case, a bare K or M, or unknown.
func sizeUnitError(s, number, unit string) error {
	for u, scale := range sizeUnits {
		if strings.EqualFold(u, unit) {
			return fmt.Errorf("%q: write the unit as %s (%s); %s", s, u, byteCount(scale), SizeForms)
		}
	}
	if l := strings.ToUpper(unit); len(l) == 1 && strings.Contains("KMGTP", l) {
		return fmt.Errorf("%q: %s is ambiguous; write %s%sB (decimal, 1 %sB = %s B) or %s%siB (binary, 1 %siB = %s B)",
			s, unit, number, l, l, grouped(sizeUnits[l+"B"]), number, l, l, grouped(sizeUnits[l+"iB"]))
	}
	return fmt.Errorf("%q: unknown unit %q; %s", s, unit, SizeForms)
}

// ParseRate parses a record rate, in records per second: 25000, 25000/s,
// 25k/s, 1.5M/s, 600/m, 7200/h, 100k/d. A number alone is per second. It
// must be above 0.
func ParseRate(s string) (float64, error) {
	return parseRate(s, RateForms)
}

// ParseLimit parses a rate limit: a rate (ParseRate), or unlimited (0).
func ParseLimit(s string) (float64, error) {
	if strings.TrimSpace(s) == "unlimited" {
		return 0, nil
	}
	return parseRate(s, LimitForms)
}

func parseRate(s, forms string) (float64, error) {
	m := rateRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a rate; %s", s, forms)
	}
	per := int64(1e9)
	if m[3] != "" {
		if !slices.Contains(rateUnits, m[3]) {
			return 0, fmt.Errorf("%q: unknown time unit %q (%s); %s", s, m[3], strings.Join(rateUnits, ", "), forms)
		}
		per = timeUnits[m[3]]
	}
	r := decimal(m[1])
	r.Mul(r, big.NewRat(countScale[m[2]]*1e9, per))
	v, _ := r.Float64()
	if v <= 0 {
		return 0, fmt.Errorf("%q: a rate must be above 0; %s", s, forms)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate kbench can count: too large; %s", s, forms)
	}
	return v, nil
}

// ErrTooLong is ParseDuration's error for a duration beyond time.Duration
// (about 292 years).
var ErrTooLong = errors.New("longer than 2562047h (about 292 years), the longest duration kbench can count")

// ParseDuration parses a positive duration: 90s, 1m30s, 500ms, 2h, 7d
// (24 h), 1w (7 d), 1.5d; parts add up (1d12h).
func ParseDuration(s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("%q: a duration must be above 0; %s", s, DurationForms)
	}
	return d, err
}

// ParseDurationOrZero is ParseDuration that also takes 0 (a flag whose
// default is none).
func ParseDurationOrZero(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "0" {
		return 0, nil
	}
	return ParseDuration(s)
}

func parseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "-"); ok {
		if _, err := parseDuration(rest); err == nil {
			return 0, fmt.Errorf("%q: a duration must be above 0; %s", s, DurationForms)
		}
	}
	if durRE.FindString(t) == "" {
		if decimalRE.MatchString(t) {
			return 0, fmt.Errorf("%q has no unit; %s", s, DurationForms)
		}
		return 0, fmt.Errorf("%q is not a duration; %s", s, DurationForms)
	}
	total := new(big.Rat)
	for rest := t; rest != ""; {
		m := durRE.FindStringSubmatch(rest)
		if m == nil {
			return 0, fmt.Errorf("%q is not a duration; %s", s, DurationForms)
		}
		scale, ok := timeUnits[m[2]]
		if !ok {
			return 0, fmt.Errorf("%q: unknown unit %q (ns, us, ms, s, m, h, d or w); %s", s, m[2], DurationForms)
		}
		part := decimal(m[1])
		total.Add(total, part.Mul(part, big.NewRat(scale, 1)))
		rest = rest[len(m[0]):]
	}
	if total.Cmp(maxInt64) > 0 {
		return 0, fmt.Errorf("%q is %w; %s", s, ErrTooLong, DurationForms)
	}
	// A fraction of a nanosecond is dropped, as Go's time.ParseDuration does.
	return time.Duration(new(big.Int).Quo(total.Num(), total.Denom()).Int64()), nil
}

// LooksLikeDuration reports whether s is written as a duration (numbers
// with time units, 10s, 1m30s), whatever its value: for fields that take a
// duration or a count (warmup: 10s or 100k).
func LooksLikeDuration(s string) bool {
	t := strings.TrimPrefix(strings.TrimSpace(s), "-")
	for t != "" {
		m := durRE.FindStringSubmatch(t)
		if m == nil {
			return false
		}
		if _, ok := timeUnits[m[2]]; !ok {
			return false
		}
		t = t[len(m[0]):]
	}
	return s != ""
}

var decimalRE = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(\.[0-9]+)?$`)

// byteCount writes n bytes: "1 byte", "1,024 bytes".
func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return grouped(n) + " bytes"
}

// grouped writes n with thousands separators: 1,048,576.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// DurationFlag is a command-line flag's value (a pflag.Value) holding a
// duration in this grammar. Unlike ParseDuration it takes 0 and negative
// values, for the command to judge with its own words (--timeout 0s "must
// be positive").
type DurationFlag struct{ D *time.Duration }

// Duration makes a DurationFlag over p, set to def.
func Duration(p *time.Duration, def time.Duration) DurationFlag {
	*p = def
	return DurationFlag{D: p}
}

// Set parses s.
func (f DurationFlag) Set(s string) error {
	t, neg := strings.CutPrefix(strings.TrimSpace(s), "-")
	var d time.Duration
	if t != "0" {
		var err error
		if d, err = parseDuration(t); err != nil {
			return err
		}
	}
	if neg {
		d = -d
	}
	*f.D = d
	return nil
}

// String is the value as a duration ("0" for none, which --help leaves
// out).
func (f DurationFlag) String() string {
	if f.D == nil || *f.D == 0 {
		return "0"
	}
	return f.D.String()
}

// Type names the value in --help.
func (DurationFlag) Type() string { return "duration" }
