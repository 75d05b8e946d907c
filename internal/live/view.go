// Package live shows a plan run as it goes: on a terminal, a progress bar
// with the time left and one line per workload (rate, latency, errors,
// lag), redrawn in place by mpb; anywhere else (a CI log, a file), plain
// lines every so often, without escape codes. It is a observe.Observer.
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

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
)

// PlainEvery is how often plain output prints its status lines.
const PlainEvery = 10 * time.Second

// QuietAfter is how long a workload may go without a record completing
// before its line says so ("no acknowledgements for 12s") instead of its
// last rate and latency, which no longer describe the run.
const QuietAfter = 2 * time.Second

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
	cur     observe.RepeatInfo
	wl      []*workloadState
	bars    []*mpb.Bar
	printed time.Time // plain output: when the status lines were last printed
	// took is the time the ended repeats took, from their start to their
	// end: the estimate of the repeats yet to run.
	took time.Duration
	// probe is the rate search's run going on (nil: no search): the
	// repeat's length is the search's, not its workloads'.
	probe *observe.ProbeInfo
}

type workloadState struct {
	info    observe.WorkloadInfo
	records int64   // so far in this repeat
	rate    float64 // records/s over the last span shown
	mibps   float64
	p99Ms   float64 // last interval with records; producers only
	avgMs   float64 // consumers: mean end-to-end latency of the last read
	failed  int64
	lag     int64
	hasLag  bool
	started time.Time
	// shown is what the rate shown was taken over; carry a short first
	// interval, shown with the next (measure.Folds).
	shown, carry span
	// firstData is when the interval of the first records began: the
	// rate of progress counts from there. lastData is when records last
	// completed (at first, when the workload starts); idleAt when its load
	// last asked for nothing (WorkloadInfo.Idle): quiet counts from the
	// later.
	firstData, lastData, idleAt time.Time
	// begun: an interval arrived (the workload started); done: it ended.
	begun, done bool
	// win is what completed since plain output's last lines: their rate
	// is over it, not over the last interval. shownWin is the window the
	// last lines showed: a short final interval folds into it, as it folds
	// into the previous interval everywhere else.
	win, shownWin span
}

// span is records and bytes over a stretch of time.
type span struct {
	records, bytes int64
	length         time.Duration
}

func (s span) add(o span) span {
	return span{s.records + o.records, s.bytes + o.bytes, s.length + o.length}
}

// New starts the view of a plan of scenarios × repeats on out, redrawn in
// place when tty is set.
func New(out io.Writer, tty bool, scenarios, repeats int) *View {
	return newView(out, tty, scenarios, repeats, PlainEvery)
}

