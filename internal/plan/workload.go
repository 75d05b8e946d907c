package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/serde"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/units"
)

func (c *collector) workload(n *yaml.Node, path string) Workload {
	w := Workload{Clients: 1}
	given := map[string]*yaml.Node{}
	ok := c.fields(n, path, workloadFields, func(key string, v *yaml.Node) {
		given[key] = v
		p := join(path, key)
		switch key {
		case "name":
			w.Name = c.text(v, p)
		case "type":
			w.Type = c.oneOf(v, p, c.typeOrder...)
			if r, ok := c.types[w.Type]; ok {
				w.typeRule = &r
			}
		case "topic":
			w.topicNode = v
			w.Topic = c.text(v, p)
			if w.Topic != "" && !topicNameRE.MatchString(w.Topic) {
				c.addf(v, p, "%q is not a legal topic name; use letters, digits, '.', '_' and '-', at most 249 characters", w.Topic)
			}
		case "clients":
			if v, ok := c.whole(v, p, 1, MaxClients); ok {
				w.Clients = int(v)
			}
		case "group":
			w.Group = c.text(v, p)
		case "properties":
			w.Properties = c.properties(v, p)
		case "message":
			w.Message = c.message(v, p)
		case "rate":
			if v.Kind == yaml.ScalarNode && v.Value == "max" {
				w.MaxRate = &MaxRate{Start: 1000, Probes: 1, Confirm: 5, WarmCluster: 30 * time.Second, MaxTime: DefaultMaxTime}
				return
			}
			if v.Kind == yaml.ScalarNode && v.Value == "balanced" {
				w.Balanced, w.rateNode = true, v
				return
			}
			w.Rate = c.rate(v, p)
		case "slo":
			// read after the loop: it needs rate: max
		case "stages":
			w.Stages, w.VUStages = c.stages(v, p)
		case "vus":
			// 0 only as the start of a ramp of users (checked below).
			if v, ok := c.whole(v, p, 0, MaxVUs); ok {
				w.VUs = int(v)
			}
		case "records":
			w.Records = c.count(v, p)
		case "duration":
			w.Duration = c.duration(v, p)
		case "warmup":
			c.warmup(v, p, &w)
		case "timeout":
			w.Timeout = c.duration(v, p)
		case "start_after":
			// A duration, or the workload whose end this one waits for.
			if v.Kind == yaml.ScalarNode && v.Value != "" && !units.LooksLikeDuration(v.Value) && !startsWithDigit(v.Value) {
				w.AfterWorkload, w.afterNode = v.Value, v
				return
			}
			w.StartAfter = c.duration(v, p)
		case "backlog":
			w.Backlog = c.size(v, p, 1<<62)
		case "wait_for":
			w.WaitFor, w.waitForNode = c.oneOf(v, p, WaitRemote, WaitNone), v
			if w.WaitFor == WaitNone {
				w.WaitFor = ""
			}
		case "thresholds":
			w.Thresholds = c.thresholds(v, p)
		case "profile":
			w.Profile = c.oneOf(v, p, "throughput")
		case "verify":
			w.verifyNode = v
			if v.Kind == yaml.MappingNode {
				c.fields(v, p, []string{"latest_per_key"}, func(key string, v *yaml.Node) {
					w.LatestPerKey = c.boolean(v, join(p, key))
				})
				w.Verify = w.LatestPerKey
				break
			}
			w.Verify = c.boolean(v, p)
		case "transaction":
			w.Transaction = c.transaction(v, p)
		case "send_time_header":
			w.SendTimeHeader = c.boolean(v, p)
		case "share":
			w.Share = c.shareBlock(v, p)
		case "processing":
			w.Processing = c.processing(v, p)
		case "reply_topic", "match", "reply_timeout":
			// read after the loop: they need the type and the topic
		}
	})
	if !ok {
		return w
	}
	for _, f := range []string{"name", "type", "topic"} {
		if given[f] == nil {
			c.addf(n, join(path, f), "missing; %s", missingHint[f])
		}
	}
	rule := w.rule()
	switch {
	case rule.Sends:
		c.producing(n, path, &w, given)
		if given["vus"] != nil && given["rate"] != nil {
			c.addf(given["rate"], join(path, "rate"), "virtual users send as fast as acknowledgements come back (the closed model); give vus or rate, not both")
		}
		c.slo(given, path, &w)
		c.balanced(given, path, &w)
		if st := given["stages"]; st != nil {
			fields := []string{"rate", "vus", "duration"}
			if len(w.VUStages) > 0 {
				// vus is where the ramp starts (k6's startVUs), default 1.
				fields = []string{"rate", "duration"}
				if given["vus"] == nil {
					w.VUs = 1
				}
			}
			for _, f := range fields {
				if given[f] != nil {
					c.addf(given[f], join(path, f), "stages set the rate and the duration; leave out %s", f)
				}
			}
			for _, s := range w.Stages {
				w.Duration += s.Duration
			}
			for _, s := range w.VUStages {
				w.Duration += s.Duration
			}
		}
		c.sendsSomething(given, path, &w)
		// Only a vus read as 0: one out of range is said so, and reads 0 too.
		if n := given["vus"]; n != nil && n.Value == "0" && len(w.VUStages) == 0 {
			c.addf(given["vus"], join(path, "vus"), "0 virtual users send nothing; give 1 or more (0 is only a ramp's start)")
		}
		users := w.VUs
		for _, s := range w.VUStages {
			users = max(users, s.Target)
		}
		if users > 0 && given["clients"] == nil {
			w.Clients = min(max(users/usersPerProducer, 1), maxVUProducers)
		}
	case rule.Reads:
		for _, f := range []string{"message", "rate", "slo", "stages", "vus", "warmup", "profile", "transaction"} {
			if v := given[f]; v != nil {
				c.addf(v, join(path, f), "a consume workload sends nothing; %s applies to produce and end-to-end workloads", f)
			}
		}
		if w.Records == 0 && w.Duration == 0 && w.Timeout == 0 {
			w.Timeout = DefaultIdleTimeout
		}
	}
	if !rule.Group && given["group"] != nil {
		c.addf(given["group"], join(path, "group"), "only consume workloads join a group")
	}
	if !rule.Backlog && given["backlog"] != nil {
		c.addf(given["backlog"], join(path, "backlog"), "only consume workloads wait for a backlog; start this workload with start_after: a duration (2m) or another workload's name")
	}
	if v := given["wait_for"]; v != nil && !rule.Backlog {
		c.addf(v, join(path, "wait_for"), "only consume workloads wait for the remote tier (a catch-up read from it); start this workload with start_after: a duration (2m) or another workload's name")
	}
	if v := given["send_time_header"]; v != nil && !rule.SendTimeHeader {
		c.addf(v, join(path, "send_time_header"), "applies to produce workloads (an end-to-end workload always stamps its records' send time)")
	}
	if v := given["processing"]; v != nil && (rule.Sends || !rule.Reads) {
		c.addf(v, join(path, "processing"), "applies to consume and share-consume workloads (a reader's time per record)")
	}
	if v := given["share"]; v != nil && !rule.Share {
		c.addf(v, join(path, "share"), "applies to share-consume workloads (members of a share group)")
	}
	if rule.Share {
		// Without a group the run names one of its own (a fresh share
		// group per run: two plans with a workload of one name on one
		// cluster shared one, and a second run resumed the first's).
		if w.Share == nil {
			w.Share = &Share{AutoOffsetReset: "earliest"}
		}
		// A share group's records are verified by its members' ledger, on
		// unless verify: false; not by the producers' read-back.
		w.Share.Verify = given["verify"] == nil || w.Verify
		if _, both := w.Properties["max.poll.records"]; both && w.Share.MaxPollRecords > 0 {
			c.addf(given["properties"], join(path, "properties"), "max.poll.records is given twice: here and as share.max_poll_records (which also makes it a strict bound, share.acquire.mode=record_limit); keep the share field")
		}
		w.Verify, w.verifyNode = false, nil
	}
	c.reply(n, path, &w, given)
	if !rule.IdleTimeout && given["timeout"] != nil {
		c.addf(given["timeout"], join(path, "timeout"), "only consume workloads stop on an idle timeout; use records or duration")
	}
	return w
}

