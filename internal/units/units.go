// Package units parses the human forms of counts, sizes, rates and
// durations that plans and flags share: 20M records, 4KiB, 25k/s, 90s.
// Every error says which forms are accepted.
package units

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The accepted forms, quoted by every error.
const (
	CountForms    = "write a whole number such as 20000000, 20_000_000, 20M, 1.5k (k = 1,000, M = 1,000,000, G = 1,000,000,000)"
	SizeForms     = "write a number of bytes such as 100, 100B, 4KB (4,000 B), 4KiB (4,096 B), 1MB or 1MiB"
	RateForms     = "write 25000/s, 25k/s, 1.5M/s, 600/m or unlimited"
	DurationForms = "write a duration such as 90s, 1m30s, 500ms or 2h"
)

var (
	countRE = regexp.MustCompile(`^([0-9][0-9_]*(?:\.[0-9]+)?)([kKMG]?)$`)
	sizeRE  = regexp.MustCompile(`^([0-9][0-9_]*(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)
	rateRE  = regexp.MustCompile(`^([0-9][0-9_]*(?:\.[0-9]+)?)([kKMG]?)\s*/\s*([a-z]+)$`)
)

var countScale = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}

var sizeScale = map[string]float64{
	"": 1, "B": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
}

var ratePer = map[string]float64{"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}

// scaled turns number×scale into a whole int64, refusing fractions that do
// not come out whole and values beyond int64.
func scaled(num string, scale float64) (int64, error) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, "_", ""), 64)
	if err != nil {
		return 0, err
	}
	v *= scale
	if v >= math.MaxInt64 {
		return 0, errors.New("too large")
	}
	if v != math.Trunc(v) {
		return 0, errors.New("not a whole number")
	}
	return int64(v), nil
}

// ParseCount parses a record count: 20000000, 20_000_000, 20M, 1.5k.
func ParseCount(s string) (int64, error) {
	t := strings.TrimSpace(s)
	m := countRE.FindStringSubmatch(t)
	if m == nil {
		return 0, fmt.Errorf("%q is not a count; %s", s, CountForms)
	}
	n, err := scaled(m[1], countScale[m[2]])
	if err != nil {
		return 0, fmt.Errorf("%q is %v; %s", s, err, CountForms)
	}
	return n, nil
}

// ParseSize parses a byte size: 100, 100B, 4KB, 4KiB, 1MB, 1MiB. KB is
// 1,000 bytes and KiB 1,024, as the units say.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	m := sizeRE.FindStringSubmatch(t)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size; %s", s, SizeForms)
	}
	scale, ok := sizeScale[m[2]]
	if !ok {
		for unit, sc := range sizeScale {
			if unit != "" && strings.EqualFold(unit, m[2]) {
				return 0, fmt.Errorf("%q: write the unit as %s (%g bytes); %s", s, unit, sc, SizeForms)
			}
		}
		return 0, fmt.Errorf("%q: unknown unit %q; %s", s, m[2], SizeForms)
	}
	n, err := scaled(m[1], scale)
	if err != nil {
		return 0, fmt.Errorf("%q is %v of bytes; %s", s, err, SizeForms)
	}
	return n, nil
}

// ParseRate parses a record rate in records per second; 0 means
// unlimited: 25000/s, 25k/s, 1.5M/s, 600/m, unlimited.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "unlimited" {
		return 0, nil
	}
	m := rateRE.FindStringSubmatch(t)
	if m == nil {
		if _, err := strconv.ParseFloat(t, 64); err == nil {
			return 0, fmt.Errorf("%q has no time unit; %s", s, RateForms)
		}
		return 0, fmt.Errorf("%q is not a rate; %s", s, RateForms)
	}
	per, ok := ratePer[m[3]]
	if !ok {
		return 0, fmt.Errorf("%q: unknown time unit %q (s, m or h); %s", s, m[3], RateForms)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], "_", ""), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate; %s", s, RateForms)
	}
	v = v * countScale[m[2]] / per
	if v <= 0 {
		return 0, fmt.Errorf("%q: a rate must be above 0; %s", s, RateForms)
	}
	return v, nil
}

// ErrTooLong is ParseDuration's error for a duration beyond time.Duration
// (about 292 years), which Go reports like a typo.
var ErrTooLong = errors.New("longer than 2562047h (about 292 years), the longest duration kbench can count")

// durationRE is Go's duration syntax, to tell an overflow from a typo.
var durationRE = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDuration parses a positive duration: 90s, 1m30s, 500ms, 2h.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	d, err := time.ParseDuration(t)
	if err != nil {
		if _, nerr := strconv.ParseFloat(t, 64); nerr == nil {
			return 0, fmt.Errorf("%q has no unit; %s", s, DurationForms)
		}
		if durationRE.MatchString(t) && strings.ContainsAny(t, "0123456789") {
			return 0, fmt.Errorf("%q is %w; %s", s, ErrTooLong, DurationForms)
		}
		return 0, fmt.Errorf("%q is not a duration; %s", s, DurationForms)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: a duration must be above 0; %s", s, DurationForms)
	}
	return d, nil
}
