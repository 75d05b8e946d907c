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
	// Other tests' goroutines come and go meanwhile (CI failed once at 63
	// of 64), so the bound leaves room for them: a watch that kept the
	// count at Stop instead of the peak would be about base.
	if got := w.Stop(); got < int(base)+40 {
		t.Errorf("peak %d goroutines, want at least %d (50 were started)", got, base+40)
	}
	if rss := PeakRSS(); rss < 1<<20 || rss > 1<<40 {
		t.Errorf("PeakRSS = %d bytes", rss)
	}
}
