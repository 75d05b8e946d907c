package runner

import (
	"cmp"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

// build carries what building a plan's scenarios needs and collects:
// the stall reporter for producers, and the Kafka client warnings
// (properties kbench accepts but does not apply as written), each once.
type build struct {
	stall    func(workload.Stall)
	observer Observer
	warnings []string
	notes    []string // what kbench set for the user (profiles), said before the run
	seen     map[string]bool
}

// seriesInterval is the width of a plan workload's intervals: the report
// draws throughput and latency over time from them, and a second shows what
// the Apache tools' 5 s average hides.
const seriesInterval = time.Second

// note records a line to print before the run (once).
func (b *build) note(msg string) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if !b.seen[msg] {
		b.seen[msg] = true
		b.notes = append(b.notes, msg)
	}
}

func (b *build) warn(workloadName string, ws []kafkaconf.Warning) {
	for _, w := range ws {
		msg := fmt.Sprintf("workload %q: %s", workloadName, w)
		if b.seen == nil {
			b.seen = map[string]bool{}
		}
		if !b.seen[msg] {
			b.seen[msg] = true
			b.warnings = append(b.warnings, msg)
		}
	}
}

// scenarioOf builds the runner's scenario for one plan scenario: Java
// client properties become franz-go options (the cluster's, then the
// workload's), messages become record sources.
func scenarioOf(p *plan.Plan, sc *plan.Scenario, bootstrap string, b *build) (Scenario, error) {
	out := Scenario{Name: sc.Name}
	admin, err := adminOpts(p, bootstrap)
	if err != nil {
		return out, err
	}
	out.Admin = admin
	for _, t := range sc.Topics {
		spec := kadmin.TopicSpec{
			Name:              t.Name,
			Partitions:        int32(t.Partitions),
			ReplicationFactor: int16(t.Replication),
			Configs:           stringPtrs(t.Configs),
		}
		out.Topics = append(out.Topics, Topic{TopicSpec: spec, Existing: kadmin.Existing(t.Existing)})
	}
	for i := range sc.Workloads {
		w, err := workloadOf(p, &sc.Workloads[i], bootstrap, b)
		if err != nil {
			return out, fmt.Errorf("workloads[%d] %q: %w", i, sc.Workloads[i].Name, err)
		}
		out.Workloads = append(out.Workloads, w)
	}
	return out, nil
}

func workloadOf(p *plan.Plan, w *plan.Workload, bootstrap string, b *build) (Workload, error) {
	rw := Workload{Name: w.Name, Kind: Kind(w.Type), StartAfter: w.StartAfter, Backlog: w.Backlog}
	props := clientProps(p.Cluster.Properties, w.Properties, bootstrap)
	if rw.Kind == Produce || rw.Kind == EndToEnd {
		spec, settings, err := producerSpec(p, w, props, b)
		if err != nil {
			return rw, err
		}
		rw.Producer, rw.Settings = spec, settings
	}
	if rw.Kind == Consume || rw.Kind == EndToEnd {
		if rw.Kind == EndToEnd {
			// Its properties are the producer's; its reader takes the
			// cluster's only.
			props = clientProps(p.Cluster.Properties, nil, bootstrap)
		}
		spec, settings, err := consumerSpec(w, props, b)
		if err != nil {
			return rw, err
		}
		rw.Consumer = spec
		if rw.Settings == nil {
			rw.Settings = settings
		}
	}
	return rw, nil
}

// clientProps orders the properties as Java would apply them: the cluster's
// shared ones, then the workload's, then the bootstrap servers kbench
// resolved (a local cluster's, or --set cluster.bootstrap).
func clientProps(cluster, workload map[string]string, bootstrap string) []kafkaconf.Prop {
	var props []kafkaconf.Prop
	add := func(m map[string]string, source string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			props = append(props, kafkaconf.Prop{Key: k, Value: m[k], Source: source})
		}
	}
	add(cluster, "cluster.properties")
	add(workload, "properties")
	if bootstrap != "" {
		props = append(props, kafkaconf.Prop{Key: "bootstrap.servers", Value: bootstrap, Source: "cluster.bootstrap"})
	}
	return props
}

