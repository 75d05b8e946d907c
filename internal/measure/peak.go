package measure

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PeakTick is how often WatchPeak counts goroutines.
const PeakTick = 100 * time.Millisecond

// PeakWatch keeps the most goroutines this process had while it watched,
// counted every PeakTick (a client's goroutines live for the run, so a
// tick finds them; one that comes and goes within a tick may be missed).
// Its numbers say what many clients in one process cost per client.
type PeakWatch struct {
	peak atomic.Int64
	stop chan struct{}
	done sync.WaitGroup
}

// WatchPeak starts counting; Stop ends it.
func WatchPeak() *PeakWatch {
	w := &PeakWatch{stop: make(chan struct{})}
	w.peak.Store(int64(runtime.NumGoroutine()))
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(PeakTick)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.note()
			}
		}
	}()
	return w
}

func (w *PeakWatch) note() {
	n := int64(runtime.NumGoroutine()) - 1 // not the watch's own
	for {
		p := w.peak.Load()
		if n <= p || w.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// Stop ends the watch and returns the most goroutines seen.
func (w *PeakWatch) Stop() int {
	w.note()
	close(w.stop)
	w.done.Wait()
	return int(w.peak.Load())
}

// PeakRSS returns the most resident memory this process has held since it
// started, in bytes (VmHWM in /proc/self/status on Linux; elsewhere the
// maximum resident set size getrusage reports, 0 if unknown). It counts
// the binary's pages that were touched as well as the heap.
func PeakRSS() int64 {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return maxRSS()
}