func startsWithDigit(s string) bool { return s[0] >= '0' && s[0] <= '9' }

// balanced checks a rate: balanced workload (OMB's balanced-rate search):
// a produce workload that runs for a duration at the rate it sets.
func (c *collector) balanced(given map[string]*yaml.Node, path string, w *Workload) {
	if !w.Balanced {
		return
	}
	if !w.rule().Balanced {
		c.addf(given["rate"], join(path, "rate"), "balanced applies to produce workloads (the search balances them against the plan's consume workloads)")
	}
	if given["duration"] == nil {
		c.addf(given["rate"], join(path, "duration"), "missing; rate: balanced adjusts the rate for as long as the workload runs, such as duration: 5m")
	}
	for _, f := range []string{"records", "stages", "vus"} {
		if given[f] != nil {
			c.addf(given[f], join(path, f), "rate: balanced sets the rate for a duration; leave out %s", f)
		}
	}
}

// balancedNeedsConsumers: a balanced-rate search weighs what the producers
// wrote against what the scenario's consume workloads read; with none, it
// would only ever go down.
func (c *collector) balancedNeedsConsumers(ws []Workload) {
	consumers := slices.ContainsFunc(ws, func(w Workload) bool { return w.Reads() && !w.Sends() })
	for i, w := range ws {
		if w.Balanced && !consumers {
			c.addf(w.rateNode, fmt.Sprintf("workloads[%d].rate", i), "balanced needs a consume workload reading what it writes: the search balances the rate against what is read (OMB's producerRate: 0)")
		}
	}
}