func producerSpec(p *plan.Plan, w *plan.Workload, props []kafkaconf.Prop, b *build) (*workload.ProducerSpec, map[string]string, error) {
	props, profile, err := kafkaconf.WithProfile(w.Profile, "profile", props)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	if profile != "" {
		b.note(fmt.Sprintf("workload %q: %s", w.Name, profile))
	}
	pc, warns, err := kafkaconf.ParseProducer(props)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	b.warn(w.Name, warns)
	values, err := valuesOf(p, w)
	if err != nil {
		return nil, nil, err
	}
	var keys *payload.Keys
	keySize := 0
	if w.Message.KeyRange > 0 {
		if keys, err = payload.NewKeysDist(int(w.Message.KeyRange), w.Message.KeyDist, w.Message.Seed+1); err != nil {
			return nil, nil, userr.Errorf("message.key: %v", err)
		}
		keySize = keys.MaxSize()
	}
	var keySrc payload.Source
	if t := w.Message.KeyTemplate; t != nil {
		if keySrc, err = payload.CompileRaw(*t, w.Message.Seed+2); err != nil {
			return nil, nil, userr.Errorf("message.key.template: %v", err)
		}
		keySize = keySrc.MaxSize()
	}
	var headerSrcs []workload.HeaderSource
	for _, name := range sortedKeys(w.Message.HeaderTemplates) {
		src, err := payload.CompileRaw(w.Message.HeaderTemplates[name], w.Message.Seed+3)
		if err != nil {
			return nil, nil, userr.Errorf("message.headers.%s: %v", name, err)
		}
		headerSrcs = append(headerSrcs, workload.HeaderSource{Key: name, Values: src})
		keySize += len(name) + src.MaxSize()
	}
	opts, err := pc.Opts(values.MaxSize() + keySize)
	if err != nil {
		return nil, nil, err
	}
	clientID := pc.ClientID
	spec := &workload.ProducerSpec{
		Interval:       seriesInterval,
		Topic:          w.Topic,
		Clients:        w.Clients,
		Records:        w.Records,
		Duration:       w.Duration,
		Rate:           w.Rate,
		VUs:            w.VUs,
		Stages:         w.Stages,
		Headers:        headersOf(w.Message.Headers),
		KeySource:      keySrc,
		HeaderSources:  headerSrcs,
		Warmup:         w.WarmupRecords,
		OnStall:        b.stall,
		WarmupDuration: w.WarmupDuration,
		Values:         values,
		Keys:           keys,
		ClientOpts: func(i int) []kgo.Opt {
			out := append([]kgo.Opt(nil), opts...)
			out = append(out, kgo.ClientID(clientID+"-"+w.Name+"-"+strconv.Itoa(i)))
			if pc.Idempotence {
				// kbench never re-sends a failed record: give up on in-flight
				// records after the delivery timeout rather than hang.
				out = append(out, kgo.AllowIdempotentProduceCancellation())
			}
			return out
		},
	}
	b.observeProducer(w.Name, spec)
	return spec, pc.Settings(), nil
}

// valuesOf is the record source of a workload's message: random values of
// a size, or the records of a payload file (relative to the plan's folder).
func valuesOf(p *plan.Plan, w *plan.Workload) (payload.Source, error) {
	m := w.Message
	if m.Template != nil {
		src, err := payload.CompileTemplate(*m.Template, m.Seed+1)
		if err != nil {
			return nil, userr.Errorf("message.template: %v", err)
		}
		return src, nil
	}
	if m.PayloadFile != "" {
		path := m.PayloadFile
		if !filepath.IsAbs(path) && p.Dir != "" {
			path = filepath.Join(p.Dir, path)
		}
		delim := m.Delimiter
		if delim == "" {
			delim = "\n"
		}
		src, _, err := payload.File(path, delim, m.Seed+1)
		if err != nil {
			return nil, userr.Errorf("message.payload_file: %v", err)
		}
		return src, nil
	}
	src, err := payload.RandomRatio(int(m.Size), m.RandomRatio, m.Seed+1)
	if err != nil {
		return nil, userr.Errorf("message.size: %v", err)
	}
	return src, nil
}

