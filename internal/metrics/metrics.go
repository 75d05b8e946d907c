// Package metrics serves a plan run's live numbers to Prometheus
// (--metrics-addr): records and bytes sent and consumed, failures by kind,
// publish latency histograms, consumer lag and the scenario being run. It is
// a observe.Observer; docs/metrics.md lists every metric.
//
// Counters follow the intervals as they come and are reconciled with each
// repeat's final result when it ends, so that after the run they equal
// result.json's sums exactly.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
)

// Exporter holds the metrics; Serve exposes them over HTTP.
type Exporter struct {
	reg *prometheus.Registry

	sent, sentBytes, failed    *prometheus.CounterVec
	consumed, consumedBytes    *prometheus.CounterVec
	errs                       *prometheus.CounterVec
	lag, running, repeat, info *prometheus.GaugeVec
	publish                    *latencyHistograms

	mu              sync.Mutex
	scenario, index string // the scenario running
	// live is what the intervals of the running repeat added, per
	// workload, to reconcile with its result at the end.
	live map[string]*liveCounts
}

type liveCounts struct {
	sent, sentBytes, consumed, consumedBytes int64
	errs                                     map[string]int64
}

// New makes the metrics of a run of the named plan.
func New(planName, version string) *Exporter {
	wl := []string{"scenario", "workload"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "kbench", Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "kbench", Name: name, Help: help}, labels)
	}
	e := &Exporter{
		reg:           prometheus.NewRegistry(),
		sent:          counter("records_sent_total", "Records acknowledged by the brokers, warm-up included.", wl...),
		sentBytes:     counter("bytes_sent_total", "Value bytes of the records acknowledged.", wl...),
		failed:        counter("records_failed_total", "Records that failed (refused, timed out, or left unresolved at the end).", wl...),
		errs:          counter("errors_total", "Failures by kind: a Kafka error name or a client-side cause.", "scenario", "workload", "kind"),
		consumed:      counter("records_consumed_total", "Records consumed.", wl...),
		consumedBytes: counter("bytes_consumed_total", "Key and value bytes consumed.", wl...),
		lag:           gauge("consumer_lag_records", "The consumers' total lag at the last sample.", wl...),
		running:       gauge("scenario_running", "1 for the scenario being run, 0 for those run before.", "scenario", "index"),
		repeat:        gauge("repeat", "The repeat of the running scenario (1-based).", "scenario"),
		info:          gauge("run_info", "The plan being run and kbench's version.", "plan", "version"),
		publish:       newLatencyHistograms(),
		live:          map[string]*liveCounts{},
	}
	e.reg.MustRegister(e.sent, e.sentBytes, e.failed, e.errs, e.consumed, e.consumedBytes, e.lag, e.running, e.repeat, e.info, e.publish,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e.info.WithLabelValues(planName, version).Set(1)
	return e
}

// Registry is the exporter's registry, for tests and embedding.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Serve listens on addr and serves /metrics until ctx ends. It returns
// once listening, so a bad address fails before the run starts.
func (e *Exporter) Serve(ctx context.Context, addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{Registry: e.reg}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/metrics", http.StatusFound)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the run goes on without its metrics
		}
	}()
	return ln.Addr(), nil
}

// RepeatStarted implements observe.Observer.
func (e *Exporter) RepeatStarted(ri observe.RepeatInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	index := strconv.Itoa(ri.Scenario)
	if e.scenario != "" && (e.scenario != ri.Name || e.index != index) {
		e.running.WithLabelValues(e.scenario, e.index).Set(0)
	}
	e.running.WithLabelValues(ri.Name, index).Set(1)
	e.repeat.WithLabelValues(ri.Name).Set(float64(ri.Repeat))
	e.scenario, e.index = ri.Name, index
	e.live = map[string]*liveCounts{}
}

func (e *Exporter) liveOf(name string) *liveCounts {
	l := e.live[name]
	if l == nil {
		l = &liveCounts{errs: map[string]int64{}}
		e.live[name] = l
	}
	return l
}

// ProducerInterval implements observe.Observer.
func (e *Exporter) ProducerInterval(name string, iv measure.Interval) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc := e.scenario
	l := e.liveOf(name)
	e.sent.WithLabelValues(sc, name).Add(float64(iv.Count))
	e.sentBytes.WithLabelValues(sc, name).Add(float64(iv.Bytes))
	l.sent += iv.Count
	l.sentBytes += iv.Bytes
	for kind, n := range iv.Errors { // cumulative within the repeat
		if d := n - l.errs[kind]; d > 0 {
			e.errs.WithLabelValues(sc, name, kind).Add(float64(d))
			e.failed.WithLabelValues(sc, name).Add(float64(d))
			l.errs[kind] = n
		}
	}
	if iv.Buckets != nil {
		e.publish.add(sc, name, iv.Buckets, iv.LatSumUs)
	}
}