// afterWorkloads checks every start_after that names a workload: one of
// the scenario's, not itself, and no circle (a waiting for b waiting for a).
func (c *collector) afterWorkloads(ws []Workload) {
	index := map[string]int{}
	var names []string
	for i, w := range ws {
		index[w.Name] = i
		names = append(names, w.Name)
	}
	for i, w := range ws {
		if w.AfterWorkload == "" {
			continue
		}
		p := fmt.Sprintf("workloads[%d].start_after", i)
		j, ok := index[w.AfterWorkload]
		switch {
		case !ok:
			msg := fmt.Sprintf("%q is neither a duration (30s, 2m) nor a workload of the plan; give a duration or one of %s", w.AfterWorkload, quoteList(names))
			if hint := suggest.Hint(w.AfterWorkload, names, suggest.Quoted); hint != "" {
				msg += "; " + hint
			}
			c.addf(w.afterNode, p, "%s", msg)
			continue
		case j == i:
			c.addf(w.afterNode, p, "a workload cannot wait for its own end; name another workload or give a duration")
			continue
		}
		// Follow the chain: it must end without coming back to i.
		seen := map[int]bool{i: true}
		for k := j; ws[k].AfterWorkload != ""; {
			next, ok := index[ws[k].AfterWorkload]
			if !ok {
				break
			}
			if seen[next] {
				c.addf(w.afterNode, p, "workloads wait for each other in a circle (%s waits for %s, which waits for it); one of them must start first", w.Name, w.AfterWorkload)
				break
			}
			seen[next], k = true, next
		}
	}
}

var missingHint = map[string]string{
	"name":  "give the workload a name such as producers",
	"type":  "write type: produce, consume, share-consume, end-to-end or round-trip",
	"topic": "name the topic the workload writes or reads",
}

