package brokermetrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// kind is how a series is followed through a repeat.
type kind int

const (
	counter   kind = iota // its increase (a reset counts from zero)
	gaugeMax              // the largest value
	gaugeMean             // the mean of the values
	gaugeLast             // the last value
	meanTimes             // a histogram's lifetime mean: its sum with the count
)

// metric is one series kbench reads: its name (a counter's without
// _total), its labels as series writes them, and what is not measured
// without it.
type metric struct {
	name, labels string
	kind         kind
	what         string
	// optional: a broker without the feature has no such series, and is
	// not said to lack it (remote storage's, on brokers without it).
	optional bool
}

func (m metric) key() string { return m.name + m.labels }

// Names of the series, as the JMX exporter's Kafka example rules (and
// kbench's own agent config, cluster/agent.go) name them.
const (
	bytesIn         = "kafka_server_brokertopicmetrics_bytesin"
	bytesOut        = "kafka_server_brokertopicmetrics_bytesout"
	messagesIn      = "kafka_server_brokertopicmetrics_messagesin"
	handlerIdle     = "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count"
	networkIdle     = "kafka_network_socketserver_networkprocessoravgidlepercent"
	underReplicated = "kafka_server_replicamanager_underreplicatedpartitions"
	offline         = "kafka_controller_kafkacontroller_offlinepartitionscount"
	isrShrinks      = "kafka_server_replicamanager_isrshrinks"
	isrExpands      = "kafka_server_replicamanager_isrexpands"
	requestMetrics  = "kafka_network_requestmetrics_"
	// Remote storage's (tiered storage, KIP-405): bytes read from the
	// remote tier to serve fetches, and copied to it. Brokers without
	// remote storage have neither.
	remoteFetchBytes = "kafka_server_brokertopicmetrics_remotefetchbytes"
	remoteCopyBytes  = "kafka_server_brokertopicmetrics_remotecopybytes"
)

// topicCounters are followed per topic (their topic label) on brokers
// with remote storage: what each topic's reads took from each tier.
var topicCounters = []string{bytesOut, remoteFetchBytes, remoteCopyBytes}

// requests are the request types read, by the name the report uses;
// parts are a request's times as Kafka splits them.
var (
	requests = []struct{ name, label string }{{"produce", "Produce"}, {"fetch", "FetchConsumer"}}
	parts    = []string{"totaltimems", "requestqueuetimems", "localtimems", "remotetimems"}
)

// metrics lists every series read.
func metrics() []metric {
	ms := []metric{
		{bytesIn, "", counter, "bytes in not measured", false},
		{bytesOut, "", counter, "bytes out not measured", false},
		{messagesIn, "", counter, "messages in not measured", false},
		{handlerIdle, "", counter, "the request handlers' busy share not measured", false},
		{networkIdle, "", gaugeMean, "the network processors' idle share not measured", false},
		{underReplicated, "", gaugeMax, "under-replicated partitions not measured", false},
		{offline, "", gaugeMax, "offline partitions not measured", false},
		{isrShrinks, "", counter, "ISR shrinks not measured", false},
		{isrExpands, "", counter, "ISR expands not measured", false},
		{remoteFetchBytes, "", counter, "bytes read from the remote tier not measured", true},
		{remoteCopyBytes, "", counter, "bytes copied to the remote tier not measured", true},
	}
	for _, r := range requests {
		l := fmt.Sprintf("{request=%q}", r.label)
		for _, p := range parts {
			ms = append(ms,
				metric{requestMetrics + p + "_count", l, counter, r.name + " request times not measured", false},
				metric{requestMetrics + p + "_mean", l, meanTimes, r.name + " request mean times not measured", false},
				metric{requestMetrics + p, fmt.Sprintf("{quantile=\"0.99\",request=%q}", r.label), gaugeLast, r.name + " request p99 times not measured", false})
		}
	}
	return ms
}

// follower follows one series through a repeat's scrapes.
type follower struct {
	seen      bool
	last, inc float64 // counters: the last value read, the increase
	max, sum  float64
	n         int
}

// add takes the series' value at one scrape.
func (f *follower) add(k kind, v float64) {
	switch k {
	case counter, meanTimes:
		switch {
		case !f.seen:
		case v >= f.last:
			f.inc += v - f.last
		default: // reset: the broker restarted
			f.inc += v
		}
		f.last = v
	case gaugeMax:
		if !f.seen || v > f.max {
			f.max = v
		}
	case gaugeMean:
		f.sum += v
		f.n++
	case gaugeLast:
		f.last = v
	}
	f.seen = true
}

