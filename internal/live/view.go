// Package live shows a plan run as it goes: on a terminal, a progress bar
// with the time left and one line per workload (rate, latency, errors,
// lag), redrawn in place by mpb; anywhere else (a CI log, a file), plain
// lines every so often, without escape codes. It is a runner.Observer.
package live

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// PlainEvery is how often plain output prints its status lines.
const PlainEvery = 10 * time.Second

// IsTerminal says whether w is a terminal that can redraw lines in place:
// a terminal, not TERM=dumb, and wide enough for the lines (a terminal
// that reports no size, as some emulated ones do, gets plain lines).
func IsTerminal(w io.Writer, getenv func(string) string) bool {
	f, ok := w.(*os.File)
	if !ok || getenv("TERM") == "dumb" || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width >= 40
}

// View is the live view of a plan run. Write prints a line (above the bars
// on a terminal); Close ends the view.
type View struct {
	out      io.Writer
	tty      bool
	progress *mpb.Progress
	overall  *mpb.Bar
	stop     chan struct{}
	done     chan struct{}
	closed   bool
	every    time.Duration // plain output's period

	mu      sync.Mutex
	total   int // repeats in the plan
	ended   int // repeats ended
	started time.Time
	cur     runner.RepeatInfo
	wl      []*workloadState
	bars    []*mpb.Bar
	printed time.Time // plain output: when the status lines were last printed
}

type workloadState struct {
	info    runner.WorkloadInfo
	records int64   // so far in this repeat
	rate    float64 // records/s over the last interval
	mibps   float64
	p99Ms   float64 // last interval; producers only
	avgMs   float64 // consumers: mean end-to-end latency of the last read
	failed  int64
	lag     int64
	hasLag  bool
	started time.Time
}

// New starts the view of a plan of scenarios × repeats on out, redrawn in
// place when tty is set.
func New(out io.Writer, tty bool, scenarios, repeats int) *View {
	return newView(out, tty, scenarios, repeats)
}

func newView(out io.Writer, tty bool, scenarios, repeats int, opts ...mpb.ContainerOption) *View {
	v := &View{out: out, tty: tty, total: scenarios * repeats, started: time.Now(), every: PlainEvery, stop: make(chan struct{}), done: make(chan struct{})}
	if !tty {
		close(v.done)
		return v
	}
	v.progress = mpb.New(append([]mpb.ContainerOption{mpb.WithOutput(out), mpb.WithWidth(32), mpb.WithRefreshRate(250 * time.Millisecond)}, opts...)...)
	v.overall = v.progress.New(1000, mpb.BarStyle().Lbound("[").Rbound("]"),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return v.title() })),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return v.eta() })),
	)
	go v.tick()
	return v
}

// tick moves the bar; the decorators read the state at each redraw.
func (v *View) tick() {
	defer close(v.done)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			frac, _ := v.fraction()
			v.mu.Unlock()
			v.overall.SetCurrent(int64(frac * 1000))
		}
	}
}

// Write prints p: above the bars on a terminal, as is elsewhere.
func (v *View) Write(p []byte) (int, error) {
	if v.tty {
		if n, err := v.progress.Write(p); err == nil {
			return n, nil
		}
	}
	return v.out.Write(p)
}

// Close ends the view, leaving the bar at its last state. Later calls do
// nothing.
func (v *View) Close() {
	if !v.tty || v.closed {
		return
	}
	v.closed = true
	close(v.stop)
	<-v.done
	v.mu.Lock()
	bars := v.bars
	v.bars = nil
	v.mu.Unlock()
	for _, b := range bars {
		b.Abort(true)
	}
	v.overall.SetTotal(-1, true)
	v.progress.Wait()
}

func (v *View) title() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cur.Name == "" {
		return "kbench: starting"
	}
	return fmt.Sprintf("scenario %d/%d %s, repeat %d/%d", v.cur.Scenario, v.cur.Scenarios, clip(v.cur.Name, 40), v.cur.Repeat, v.cur.Repeats)
}

func (v *View) eta() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	frac, known := v.fraction()
	if frac >= 1 {
		return "100%  done"
	}
	if !known || frac <= 0 {
		return fmt.Sprintf("%3.0f%%  time left unknown", 100*frac)
	}
	spent := time.Since(v.started)
	left := time.Duration(float64(spent)/frac) - spent
	return fmt.Sprintf("%3.0f%%  about %s left", 100*frac, left.Round(time.Second))
}

// fraction is how much of the plan is done: ended repeats plus the running
// one's share, which is known when its workloads have a record count or a
// duration (the slowest decides).
func (v *View) fraction() (float64, bool) {
	if v.total == 0 {
		return 0, false
	}
	cur, known := v.repeatFraction()
	if v.ended >= v.total {
		return 1, true
	}
	return (float64(v.ended) + cur) / float64(v.total), known
}