func (c *collector) producing(n *yaml.Node, path string, w *Workload, given map[string]*yaml.Node) {
	if given["message"] == nil {
		c.addf(n, path+".message", "missing; write message: {size: 100} or message: {payload_file: data.json}")
	}
	if given["records"] == nil && given["duration"] == nil && given["stages"] == nil {
		c.addf(n, path+".records", "missing; say when to stop with records: 1M or duration: 60s")
	}
	if w.WarmupRecords > 0 && w.Records > 0 && w.WarmupRecords >= w.Records {
		c.addf(given["warmup"], path+".warmup", "%d warm-up records leave none of the %d records to measure; warm up with fewer", w.WarmupRecords, w.Records)
	}
	if w.WarmupDuration > 0 && w.Duration > 0 && w.WarmupDuration >= w.Duration {
		c.addf(given["warmup"], path+".warmup", "a warm-up of %s leaves nothing of the %s duration to measure; warm up for less", w.WarmupDuration, w.Duration)
	}
}

// transaction is when a transactional producer commits:
// {duration: 3s, records: 1000}, either or both, and the share of
// transactions it aborts instead (abort_ratio: 0.3).
func (c *collector) transaction(n *yaml.Node, path string) *Transaction {
	t := &Transaction{}
	given := 0
	c.fields(n, path, []string{"duration", "records", "abort_ratio"}, func(key string, v *yaml.Node) {
		switch key {
		case "duration":
			given++
			t.Duration = c.duration(v, join(path, key))
		case "records":
			given++
			t.Records = c.count(v, join(path, key))
		case "abort_ratio":
			t.AbortRatio = c.ratio(v, join(path, key), "of transactions to abort")
		}
	})
	if n.Kind == yaml.MappingNode && given == 0 {
		if t.AbortRatio > 0 {
			// The Apache tool's default interval, as without transaction:.
			return t
		}
		c.addf(n, path, "say when to commit: {duration: 3s}, {records: 1000} or both (abort_ratio: 0.3 aborts that share of them)")
	}
	return t
}

// warmup is a record count (100k) or a duration (10s).
func (c *collector) warmup(v *yaml.Node, path string, w *Workload) {
	s, ok := c.scalar(v, path, "a record count such as 100k or a duration such as 10s")
	if !ok {
		return
	}
	if units.LooksLikeDuration(s) {
		w.WarmupDuration = c.duration(v, path)
		return
	}
	if _, err := units.ParseCount(s); err != nil {
		c.addf(v, path, "%q is neither a record count (100k) nor a duration (10s)", s)
		return
	}
	w.WarmupRecords = c.count(v, path)
}

