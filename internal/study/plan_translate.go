package study

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
	"github.com/kbench/kbench/internal/workload/produce"
)

// build carries what building a plan's scenarios needs and collects:
// the stall reporter for producers, and the Kafka client warnings
// (properties kbench accepts but does not apply as written), each once.
type build struct {
	// seed is the run's: workloads without a message seed derive theirs
	// from it (messageSeed).
	seed uint64
	// runID tells this run's share groups from another's when the plan
	// names none (a distributed run's id, so every worker joins one).
	runID    string
	kinds    []Kind // nil: Kinds()
	stall    func(workload string, s measure.Stall)
	progress io.Writer // where a gate says how it waits (nil: nowhere)
	observer observe.Observer
	abort    context.Context // Options.Abort
	warnings []string
	notes    []string // what kbench set for the user (profiles), said before the run
	seen     map[string]bool
	// Parsed client properties by their text, and the admin options by
	// bootstrap: scenarios mostly share them, and parsing them anew took
	// most of the time and memory of checking 10,000 scenarios.
	// schemas are the resolved schema ids (nil: not resolved, id 0, as
	// checks and previews use).
	schemas   *schemaIDs
	producers map[string]parsedProducer
	consumers map[string]parsedConsumer
	admin     map[string][]kgo.Opt
	// clocks are the scenario being built's commit clocks by topic: its
	// transactional producers and read_committed readers of a topic share
	// one (withCommitClocks keeps those with both sides).
	clocks map[string]*engine.CommitClock
}

// commitClock is the scenario's commit clock of topic.
func (b *build) commitClock(topic string) *engine.CommitClock {
	if b.clocks == nil {
		b.clocks = map[string]*engine.CommitClock{}
	}
	c, ok := b.clocks[topic]
	if !ok {
		c = engine.NewCommitClock()
		b.clocks[topic] = c
	}
	return c
}

// withCommitClocks keeps a commit clock only where a transactional
// producer and a read_committed reader of its topic are both in the
// scenario: a producer alone would note offsets no one reads, a reader
// alone would find no commit for any record.
func withCommitClocks(sc *runner.Scenario) {
	writers, readers := map[*engine.CommitClock]bool{}, map[*engine.CommitClock]bool{}
	for _, w := range sc.Workloads {
		if p, ok := w.Spec.(workload.Producing); ok && p.Producer().Visible != nil {
			writers[p.Producer().Visible] = true
		}
		if r, ok := w.Spec.(workload.Consuming); ok && r.Consumer().Visible != nil {
			readers[r.Consumer().Visible] = true
		}
	}
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if p, ok := w.Spec.(workload.Producing); ok {
			if s := p.Producer(); s.Visible != nil && !readers[s.Visible] {
				s.Visible = nil
				w.Spec = p.WithProducer(s)
			}
		}
		if r, ok := w.Spec.(workload.Consuming); ok {
			if s := r.Consumer(); s.Visible != nil && !writers[s.Visible] {
				s.Visible = nil
				w.Spec = r.WithConsumer(s)
			}
		}
	}
}

type parsedProducer struct {
	pc       *kafkaconf.Producer
	warns    []kafkaconf.Warning
	err      error
	settings map[string]string // pc.Settings(), shared read-only by the scenarios
}

type parsedConsumer struct {
	cc       *kafkaconf.Consumer
	warns    []kafkaconf.Warning
	err      error
	opts     []kgo.Opt         // cc.Opts(), shared read-only (each client appends to a copy)
	settings map[string]string // cc.Settings(), shared read-only by the scenarios
}

// propsKey is props as one string, for the caches.
func propsKey(props []kafkaconf.Prop) string {
	var sb strings.Builder
	for _, p := range props {
		sb.WriteString(p.Key)
		sb.WriteByte(0)
		sb.WriteString(p.Value)
		sb.WriteByte(0)
		sb.WriteString(p.Source)
		sb.WriteByte(1)
	}
	return sb.String()
}

// parseProducer is kafkaconf.ParseProducer, once per distinct properties;
// it also returns the parsed producer's Settings.
func (b *build) parseProducer(props []kafkaconf.Prop) (*kafkaconf.Producer, map[string]string, []kafkaconf.Warning, error) {
	k := propsKey(props)
	r, ok := b.producers[k]
	if !ok {
		r.pc, r.warns, r.err = kafkaconf.ParseProducer(props)
		if r.err == nil {
			r.settings = r.pc.Settings()
		}
		if b.producers == nil {
			b.producers = map[string]parsedProducer{}
		}
		b.producers[k] = r
	}
	return r.pc, r.settings, r.warns, r.err
}

