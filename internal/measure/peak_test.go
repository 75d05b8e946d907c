package measure

import (
	"sync"
	"testing"
	"time"
)

// TestWatchPeak: the watch keeps the most goroutines seen, not the count
// when it stops, and not its own; PeakRSS reads a plausible peak.
func TestWatchPeak(t *testing.T) {
	w := WatchPeak()
	base := w.peak.Load()
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); <-release }()
	}
	time.Sleep(3 * PeakTick)
	close(release)
	wg.Wait()
	if got := w.Stop(); got < int(base)+50 {
		t.Errorf("peak %d goroutines, want at least %d", got, base+50)
	}
	if rss := PeakRSS(); rss < 1<<20 || rss > 1<<40 {
		t.Errorf("PeakRSS = %d bytes", rss)
	}
}
