package study

import (
	"context"
	"encoding/pem"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/brokermetrics"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestWithKafkaMetrics: a local broker's metrics join its /proc entry; a
// remote endpoint, or a broker /proc did not see, is an entry of its own.
func TestWithKafkaMetrics(t *testing.T) {
	t.Parallel()
	k := func(v float64) *result.KafkaMetrics { return &result.KafkaMetrics{BytesIn: &v} }
	tests := []struct {
		name            string
		brokers, scrape []result.BrokerCost
		want            []string
	}{
		{"local", []result.BrokerCost{{ID: 1, Processes: 1}, {ID: 2, Processes: 1}}, []result.BrokerCost{{ID: 2, Kafka: k(2)}, {ID: 3, Kafka: k(3)}},
			[]string{"broker 1 proc, no kafka", "broker 2 proc, bytes in 2", "broker 3 bytes in 3"}},
		{"remote", nil, []result.BrokerCost{{Endpoint: "http://b1/m", Kafka: k(1)}},
			[]string{"http://b1/m bytes in 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, b := range withKafkaMetrics(tt.brokers, tt.scrape) {
				s := b.Name()
				if b.Processes > 0 {
					s += " proc,"
				}
				if b.Kafka == nil {
					s += " no kafka"
				} else {
					s += fmt.Sprintf(" bytes in %v", *b.Kafka.BytesIn)
				}
				got = append(got, s)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}

// TestRemoteMetricsTLS: a cluster.metrics endpoint over https is checked
// against its ca_file, or not at all with insecure; without either, the
// system's CAs refuse a self-signed endpoint, and the entry says why.
func TestRemoteMetricsTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, _ := r.BasicAuth(); u != "kb" || p != "s3cret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		fmt.Fprintln(w, "kafka_server_brokertopicmetrics_bytesin_total 42")
	}))
	t.Cleanup(srv.Close) // after the parallel subtests
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		e       plan.MetricsEndpoint
		wantErr string
	}{
		{"its CA", plan.MetricsEndpoint{URL: srv.URL, CAFile: ca, Username: "kb", Password: "s3cret"}, ""},
		{"insecure", plan.MetricsEndpoint{URL: srv.URL, Insecure: true, Username: "kb", Password: "s3cret"}, ""},
		{"the system's CAs", plan.MetricsEndpoint{URL: srv.URL, Username: "kb", Password: "s3cret"}, "certificate"},
		{"no password", plan.MetricsEndpoint{URL: srv.URL, Insecure: true, Username: "kb"}, "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			targets, err := remoteMetricsTargets([]plan.MetricsEndpoint{tt.e})
			if err != nil {
				t.Fatal(err)
			}
			got := brokermetrics.Start(t.Context(), targets(), time.Hour).Stop()[0].Kafka
			switch {
			case tt.wantErr == "" && (got.Error != "" || got.BytesIn == nil):
				t.Errorf("error %q, bytes in %v; want the endpoint read", got.Error, deref(got.BytesIn))
			case tt.wantErr != "" && !strings.Contains(got.Error, tt.wantErr):
				t.Errorf("error %q, want one with %q", got.Error, tt.wantErr)
			}
			if strings.Contains(got.Error, "s3cret") {
				t.Errorf("the error holds the password: %s", got.Error)
			}
		})
	}
}

