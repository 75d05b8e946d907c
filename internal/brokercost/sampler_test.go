package brokercost

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/leaktest"
	"github.com/kbench/kbench/internal/result"
)

func TestMain(m *testing.M) { leaktest.Main(m, nil) }

// fakeProc writes the /proc files of pid under root: CPU ticks, resident
// kB and (io >= 0) storage bytes read and written.
func fakeProc(t *testing.T, root string, pid int, user, system, rssKB, io int64) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A command name with a space and a parenthesis, as a JVM's may be.
	stat := fmt.Sprintf("%d (java (x) y) S 1 1 1 0 -1 4194304 100 0 0 0 %d %d 0 0 20 0 50 0 100 1000 200\n", pid, user, system)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", stat)
	write("status", fmt.Sprintf("Name:\tjava\nVmHWM:\t  999999 kB\nVmRSS:\t  %d kB\nThreads:\t50\n", rssKB))
	if io >= 0 {
		write("io", fmt.Sprintf("rchar: 1\nwchar: 2\nread_bytes: %d\nwrite_bytes: %d\ncancelled_write_bytes: 0\n", io, 2*io))
	} else {
		os.Remove(filepath.Join(dir, "io"))
	}
}

// TestSamplerCountsTheRepeatOnly: what a broker used before Start is not
// the repeat's; a broker restarted during it counts its old process up to
// the last sample and the new one from its start; memory is the sampled
// peak and mean; storage I/O absent from /proc is left out, not zero.
func TestSamplerCountsTheRepeatOnly(t *testing.T) {
	root := t.TempDir()
	pids := map[int]int{1: 100, 2: 200}
	fakeProc(t, root, 100, 5000, 1000, 400_000, 1_000_000)
	fakeProc(t, root, 200, 7000, 2000, 500_000, -1)
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	now := t0
	s := start(root, func() map[int]int { return pids }, time.Second, func() time.Time { return now })
	now = t0.Add(time.Second)

	fakeProc(t, root, 100, 5150, 1050, 600_000, 1_500_000) // +1.5 s user, +0.5 s system
	fakeProc(t, root, 200, 7100, 2000, 500_000, -1)
	s.sample(false)
	// Broker 2 is down for a round, then started again as pid 201.
	pids = map[int]int{1: 100}
	now = t0.Add(2 * time.Second)
	s.sample(false)
	pids = map[int]int{1: 100, 2: 201}
	now = t0.Add(3 * time.Second)
	fakeProc(t, root, 100, 5200, 1100, 200_000, 2_000_000)
	fakeProc(t, root, 201, 300, 100, 300_000, -1)
	got := s.Stop()

	if len(got) != 2 {
		t.Fatalf("%d brokers, want 2: %+v", len(got), got)
	}
	b1, b2 := got[0], got[1]
	if b1.ID != 1 || b1.UserSeconds != 2 || b1.SystemSeconds != 1 || b1.CPUSeconds != 3 || b1.Processes != 1 {
		t.Errorf("broker 1: %+v; want 2 s user, 1 s system, one process", b1)
	}
	if b1.RSSPeakBytes != 600_000*1024 || b1.RSSMeanBytes != 450_000*1024 {
		t.Errorf("broker 1 memory: peak %d, mean %d; want the samples' 600,000 kB and (400+600+600+200)/4 = 450,000 kB", b1.RSSPeakBytes, b1.RSSMeanBytes)
	}
	if b1.DiskReadBytes == nil || *b1.DiskReadBytes != 1_000_000 || *b1.DiskWriteBytes != 2_000_000 {
		t.Errorf("broker 1 disk: %v %v; want 1,000,000 read and 2,000,000 written since Start", b1.DiskReadBytes, b1.DiskWriteBytes)
	}
	// 1 s before the restart (7100-7000 ticks), then the new process's 4 s.
	if b2.ID != 2 || b2.CPUSeconds != 5 || b2.Processes != 2 || b2.DiskReadBytes != nil {
		t.Errorf("broker 2: %+v; want 5 CPU seconds over 2 processes, no disk figures", b2)
	}
	// Broker 1: 2 cores in the first second, none in the second, 1 in the third; broker
	// 2: 1 core, nothing while it was down, then its new process's 4 s.
	for _, c := range []struct {
		b    result.BrokerCost
		want string
	}{{b1, "2 0 1"}, {b2, "1 - 4"}} {
		if got := steps(c.b.CPUCores); got != c.want || !c.b.CPUCores.Start.Equal(t0) || c.b.CPUCores.Step != 1 {
			t.Errorf("broker %d's cores %q from %v every %v s; want %q from %v every 1 s", c.b.ID, got, c.b.CPUCores.Start, c.b.CPUCores.Step, c.want, t0)
		}
	}
}

// TestSamplerReadsThisProcess: the parser reads the real /proc (this test
// process stands in for a broker): it burns CPU between Start and Stop
// and must see some of it.
func TestSamplerReadsThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := Start(func() map[int]int { return map[int]int{1: os.Getpid()} }, 10*time.Millisecond)
	for t0 := time.Now(); time.Since(t0) < 300*time.Millisecond; {
	}
	got := s.Stop()
	if len(got) != 1 || got[0].CPUSeconds <= 0 || got[0].RSSPeakBytes <= 0 || got[0].Processes != 1 {
		t.Fatalf("%+v; want CPU and memory of this process", got)
	}
}

// steps shows a series' values, "-" for a null.
func steps(s *result.Steps) string {
	if s == nil {
		return "<nil>"
	}
	var out []string
	for _, v := range s.Values {
		if v == nil {
			out = append(out, "-")
		} else {
			out = append(out, strconv.FormatFloat(*v, 'f', -1, 64))
		}
	}
	return strings.Join(out, " ")
}
