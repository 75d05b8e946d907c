package study

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestBrokerConfigsSweep: a matrix over a dynamic broker setting runs each
// scenario with its value in force (seen by an independent DescribeConfigs
// while the plan runs) and puts the cluster's earlier value back after.
// A static setting is refused with what to do instead.
func TestBrokerConfigsSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	// Not parallel: the setting is the shared broker's, cluster-wide
	// (log.cleaner.backoff.ms, which no other test or topic depends on).
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	const setting = "log.cleaner.backoff.ms"
	text := fmt.Sprintf(`name: sweep
cluster: {bootstrap: "%s", broker_configs: {%s: "${backoff}"}}
topics: [{name: %s, partitions: 1, replication: 1}]
workloads:
  - {name: w, type: produce, topic: %[3]s, records: 20000, rate: 10k/s, message: {size: 100}}
matrix: {backoff: [15001, 15002]}
`, bootstrap, setting, topic)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()

	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The independent reading: every value the brokers report while the
	// plan runs.
	stopPoll := pollBrokerValue(ctx, adm, setting, 50*time.Millisecond)
	var progress bytes.Buffer
	doc, err := Run(ctx, p, scs, Options{Progress: &syncWriter{w: &progress}})
	seen := stopPoll()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	for i, want := range []string{"15001", "15002"} {
		sc := doc.Plan.Scenarios[i]
		if sc.BrokerConfigs[setting] != want || sc.Repeats[0].Status != result.StatusOK {
			t.Errorf("scenario %s: broker configs %v, %s; want %s=%s, ok", sc.Name, sc.BrokerConfigs, sc.Repeats[0].Status, setting, want)
		}
		if !seen[want] {
			t.Errorf("an independent read never saw %s=%s during the run (saw %v)", setting, want, seen)
		}
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Key == setting && c.Source == kmsg.ConfigSourceDynamicDefaultBrokerConfig {
				t.Errorf("after the run the cluster still has %s=%s set: the earlier (unset) value was not put back", setting, c.MaybeValue())
			}
		}
	}
	if !strings.Contains(progress.String(), "broker settings put back: "+setting+"=(the brokers' own)") {
		t.Errorf("progress does not say the setting was put back:\n%s", progress.String())
	}

	// A static setting: refused, nothing run, nothing left set.
	static := strings.Replace(text, setting+`: "${backoff}"`, `log.dirs: /tmp/x, num.io.threads: "${backoff}"`, 1)
	static = strings.Replace(static, "[15001, 15002]", "[3]", 1)
	p, err = plan.Parse("plan.yaml", []byte(static), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ = p.Scenarios()
	doc, err = Run(ctx, p, scs, Options{})
	if err == nil || !strings.Contains(err.Error(), "cluster.broker_configs: the brokers refused") || !strings.Contains(err.Error(), "cluster.local.broker_configs") {
		t.Fatalf("a static setting: %v; want it refused saying what to do", err)
	}
	t.Log(err)
	if rep := doc.Plan.Scenarios[0].Repeats[0]; rep.Status != result.StatusFailed {
		t.Errorf("repeat %s, want failed (not run)", rep.Status)
	}
}

// brokerValue is the value broker 1 (the shared test broker) reports.
func brokerValue(ctx context.Context, adm *kadm.Client, name string) (string, bool) {
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return "", false
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, brokers.NodeIDs()...)
	if err != nil {
		return "", false
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Key == name {
				return c.MaybeValue(), true
			}
		}
	}
	return "", false
}

// pollBrokerValue reads setting from the brokers every interval until
// the returned function is called, which returns every value read.
func pollBrokerValue(ctx context.Context, adm *kadm.Client, setting string, every time.Duration) (stop func() map[string]bool) {
	seen := map[string]bool{}
	pollCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pollCtx.Err() == nil {
			if v, ok := brokerValue(pollCtx, adm, setting); ok {
				seen[v] = true
			}
			time.Sleep(every)
		}
	}()
	return func() map[string]bool {
		cancel()
		<-done
		return seen
	}
}

// syncWriter lets the study's goroutines write progress into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestStaticBrokerConfigsRollingRestart: a setting a running broker cannot
// take (queued.max.requests) is put in force on kbench's own cluster by
// restarting its broker with it, said in the progress, and put back the
// same way after the scenario: an independent DescribeConfigs reads the
// value during the run and the default after.
func TestStaticBrokerConfigsRollingRestart(t *testing.T) {
	c := testkafka.Own(t)
	topic := testTopic(t)
	const setting = "queued.max.requests"
	text := fmt.Sprintf(`name: static
cluster: {local: {brokers: 1}, broker_configs: {%s: "600"}}
topics: [{name: %s, partitions: 1, replication: 1}]
workloads:
  - {name: w, type: produce, topic: %[2]s, records: 5000, rate: 5k/s, message: {size: 100}}
`, setting, topic)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	before, ok := brokerValue(ctx, adm, setting)
	if !ok || before == "600" {
		t.Fatalf("%s before the run: %q (%v), want the default", setting, before, ok)
	}
	// The independent reading: every value the brokers report while the
	// plan runs.
	stopPoll := pollBrokerValue(ctx, adm, setting, 100*time.Millisecond)
	var progress bytes.Buffer
	opt := Options{Progress: &syncWriter{w: &progress}, StartLocal: func(context.Context, plan.Local) (*LocalCluster, error) {
		return &LocalCluster{Bootstrap: c.Bootstrap(), Version: c.Version, Brokers: 1, Stop: func() {}, RestartWith: c.RestartWith}, nil
	}}
	doc, err := Run(ctx, p, scs, opt)
	seen := stopPoll()
	during := seen["600"]
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	sc := doc.Plan.Scenarios[0]
	if sc.BrokerConfigs[setting] != "600" || sc.Repeats[0].Status != result.StatusOK || !during {
		t.Errorf("broker configs %v, status %s, 600 read during the run: %v; want %s=600 in force", sc.BrokerConfigs, sc.Repeats[0].Status, during, setting)
	}
	after, _ := brokerValue(ctx, adm, setting)
	if after != before {
		t.Errorf("%s after the run: %q, want %q put back", setting, after, before)
	}
	for _, want := range []string{"cannot change while a broker runs: a rolling restart puts them in force", "restarting broker 1 with " + setting + "=600", "rolling restart done in", "broker settings put back"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
}
