package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/payload"
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
			w.Type = c.oneOf(v, p, Produce, Consume, EndToEnd)
		case "topic":
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
				w.MaxRate = &MaxRate{Start: 1000, Probes: 1}
				return
			}
			w.Rate = c.rate(v, p)
		case "slo":
			// read after the loop: it needs rate: max
		case "stages":
			w.Stages = c.stages(v, p)
		case "vus":
			if v, ok := c.whole(v, p, 1, MaxVUs); ok {
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
			w.StartAfter = c.duration(v, p)
		case "backlog":
			w.Backlog = c.size(v, p, 1<<62)
		case "thresholds":
			w.Thresholds = c.thresholds(v, p)
		case "profile":
			w.Profile = c.oneOf(v, p, "throughput")
		case "verify":
			w.Verify = c.boolean(v, p)
			w.verifyNode = v
		case "transaction":
			w.Transaction = c.transaction(v, p)
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
	switch w.Type {
	case Produce, EndToEnd:
		c.producing(n, path, &w, given)
		if given["vus"] != nil && given["rate"] != nil {
			c.addf(given["rate"], join(path, "rate"), "virtual users send as fast as acknowledgements come back (the closed model); give vus or rate, not both")
		}
		c.slo(given, path, &w)
		if st := given["stages"]; st != nil {
			for _, f := range []string{"rate", "vus", "duration"} {
				if given[f] != nil {
					c.addf(given[f], join(path, f), "stages set the rate and the duration; leave out %s", f)
				}
			}
			for _, s := range w.Stages {
				w.Duration += s.Duration
			}
		}
		if w.VUs > 0 && given["clients"] == nil {
			w.Clients = min(max(w.VUs/usersPerProducer, 1), maxVUProducers)
		}
	case Consume:
		for _, f := range []string{"message", "rate", "slo", "stages", "vus", "warmup", "profile", "transaction"} {
			if v := given[f]; v != nil {
				c.addf(v, join(path, f), "a consume workload sends nothing; %s applies to produce and end-to-end workloads", f)
			}
		}
		if w.Records == 0 && w.Duration == 0 && w.Timeout == 0 {
			w.Timeout = DefaultIdleTimeout
		}
	}
	if w.Type != Consume && given["group"] != nil {
		c.addf(given["group"], join(path, "group"), "only consume workloads join a group")
	}
	for _, f := range []string{"start_after", "backlog"} {
		if w.Type != Consume && given[f] != nil {
			c.addf(given[f], join(path, f), "only consume workloads start late to read a backlog")
		}
	}
	if w.Type != Consume && given["timeout"] != nil {
		c.addf(given["timeout"], join(path, "timeout"), "only consume workloads stop on an idle timeout; use records or duration")
	}
	return w
}