// ConsumerInterval implements observe.Observer.
func (e *Exporter) ConsumerInterval(name string, iv measure.ConsumerInterval) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.liveOf(name)
	e.consumed.WithLabelValues(e.scenario, name).Add(float64(iv.Records))
	e.consumedBytes.WithLabelValues(e.scenario, name).Add(float64(iv.Bytes))
	l.consumed += iv.Records
	l.consumedBytes += iv.Bytes
}

// ConsumerLag implements observe.Observer.
func (e *Exporter) ConsumerLag(name string, records int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lag.WithLabelValues(e.scenario, name).Set(float64(records))
}

// RepeatEnded implements observe.Observer: it adds what the intervals did
// not see (records completed after the last interval, failures counted at
// the end, a consumer's last partial read), so the counters equal the
// result's.
func (e *Exporter) RepeatEnded(ri observe.RepeatInfo, rep result.Repeat) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sc := ri.Name
	for _, w := range rep.Workloads {
		l := e.liveOf(w.Name)
		if p := w.Producer; p != nil {
			addRest(e.sent.WithLabelValues(sc, w.Name), p.Records, l.sent)
			addRest(e.sentBytes.WithLabelValues(sc, w.Name), p.Bytes, l.sentBytes)
			var seen int64
			for kind, n := range p.Errors {
				addRest(e.errs.WithLabelValues(sc, w.Name, kind), n, l.errs[kind])
				seen += l.errs[kind]
			}
			addRest(e.failed.WithLabelValues(sc, w.Name), p.Failed, seen)
			// Touch the counters so a run without failures still shows
			// them at 0.
			e.failed.WithLabelValues(sc, w.Name)
		}
		if c := w.Consumer; c != nil {
			addRest(e.consumed.WithLabelValues(sc, w.Name), c.Records, l.consumed)
			addRest(e.consumedBytes.WithLabelValues(sc, w.Name), c.Bytes, l.consumedBytes)
			for kind, n := range c.Errors {
				e.errs.WithLabelValues(sc, w.Name, kind).Add(float64(n))
			}
		}
	}
	e.live = map[string]*liveCounts{}
}

// addRest adds final − seen to c; counters never go down, and the live
// counts never exceed the final ones (both count the same completions).
func addRest(c prometheus.Counter, final, seen int64) {
	if d := final - seen; d > 0 {
		c.Add(float64(d))
	}
}

// latencyHistograms is kbench_publish_latency_seconds: the series'
// interval histograms accumulated per scenario and workload, exposed as
// Prometheus histograms (buckets measure.LatencyBucketsUs()).
type latencyHistograms struct {
	desc   *prometheus.Desc
	bounds []float64
	mu     sync.Mutex
	by     map[[2]string]*latencyHist
}

type latencyHist struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sumUs  int64
}

func newLatencyHistograms() *latencyHistograms {
	h := &latencyHistograms{
		desc: prometheus.NewDesc("kbench_publish_latency_seconds", "Publish latency (send to acknowledgement) of the records acknowledged.",
			[]string{"scenario", "workload"}, nil),
		by: map[[2]string]*latencyHist{},
	}
	for _, b := range measure.LatencyBucketsUs() {
		h.bounds = append(h.bounds, float64(b)/1e6)
	}
	return h
}

func (h *latencyHistograms) add(scenario, name string, buckets []int64, sumUs int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := [2]string{scenario, name}
	lh := h.by[k]
	if lh == nil {
		lh = &latencyHist{counts: make([]uint64, len(h.bounds)+1)}
		h.by[k] = lh
	}
	for i, n := range buckets {
		lh.counts[i] += uint64(n)
	}
	lh.sumUs += sumUs
}

func (h *latencyHistograms) Describe(ch chan<- *prometheus.Desc) { ch <- h.desc }

func (h *latencyHistograms) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, lh := range h.by {
		cum := map[float64]uint64{}
		var run uint64
		for i, b := range h.bounds {
			run += lh.counts[i]
			cum[b] = run
		}
		// The count is the buckets' total: a record whose latency landed
		// in the window but not yet in the interval histogram (or the
		// other way round) must not make _count and +Inf disagree.
		total := run + lh.counts[len(h.bounds)]
		ch <- prometheus.MustNewConstHistogram(h.desc, total, float64(lh.sumUs)/1e6, cum, k[0], k[1])
	}
}