// newView is New with plain output's period (tests print at every step).
func newView(out io.Writer, tty bool, scenarios, repeats int, every time.Duration, opts ...mpb.ContainerOption) *View {
	v := &View{out: out, tty: tty, total: scenarios * repeats, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	if !tty {
		go v.tickPlain()
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

// tickPlain prints plain output's status lines every so often, also while
// no interval arrives (a paused broker).
func (v *View) tickPlain() {
	defer close(v.done)
	t := time.NewTicker(max(v.every/10, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			v.plain()
			v.mu.Unlock()
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
	if v.closed {
		return
	}
	v.closed = true
	close(v.stop)
	<-v.done
	if !v.tty {
		return
	}
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
	t := fmt.Sprintf("scenario %d/%d %s, repeat %d/%d", v.cur.Scenario, v.cur.Scenarios, clip(v.cur.Name, 40), v.cur.Repeat, v.cur.Repeats)
	if v.probe != nil {
		t += ", " + probeRun(*v.probe)
	}
	return t
}

func (v *View) eta() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.probe != nil {
		return probeLeft(*v.probe, time.Now())
	}
	frac, _ := v.fraction()
	if frac >= 1 {
		return "100%  done"
	}
	left, known, why := v.left()
	if !known {
		return fmt.Sprintf("%3.0f%%  time left unknown (%s)", 100*frac, why)
	}
	return fmt.Sprintf("%3.0f%%  about %s left", 100*frac, left.Round(time.Second))
}

// fraction is how much of the plan is done: ended repeats plus the running
// one's share, which is known when its workloads have a record count or a
// duration (the slowest decides).
func (v *View) fraction() (float64, bool) {
	if v.total == 0 {
		return 0, false
	}
	cur, known := v.repeatFraction(time.Now())
	if v.ended >= v.total {
		return 1, true
	}
	return (float64(v.ended) + cur) / float64(v.total), known
}

func (v *View) repeatFraction(now time.Time) (float64, bool) {
	if v.probe != nil {
		return 0, false // a rate search: its length is not its workloads'
	}
	frac, known := 1.0, false
	for _, w := range v.wl {
		f, ok := w.fraction(now)
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

func (w *workloadState) fraction(now time.Time) (float64, bool) {
	f, ok := 0.0, false
	if w.info.Records > 0 {
		f, ok = float64(w.records)/float64(w.info.Records), true
	}
	if w.info.Duration > 0 {
		el := now.Sub(w.started) - w.info.StartAfter
		f, ok = max(f, float64(max(el, 0))/float64(w.info.Duration)), true
	}
	return min(f, 1), ok
}

// line is the workload's status: its rate and latency while records
// complete; once none did for QuietAfter, how long that has been instead,
// since the last figures no longer describe the run. Before it starts it
// says what it waits for, once it ended "done", and while its load asks
// for nothing "idle". With win (plain output) the rate is over win, and
// the line says so. Called with the view's lock held.
func (w *workloadState) line(now time.Time, win *span) string {
	var b strings.Builder
	if w.info.Idle != nil && !w.done && w.info.Idle(now.Sub(w.started)-w.info.StartAfter) {
		w.idleAt = now
	}
	quiet := now.Sub(w.lastData)
	if w.idleAt.After(w.lastData) {
		quiet = now.Sub(w.idleAt)
	}
	switch {
	case w.done:
		fmt.Fprintf(&b, "%s: done, %d records", w.info.Name, w.records)
	case !w.begun && w.info.AfterWorkload != "":
		fmt.Fprintf(&b, "%s: waiting (start_after %s)", w.info.Name, w.info.AfterWorkload)
	case !w.begun && w.info.Backlog > 0 && quiet >= 0:
		fmt.Fprintf(&b, "%s: waiting (backlog: %d bytes written first)", w.info.Name, w.info.Backlog)
	case w.idleAt.Equal(now):
		fmt.Fprintf(&b, "%s: idle (its load asks for no records now)", w.info.Name)
	case quiet < 0:
		fmt.Fprintf(&b, "%s: starts in %s", w.info.Name, (-quiet).Round(time.Second))
	case quiet >= QuietAfter && w.firstData.IsZero():
		// Topics being prepared, a group joining: not a stall yet.
		what := "acknowledgement"
		if !w.info.Sends {
			what = "record"
		}
		fmt.Fprintf(&b, "%s: waiting for the first %s (%s)", w.info.Name, what, quiet.Truncate(time.Second))
	case quiet >= QuietAfter:
		what := "acknowledgements"
		if !w.info.Sends {
			what = "records"
		}
		fmt.Fprintf(&b, "%s: no %s for %s", w.info.Name, what, quiet.Truncate(time.Second))
	case win != nil && win.length >= measure.MinRateSpan:
		fmt.Fprintf(&b, "%s: %s records/s, %s MB/s over the last %s", w.info.Name, count(measure.PerSecond(win.records, win.length)),
			units.Figure(measure.PerSecond(win.bytes, win.length)/(1<<20), 2), roundSpan(win.length))
		w.figures(&b)
	default:
		fmt.Fprintf(&b, "%s: %s records/s, %s MB/s", w.info.Name, count(w.rate), units.Figure(w.mibps, 2))
		w.figures(&b)
	}
	fmt.Fprintf(&b, ", %d error(s)", w.failed)
	if w.hasLag {
		fmt.Fprintf(&b, ", lag %s", count(float64(w.lag)))
	}
	return b.String()
}

// figures adds the latencies of the last interval with records.
func (w *workloadState) figures(b *strings.Builder) {
	if w.p99Ms > 0 {
		fmt.Fprintf(b, ", p99 %.1f ms", w.p99Ms)
	}
	if w.avgMs > 0 {
		fmt.Fprintf(b, ", end-to-end %.1f ms", w.avgMs)
	}
}

// RepeatStarted implements observe.Observer.
func (v *View) RepeatStarted(ri observe.RepeatInfo) {
	v.mu.Lock()
	v.cur = ri
	v.wl = nil
	for _, wi := range ri.Workloads {
		v.wl = append(v.wl, &workloadState{info: wi, started: ri.Started, lastData: ri.Started.Add(wi.StartAfter)})
	}
	v.printed = time.Now()
	v.probe = nil
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
				return "  " + w.line(time.Now(), nil)
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

// ProducerInterval implements observe.Observer.
func (v *View) ProducerInterval(name string, iv measure.Interval) {
	v.mu.Lock()
	defer v.mu.Unlock()
	w := v.find(name)
	if w == nil {
		return
	}
	now := time.Now()
	w.records += iv.Count
	w.begun = true
	w.addWin(span{iv.Count, iv.Bytes, iv.Length}, iv.Folded)
	w.show(span{iv.Count, iv.Bytes, iv.Length}, iv.Folded, iv.Final, now)
	if iv.Count > 0 {
		w.p99Ms = float64(iv.P99Us) / 1000
	}
	w.failed = iv.Failed
	v.plain()
}

// show takes the rate from the interval s just ended, as the series does
// (measure.Folds): a short first interval is carried into the next, a
// short last one added to the one shown before it. No rate is taken from
// less than measure.MinRateSpan.
func (w *workloadState) show(s span, folded, final bool, now time.Time) {
	if s.records > 0 {
		if w.firstData.IsZero() {
			w.firstData = now.Add(-s.length)
		}
		w.lastData = now
	}
	folded = folded || s.length < measure.MinRateSpan
	if folded && !final {
		w.carry = w.carry.add(s)
		return
	}
	s = s.add(w.carry)
	w.carry = span{}
	if folded {
		s = s.add(w.shown)
	}
	if s.length < measure.MinRateSpan {
		return // the whole run so far: too little to show
	}
	w.shown = s
	w.rate = measure.PerSecond(s.records, s.length)
	w.mibps = measure.PerSecond(s.bytes, s.length) / (1 << 20)
}

// ConsumerInterval implements observe.Observer.
func (v *View) ConsumerInterval(name string, iv measure.ConsumerInterval) {
	v.mu.Lock()
	defer v.mu.Unlock()
	w := v.find(name)
	if w == nil {
		return
	}
	if iv.LatencyCount > 0 {
		w.avgMs = float64(iv.LatSumUs) / float64(iv.LatencyCount) / 1000
	}
	if w.info.Sends {
		return // its writer gives the rate; its reader the latency
	}
	w.records += iv.Records
	w.begun = true
	w.addWin(span{iv.Records, iv.Bytes, iv.End.Sub(iv.Start)}, iv.Folded)
	w.show(span{iv.Records, iv.Bytes, iv.End.Sub(iv.Start)}, iv.Folded, iv.Final, time.Now())
	v.plain()
}

// WorkloadEnded implements observe.WorkloadEnder: the workload's line says
// "done" from now on.
func (v *View) WorkloadEnded(name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if w := v.find(name); w != nil {
		w.done = true
	}
}

// ConsumerLag implements observe.Observer.
func (v *View) ConsumerLag(name string, records int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if w := v.find(name); w != nil {
		w.lag, w.hasLag = records, true
		w.begun = true // a consumer reports no interval before its first records
	}
}

// RepeatEnded implements observe.Observer.
func (v *View) RepeatEnded(ri observe.RepeatInfo, _ result.Repeat) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ended++
	if !ri.Started.IsZero() {
		v.took += time.Since(ri.Started)
	}
	v.wl = nil
	v.probe = nil
}

// ProbeStarted implements observe.ProbeStarter: a rate search's run
// starts, its workloads from nothing (their counts are the run's own),
// the searching one for the run's duration.
func (v *View) ProbeStarted(pi observe.ProbeInfo) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.probe = &pi
	now := time.Now()
	for _, w := range v.wl {
		info := w.info
		if info.Name == pi.Workload {
			info.Duration = pi.Duration
		}
		*w = workloadState{info: info, started: now, lastData: now.Add(info.StartAfter)}
	}
}

// probeRun says which run of a rate search is going: "search: probe 2 of
// 3 at 4000 records/s".
func probeRun(pi observe.ProbeInfo) string {
	if pi.Step == "warm-up" {
		return fmt.Sprintf("rate search: warm-up at full speed for %s (not judged)", pi.Duration)
	}
	step := "search"
	if pi.Step == "confirm" {
		step = "confirmation"
	}
	return fmt.Sprintf("rate search: %s probe %d of %d at %.0f records/s", step, pi.Probe, pi.Probes, pi.Rate)
}

// probeLeft says how many runs may follow at most and when the search
// ends at the latest.
func probeLeft(pi observe.ProbeInfo, now time.Time) string {
	return fmt.Sprintf("at most %d more run(s), the search ends within %s (max_time)", pi.MoreAtMost, max(pi.Deadline.Sub(now), 0).Round(time.Second))
}

// plain prints the status lines when output is not a terminal, at most
// every PlainEvery. Called with v.mu held.
func (v *View) plain() {
	now := time.Now()
	if v.tty || len(v.wl) == 0 || now.Sub(v.printed) < v.every {
		return
	}
	v.printed = now
	where := fmt.Sprintf("kbench: scenario %d of %d, repeat %d of %d", v.cur.Scenario, v.cur.Scenarios, v.cur.Repeat, v.cur.Repeats)
	for _, w := range v.wl {
		fmt.Fprintf(v.out, "%s: %s\n", where, w.line(now, &w.win))
		if w.win.length >= measure.MinRateSpan {
			w.shownWin, w.win = w.win, span{} // shown; a shorter one is shown with what follows
		}
	}
	if v.probe != nil {
		fmt.Fprintf(v.out, "%s: %s; %s\n", where, probeRun(*v.probe), probeLeft(*v.probe, now))
		return
	}
	frac, _ := v.fraction()
	if left, known, why := v.left(); known {
		fmt.Fprintf(v.out, "%s: %.0f%% of the plan done, about %s left\n", where, 100*frac, left.Round(time.Second))
	} else {
		fmt.Fprintf(v.out, "%s: %.0f%% of the plan done, time left unknown (%s)\n", where, 100*frac, why)
	}
}

// addWin adds an interval to plain output's window. A folded interval
// (a final one shorter than half an interval) arriving just after lines
// were printed joins the window those lines showed rather than standing
// alone.
func (w *workloadState) addWin(s span, folded bool) {
	if folded && w.win.length == 0 {
		w.win = w.shownWin
	}
	w.win = w.win.add(s)
}

// roundSpan rounds a window's length for display: whole seconds from 1 s.
func roundSpan(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
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