func (c *collector) message(n *yaml.Node, path string) Message {
	var m Message
	given := map[string]*yaml.Node{}
	// Where the templates were written, for a field that does not fit its
	// schema: the node and the collector of its file.
	var tmplNode, keyNode, keySchemaNode *yaml.Node
	tmplCol := c
	ok := c.fields(n, path, messageFields, func(key string, v *yaml.Node) {
		given[key] = v
		p := join(path, key)
		switch key {
		case "size":
			m.Size = c.size(v, p, maxRecordSize)
		case "payload_file":
			m.PayloadFile = c.text(v, p)
		case "delimiter":
			m.Delimiter = c.text(v, p)
			if m.Delimiter == "none" {
				m.Delimiter, m.WholeFile = "", true // the whole file is one value (OMB's payload files)
			}
		case "key_range":
			if v, ok := c.whole(v, p, 1, 1<<31-1); ok {
				m.KeyRange = v
			}
		case "template":
			t := c.template(v, p, 0)
			m.Template, tmplNode = &t, v
		case "template_file":
			var sub *collector
			m.Template, tmplNode, sub = c.templateFile(v, p, c.dir)
			if sub != nil {
				tmplCol = sub
			}
		case "format":
			m.Format = serde.Format(c.oneOf(v, p, serde.Formats...))
		case "schema", "schema_file", "schema_evolution":
			// read after the loop: it needs the format
		case "seed":
			if v, ok := c.whole(v, p, 0, MaxSeed); ok {
				m.Seed, m.SeedSet = uint64(v), true
			}
		case "random_ratio":
			s, ok := c.scalar(v, p, "a number from 0 to 1")
			if !ok {
				return
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || !(f >= 0 && f <= 1) { // NaN too
				c.addf(v, p, "%q: write a number from 0 to 1 (the random share of each value)", s)
				return
			}
			m.RandomRatio = f
		case "pool":
			if n, ok := c.whole(v, p, 1, payload.MaxPoolBytes); ok {
				m.Pool = int(n)
			}
		case "key":
			var dist, count, format *yaml.Node
			c.fields(v, p, []string{"distribution", "count", "template", "format", "schema", "schema_file"}, func(key string, kv *yaml.Node) {
				switch key {
				case "format":
					format = kv
					m.KeyFormat = c.oneOf(kv, join(p, key), payload.KeyFormats...)
				case "distribution":
					dist = kv
					m.KeyDist = c.oneOf(kv, join(p, key), payload.KeyDistributions...)
				case "count":
					count = kv
					if n, ok := c.whole(kv, join(p, key), 1, payload.MaxKeyRange); ok {
						m.KeyRange = n
					}
				case "template":
					t := c.template(kv, join(p, key), 0)
					m.KeyTemplate, keyNode = &t, kv
				case "schema", "schema_file":
					keySchemaNode = v
				}
			})
			switch {
			case m.KeyTemplate != nil && (dist != nil || count != nil || format != nil):
				c.addf(v, p, "give a template, or a distribution, count and format, not both")
			case m.KeyTemplate == nil && count == nil && v.Kind == yaml.MappingNode:
				c.addf(v, join(p, "count"), "missing; say how many distinct keys, such as count: 1000")
			}
		case "headers":
			m.Headers, m.HeaderTemplates = c.headers(v, p)
		}
	})
	if !ok {
		return m
	}
	var kinds []string
	for _, k := range []string{"size", "payload_file", "template", "template_file"} {
		if given[k] != nil {
			kinds = append(kinds, k)
		}
	}
	switch {
	case len(kinds) > 1:
		c.addf(given[kinds[1]], path, "gives %s; keep one of size, payload_file, template or template_file", strings.Join(kinds, " and "))
	case len(kinds) == 0:
		c.addf(n, path, "says nothing about the records; write size: 100, payload_file: data.json or a template")
	case given["delimiter"] != nil && given["payload_file"] == nil:
		c.addf(given["delimiter"], join(path, "delimiter"), "applies to payload_file only")
	case given["random_ratio"] != nil && given["size"] == nil:
		c.addf(given["random_ratio"], join(path, "random_ratio"), "applies to size only")
	case given["pool"] != nil && given["size"] == nil:
		c.addf(given["pool"], join(path, "pool"), "applies to size only: a pool of values of that size")
	case m.Pool > 0 && int64(m.Pool)*m.Size > payload.MaxPoolBytes:
		c.addf(given["pool"], join(path, "pool"), "%d values of %d bytes are more than 1 GiB, the most kbench keeps in a pool; use fewer", m.Pool, m.Size)
	case given["key"] != nil && given["key_range"] != nil:
		c.addf(given["key"], join(path, "key"), "give key or key_range (uniform keys), not both")
	}
	if given["random_ratio"] == nil {
		m.RandomRatio = 1
	}
	c.messageSchemas(&m, n, path, given, schemaPlaces{tmplNode, tmplCol, keyNode, keySchemaNode})
	return m
}

// stages reads a ramping load: a list of {duration, rate} (the open
// model: the rate moves in a straight line to each stage's target) or of
// {duration, vus} (the closed model: the number of virtual users does, as
// k6's ramping-vus). k6's target is read as a rate when it has a time unit
// (100/s) and as users when it is a bare number (k6's stages shortcut).
func (c *collector) stages(n *yaml.Node, path string) (rates []load.Stage, users []load.VUStage) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		what := kindName(n)
		if n.Kind == yaml.SequenceNode {
			what = "an empty list: a load needs at least one stage"
		}
		c.addf(n, path, "is %s; write a list such as [{duration: 1m, rate: 10k/s}, {duration: 2m, rate: 50k/s}] or [{duration: 30s, vus: 100}]", what)
		return nil, nil
	}
	firstKind := ""
	for i, sn := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		var st load.Stage
		var vs load.VUStage
		var hasD bool
		kind, kinds := "", 0
		c.fields(sn, p, []string{"duration", "rate", "vus", "target"}, func(key string, v *yaml.Node) {
			switch key {
			case "duration":
				hasD = true
				st.Duration = c.duration(v, join(p, key))
				vs.Duration = st.Duration
				return
			}
			kind = key
			if key == "target" {
				kind = "vus"
				if v.Kind == yaml.ScalarNode && (strings.Contains(v.Value, "/") || v.Value == "unlimited") {
					kind = "rate"
				}
			}
			kinds++
			if kind == "vus" {
				if n, ok := c.whole(v, join(p, key), 0, MaxVUs); ok {
					vs.Target = int(n)
				}
				return
			}
			if v.Kind == yaml.ScalarNode && (v.Value == "0/s" || v.Value == "0") {
				return // ramping down to nothing
			}
			if v.Kind == yaml.ScalarNode && v.Value == "unlimited" {
				c.addf(v, join(p, key), "unlimited has no place in a ramp; give a rate such as 10k/s (or 0/s)")
				return
			}
			st.Rate = c.rate(v, join(p, key))
		})
		if sn.Kind != yaml.MappingNode {
			continue
		}
		switch {
		case !hasD || kinds != 1:
			c.addf(sn, p, "needs a duration and one of rate (records/s) or vus (virtual users), such as {duration: 1m, rate: 10k/s} or {duration: 30s, vus: 100}")
		case firstKind == "":
			firstKind = kind
		case kind != firstKind:
			c.addf(sn, p, "ramps %s where the stages before ramp %s; a workload's stages ramp one or the other", stageWhat[kind], stageWhat[firstKind])
		}
		if kind == "vus" {
			users = append(users, vs)
		} else {
			rates = append(rates, st)
		}
	}
	if firstKind == "vus" {
		return nil, users
	}
	return rates, nil
}