func consumerSpec(w *plan.Workload, props []kafkaconf.Prop, b *build) (*workload.ConsumerSpec, map[string]string, error) {
	if w.Group != "" {
		// The group is the consumers' group.id: the settings and the
		// client ids Java would generate name it.
		props = append(props, kafkaconf.Prop{Key: "group.id", Value: w.Group, Source: "group"})
	}
	cc, warns, err := kafkaconf.ParseConsumer(props)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	if w.Type == plan.Consume {
		b.warn(w.Name, warns)
	}
	opts, err := cc.Opts()
	if err != nil {
		return nil, nil, err
	}
	clientID := func(i int) string {
		if cc.ClientID != "" {
			return cc.ClientID + "-" + w.Name + "-" + strconv.Itoa(i)
		}
		// As the Java consumer numbers the consumers of one process.
		return "consumer-" + cmp.Or(w.Group, "null") + "-" + strconv.Itoa(i+1)
	}
	spec := &workload.ConsumerSpec{
		Interval:       seriesInterval,
		Topics:         []string{w.Topic},
		Group:          w.Group,
		Clients:        w.Clients,
		MaxPollRecords: cc.MaxPollRecords,
		ClientOpts: func(i int) []kgo.Opt {
			return append(append([]kgo.Opt(nil), opts...), kgo.ClientID(clientID(i)))
		},
		Latency: true,
		Lag:     w.Type == plan.Consume,
	}
	if w.Type == plan.Consume {
		spec.Records = w.Records
		spec.Duration = w.Duration
		spec.IdleTimeout = w.Timeout
	} else {
		spec.Clients = 1 // one reader measures every record's latency
	}
	b.observeConsumer(w.Name, spec)
	return spec, cc.Settings(), nil
}

func adminOpts(p *plan.Plan, bootstrap string) ([]kgo.Opt, error) {
	cc, _, err := kafkaconf.ParseConsumer(clientProps(p.Cluster.Properties, nil, bootstrap))
	if err != nil {
		return nil, userr.New(err)
	}
	return cc.Opts()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// headersOf is the message's static headers, sorted by name.
func headersOf(m map[string]string) []kgo.RecordHeader {
	if len(m) == 0 {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]kgo.RecordHeader, len(names))
	for i, k := range names {
		out[i] = kgo.RecordHeader{Key: k, Value: []byte(m[k])}
	}
	return out
}

func stringPtrs(m map[string]string) map[string]*string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = &v
	}
	return out
}

// PreviewRecord is one record a workload would send.
type PreviewRecord struct {
	Key, Value []byte
	Headers    []kgo.RecordHeader
}

// Preview returns the first n records the named producing workload of a
// scenario would send (every producing workload's when name is empty),
// without contacting a broker: `kbench preview`.
func Preview(p *plan.Plan, sc *plan.Scenario, name string, n int) (map[string][]PreviewRecord, []string, error) {
	out := map[string][]PreviewRecord{}
	var order []string
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if (name != "" && w.Name != name) || w.Type == plan.Consume {
			continue
		}
		values, err := valuesOf(p, w)
		if err != nil {
			return nil, nil, fmt.Errorf("workload %q: %w", w.Name, err)
		}
		var keySrc payload.Source
		if t := w.Message.KeyTemplate; t != nil {
			if keySrc, err = payload.CompileRaw(*t, w.Message.Seed+2); err != nil {
				return nil, nil, fmt.Errorf("workload %q: message.key.template: %w", w.Name, err)
			}
		}
		var keys *payload.Keys
		if w.Message.KeyRange > 0 {
			if keys, err = payload.NewKeysDist(int(w.Message.KeyRange), w.Message.KeyDist, w.Message.Seed+1); err != nil {
				return nil, nil, fmt.Errorf("workload %q: message.key_range: %w", w.Name, err)
			}
		}
		var hsrc []workload.HeaderSource
		for _, name := range sortedKeys(w.Message.HeaderTemplates) {
			src, err := payload.CompileRaw(w.Message.HeaderTemplates[name], w.Message.Seed+3)
			if err != nil {
				return nil, nil, fmt.Errorf("workload %q: message.headers.%s: %w", w.Name, name, err)
			}
			hsrc = append(hsrc, workload.HeaderSource{Key: name, Values: src})
		}
		static := headersOf(w.Message.Headers)
		order = append(order, w.Name)
		for j := 0; j < n; j++ {
			r := PreviewRecord{Value: values.Value(int64(j))}
			if keys != nil {
				r.Key = keys.Key()
			}
			if keySrc != nil {
				r.Key = keySrc.Value(int64(j))
			}
			r.Headers = append(r.Headers, static...)
			for _, h := range hsrc {
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Values.Value(int64(j))})
			}
			out[w.Name] = append(out[w.Name], r)
		}
	}
	if len(order) == 0 {
		if name != "" {
			return nil, nil, userr.Errorf("--workload %q: no producing workload of that name in scenario %q", name, sc.Name)
		}
		return nil, nil, userr.Errorf("scenario %q has no producing workload", sc.Name)
	}
	return out, order, nil
}
