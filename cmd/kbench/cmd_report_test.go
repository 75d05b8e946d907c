package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

func TestReportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	drop := filepath.Join(dir, "producer.json")
	doc := result.New(result.KindProducerPerf, "test", time.Now(), nil)
	doc.Finish(nil)
	if err := result.Write(drop, doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg, want string
	}{
		{filepath.Join(dir, "missing"), "give a results folder"},
		{dir, "result.json"}, // a folder without one
		{drop, "reports are written for study plans"},
	}
	for _, tt := range tests {
		var stdout, stderr syncBuffer
		st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		if code := runKbench(t, st, "report", tt.arg); code != exitUsage {
			t.Errorf("report %s: exit %d, want %d", filepath.Base(tt.arg), code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("report %s: stderr %q lacks %q", filepath.Base(tt.arg), stderr.String(), tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("a failed report wrote report.html")
	}
}