var stageWhat = map[string]string{"rate": "a rate", "vus": "virtual users"}

// sloPercentiles are the percentiles an SLO may name.
var sloPercentiles = map[string]float64{"p50": 0.50, "p90": 0.90, "p95": 0.95, "p99": 0.99, "p99.9": 0.999, "p999": 0.999}

// slo reads `slo: {p99: 50ms, on: publish, start: 1k/s}`, which goes with
// rate: max and nothing else.
func (c *collector) slo(given map[string]*yaml.Node, path string, w *Workload) {
	n := given["slo"]
	switch {
	case n == nil && w.MaxRate != nil:
		c.addf(given["rate"], join(path, "slo"), "missing; rate: max searches for the highest rate that keeps an SLO, such as slo: {p99: 50ms}")
		return
	case n == nil:
		return
	case w.MaxRate == nil:
		c.addf(n, join(path, "slo"), "goes with rate: max (the search for the highest rate that keeps it)")
		return
	}
	if given["duration"] == nil {
		c.addf(given["rate"], join(path, "duration"), "missing; rate: max needs each probe's duration, such as duration: 10s")
	}
	if given["records"] != nil {
		c.addf(given["records"], join(path, "records"), "rate: max probes for a duration; leave out records")
	}
	known := []string{"p50", "p90", "p95", "p99", "p99.9", "on", "start", "probes", "confirm", "warm_cluster", "floor", "ceiling", "max_time"}
	percentiles := 0
	nodes := map[string]*yaml.Node{}
	c.fields(n, join(path, "slo"), known, func(key string, v *yaml.Node) {
		nodes[key] = v
		p := join(join(path, "slo"), key)
		switch key {
		case "on":
			w.MaxRate.EndToEnd = c.oneOf(v, p, "publish", "end-to-end") == "end-to-end"
		case "start":
			if r := c.rateAbove0(v, p); r > 0 {
				w.MaxRate.Start = r
			}
		case "probes":
			if n, ok := c.whole(v, p, 1, 9); ok {
				w.MaxRate.Probes = int(n)
			}
		case "confirm":
			if n, ok := c.whole(v, p, 1, 9); ok {
				w.MaxRate.Confirm = int(n)
			}
		case "warm_cluster":
			w.MaxRate.WarmCluster = c.duration(v, p)
		case "floor":
			w.MaxRate.Floor = c.rateAbove0(v, p)
		case "ceiling":
			w.MaxRate.Ceiling = c.rateAbove0(v, p)
		case "max_time":
			if d := c.duration(v, p); d > 0 {
				w.MaxRate.MaxTime = d
			}
		default:
			percentiles++
			w.MaxRate.Percentile = sloPercentiles[key]
			w.MaxRate.Limit = c.duration(v, p)
		}
	})
	if n.Kind == yaml.MappingNode && percentiles != 1 {
		c.addf(n, join(path, "slo"), "name one percentile and its limit, such as {p99: 50ms}")
	}
	mr := w.MaxRate
	if mr.Floor == 0 {
		mr.Floor = mr.Start / 10
	}
	if v := nodes["floor"]; v != nil && mr.Floor > mr.Start {
		c.addf(v, join(path, "slo.floor"), "%s is above start (%s records/s); the floor is the lowest rate the search asks, at or below start", v.Value, units.Figure(mr.Start, 0))
	}
	if v := nodes["ceiling"]; v != nil && mr.Ceiling > 0 && mr.Ceiling < mr.Start {
		c.addf(v, join(path, "slo.ceiling"), "%s is below start (%s records/s); the ceiling is the highest rate the search asks, at or above start", v.Value, units.Figure(mr.Start, 0))
	}
	if w.MaxRate.EndToEnd && !w.rule().EndToEnd {
		c.addf(n, join(path, "slo.on"), "end-to-end latency needs type: end-to-end")
	}
}

