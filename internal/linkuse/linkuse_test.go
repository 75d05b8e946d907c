package linkuse

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fakeIface(t *testing.T, sys, name string, tx, rx int64, speed string) {
	t.Helper()
	dir := filepath.Join(sys, name, "statistics")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, v := range map[string]string{"statistics/tx_bytes": strconv.FormatInt(tx, 10), "statistics/rx_bytes": strconv.FormatInt(rx, 10), "speed": speed} {
		if v == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(sys, name, file), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSampler: the bytes of the repeat only; busy is the busier
// direction over the link speed; an interface with no speed (virtual:
// -1) gives bytes and no busy share.
func TestSampler(t *testing.T) {
	tests := []struct {
		name     string
		speed    string
		wantBusy float64 // -1: none
	}{
		{"a 1 Gb/s link", "1000", 80},
		{"a virtual interface", "-1", -1},
		{"no speed file", "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys := t.TempDir()
			now := time.Unix(100, 0)
			clock := func() time.Time { return now }
			fakeIface(t, sys, "eth0", 1_000, 5_000, tt.speed)
			s, err := start(sys, "eth0", clock)
			if err != nil {
				t.Fatal(err)
			}
			now = now.Add(2 * time.Second)
			// 200 MB out in 2 s: 800 Mb/s; 20 MB in.
			fakeIface(t, sys, "eth0", 1_000+200_000_000, 5_000+20_000_000, tt.speed)
			n := s.Stop()
			if n.Interface != "eth0" || n.SentBytes != 200_000_000 || n.ReceivedBytes != 20_000_000 {
				t.Errorf("got %+v, want eth0 with 200000000 sent and 20000000 received", n)
			}
			switch {
			case tt.wantBusy < 0 && n.BusyPct != nil:
				t.Errorf("busy %v with no link speed", *n.BusyPct)
			case tt.wantBusy >= 0 && (n.BusyPct == nil || *n.BusyPct != tt.wantBusy):
				t.Errorf("busy %v, want %v", n.BusyPct, tt.wantBusy)
			}
		})
	}
}

// TestStartUnknownInterface: an interface with no counters is an error
// naming it.
func TestStartUnknownInterface(t *testing.T) {
	if _, err := start(t.TempDir(), "nope0", time.Now); err == nil || !strings.Contains(err.Error(), "interface nope0") {
		t.Errorf("got %v, want an error naming interface nope0", err)
	}
}

// TestTowardLoopback: a cluster on this host has no link to measure.
func TestTowardLoopback(t *testing.T) {
	if _, err := Toward("127.0.0.1:9092"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("got %v, want the loopback refusal", err)
	}
}
