package compat

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DateFormat formats times like java.text.SimpleDateFormat with the
// English locale, for --date-format. It is compiled once and then only
// appends, so formatting a progress line costs little.
type DateFormat struct {
	pattern string
	parts   []datePart
	loc     *time.Location
}

// datePart is a literal (letter 0) or a run of count pattern letters.
type datePart struct {
	letter  byte
	count   int
	literal string
}

// dateLetters are the pattern letters SimpleDateFormat knows. kbench
// formats all but week-year (Y) and week-of-year (w, W), which need
// locale week rules, and reports those as unsupported.
const dateLetters = "GyMLdHmsSEDFaHkKhzZXu"

// NewDateFormat compiles a SimpleDateFormat pattern. Unknown letters are an
// error, as in Java ("Illegal pattern character").
func NewDateFormat(pattern string) (*DateFormat, error) {
	df := &DateFormat{pattern: pattern, loc: time.Local}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			df.parts = append(df.parts, datePart{literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			// '' is a quote; 'text' is literal text.
			if i+1 < len(pattern) && pattern[i+1] == '\'' {
				lit.WriteByte('\'')
				i += 2
				continue
			}
			end := i + 1
			for ; end < len(pattern); end++ {
				if pattern[end] == '\'' {
					if end+1 < len(pattern) && pattern[end+1] == '\'' {
						lit.WriteByte('\'')
						end++
						continue
					}
					break
				}
				lit.WriteByte(pattern[end])
			}
			if end >= len(pattern) {
				return nil, fmt.Errorf("unterminated quote in pattern %q", pattern)
			}
			i = end + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !strings.ContainsRune(dateLetters, rune(c)) {
				if strings.ContainsRune("YwW", rune(c)) {
					return nil, fmt.Errorf("pattern letter '%c' (week-based fields) is not supported by kbench in %q", c, pattern)
				}
				return nil, fmt.Errorf("Illegal pattern character '%c' in %q", c, pattern)
			}
			n := 1
			for i+n < len(pattern) && pattern[i+n] == c {
				n++
			}
			flush()
			df.parts = append(df.parts, datePart{letter: c, count: n})
			i += n
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return df, nil
}

// In returns a copy of df that formats in loc instead of the local time
// zone (Java's default zone is the system's, like Go's time.Local).
func (df *DateFormat) In(loc *time.Location) *DateFormat {
	c := *df
	c.loc = loc
	return &c
}

// Pattern is the SimpleDateFormat pattern df was made from.
func (df *DateFormat) Pattern() string { return df.pattern }

// FormatMillis formats a Unix time in milliseconds, as Java's
// dateFormat.format(long) does.
func (df *DateFormat) FormatMillis(ms int64) string {
	return df.Format(time.UnixMilli(ms))
}

// Format formats t.
func (df *DateFormat) Format(t time.Time) string {
	t = t.In(df.loc)
	b := make([]byte, 0, 32)
	for _, p := range df.parts {
		if p.letter == 0 {
			b = append(b, p.literal...)
			continue
		}
		b = appendField(b, t, p.letter, p.count)
	}
	return string(b)
}

func appendField(b []byte, t time.Time, letter byte, n int) []byte {
	switch letter {
	case 'G':
		if t.Year() <= 0 {
			return append(b, "BC"...)
		}
		return append(b, "AD"...)
	case 'y':
		y := t.Year()
		if y <= 0 {
			y = 1 - y // Java's year of era
		}
		if n == 2 {
			return pad(b, y%100, 2)
		}
		return pad(b, y, n)
	case 'M', 'L':
		switch {
		case n >= 4:
			return append(b, t.Month().String()...)
		case n == 3:
			return append(b, t.Month().String()[:3]...)
		}
		return pad(b, int(t.Month()), n)
	case 'd':
		return pad(b, t.Day(), n)
	case 'D':
		return pad(b, t.YearDay(), n)
	case 'F':
		return pad(b, (t.Day()-1)/7+1, n)
	case 'E':
		if n >= 4 {
			return append(b, t.Weekday().String()...)
		}
		return append(b, t.Weekday().String()[:3]...)
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return pad(b, wd, n)
	case 'a':
		if t.Hour() < 12 {
			return append(b, "AM"...)
		}
		return append(b, "PM"...)
	case 'H':
		return pad(b, t.Hour(), n)
	case 'k':
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		return pad(b, h, n)
	case 'K':
		return pad(b, t.Hour()%12, n)
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return pad(b, h, n)
	case 'm':
		return pad(b, t.Minute(), n)
	case 's':
		return pad(b, t.Second(), n)
	case 'S':
		// SimpleDateFormat's S is the millisecond count, zero padded to n
		// digits, not a decimal fraction.
		return pad(b, t.Nanosecond()/int(time.Millisecond), n)
	case 'z':
		name, _ := t.Zone()
		return append(b, name...)
	case 'Z':
		return appendOffset(b, t, false, 2)
	case 'X':
		return appendOffset(b, t, true, n)
	}
	return b
}

// appendOffset writes the zone offset: RFC 822 (Z: -0800) or ISO 8601
// (X: -08, XX: -0800, XXX: -08:00, and "Z" for UTC).
func appendOffset(b []byte, t time.Time, iso bool, n int) []byte {
	_, off := t.Zone()
	if iso && off == 0 {
		return append(b, 'Z')
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = pad(b, off/3600, 2)
	if iso && n == 1 {
		return b
	}
	if iso && n >= 3 {
		b = append(b, ':')
	}
	return pad(b, off%3600/60, 2)
}

func pad(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