// headers reads message headers: a text value is sent as is, a mapping is
// a template rendered per record.
func (c *collector) headers(n *yaml.Node, path string) (static map[string]string, templates map[string]payload.Template) {
	if n.Kind != yaml.MappingNode {
		c.addf(n, path, "is %s; write a mapping such as {source: kbench, trace: {_type: uuid}}", kindName(n))
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		if v.Kind == yaml.MappingNode {
			if templates == nil {
				templates = map[string]payload.Template{}
			}
			templates[k.Value] = c.template(v, p, 0)
			continue
		}
		if s, ok := c.scalar(v, p, "a value or a template"); ok {
			if static == nil {
				static = map[string]string{}
			}
			static[k.Value] = s
		}
	}
	return static, templates
}

// sendsSomething refuses a paced load that asks for less than one record
// in all (stages of 1ns ran, sent nothing and reported "ok").
func (c *collector) sendsSomething(given map[string]*yaml.Node, path string, w *Workload) {
	if n := given["stages"]; n != nil && len(w.Stages) > 0 {
		prev, due := 0.0, 0.0
		for _, st := range w.Stages {
			due += (prev + st.Rate) / 2 * st.Duration.Seconds()
			prev = st.Rate
		}
		if due < 1 {
			c.addf(n, join(path, "stages"), "ask for %.2g records in %s, less than one: nothing would be sent; make the stages longer or their rates higher", due, w.Duration)
		}
		return
	}
	if n := given["stages"]; n != nil && len(w.VUStages) > 0 {
		peak := w.VUs
		for _, st := range w.VUStages {
			peak = max(peak, st.Target)
		}
		if peak == 0 {
			// Regression: the dry run of such a ramp said nothing; the run
			// then failed for sending nothing.
			c.addf(n, join(path, "stages"), "keep 0 virtual users throughout: nothing would be sent; give a stage a vus target of 1 or more")
		}
		return
	}
	if n := given["duration"]; n != nil && w.Rate > 0 && w.Duration > 0 && w.Records == 0 && w.Rate*w.Duration.Seconds() < 1 {
		c.addf(n, join(path, "duration"), "%s at %g records/s is %.2g records, less than one: nothing would be sent; make it longer or the rate higher", w.Duration, w.Rate, w.Rate*w.Duration.Seconds())
	}
}