// parseConsumer is kafkaconf.ParseConsumer with the consumer's options and
// Settings, once per distinct properties.
func (b *build) parseConsumer(props []kafkaconf.Prop) (parsedConsumer, error) {
	k := propsKey(props)
	r, ok := b.consumers[k]
	if !ok {
		r.cc, r.warns, r.err = kafkaconf.ParseConsumer(props)
		if r.err != nil {
			r.err = userr.New(r.err)
		} else if r.opts, r.err = r.cc.Opts(); r.err == nil {
			r.settings = r.cc.Settings()
		}
		if b.consumers == nil {
			b.consumers = map[string]parsedConsumer{}
		}
		b.consumers[k] = r
	}
	return r, r.err
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
func scenarioOf(p *plan.Plan, sc *plan.Scenario, bootstrap string, b *build) (runner.Scenario, error) {
	out := runner.Scenario{Name: sc.Name}
	b.clocks = nil // each scenario's own
	admin, err := b.adminOpts(p, bootstrap)
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
		out.Topics = append(out.Topics, runner.Topic{TopicSpec: spec, Existing: kadmin.Existing(t.Existing)})
	}
	for i := range sc.Workloads {
		w, err := workloadOf(p, &sc.Workloads[i], i, bootstrap, b)
		if err != nil {
			return out, fmt.Errorf("workloads[%d] %q: %w", i, sc.Workloads[i].Name, err)
		}
		out.Workloads = append(out.Workloads, w)
	}
	withCommitClocks(&out)
	return out, nil
}

// RunSeed is the seed of one run of the plan: the plan's seed, or a fresh
// one when it has none, so that no two runs send the same random values.
func RunSeed(p *plan.Plan) uint64 {
	if p.SeedSet {
		return p.Seed
	}
	return payload.NewSeed()
}

// messageSeed is the seed the records of the plan's index-th workload
// come from: its message's, or one derived from the run's seed.
func messageSeed(runSeed uint64, w *plan.Workload, index int) uint64 {
	if w.Message.SeedSet {
		return w.Message.Seed
	}
	return payload.Mix(runSeed, uint64(index)+1)
}

// reseeded returns sc with every producing workload's record sources on
// streams of their own for one repeat: the same seeds, scenario and repeat
// give the same records, and no two scenarios or repeats of a run send the
// same random values (uuids, strings, letters). The sources share their
// data (letters, payload files) with sc's. The draws of every workload
// that draws (workload.Drawing: processing times, a share group's releases
// and rejections) move to their own stream likewise. A balanced-rate
// search starts over too (withBalance).
func reseeded(sc runner.Scenario, repeat int) runner.Scenario {
	h := fnv.New64a()
	h.Write([]byte(sc.Name))
	x := payload.Mix(h.Sum64(), uint64(repeat))
	out := sc
	out.Workloads = append([]runner.Workload(nil), sc.Workloads...)
	for i := range out.Workloads {
		w := &out.Workloads[i]
		if d, ok := w.Spec.(workload.Drawing); ok {
			w.Spec = d.WithSeed(payload.Mix(d.Seed(), x))
		}
		p, ok := w.Spec.(workload.Producing)
		if !ok {
			continue
		}
		spec := p.Producer()
		src := recordSources{values: spec.Values, keys: spec.Keys, keySrc: spec.KeySource, headerSrcs: spec.HeaderSources}.clone(x)
		spec.Values, spec.Keys, spec.KeySource, spec.HeaderSources = src.values, src.keys, src.keySrc, src.headerSrcs
		w.Spec = p.WithProducer(spec)
	}
	return withBalance(out)
}

// kindsOr is the build's kinds, Kinds() unless Options gave its own.
func (b *build) kindsOr() []Kind {
	if b.kinds == nil {
		return Kinds()
	}
	return b.kinds
}