// TestBrokerKafkaMetrics: a plan on the local cluster kbench started reads
// its broker's own metrics through the JMX exporter agent, non-zero after
// producing; the same plan with the agent's endpoint as a remote
// cluster's cluster.metrics gives the same figures within 10%.
func TestBrokerKafkaMetrics(t *testing.T) {
	testkafka.SkipShort(t)
	c := testkafka.Cluster(t)
	if c == nil {
		t.Skip("a broker of $KBENCH_TEST_BOOTSTRAP has no agent kbench started")
	}
	urls := c.MetricsURLs()
	if len(urls) != 1 {
		t.Fatalf("metrics endpoints %v, want the one broker's", urls)
	}
	const records, size = 50_000, 200
	run := func(cluster string) result.KafkaMetrics {
		t.Helper()
		topic := testTopic(t)
		text := fmt.Sprintf(`name: metrics
cluster: %s
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - {name: w, type: produce, topic: %[2]s, rate: 25000/s, records: %d, message: {size: %d}}
`, cluster, topic, records, size)
		p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		scs, _ := p.Scenarios()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		opt := Options{StartLocal: func(context.Context, plan.Local) (*LocalCluster, error) {
			return &LocalCluster{Bootstrap: c.Bootstrap(), Version: c.Version, Brokers: 1, Stop: func() {}, BrokerPIDs: c.PIDs, BrokerMetrics: c.MetricsURLs, DataDirs: c.DataDirs}, nil
		}}
		doc, err := Run(ctx, p, scs, opt)
		if err != nil {
			t.Fatal(err)
		}
		rep := doc.Plan.Scenarios[0].Repeats[0]
		if len(rep.Brokers) != 1 || rep.Brokers[0].Kafka == nil {
			t.Fatalf("brokers %+v, want one with its Kafka metrics", rep.Brokers)
		}
		k := *rep.Brokers[0].Kafka
		if k.Error != "" || len(k.Lacks) != 0 || k.Scrapes < 2 {
			t.Fatalf("kafka metrics: error %q, lacks %q, %d scrapes", k.Error, k.Lacks, k.Scrapes)
		}
		// The report's charts: the handlers' share a step a second, and
		// on the local path the broker's CPU too.
		if k.HandlerBusy == nil || len(k.HandlerBusy.Values) < int(k.Seconds) || k.HandlerBusy.Step != 1 {
			t.Errorf("handlers' busy steps %+v over %.1f s, want one a second", k.HandlerBusy, k.Seconds)
		}
		if cores := rep.Brokers[0].CPUCores; strings.Contains(cluster, "local") && (cores == nil || len(cores.Values) < int(k.Seconds)) {
			t.Errorf("CPU steps %+v over %.1f s, want one a second", cores, k.Seconds)
		}
		// The disks under a local broker's data: its device, or why none.
		if local := strings.Contains(cluster, "local"); local && len(rep.Disks)+len(rep.DisksUnjudged) != 1 {
			t.Errorf("disks %+v, unjudged %q: want the broker's device or why it has none", rep.Disks, rep.DisksUnjudged)
		} else if local && len(rep.Disks) == 1 && (!slices.Equal(rep.Disks[0].Brokers, []int{1}) || rep.Disks[0].BusyPct < 0 || rep.Disks[0].BusyPct > 100) {
			t.Errorf("disk %+v, want broker 1's device busy 0–100%%", rep.Disks[0])
		} else if !local && (rep.Disks != nil || rep.DisksUnjudged != nil) {
			t.Errorf("a remote cluster's disks %+v %q, want none measured", rep.Disks, rep.DisksUnjudged)
		}
		return k
	}
	local := run("{local: {brokers: 1}}")
	remote := run(fmt.Sprintf(`{bootstrap: "%s", metrics: [%s]}`, c.Bootstrap(), urls[1]))

	for _, k := range []result.KafkaMetrics{local, remote} {
		if k.MessagesIn == nil || *k.MessagesIn < records || k.BytesIn == nil || *k.BytesIn < records*size ||
			k.Produce == nil || k.Produce.Requests == nil || *k.Produce.Requests == 0 || k.Produce.Total == nil || k.Produce.Total.Mean == nil {
			t.Errorf("figures %+v: want at least %d messages and %d bytes in, produce requests and their mean time", k, records, records*size)
		}
		// A light load: the handlers may be idle within the meter's
		// timing, so their share is only required to be there.
		if busy, ok := k.HandlerBusyPct(); !ok || busy >= 100 {
			t.Errorf("request handlers busy %v%% (%v), want a share under 100%%", busy, ok)
		}
		t.Logf("%.1f s, %d scrapes: %v messages, %v bytes in, %v produce requests of %v ms mean, handlers idle %v, network idle %v",
			k.Seconds, k.Scrapes, deref(k.MessagesIn), deref(k.BytesIn), deref(k.Produce.Requests), deref(k.Produce.Total.Mean), deref(k.RequestHandlerIdle), deref(k.NetworkProcessorIdle))
	}
	within := func(name string, a, b *float64) {
		if a == nil || b == nil || math.Abs(*a-*b) > 0.1*math.Max(*a, *b) {
			t.Errorf("%s: local %v, remote %v; want them within 10%%", name, deref(a), deref(b))
		}
	}
	within("messages in", local.MessagesIn, remote.MessagesIn)
	within("bytes in", local.BytesIn, remote.BytesIn)
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
