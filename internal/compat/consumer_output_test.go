package compat

import (
	"bytes"
	"testing"
	"time"
)

// utcDefault is the tool's default date format in UTC, the zone the golden
// lines below were printed in.
func utcDefault(t *testing.T) *DateFormat {
	t.Helper()
	df, err := NewDateFormat(DefaultDateFormat)
	if err != nil {
		t.Fatal(err)
	}
	return df.In(time.UTC)
}

// ms parses a time printed in the default format, in UTC.
func ms(t *testing.T, s string) int64 {
	t.Helper()
	// Go reads fractions of seconds only after '.' or ','.
	v, err := time.ParseInLocation("2006-01-02 15:04:05.000", s[:19]+"."+s[20:], time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return v.UnixMilli()
}

// The golden lines were printed by Apache Kafka 4.3.1's ConsumerPerformance
// against a local broker, for 200000 records of 100 bytes; the inputs are
// recovered from them (times, records, bytes = 100 per record, join time).
func TestConsumerSummaryGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		totals func(t *testing.T) ConsumerTotals
		want   string
	}{
		{
			name: "complete run",
			totals: func(t *testing.T) ConsumerTotals {
				return ConsumerTotals{StartMs: ms(t, "2026-11-22 15:52:59:476"), EndMs: ms(t, "2026-11-22 15:53:00:822"),
					Bytes: 200000 * 100, Records: 200000, RebalanceMs: 815}
			},
			want: "2026-11-22 15:52:59:476, 2026-11-22 15:53:00:822, 19.0735, 14.1705, 200000, 148588.4101, 815, 531, 35.9199, 376647.8343\n",
		},
		{
			name: "run that timed out",
			totals: func(t *testing.T) ConsumerTotals {
				return ConsumerTotals{StartMs: ms(t, "2026-11-22 15:53:07:375"), EndMs: ms(t, "2026-11-22 15:53:10:333"),
					Bytes: 200000 * 100, Records: 200000, RebalanceMs: 374}
			},
			want: "2026-11-22 15:53:07:375, 2026-11-22 15:53:10:333, 19.0735, 6.4481, 200000, 67613.2522, 374, 2584, 7.3814, 77399.3808\n",
		},
		{
			// Java divides by zero seconds into Infinity and NaN.
			name: "nothing consumed in no time",
			totals: func(t *testing.T) ConsumerTotals {
				at := ms(t, "2026-11-22 15:53:07:375")
				return ConsumerTotals{StartMs: at, EndMs: at}
			},
			want: "2026-11-22 15:53:07:375, 2026-11-22 15:53:07:375, 0.0000, NaN, 0, NaN, 0, 0, NaN, NaN\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			ConsumerSummary(&b, utcDefault(t), tt.totals(t))
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}

// Golden lines printed by 4.3.1 with --show-detailed-stats
// --reporting-interval 100.
func TestConsumerProgressGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    func(t *testing.T) ConsumerProgress
		want string
	}{
		{
			name: "first interval, with the join",
			p: func(t *testing.T) ConsumerProgress {
				end := ms(t, "2026-11-22 15:53:02:537")
				return ConsumerProgress{StartMs: end - 451, EndMs: end, Bytes: 100, Records: 1, RebalanceMsInInterval: 389}
			},
			want: "2026-11-22 15:53:02:537, 0, 0.0001, 0.0002, 1, 2.2173, 389, 62, 0.0015, 16.1290\n",
		},
		{
			name: "steady interval",
			p: func(t *testing.T) ConsumerProgress {
				return ConsumerProgress{StartMs: ms(t, "2026-11-22 15:53:02:537"), EndMs: ms(t, "2026-11-22 15:53:02:637"),
					Bytes: 22937 * 100, LastBytes: 100, Records: 22937, LastRecords: 1}
			},
			want: "2026-11-22 15:53:02:637, 0, 2.1874, 21.8735, 22937, 229360.0000, 0, 100, 21.8735, 229360.0000\n",
		},
		{
			name: "last interval",
			p: func(t *testing.T) ConsumerProgress {
				return ConsumerProgress{StartMs: ms(t, "2026-11-22 15:53:02:841"), EndMs: ms(t, "2026-11-22 15:53:02:944"),
					Bytes: 189433 * 100, LastBytes: 104185 * 100, Records: 189433, LastRecords: 104185}
			},
			want: "2026-11-22 15:53:02:944, 0, 18.0657, 78.9309, 189433, 827650.4854, 0, 103, 78.9309, 827650.4854\n",
		},
		{
			name: "all of it rebalancing",
			p: func(t *testing.T) ConsumerProgress {
				end := ms(t, "2026-11-22 15:53:02:944")
				return ConsumerProgress{StartMs: end - 100, EndMs: end, Bytes: 100, Records: 1, RebalanceMsInInterval: 100}
			},
			want: "2026-11-22 15:53:02:944, 0, 0.0001, 0.0010, 1, 10.0000, 100, 0, 0.0000, 0.0000\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			ConsumerProgressLine(&b, utcDefault(t), tt.p(t))
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}

func TestConsumerFixedLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		print func(b *bytes.Buffer)
		want  string
	}{
		{"header", func(b *bytes.Buffer) { ConsumerHeader(b, false) },
			"start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"},
		{"detailed header", func(b *bytes.Buffer) { ConsumerHeader(b, true) },
			"time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n"},
		{"timeout", func(b *bytes.Buffer) { ConsumerTimeoutWarning(b, 2000) },
			"WARNING: Exiting before consuming the expected number of records: timeout (2000 ms) exceeded. You can use the --timeout option to increase the timeout.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			tt.print(&b)
			if b.String() != tt.want {
				t.Errorf("got  %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}