// repeat is one endpoint's scrapes of a repeat.
type repeat struct {
	name string // "broker 1", or the endpoint as shown
	ms   []metric
	f    map[string]*follower
	// topics follow topicCounters per topic: topic → name → follower.
	topics  map[string]map[string]*follower
	startNs int64
	endNs   int64
	scrapes int
	err     error // the first failed scrape's
	// busy is the handlers' idle share through the repeat, a step per
	// interval from began (what the clock counts from): the idle meter's
	// increase since the scrape before (idleAt, the meter at idleLast).
	// idleNs and spanNs sum the increases and the time they span, over
	// the whole repeat.
	busy           *result.Ratios
	idleSeen       bool
	idleLast       float64
	idleAt         int64
	idleNs, spanNs float64
}

// newRepeat follows an endpoint whose scrapes are timed in ns after
// began; the handlers' share is kept a step every interval.
func newRepeat(name string, began time.Time, every time.Duration) *repeat {
	r := &repeat{name: name, ms: metrics(), f: map[string]*follower{}, topics: map[string]map[string]*follower{}, busy: result.NewRatios(began, every)}
	for _, m := range r.ms {
		r.f[m.key()] = &follower{}
	}
	return r
}

// add takes one scrape, read at atNs (a monotonic clock in ns).
func (r *repeat) add(v values, atNs int64) {
	if r.scrapes == 0 {
		r.startNs = atNs
	}
	r.endNs = atNs
	r.scrapes++
	if x, ok := v.counter(handlerIdle, ""); ok {
		r.addIdle(x, atNs)
	}
	// A histogram's lifetime mean times its count is its sum, which
	// grows as a counter does.
	count := map[string]float64{}
	for _, m := range r.ms {
		if strings.HasSuffix(m.name, "_count") {
			if x, ok := v.counter(m.name, m.labels); ok {
				count[strings.TrimSuffix(m.name, "_count")+m.labels] = x
			}
		}
	}
	for _, m := range r.ms {
		var x float64
		var ok bool
		switch m.kind {
		case counter:
			x, ok = v.counter(m.name, m.labels)
		case meanTimes:
			var mean, n float64
			if mean, ok = v.gauge(m.name, m.labels); ok {
				n, ok = count[strings.TrimSuffix(m.name, "_mean")+m.labels]
				x = mean * n
			}
		default:
			x, ok = v.gauge(m.name, m.labels)
		}
		if ok {
			r.f[m.key()].add(m.kind, x)
		}
	}
	r.addTopics(v)
}

// addTopics follows topicCounters per topic. A topic's series first seen
// after the repeat's first scrape counts from zero, and so does one that
// comes back after a scrape without it: Kafka makes a topic's meters on
// its first use and drops them with the topic, and a repeat deletes and
// creates its topics anew. (Without that, the first repeat's 5.8 MB read
// of a topic hid the next repeat's read of 5.8 MB: the meter was at 5.8 MB
// again by the first scrape that saw it after the topic came back.)
func (r *repeat) addTopics(v values) {
	seen := map[*follower]bool{}
	defer func() {
		for _, fs := range r.topics {
			for _, f := range fs {
				if !seen[f] {
					f.last = 0 // gone: its next value counts from zero
				}
			}
		}
	}()
	for key, x := range v {
		for _, name := range topicCounters {
			topic, ok := topicOf(key, name)
			if !ok {
				continue
			}
			fs := r.topics[topic]
			if fs == nil {
				fs = map[string]*follower{}
				r.topics[topic] = fs
			}
			f := fs[name]
			if f == nil {
				f = &follower{}
				if r.scrapes > 1 {
					f.seen = true // from zero
				}
				fs[name] = f
			}
			f.add(counter, x)
			seen[f] = true
		}
	}
}

// topicOf is the topic of a per-topic series of the counter name (with
// or without _total), as `name_total{topic="t"}`.
func topicOf(key, name string) (string, bool) {
	rest, ok := strings.CutPrefix(key, name)
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "_total")
	rest, ok = strings.CutPrefix(rest, `{topic="`)
	if !ok || !strings.HasSuffix(rest, `"}`) {
		return "", false
	}
	return strings.TrimSuffix(rest, `"}`), true
}

// addIdle takes the handlers' idle meter (idle ns, a counter) read at
// atNs: its increase since the scrape before, over the time between. A
// meter that went back (the broker restarted) starts again from this
// scrape: when the new process began in the span is unknown, and
// counting the outage as time without idle read a killed broker as
// 98.6% busy for the 48 s it was down.
func (r *repeat) addIdle(x float64, atNs int64) {
	if r.idleSeen && atNs > r.idleAt && x >= r.idleLast {
		inc, span := x-r.idleLast, float64(atNs-r.idleAt)
		r.busy.Add(float64(r.idleAt)/1e9, float64(atNs)/1e9, inc/1e9, span/1e9)
		r.idleNs += inc
		r.spanNs += span
	}
	r.idleSeen, r.idleLast, r.idleAt = true, x, atNs
}