var missingHint = map[string]string{
	"name":  "give the workload a name such as producers",
	"type":  "write type: produce, consume or end-to-end",
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
// {duration: 3s, records: 1000}, either or both.
func (c *collector) transaction(n *yaml.Node, path string) *Transaction {
	t := &Transaction{}
	given := 0
	c.fields(n, path, []string{"duration", "records"}, func(key string, v *yaml.Node) {
		given++
		switch key {
		case "duration":
			t.Duration = c.duration(v, join(path, key))
		case "records":
			t.Records = c.count(v, join(path, key))
		}
	})
	if n.Kind == yaml.MappingNode && given == 0 {
		c.addf(n, path, "say when to commit: {duration: 3s}, {records: 1000} or both")
	}
	return t
}

// warmup is a record count (100k) or a duration (10s).
func (c *collector) warmup(v *yaml.Node, path string, w *Workload) {
	s, ok := c.scalar(v, path, "a record count such as 100k or a duration such as 10s")
	if !ok {
		return
	}
	if durationLike.MatchString(s) {
		w.WarmupDuration = c.duration(v, path)
		return
	}
	if _, err := units.ParseCount(s); err != nil {
		c.addf(v, path, "%q is neither a record count (100k) nor a duration (10s)", s)
		return
	}
	w.WarmupRecords = c.count(v, path)
}

var durationLike = regexp.MustCompile(`[0-9](ns|us|µs|ms|s|m|h)$`)

func (c *collector) message(n *yaml.Node, path string) Message {
	var m Message
	given := map[string]*yaml.Node{}
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
		case "key_range":
			if v, ok := c.whole(v, p, 1, 1<<31-1); ok {
				m.KeyRange = v
			}
		case "template":
			t := c.template(v, p, 0)
			m.Template = &t
		case "template_file":
			m.Template = c.templateFile(v, p, c.dir)
		case "seed":
			if v, ok := c.whole(v, p, 0, 1<<62); ok {
				m.Seed = uint64(v)
			}
		case "random_ratio":
			s, ok := c.scalar(v, p, "a number from 0 to 1")
			if !ok {
				return
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f < 0 || f > 1 {
				c.addf(v, p, "%q: write a number from 0 to 1 (the random share of each value)", s)
				return
			}
			m.RandomRatio = f
		case "key":
			var dist, count *yaml.Node
			c.fields(v, p, []string{"distribution", "count", "template"}, func(key string, kv *yaml.Node) {
				switch key {
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
					m.KeyTemplate = &t
				}
			})
			switch {
			case m.KeyTemplate != nil && (dist != nil || count != nil):
				c.addf(v, p, "give a template, or a distribution and count, not both")
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
	case given["key"] != nil && given["key_range"] != nil:
		c.addf(given["key"], join(path, "key"), "give key or key_range (uniform keys), not both")
	}
	if given["random_ratio"] == nil {
		m.RandomRatio = 1
	}
	return m
}

// stages reads a ramping load: a list of {duration, rate}; the rate moves
// in a straight line to each stage's target over its duration.
func (c *collector) stages(n *yaml.Node, path string) []load.Stage {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		c.addf(n, path, "is %s; write a list such as [{duration: 1m, rate: 10k/s}, {duration: 2m, rate: 50k/s}]", kindName(n))
		return nil
	}
	var out []load.Stage
	for i, sn := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		var st load.Stage
		var hasD, hasR bool
		c.fields(sn, p, []string{"duration", "rate"}, func(key string, v *yaml.Node) {
			switch key {
			case "duration":
				hasD = true
				st.Duration = c.duration(v, join(p, key))
			case "rate":
				hasR = true
				if v.Kind == yaml.ScalarNode && (v.Value == "0/s" || v.Value == "0") {
					return // ramping down to nothing
				}
				if v.Kind == yaml.ScalarNode && v.Value == "unlimited" {
					c.addf(v, join(p, key), "unlimited has no place in a ramp; give a rate such as 10k/s (or 0/s)")
					return
				}
				st.Rate = c.rate(v, join(p, key))
			}
		})
		if sn.Kind == yaml.MappingNode && (!hasD || !hasR) {
			c.addf(sn, p, "needs both duration and rate, such as {duration: 1m, rate: 10k/s}")
		}
		out = append(out, st)
	}
	return out
}

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
	known := []string{"p50", "p90", "p95", "p99", "p99.9", "on", "start", "probes"}
	percentiles := 0
	c.fields(n, join(path, "slo"), known, func(key string, v *yaml.Node) {
		p := join(join(path, "slo"), key)
		switch key {
		case "on":
			w.MaxRate.EndToEnd = c.oneOf(v, p, "publish", "end-to-end") == "end-to-end"
		case "start":
			if r := c.rate(v, p); r > 0 {
				w.MaxRate.Start = r
			}
		case "probes":
			if n, ok := c.whole(v, p, 1, 9); ok {
				w.MaxRate.Probes = int(n)
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
	if w.MaxRate.EndToEnd && w.Type != EndToEnd {
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
