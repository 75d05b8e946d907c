package brokermetrics

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/leaktest"
	"github.com/kbench/kbench/internal/result"
)

func TestMain(m *testing.M) { leaktest.Main(m, nil) }

// readValues parses a recorded scrape.
func readValues(t *testing.T, text string) values {
	t.Helper()
	v, err := parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func recorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exampleConfigStart and exampleConfigEnd are what an exporter with the
// JMX exporter's own Kafka example rules and an older client_java gives:
// _count without _total, per-topic series beside the broker's, no mean of
// request times, and no ISR or offline partitions metrics.
const exampleConfigStart = `# TYPE kafka_server_brokertopicmetrics_bytesin_total counter
kafka_server_brokertopicmetrics_bytesin_total 1000
kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 900
# TYPE kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count untyped
kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count 5e9
# TYPE kafka_network_requestmetrics_totaltimems_count untyped
kafka_network_requestmetrics_totaltimems_count{request="Produce"} 100
# TYPE kafka_network_requestmetrics_totaltimems untyped
kafka_network_requestmetrics_totaltimems{request="Produce",quantile="0.99"} 12
`

const exampleConfigEnd = `# TYPE kafka_server_brokertopicmetrics_bytesin_total counter
kafka_server_brokertopicmetrics_bytesin_total 300
kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 5000
# TYPE kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count untyped
kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count 7e9
# TYPE kafka_network_requestmetrics_totaltimems_count untyped
kafka_network_requestmetrics_totaltimems_count{request="Produce"} 400
# TYPE kafka_network_requestmetrics_totaltimems untyped
kafka_network_requestmetrics_totaltimems{request="Produce",quantile="0.99"} 30
`

// TestFigures: two scrapes of a broker give the repeat's figures: the
// counters' increases, the handlers' idle share from the idle meter's
// nanoseconds over the time between the scrapes, the requests' mean
// times from the histograms' lifetime means and counts, the p99 at the
// end; a series the endpoint lacks is said, once per figure, never
// guessed.
func TestFigures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		start, end string
		gapNs      int64
		check      func(t *testing.T, k *result.KafkaMetrics)
	}{
		{
			// A local Kafka 4.3.1 broker with kbench's agent config,
			// before and after 100,000 records of 100 B.
			name: "kbench's agent", start: recorded(t, "start.txt"), end: recorded(t, "end.txt"), gapNs: 10e9,
			check: func(t *testing.T, k *result.KafkaMetrics) {
				want := map[string]*float64{"bytes in": ptr(32997747 - 21995727), "messages in": ptr(100000), "bytes out": ptr(0),
					"isr shrinks": ptr(0), "under-replicated": ptr(0), "offline": ptr(0),
					"handler idle":     ptr((5.8182556363e10 - 4.9852421854e10) / 10e9),
					"produce requests": ptr(2529 - 1685), "fetch requests": ptr(1),
					"produce mean total": ptr((1.4669829972321076*2529 - 1.6801186943620179*1685) / 844),
					"produce p99 total":  ptr(18.550000000000182),
				}
				got := map[string]*float64{"bytes in": k.BytesIn, "messages in": k.MessagesIn, "bytes out": k.BytesOut,
					"isr shrinks": k.IsrShrinks, "under-replicated": k.UnderReplicated, "offline": k.Offline,
					"handler idle": k.RequestHandlerIdle, "produce requests": k.Produce.Requests, "fetch requests": k.Fetch.Requests,
					"produce mean total": k.Produce.Total.Mean, "produce p99 total": k.Produce.Total.P99,
				}
				for name, w := range want {
					if g := got[name]; g == nil || math.Abs(*g-*w) > 1e-9*max(1, math.Abs(*w)) {
						t.Errorf("%s = %v, want %v", name, deref(g), *w)
					}
				}
				if busy, ok := k.HandlerBusyPct(); !ok || math.Abs(busy-16.7) > 0.1 {
					t.Errorf("handlers busy %.2f%% (%v), want 16.7%%", busy, ok)
				}
				if k.NetworkProcessorIdle == nil || *k.NetworkProcessorIdle <= 0 || *k.NetworkProcessorIdle > 1 {
					t.Errorf("network processors idle %v, want a share in (0, 1]", deref(k.NetworkProcessorIdle))
				}
				if len(k.Lacks) != 0 || k.Scrapes != 2 || k.Seconds != 10 {
					t.Errorf("lacks %q, %d scrapes over %v s; want nothing lacking, 2 scrapes over 10 s", k.Lacks, k.Scrapes, k.Seconds)
				}
			},
		},
		{
			// The broker restarted between the scrapes: its bytes-in
			// counter began again at 0 and counts from there.
			name: "the example config, a restart", start: exampleConfigStart, end: exampleConfigEnd, gapNs: 4e9,
			check: func(t *testing.T, k *result.KafkaMetrics) {
				if k.BytesIn == nil || *k.BytesIn != 300 {
					t.Errorf("bytes in %v, want 300 (the broker's own series, from its restart)", deref(k.BytesIn))
				}
				if k.RequestHandlerIdle == nil || *k.RequestHandlerIdle != 0.5 {
					t.Errorf("handler idle %v, want 0.5 (2e9 idle ns over 4e9)", deref(k.RequestHandlerIdle))
				}
				if k.Produce == nil || *k.Produce.Requests != 300 || k.Produce.Total.Mean != nil || *k.Produce.Total.P99 != 30 {
					t.Errorf("produce %+v; want 300 requests, no mean, p99 30 ms", k.Produce)
				}
				if k.IsrShrinks != nil || k.Offline != nil || k.Fetch != nil {
					t.Errorf("figures the endpoint lacks were given: shrinks %v, offline %v, fetch %+v", deref(k.IsrShrinks), deref(k.Offline), k.Fetch)
				}
				joined := strings.Join(k.Lacks, "\n")
				for _, want := range []string{
					`endpoint e has no kafka_network_requestmetrics_totaltimems_mean{request="Produce"}, kafka_network_requestmetrics_requestqueuetimems_mean{request="Produce"} and 2 more: produce request mean times not measured`,
					"endpoint e has no kafka_server_replicamanager_isrshrinks: ISR shrinks not measured",
					"fetch request times not measured",
				} {
					if !strings.Contains(joined, want) {
						t.Errorf("lacks:\n%s\nwant a line with %q", joined, want)
					}
				}
				if n := strings.Count(joined, "ISR shrinks"); n != 1 {
					t.Errorf("ISR shrinks said %d times, want once", n)
				}
			},
		},
		{
			// A tiered-storage broker (kbench's agent, Kafka 4.3.1) before
			// and after a catch-up read of topic cold (6 MB from the
			// remote tier, its active segments' 1.8 MB locally): a topic
			// first seen at the end counts from zero.
			name: "tiered storage", start: tieredStart, end: tieredEnd, gapNs: 5e9,
			check: func(t *testing.T, k *result.KafkaMetrics) {
				if k.RemoteFetchBytes == nil || *k.RemoteFetchBytes != 6291144 || k.RemoteCopyBytes == nil || *k.RemoteCopyBytes != 0 {
					t.Errorf("remote fetch %v, copy %v; want 6291144 and 0", deref(k.RemoteFetchBytes), deref(k.RemoteCopyBytes))
				}
				cold, hot := k.Topics["cold"], k.Topics["hot"]
				if cold == nil || cold.RemoteFetchBytes == nil || *cold.RemoteFetchBytes != 6291144 || cold.LocalReadBytes() != 8104574-6291144 {
					t.Errorf("topic cold %+v (local %v); want 6291144 B from the remote tier, %d locally", cold, cold.LocalReadBytes(), 8104574-6291144)
				}
				if hot == nil || hot.LocalReadBytes() != 5000 {
					t.Errorf("topic hot %+v; want 5000 B read locally, counted from zero", hot)
				}
				if strings.Contains(strings.Join(k.Lacks, "\n"), "remote tier") {
					t.Errorf("lacks %q; want nothing said of remote storage's series (the excerpt lacks the others)", k.Lacks)
				}
			},
		},
		{
			// A broker without remote storage has none of its series,
			// and is not said to lack them.
			name: "no remote storage", start: exampleConfigStart, end: exampleConfigEnd, gapNs: 4e9,
			check: func(t *testing.T, k *result.KafkaMetrics) {
				if k.RemoteFetchBytes != nil || k.Topics != nil || strings.Contains(strings.Join(k.Lacks, "\n"), "remote tier") {
					t.Errorf("remote fetch %v, topics %v, lacks %q; want none of remote storage", deref(k.RemoteFetchBytes), k.Topics, k.Lacks)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepeat("endpoint e", time.Time{}, time.Second)
			r.add(readValues(t, tt.start), 1e9)
			r.add(readValues(t, tt.end), 1e9+tt.gapNs)
			tt.check(t, r.figures())
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}

// TestHandlerBusySteps: the handlers' busy share is kept a step a second
// from the scraper's start: each scrape's idle increase over the time
// since the one before, a skipped scrape spread over the steps it spans,
// a restarted broker's meter taken afresh from its first scrape (its
// outage empty), and the repeat's share over the time read.
func TestHandlerBusySteps(t *testing.T) {
	t.Parallel()
	began := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	scrape := func(idleNs float64) values {
		return readValues(t, fmt.Sprintf("%s %g\n", handlerIdle, idleNs))
	}
	tests := []struct {
		name string
		idle []float64 // the meter at each scrape
		at   []float64 // seconds after began
		want string
	}{
		{"a scrape a second", []float64{10e9, 10.8e9, 11.1e9}, []float64{0, 1, 2}, "20 70"},
		{"a skipped scrape", []float64{10e9, 10.5e9, 11.5e9}, []float64{0, 1, 3}, "50 50 50"},
		// Regression: a killed broker read 98.6% busy while it was down.
		{"a restart", []float64{10e9, 10.9e9, 0.2e9, 1.1e9}, []float64{0, 1, 5, 6}, "10 absent absent absent absent 10"},
		{"an overshooting meter", []float64{10e9, 11.0003e9}, []float64{0, 1}, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepeat("broker 1", began, time.Second)
			for i, x := range tt.idle {
				r.add(scrape(x), int64(tt.at[i]*1e9))
			}
			k := r.figures()
			if k.HandlerBusy == nil || !k.HandlerBusy.Start.Equal(began) {
				t.Fatalf("steps %+v, want them from %v", k.HandlerBusy, began)
			}
			var got []string
			for _, v := range k.HandlerBusy.Values {
				got = append(got, fmt.Sprint(deref(v)))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("busy %% %q, want %q", strings.Join(got, " "), tt.want)
			}
			if tt.name == "a restart" {
				if busy, ok := k.HandlerBusyPct(); !ok || math.Abs(busy-10) > 1e-9 {
					t.Errorf("the repeat's busy %v%% (%v), want 10%%: the outage is not busy time", busy, ok)
				}
			}
		})
	}
}

const tieredStart = `kafka_server_brokertopicmetrics_bytesout_total 1836.0
kafka_server_brokertopicmetrics_bytesout_total{topic="__remote_log_metadata"} 1836.0
kafka_server_brokertopicmetrics_remotecopybytes_total 6291144.0
kafka_server_brokertopicmetrics_remotecopybytes_total{topic="cold"} 6291144.0
kafka_server_brokertopicmetrics_remotefetchbytes_total 0.0
`

const tieredEnd = `kafka_server_brokertopicmetrics_bytesout_total 8111410.0
kafka_server_brokertopicmetrics_bytesout_total{topic="__remote_log_metadata"} 1836.0
kafka_server_brokertopicmetrics_bytesout_total{topic="cold"} 8104574.0
kafka_server_brokertopicmetrics_bytesout_total{topic="hot"} 5000.0
kafka_server_brokertopicmetrics_remotecopybytes_total 6291144.0
kafka_server_brokertopicmetrics_remotecopybytes_total{topic="cold"} 6291144.0
kafka_server_brokertopicmetrics_remotefetchbytes_total 6291144.0
kafka_server_brokertopicmetrics_remotefetchbytes_total{topic="cold"} 6291144.0
`

// TestTopicRecreated: a topic deleted and created again within a repeat
// counts its new meter from zero. Regression: the first repeat's read of
// 5.8 MB hid the next repeat's read of 5.8 MB (the meter was back at the
// same count by the first scrape that saw the new topic).
func TestTopicRecreated(t *testing.T) {
	t.Parallel()
	scrapes := []string{
		"kafka_server_brokertopicmetrics_remotefetchbytes_total 0\nkafka_server_brokertopicmetrics_bytesout_total{topic=\"t\"} 6000000\n",
		"kafka_server_brokertopicmetrics_remotefetchbytes_total 0\n", // deleted
		"kafka_server_brokertopicmetrics_remotefetchbytes_total 0\nkafka_server_brokertopicmetrics_bytesout_total{topic=\"t\"} 6000000\n",
	}
	r := newRepeat("broker 1", time.Time{}, time.Second)
	for i, s := range scrapes {
		r.add(readValues(t, s), int64(i+1)*1e9)
	}
	k := r.figures()
	if tb := k.Topics["t"]; tb == nil || tb.BytesOut == nil || *tb.BytesOut != 6000000 {
		t.Fatalf("topic t %+v; want 6000000 bytes out: the new topic's meter from zero", tb)
	}
}
