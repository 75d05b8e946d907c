package compat

import (
	"context"
	"fmt"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/metrics"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// MetricsArgs are the drop-ins' --metrics-addr and --metrics-hold, as a
// plan's kbench run takes them.
type MetricsArgs struct {
	Addr string
	Hold time.Duration
}

func metricsArgs(a *Args, errs *[]error) MetricsArgs {
	m := MetricsArgs{Addr: a.String("--metrics-addr")}
	if a.Has("--metrics-hold") {
		d, err := units.ParseDuration(a.String("--metrics-hold"))
		switch {
		case err != nil:
			*errs = append(*errs, userr.Errorf("option --metrics-hold: %v", err))
		case d < 0:
			*errs = append(*errs, userr.Errorf("option --metrics-hold %s: must not be negative; give how long to keep serving after the run, such as 30s", d))
		case m.Addr == "":
			*errs = append(*errs, userr.Errorf("option --metrics-hold needs --metrics-addr"))
		}
		m.Hold = d
	}
	return m
}

// dropInMetrics is a drop-in run's Prometheus endpoint: the plan's
// exporter, told about the drop-in's one workload as a plan's repeat.
type dropInMetrics struct {
	exp  *metrics.Exporter
	info observe.RepeatInfo
	stop func()
}

// serveMetrics starts the endpoint (nil when ma asks for none) and tells
// it the run started.
func serveMetrics(ctx context.Context, env Env, ma MetricsArgs, tool string, w observe.WorkloadInfo) (*dropInMetrics, error) {
	if ma.Addr == "" {
		return nil, nil
	}
	exp := metrics.New(tool, env.Version)
	sctx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	addr, err := exp.Serve(sctx, ma.Addr)
	if err != nil {
		stopServing()
		return nil, userr.Errorf("--metrics-addr: %v; give a free HOST:PORT such as 127.0.0.1:9464", err)
	}
	fmt.Fprintf(env.Stderr, "kbench: Prometheus metrics at http://%s/metrics\n", addr)
	m := &dropInMetrics{exp: exp, stop: func() {
		if ma.Hold > 0 {
			fmt.Fprintf(env.Stderr, "kbench: serving the final metrics for %s more\n", ma.Hold)
			select {
			case <-time.After(ma.Hold):
			case <-ctx.Done():
			}
		}
		stopServing()
	}}
	m.info = observe.RepeatInfo{Scenario: 1, Scenarios: 1, Name: tool, Repeat: 1, Repeats: 1, Started: time.Now(), Workloads: []observe.WorkloadInfo{w}}
	exp.RepeatStarted(m.info)
	return m, nil
}

// producerSeries is a producer's OnSeries: its intervals to the endpoint
// (nil without one).
func (m *dropInMetrics) producerSeries(name string) func(measure.Interval) {
	if m == nil {
		return nil
	}
	return func(iv measure.Interval) { m.exp.ProducerInterval(name, iv) }
}

// consumerSeries and consumerLag are a consumer's OnInterval and OnLag
// for the endpoint: wrapping what the tool prints (print may be nil).
func (m *dropInMetrics) consumerSeries(name string, print func(measure.ConsumerInterval)) func(measure.ConsumerInterval) {
	if m == nil {
		return print
	}
	return func(iv measure.ConsumerInterval) {
		m.exp.ConsumerInterval(name, iv)
		if print != nil {
			print(iv)
		}
	}
}

func (m *dropInMetrics) consumerLag(name string) func(measure.LagSample) {
	if m == nil {
		return nil
	}
	return func(s measure.LagSample) { m.exp.ConsumerLag(name, s.Records) }
}

// ended gives the endpoint the run's figures, so that its counters equal
// the result's, and stops serving (after --metrics-hold).
func (m *dropInMetrics) ended(w result.Workload) {
	if m == nil {
		return
	}
	m.exp.RepeatEnded(m.info, result.Repeat{Workloads: []result.Workload{w}})
	m.stop()
}