func (v *View) repeatFraction() (float64, bool) {
	frac, known := 1.0, false
	for _, w := range v.wl {
		f, ok := w.fraction()
		if ok {
			known = true
			frac = min(frac, f)
		}
	}
	if !known {
		return 0, false
	}
	return frac, true
}

func (w *workloadState) fraction() (float64, bool) {
	f, ok := 0.0, false
	if w.info.Records > 0 {
		f, ok = float64(w.records)/float64(w.info.Records), true
	}
	if w.info.Duration > 0 {
		el := time.Since(w.started) - w.info.StartAfter
		f, ok = max(f, float64(max(el, 0))/float64(w.info.Duration)), true
	}
	return min(f, 1), ok
}

func (w *workloadState) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s records/s, %.2f MB/s", w.info.Name, count(w.rate), w.mibps)
	if w.p99Ms > 0 {
		fmt.Fprintf(&b, ", p99 %.1f ms", w.p99Ms)
	}
	if w.avgMs > 0 {
		fmt.Fprintf(&b, ", end-to-end %.1f ms", w.avgMs)
	}
	fmt.Fprintf(&b, ", %d error(s)", w.failed)
	if w.hasLag {
		fmt.Fprintf(&b, ", lag %s", count(float64(w.lag)))
	}
	return b.String()
}

// RepeatStarted implements runner.Observer.
func (v *View) RepeatStarted(ri runner.RepeatInfo) {
	v.mu.Lock()
	v.cur = ri
	v.wl = nil
	for _, wi := range ri.Workloads {
		v.wl = append(v.wl, &workloadState{info: wi, started: ri.Started})
	}
	v.printed = time.Now()
	old, ws := v.bars, v.wl
	v.bars = nil
	v.mu.Unlock()
	if !v.tty {
		return
	}
	// mpb calls outside the lock: its render goroutine takes it too.
	for _, b := range old {
		b.Abort(true)
	}
	var bars []*mpb.Bar
	for _, w := range ws {
		bars = append(bars, v.progress.New(0, mpb.NopStyle(),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
				v.mu.Lock()
				defer v.mu.Unlock()
				return "  " + w.line()
			}))))
	}
	v.mu.Lock()
	v.bars = bars
	v.mu.Unlock()
}

func (v *View) find(name string) *workloadState {
	for _, w := range v.wl {
		if w.info.Name == name {
			return w
		}
	}
	return nil
}

// ProducerInterval implements runner.Observer.
func (v *View) ProducerInterval(name string, iv workload.Interval) {
	v.mu.Lock()
	defer v.mu.Unlock()
	w := v.find(name)
	if w == nil {
		return
	}
	w.records += iv.Count
	if s := iv.Length.Seconds(); s > 0 {
		w.rate, w.mibps = float64(iv.Count)/s, float64(iv.Bytes)/s/(1<<20)
	}
	if iv.Count > 0 {
		w.p99Ms = float64(iv.P99Us) / 1000
	}
	w.failed = iv.Failed
	v.plain()
}

// ConsumerInterval implements runner.Observer.
func (v *View) ConsumerInterval(name string, iv workload.ConsumerInterval) {
	v.mu.Lock()
	defer v.mu.Unlock()
	w := v.find(name)
	if w == nil {
		return
	}
	if iv.LatencyCount > 0 {
		w.avgMs = float64(iv.LatSumUs) / float64(iv.LatencyCount) / 1000
	}
	if w.info.Type == "end-to-end" {
		return // its producer gives the rate; its consumer the latency
	}
	w.records += iv.Records
	if s := iv.End.Sub(iv.Start).Seconds(); s > 0 {
		w.rate, w.mibps = float64(iv.Records)/s, float64(iv.Bytes)/s/(1<<20)
	}
	v.plain()
}

// ConsumerLag implements runner.Observer.
func (v *View) ConsumerLag(name string, records int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if w := v.find(name); w != nil {
		w.lag, w.hasLag = records, true
	}
}

// RepeatEnded implements runner.Observer.
func (v *View) RepeatEnded(runner.RepeatInfo, result.Repeat) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ended++
	v.wl = nil
}

// plain prints the status lines when output is not a terminal, at most
// every PlainEvery. Called with v.mu held.
func (v *View) plain() {
	if v.tty || time.Since(v.printed) < v.every {
		return
	}
	v.printed = time.Now()
	frac, known := v.fraction()
	where := fmt.Sprintf("kbench: scenario %d of %d, repeat %d of %d", v.cur.Scenario, v.cur.Scenarios, v.cur.Repeat, v.cur.Repeats)
	for _, w := range v.wl {
		fmt.Fprintf(v.out, "%s: %s\n", where, w.line())
	}
	if known && frac > 0 {
		spent := time.Since(v.started)
		left := time.Duration(float64(spent)/frac) - spent
		fmt.Fprintf(v.out, "%s: %.0f%% of the plan done, about %s left\n", where, 100*frac, left.Round(time.Second))
	}
}

// count prints a rate or count briefly: 950, 12.3k, 1.25M.
func count(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
