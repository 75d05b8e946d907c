package compat

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Lines the Apache ShareConsumerPerformance printed (Kafka 4.3.1 on the
// local cluster; the consumer's line is 4.3's, with its client id), and
// the inputs that made them: kbench must print the
// same bytes from the same numbers.
func TestShareConsumerLinesMatchJava(t *testing.T) {
	df, err := NewDateFormat(DefaultDateFormat)
	if err != nil {
		t.Fatal(err)
	}
	df = df.In(time.UTC)
	ms := func(s string) int64 {
		tm, err := time.ParseInLocation("2006-01-02 15:04:05.000", s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	var buf bytes.Buffer
	ShareConsumerHeader(&buf)
	// One record of 100 bytes in 10,669 ms, consumer 1's progress line.
	ShareConsumerProgressLine(&buf, df, ShareConsumerProgress{Consumer: 1,
		StartMs: ms("2026-11-28 21:24:22.923"), EndMs: ms("2026-11-28 21:24:33.592"), Bytes: 100, Records: 1})
	// Consumer 1's final line and the group's.
	start, end := ms("2026-11-28 21:24:34.867"), ms("2026-11-28 21:24:58.431")
	ShareConsumerStats(&buf, df, 1, ShareClientID("perf-share-consumer-client", 1), start, end, 9617400, 96174)
	ShareConsumerStats(&buf, df, 0, "", start, end, 20000000, 200000)
	want := "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms\n" +
		"2026-11-28 21:24:22:923, 2026-11-28 21:24:33:592, 0.0001, 0.0000, 0.0937, 1, 10669 for share consumer 1\n" +
		"Share consumer 1 having client id perf-share-consumer-client-1 consumption metrics- 2026-11-28 21:24:34:867, 2026-11-28 21:24:58:431, 9.1719, 0.3892, 4081.3953, 96174, 23564\n" +
		"2026-11-28 21:24:34:867, 2026-11-28 21:24:58:431, 19.0735, 0.8094, 8487.5233, 200000, 23564\n"
	if got := buf.String(); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseShareConsumerArgs(t *testing.T) {
	ok := []string{"--bootstrap-server", "b:9092", "--topic", "t", "--num-records", "100"}
	a, err := ParseShareConsumerArgs(ok)
	if err != nil {
		t.Fatal(err)
	}
	if a.Group != DefaultShareGroup || a.Threads != 1 || a.Timeout != 10*time.Second || a.FetchSize != 1<<20 || a.ReportingInterval != 5*time.Second {
		t.Errorf("defaults: %+v", a)
	}
	old, err := ParseShareConsumerArgs([]string{"--bootstrap-server", "b:9092", "--topic", "t", "--messages", "5", "--consumer.config", "c.properties"})
	if err != nil {
		t.Fatal(err)
	}
	if old.NumRecords != 5 || len(old.Warnings) != 2 || old.PropFiles[0] != "c.properties" {
		t.Errorf("old names: %+v", old)
	}
	bad := []struct {
		name string
		args []string
		want string
	}{
		{"no topic", []string{"--bootstrap-server", "b:9092", "--num-records", "1"}, "topic"},
		{"no count", []string{"--bootstrap-server", "b:9092", "--topic", "t"}, "--num-records is required"},
		{"both counts", append(ok, "--messages", "3"), "not both"},
		{"zero records", []string{"--topic", "t", "--num-records", "0"}, "greater than zero"},
		{"no threads", append(ok, "--threads", "0"), "--threads should be at least 1"},
		{"negative timeout", append(ok, "--timeout", "-1"), "--timeout should not be negative"},
		{"zero interval", append(ok, "--reporting-interval", "0"), "Reporting interval must be greater than 0."},
		{"bad fetch size", append(ok, "--fetch-size", "x"), "--fetch-size"},
		{"both config files", append(ok, "--consumer.config", "a", "--command-config", "b"), "old name"},
		{"unknown option", append(ok, "--from-latest"), "--from-latest"},
		{"empty group", append(ok, "--group", ""), "--group should not be empty"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseShareConsumerArgs(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestSharePrintMetricsHelpSaysWhatItPrints guards --print-metrics' help,
// which promised the Apache tool's metrics table where the run prints a
// note (ShareMetricsNote) that kbench keeps none for share consumers.
func TestSharePrintMetricsHelpSaysWhatItPrints(t *testing.T) {
	var help bytes.Buffer
	Usage(&help, "usage", ShareConsumerOptions)
	var line string
	for _, l := range strings.Split(help.String(), "\n") {
		if strings.Contains(l, "--print-metrics") {
			line = l
		}
	}
	if !strings.Contains(help.String(), ShareMetricsNote) || strings.Contains(line, "in the Apache tool's table") {
		t.Errorf("--print-metrics help:\n%s\nwant it to say it prints the note %q", help.String(), ShareMetricsNote)
	}
}

// TestShareNumberTooLargeIsOneError guards the options' number errors: a
// --num-records too large for an int64 was followed by a bogus second
// problem ("--num-records should be greater than zero") checked on the 0
// left in its place.
func TestShareNumberTooLargeIsOneError(t *testing.T) {
	t.Parallel()
	base := []string{"--bootstrap-server", "b:9092", "--topic", "t"}
	huge := "99999999999999999999"
	for _, args := range [][]string{
		{"--num-records", huge},
		{"--messages", huge},
		{"--num-records", "1", "--threads", huge},
		{"--num-records", "1", "--fetch-size", huge},
		{"--num-records", "1", "--socket-buffer-size", huge},
		{"--num-records", "1", "--timeout", "-" + huge},
		{"--num-records", "x"},
	} {
		_, err := ParseShareConsumerArgs(append(append([]string(nil), base...), args...))
		if err == nil || strings.Contains(err.Error(), "problems") || strings.Contains(err.Error(), "should") {
			t.Errorf("%v: %v; want the number's error alone", args, err)
		}
	}
}