func workloadOf(p *plan.Plan, w *plan.Workload, index int, bootstrap string, b *build) (runner.Workload, error) {
	rw := runner.Workload{Name: w.Name, StartAfter: w.StartAfter, AfterWorkload: w.AfterWorkload, Backlog: w.Backlog}
	build, ok := builderOf(b.kindsOr(), w.Type)
	if !ok {
		return rw, fmt.Errorf("workload %q: type %q has no engine", w.Name, w.Type)
	}
	var err error
	rw.Spec, rw.Settings, err = build(kindInput{plan: p, w: w, index: index, bootstrap: bootstrap, b: b})
	if err == nil && w.WaitFor == plan.WaitRemote {
		var admin []kgo.Opt
		if admin, err = b.adminOpts(p, bootstrap); err == nil {
			rw.Gate = remoteGate(admin, w.Name, w.Topic, b.progress)
		}
	}
	return rw, err
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

func producerSpec(p *plan.Plan, w *plan.Workload, seed uint64, props []kafkaconf.Prop, b *build) (*produce.ProducerSpec, map[string]string, error) {
	props, profile, err := kafkaconf.WithProfile(w.Profile, "profile", props)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	if w.Transaction != nil && !kafkaconf.Has(props, "transactional.id") {
		props = append(props, kafkaconf.Prop{Key: "transactional.id", Value: kafkaconf.GeneratedTransactionalID("kbench-" + w.Name), Source: "transaction"})
	}
	if profile != "" {
		b.note(fmt.Sprintf("workload %q: %s", w.Name, profile))
	}
	pc, settings, warns, err := b.parseProducer(props)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	b.warn(w.Name, warns)
	src, err := recordSourcesOf(p, w, seed, b.schemas)
	if err != nil {
		return nil, nil, userr.New(err)
	}
	// Random letters must outlast a batch (batch.size) to compress as
	// fresh ones do; they are only 1 MiB unless it asks for more.
	values := payload.ForBatches(src.values, pc.BatchSize)
	opts, err := pc.Opts(src.maxSize())
	if err != nil {
		return nil, nil, err
	}
	spec := &produce.ProducerSpec{
		Interval:       seriesInterval,
		Topic:          w.Topic,
		Clients:        w.Clients,
		Records:        w.Records,
		Duration:       w.Duration,
		Rate:           w.Rate,
		VUs:            w.VUs,
		Stages:         w.Stages,
		Headers:        src.headers,
		KeySource:      src.keySrc,
		HeaderSources:  src.headerSrcs,
		Warmup:         w.WarmupRecords,
		OnStall:        b.stallOf(w.Name),
		WarmupDuration: w.WarmupDuration,
		Values:         values,
		Keys:           src.keys,
		StampSent:      w.SendTimeHeader,
		// Each repeat gets a Balance of its own (withBalance); this one
		// marks the workload.
		Balance:    balanceOf(w),
		ClientOpts: engine.PerClient(opts, func(i int) []kgo.Opt { return pc.ClientOpts(w.Name, i) }),
	}
	if len(w.VUStages) > 0 {
		ramp, err := load.NewVURamp(w.VUs, w.VUStages)
		if err != nil {
			return nil, nil, userr.Errorf("stages: %v", err)
		}
		spec.VURamp, spec.VUs = ramp, 0
	}
	if t := w.Transaction; t != nil {
		spec.TransactionDuration, spec.TransactionRecords = t.Duration, t.Records
		spec.TransactionAbortRatio, spec.TransactionSeed = t.AbortRatio, payload.Mix(seed, 0x7478)
	}
	if kafkaconf.Has(props, "delivery.timeout.ms") {
		// After duration, and without an acknowledgement in a run of
		// records: as long as the user asked.
		spec.Drain, spec.Stall = pc.DeliveryTimeout, pc.DeliveryTimeout
	}
	spec.Abort = b.abort
	if pc.TransactionalID != "" {
		spec.Visible = b.commitClock(w.Topic)
	}
	b.observeProducer(w.Name, spec)
	return spec, settings, nil
}

// stallOf is the stall reporter of the named workload (nil: none).
func (b *build) stallOf(name string) func(measure.Stall) {
	if b.stall == nil {
		return nil
	}
	return func(s measure.Stall) { b.stall(name, s) }
}

// valuesOf is the record source of a workload's message: random values of
// a size, or the records of a payload file (relative to the plan's folder).
func valuesOf(p *plan.Plan, w *plan.Workload, seed uint64) (payload.Source, error) {
	m := w.Message
	if m.Template != nil {
		src, err := payload.CompileTemplate(*m.Template, seed+1)
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
		if m.WholeFile {
			src, err := payload.WholeFile(path, seed+1)
			if err != nil {
				return nil, userr.Errorf("message.payload_file: %v", err)
			}
			return src, nil
		}
		delim := m.Delimiter
		if delim == "" {
			delim = "\n"
		}
		src, _, err := payload.File(path, delim, seed+1)
		if err != nil {
			return nil, userr.Errorf("message.payload_file: %v", err)
		}
		return src, nil
	}
	if m.Pool > 0 {
		src, err := payload.Pool(int(m.Size), m.RandomRatio, m.Pool, seed+1)
		if err != nil {
			return nil, userr.Errorf("message.pool: %v", err)
		}
		return src, nil
	}
	src, err := payload.RandomRatio(int(m.Size), m.RandomRatio, seed+1)
	if err != nil {
		return nil, userr.Errorf("message.size: %v", err)
	}
	return src, nil
}

func consumerSpec(w *plan.Workload, props []kafkaconf.Prop, b *build) (*consume.ConsumerSpec, map[string]string, error) {
	if w.Group != "" {
		// The group is the consumers' group.id: the settings and the
		// client ids Java would generate name it.
		props = append(props, kafkaconf.Prop{Key: "group.id", Value: w.Group, Source: "group"})
	}
	parsed, err := b.parseConsumer(props)
	if err != nil {
		return nil, nil, err
	}
	cc, opts := parsed.cc, parsed.opts[:len(parsed.opts):len(parsed.opts)] // shared: an append copies
	// A workload that only reads warns of its properties; the reader of
	// one that writes (end-to-end) takes the cluster's only, whose
	// warnings its producer gives.
	readerOnly := !w.Sends()
	if readerOnly {
		b.warn(w.Name, parsed.warns)
	}
	clientID := func(i int) string { return cc.ClientIDOf(w.Name, i) }
	spec := &consume.ConsumerSpec{
		Interval:       seriesInterval,
		Topics:         []string{w.Topic},
		Group:          w.Group,
		Clients:        w.Clients,
		MaxPollRecords: cc.MaxPollRecords,
		ClientOpts:     engine.PerClient(opts, func(i int) []kgo.Opt { return []kgo.Opt{kgo.ClientID(clientID(i))} }),
		Latency:        true,
		Lag:            readerOnly,
		Decode:         b.schemas.decoder(w.Topic),
	}
	if readerOnly {
		spec.Records = w.Records
		spec.Duration = w.Duration
		spec.IdleTimeout = w.Timeout
		if cc.IsolationLevel == "read_committed" {
			spec.Visible = b.commitClock(w.Topic)
		}
	} else {
		spec.Clients = 1 // one reader measures every record's latency
	}
	b.observeConsumer(w.Name, spec)
	return spec, parsed.settings, nil
}

// adminOpts are the admin client's options: the cluster's properties, the
// same for every scenario.
func (b *build) adminOpts(p *plan.Plan, bootstrap string) ([]kgo.Opt, error) {
	if opts, ok := b.admin[bootstrap]; ok {
		return opts, nil
	}
	parsed, err := b.parseConsumer(clientProps(p.Cluster.Properties, nil, bootstrap))
	if err != nil {
		return nil, err
	}
	opts := parsed.opts
	if b.admin == nil {
		b.admin = map[string][]kgo.Opt{}
	}
	opts = opts[:len(opts):len(opts)] // shared: an append copies
	b.admin[bootstrap] = opts
	return opts, nil
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
	// Format, for a value encoded with a schema, is its format; Value is
	// then the template's JSON and Encoded what is sent (framed with
	// schema id 0: ids are known only once registered).
	Format  string
	Encoded []byte
}

// Preview returns the first n records the named producing workload of a
// scenario would send in its first repeat, from its first client, for the
// run seed given (RunSeed) (every producing workload's when name is
// empty), without contacting a broker: `kbench preview`.
func Preview(p *plan.Plan, sc *plan.Scenario, name string, n int, runSeed uint64) (map[string][]PreviewRecord, []string, error) {
	out := map[string][]PreviewRecord{}
	var order []string
	h := fnv.New64a()
	h.Write([]byte(sc.Name))
	x := payload.Mix(h.Sum64(), 1) // as reseeded for repeat 1
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if (name != "" && w.Name != name) || !w.Sends() {
			continue
		}
		src, err := recordSourcesOf(p, w, messageSeed(runSeed, w, i), nil)
		if err != nil {
			return nil, nil, fmt.Errorf("workload %q: %w", w.Name, err)
		}
		src = src.clone(x).clone(1) // as the first client of the first repeat
		values, keys, keySrc, hsrc, static := src.values, src.keys, src.keySrc, src.headerSrcs, src.headers
		order = append(order, w.Name)
		for j := 0; j < n; j++ {
			var r PreviewRecord
			if es, ok := serde.SourceOf(values); ok {
				js, enc, err := es.Pair(int64(j))
				if err != nil {
					return nil, nil, fmt.Errorf("workload %q, record %d: %w", w.Name, j, err)
				}
				r.Value, r.Encoded, r.Format = js, enc, string(es.Format())
			} else {
				r.Value = values.Value(int64(j))
			}
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

// CommitToVisible says, for the dry run, which readers of a scenario time
// the commit-to-visible delay and against whose commits: a read_committed
// reader of a topic its transactional producers write (withCommitClocks
// wires the same pairs).
func CommitToVisible(p *plan.Plan, sc plan.Scenario) []string {
	prop := func(w *plan.Workload, key string) string {
		if v, ok := w.Properties[key]; ok {
			return v
		}
		return p.Cluster.Properties[key]
	}
	writers := map[string][]string{}
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if w.Sends() && (w.Transaction != nil || prop(w, "transactional.id") != "") {
			writers[w.Topic] = append(writers[w.Topic], w.Name)
		}
	}
	var out []string
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if w.Reads() && !w.Sends() && prop(w, "isolation.level") == "read_committed" && len(writers[w.Topic]) > 0 {
			out = append(out, fmt.Sprintf("%s (against %s's commits)", w.Name, strings.Join(writers[w.Topic], ", ")))
		}
	}
	return out
}