// figures are the repeat's figures, with what the endpoint lacked.
func (r *repeat) figures() *result.KafkaMetrics {
	k := &result.KafkaMetrics{Scrapes: r.scrapes}
	if r.err != nil {
		k.Error = r.err.Error()
	}
	if r.scrapes == 0 {
		return k
	}
	k.Seconds = float64(r.endNs-r.startNs) / 1e9
	get := func(name, labels string) *follower {
		if f := r.f[name+labels]; f != nil && f.seen {
			return f
		}
		return nil
	}
	inc := func(name string) *float64 {
		if f := get(name, ""); f != nil {
			return ptr(f.inc)
		}
		return nil
	}
	k.BytesIn, k.BytesOut, k.MessagesIn = inc(bytesIn), inc(bytesOut), inc(messagesIn)
	k.IsrShrinks, k.IsrExpands = inc(isrShrinks), inc(isrExpands)
	k.RemoteFetchBytes, k.RemoteCopyBytes = inc(remoteFetchBytes), inc(remoteCopyBytes)
	if k.RemoteFetchBytes != nil || k.RemoteCopyBytes != nil {
		// Only on brokers with remote storage: what each topic's reads
		// took from each tier.
		for topic, fs := range r.topics {
			tb := &result.TopicBytes{}
			for name, f := range fs {
				switch name {
				case bytesOut:
					tb.BytesOut = ptr(f.inc)
				case remoteFetchBytes:
					tb.RemoteFetchBytes = ptr(f.inc)
				case remoteCopyBytes:
					tb.RemoteCopyBytes = ptr(f.inc)
				}
			}
			if k.Topics == nil {
				k.Topics = map[string]*result.TopicBytes{}
			}
			k.Topics[topic] = tb
		}
	}
	if r.spanNs > 0 {
		// The meter counts the handlers' mean idle nanoseconds; over the
		// time the broker was read, its outages left out.
		k.RequestHandlerIdle = ptr(min(r.idleNs/r.spanNs, 1))
		k.HandlerBusy = r.busy.Steps(result.BusyPct, 1)
	}
	if f := get(networkIdle, ""); f != nil && f.n > 0 {
		k.NetworkProcessorIdle = ptr(f.sum / float64(f.n))
	}
	if f := get(underReplicated, ""); f != nil {
		k.UnderReplicated = ptr(f.max)
	}
	if f := get(offline, ""); f != nil {
		k.Offline = ptr(f.max)
	}
	for _, rq := range requests {
		l := fmt.Sprintf("{request=%q}", rq.label)
		t := &result.RequestTimes{}
		for i, p := range parts {
			var tm result.Time
			count, sum := get(requestMetrics+p+"_count", l), get(requestMetrics+p+"_mean", l)
			if count != nil && i == 0 {
				t.Requests = ptr(count.inc)
			}
			if count != nil && sum != nil && count.inc > 0 {
				tm.Mean = ptr(sum.inc / count.inc)
			}
			if f := get(requestMetrics+p, fmt.Sprintf("{quantile=\"0.99\",request=%q}", rq.label)); f != nil {
				tm.P99 = ptr(f.last)
			}
			if tm.Mean == nil && tm.P99 == nil || t.Requests != nil && *t.Requests == 0 {
				continue // none in the repeat: a p99 would be older requests'
			}
			switch p {
			case "totaltimems":
				t.Total = &tm
			case "requestqueuetimems":
				t.Queue = &tm
			case "localtimems":
				t.Local = &tm
			case "remotetimems":
				t.Remote = &tm
			}
		}
		if *t == (result.RequestTimes{}) {
			t = nil
		}
		if rq.name == "produce" {
			k.Produce = t
		} else {
			k.Fetch = t
		}
	}
	k.Lacks = r.lacks()
	return k
}

// lacks says once per figure which series the endpoint never gave.
func (r *repeat) lacks() []string {
	var order []string
	missing := map[string][]string{}
	for _, m := range r.ms {
		if m.optional || r.f[m.key()].seen {
			continue
		}
		if missing[m.what] == nil {
			order = append(order, m.what)
		}
		missing[m.what] = append(missing[m.what], m.key())
	}
	out := make([]string, 0, len(order))
	for _, what := range order {
		names := missing[what]
		shown := strings.Join(names[:min(len(names), 2)], ", ")
		if len(names) > 2 {
			shown += fmt.Sprintf(" and %d more", len(names)-2)
		}
		out = append(out, fmt.Sprintf("%s has no %s: %s", r.name, shown, what))
	}
	return out
}

func ptr(v float64) *float64 { return &v }
