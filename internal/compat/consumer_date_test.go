package compat

import (
	"strings"
	"testing"
	"time"
)

// The expected strings were printed by Java 17's java.text.SimpleDateFormat
// for the same instants, with setTimeZone to the same zones.
func TestDateFormatMatchesJava(t *testing.T) {
	t.Parallel()
	instants := []int64{1795362779476, 0, 1700000000007, 1704067199999}
	tests := []struct {
		zone, pattern string
		want          string // the four instants, each followed by |
	}{
		{"UTC", "yyyy-MM-dd HH:mm:ss:SSS", "2026-11-22 15:52:59:476|1970-01-01 00:00:00:000|2023-11-14 22:13:20:007|2023-12-31 23:59:59:999|"},
		{"UTC", "yy-M-d H:m:s:S", "26-11-22 15:52:59:476|70-1-1 0:0:0:0|23-11-14 22:13:20:7|23-12-31 23:59:59:999|"},
		{"UTC", "EEE, d MMM yyyy HH:mm:ss Z", "Sun, 22 Nov 2026 15:52:59 +0000|Thu, 1 Jan 1970 00:00:00 +0000|Tue, 14 Nov 2023 22:13:20 +0000|Sun, 31 Dec 2023 23:59:59 +0000|"},
		{"UTC", "EEEE MMMM dd yyyy hh:mm a", "Sunday November 22 2026 03:52 PM|Thursday January 01 1970 12:00 AM|Tuesday November 14 2023 10:13 PM|Sunday December 31 2023 11:59 PM|"},
		{"UTC", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2026-11-22T15:52:59.476Z|1970-01-01T00:00:00.000Z|2023-11-14T22:13:20.007Z|2023-12-31T23:59:59.999Z|"},
		{"UTC", "'at' h 'o''clock' k K D F u G X XX z", "at 3 o'clock 15 3 326 4 7 AD Z Z UTC|at 12 o'clock 24 0 1 1 4 AD Z Z UTC|at 10 o'clock 22 10 318 2 2 AD Z Z UTC|at 11 o'clock 23 11 365 5 7 AD Z Z UTC|"},
		{"UTC", "yyyyy.MMMMM.dd GGG hh:mm aaa", "02026.November.22 AD 03:52 PM|01970.January.01 AD 12:00 AM|02023.November.14 AD 10:13 PM|02023.December.31 AD 11:59 PM|"},
		{"UTC", "SSSSS S", "00476 476|00000 0|00007 7|00999 999|"},
		{"Asia/Kolkata", "Z X XX XXX", "+0530 +05 +0530 +05:30|+0530 +05 +0530 +05:30|+0530 +05 +0530 +05:30|+0530 +05 +0530 +05:30|"},
		{"Asia/Kolkata", "yyyy-MM-dd HH:mm:ss:SSS", "2026-11-22 21:22:59:476|1970-01-01 05:30:00:000|2023-11-15 03:43:20:007|2024-01-01 05:29:59:999|"},
		{"America/New_York", "Z X XX XXX", "-0500 -05 -0500 -05:00|-0500 -05 -0500 -05:00|-0500 -05 -0500 -05:00|-0500 -05 -0500 -05:00|"},
	}
	for _, tt := range tests {
		t.Run(tt.zone+" "+tt.pattern, func(t *testing.T) {
			t.Parallel()
			loc, err := time.LoadLocation(tt.zone)
			if err != nil {
				t.Skipf("no time zone data for %s: %v", tt.zone, err)
			}
			df, err := NewDateFormat(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			df = df.In(loc)
			var b strings.Builder
			for _, ms := range instants {
				b.WriteString(df.FormatMillis(ms))
				b.WriteByte('|')
			}
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}

func TestDateFormatErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ pattern, want string }{
		{"yyyy-bb", "Illegal pattern character 'b'"},
		{"YYYY", "week-based fields"},
		{"HH 'open", "unterminated quote"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			_, err := NewDateFormat(tt.pattern)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewDateFormat(%q) = %v, want an error with %q", tt.pattern, err, tt.want)
			}
		})
	}
}
