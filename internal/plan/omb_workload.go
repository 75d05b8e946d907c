package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/units"
)

// OMB's key distributors (keyDistributor).
const (
	OMBNoKey      = "NO_KEY"
	OMBRoundRobin = "KEY_ROUND_ROBIN"
	OMBRandomNano = "RANDOM_NANO"
)

// ombKeyCount is the size of OMB's key table (utils/distributor).
const ombKeyCount = 10_000

// Bounds on an OMB workload kbench runs: each topic's producers and each
// subscription become workloads of their own, each with its own clients.
const (
	MaxOMBTopics  = 1000
	MaxOMBClients = 10_000
)

// ombWorkloadFields are OMB's Workload.java fields, in its order.
var ombWorkloadFields = []string{
	"name", "topics", "partitionsPerTopic", "keyDistributor", "messageSize",
	"useRandomizedPayloads", "randomBytesRatio", "randomizedPayloadPoolSize", "payloadFile",
	"subscriptionsPerTopic", "producersPerTopic", "consumerPerSubscription", "producerRate",
	"consumerBacklogSizeGB", "backlogDrainRatio", "testDurationMinutes", "warmupDurationMinutes",
}

// OMBWorkload is an OMB workload file (Workload.java), checked, with OMB's
// defaults for what it leaves out.
type OMBWorkload struct {
	Name                    string
	Topics                  int
	PartitionsPerTopic      int
	KeyDistributor          string // NO_KEY (default), KEY_ROUND_ROBIN, RANDOM_NANO
	MessageSize             int
	UseRandomizedPayloads   bool
	RandomBytesRatio        float64
	PoolSize                int    // randomizedPayloadPoolSize
	PayloadFile             string // as written
	SubscriptionsPerTopic   int
	ProducersPerTopic       int
	ConsumerPerSubscription int
	ProducerRate            int64 // messages/s over all producers; 0: OMB's search for the highest rate
	// BacklogBytes is consumerBacklogSizeGB in bytes (GB are 2^30 bytes,
	// as OMB counts them); BacklogGB the field as written.
	BacklogBytes      int64
	BacklogGB         string
	BacklogDrainRatio float64       // default 1
	TestDuration      time.Duration // testDurationMinutes
	WarmupDuration    time.Duration // warmupDurationMinutes (default 1 minute)

	// payloadPath is the payload file found (PayloadFile resolved).
	payloadPath string
	// given are the fields written (or set), by name.
	given map[string]*yaml.Node
}

// ombWorkload checks an OMB workload file's mapping strictly: unknown
// fields (which OMB ignores) and wrong types are problems, as are values
// OMB would fail on later or run forever with.
func (c *collector) ombWorkload(root *yaml.Node) *OMBWorkload {
	w := &OMBWorkload{KeyDistributor: OMBNoKey, BacklogDrainRatio: 1, WarmupDuration: time.Minute, given: map[string]*yaml.Node{}}
	if !c.ombFields(root, ombWorkloadFields, "workload", w.given) {
		return w
	}
	for _, f := range ombWorkloadFields {
		v := w.given[f]
		if v == nil {
			continue
		}
		switch f {
		case "name":
			w.Name = c.ombText(v, f)
		case "topics":
			w.Topics = int(c.ombInt(v, f, 1, MaxOMBTopics, "kbench runs each topic's producers and subscriptions as workloads of their own, at most %d topics; OMB's workloads of more topics need several machines"))
		case "partitionsPerTopic":
			w.PartitionsPerTopic = int(c.ombInt(v, f, 1, MaxPartitions, ""))
		case "keyDistributor":
			w.KeyDistributor = c.ombEnum(v, f, OMBNoKey, OMBRoundRobin, OMBRandomNano)
		case "messageSize":
			w.MessageSize = int(c.ombInt(v, f, 1, maxRecordSize, ""))
		case "useRandomizedPayloads":
			w.UseRandomizedPayloads = c.ombBool(v, f)
		case "randomBytesRatio":
			w.RandomBytesRatio = c.ombFloat(v, f, 0, 1)
		case "randomizedPayloadPoolSize":
			w.PoolSize = int(c.ombInt(v, f, 1, payload.MaxPoolBytes, ""))
		case "payloadFile":
			w.PayloadFile = c.ombText(v, f)
		case "subscriptionsPerTopic":
			w.SubscriptionsPerTopic = int(c.ombInt(v, f, 0, MaxClients, ""))
		case "producersPerTopic":
			w.ProducersPerTopic = int(c.ombInt(v, f, 1, MaxClients, ""))
		case "consumerPerSubscription":
			w.ConsumerPerSubscription = int(c.ombInt(v, f, 0, MaxClients, ""))
		case "producerRate":
			w.ProducerRate = c.ombInt(v, f, 0, math.MaxInt32, "")
		case "consumerBacklogSizeGB":
			w.BacklogGB = v.Value
			w.BacklogBytes = c.ombGB(v, f)
		case "backlogDrainRatio":
			w.BacklogDrainRatio = c.ombFloat(v, f, 0, 1)
			if w.BacklogDrainRatio != 1 {
				c.addf(v, f, "%s: kbench's consumers read the whole backlog and the test time runs from when they start (docs/omb.md), so only 1, the whole backlog (OMB's default), can be honoured; remove the line", v.Value)
			}
		case "testDurationMinutes":
			w.TestDuration = c.ombMinutes(v, f, false)
		case "warmupDurationMinutes":
			w.WarmupDuration = c.ombMinutes(v, f, true)
		}
	}
	c.ombWorkloadChecks(root, w)
	return w
}

// ombWorkloadChecks are the checks across fields.
func (c *collector) ombWorkloadChecks(root *yaml.Node, w *OMBWorkload) {
	g := w.given
	for _, f := range []string{"topics", "partitionsPerTopic", "messageSize", "producersPerTopic", "testDurationMinutes"} {
		if g[f] == nil {
			c.addf(root, f, "missing; OMB reads it as 0, %s", ombMissing[f])
		}
	}
	if w.SubscriptionsPerTopic > 0 && g["consumerPerSubscription"] != nil && w.ConsumerPerSubscription == 0 {
		c.addf(g["consumerPerSubscription"], "consumerPerSubscription", "0 consumers in each of %d subscriptions: OMB would wait for them until it times out; give 1 or more, or subscriptionsPerTopic: 0 for producers alone", w.SubscriptionsPerTopic)
	}
	if w.SubscriptionsPerTopic > 0 && g["consumerPerSubscription"] == nil {
		c.addf(root, "consumerPerSubscription", "missing; OMB reads it as 0 and would wait for consumers until it times out: give the consumers in each subscription, such as consumerPerSubscription: 1")
	}
	if w.UseRandomizedPayloads {
		if g["randomizedPayloadPoolSize"] == nil {
			c.addf(g["useRandomizedPayloads"], "randomizedPayloadPoolSize", "missing; OMB reads it as 0 and its producers fail on their first record: give the number of values to make, such as 1000")
		} else if w.PoolSize > 0 && w.MessageSize > 0 && int64(w.PoolSize)*int64(w.MessageSize) > payload.MaxPoolBytes {
			c.addf(g["randomizedPayloadPoolSize"], "randomizedPayloadPoolSize", "%d values of %d bytes are more than 1 GiB, the most kbench keeps in a pool; use fewer", w.PoolSize, w.MessageSize)
		}
	} else if g["payloadFile"] == nil {
		c.addf(root, "payloadFile", "missing; give the file each record's value is read from (such as payload/payload-1Kb.data, of messageSize bytes), or useRandomizedPayloads: true")
	}
	if w.ProducerRate == 0 && g["producerRate"] != nil && w.BacklogBytes > 0 {
		c.addf(g["consumerBacklogSizeGB"], "consumerBacklogSizeGB", "a backlog cannot be built while producerRate: 0 searches for the highest rate (OMB refuses it too: \"Cannot probe producer sustainable rate when building backlog\"); give a producerRate")
	}
	if w.ProducerRate == 0 && w.SubscriptionsPerTopic == 0 {
		c.addf(g["producerRate"], "producerRate", "0 (OMB's balanced-rate search) needs consumers: it balances the rate against what they read, and with subscriptionsPerTopic 0 it would only go down. Give subscriptionsPerTopic: 1, or a producerRate")
	}
	if w.BacklogBytes > 0 && w.SubscriptionsPerTopic == 0 {
		c.addf(g["consumerBacklogSizeGB"], "consumerBacklogSizeGB", "a backlog needs consumers to drain it, and subscriptionsPerTopic is 0 (OMB would wait for it forever); give subscriptionsPerTopic: 1")
	}
	if w.Topics > 0 {
		clients := int64(w.Topics) * int64(w.ProducersPerTopic+w.SubscriptionsPerTopic*w.ConsumerPerSubscription)
		if clients > MaxOMBClients {
			c.addf(g["topics"], "topics", "%d topics × (%d producers + %d subscriptions × %d consumers) are %d clients; kbench runs at most %d from one process: use fewer topics or clients",
				w.Topics, w.ProducersPerTopic, w.SubscriptionsPerTopic, w.ConsumerPerSubscription, clients, MaxOMBClients)
		}
	}
}

var ombMissing = map[string]string{
	"topics":              "which creates no topic: give the number of topics, such as topics: 1",
	"partitionsPerTopic":  "which Kafka refuses: give the partitions of each topic, such as partitionsPerTopic: 16",
	"messageSize":         "which no payload matches: give the size of each record's value in bytes, such as messageSize: 1024",
	"producersPerTopic":   "which sends nothing: give the producers of each topic, such as producersPerTopic: 1",
	"testDurationMinutes": "which runs until stopped; kbench needs an end: give the minutes to measure, such as testDurationMinutes: 15",
}

// ombFields reports unknown and repeated keys of an OMB file's mapping and
// fills given with the known ones. OMB ignores unknown keys; kbench refuses
// them, so that a misspelt field is never silently left out.
func (c *collector) ombFields(root *yaml.Node, known []string, what string, given map[string]*yaml.Node) bool {
	if root.Kind != yaml.MappingNode {
		c.addf(root, "", "the %s file is %s; write a mapping of OMB's fields (%s)", what, kindName(root), strings.Join(known, ", "))
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch {
		case contains(known, k.Value):
			if given[k.Value] != nil && k.Line > 0 {
				c.addf(k, k.Value, "given twice; keep one")
			}
			given[k.Value] = v
		default:
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if near := suggest.Nearest(k.Value, known); near != "" {
				msg += "; " + suggest.Mean(near, suggest.Quoted)
			} else {
				msg += fmt.Sprintf("; an OMB %s has %s", what, strings.Join(known, ", "))
			}
			// OMB's files are read as OMB reads them (Jackson with
			// FAIL_ON_UNKNOWN_PROPERTIES off): a field it does not know
			// is ignored, so a file a fork writes runs; the warning says
			// so, in case it is a misspelling.
			c.warnf(k, "", "%s; OMB ignores fields it does not know, and so does kbench", msg)
		}
	}
	return true
}

// ombScalar is a field's value as text, or a problem if it is not one.
func (c *collector) ombScalar(n *yaml.Node, field, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		c.addf(n, field, "is %s; write %s", kindName(n), want)
		return "", false
	}
	return n.Value, true
}

func (c *collector) ombText(n *yaml.Node, field string) string {
	s, _ := c.ombScalar(n, field, "a text value")
	return s
}

// ombInt is a whole number in [lo, hi], as OMB's int and long fields take
// it (quoted or not, as Jackson coerces text). why, if given, explains the
// upper bound (with %d for hi).
func (c *collector) ombInt(n *yaml.Node, field string, lo, hi int64, why string) int64 {
	want := fmt.Sprintf("a whole number from %d to %d", lo, hi)
	s, ok := c.ombScalar(n, field, want)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		c.addf(n, field, "%q is not a whole number; write %s", s, want)
		return 0
	}
	if v < lo || v > hi {
		msg := fmt.Sprintf("%d is out of range; write %s", v, want)
		if why != "" && v > hi {
			msg = fmt.Sprintf("%d is out of range: "+why, v, hi)
		}
		c.addf(n, field, "%s", msg)
		return 0
	}
	return v
}

func (c *collector) ombFloat(n *yaml.Node, field string, lo, hi float64) float64 {
	want := fmt.Sprintf("a number from %g to %g", lo, hi)
	s, ok := c.ombScalar(n, field, want)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		c.addf(n, field, "%q: write %s", s, want)
		return 0
	}
	return v
}

func (c *collector) ombBool(n *yaml.Node, field string) bool {
	s, ok := c.ombScalar(n, field, "true or false")
	if !ok {
		return false
	}
	switch strings.TrimSpace(s) {
	case "true":
		return true
	case "false":
		return false
	}
	c.addf(n, field, "%q is not true or false", s)
	return false
}

func (c *collector) ombEnum(n *yaml.Node, field string, allowed ...string) string {
	s, ok := c.ombScalar(n, field, "one of "+quoteList(allowed))
	if !ok {
		return ""
	}
	if !contains(allowed, s) {
		msg := fmt.Sprintf("%q is not one of %s (OMB would quietly take NO_KEY)", s, quoteList(allowed))
		if near := suggest.Nearest(s, allowed); near != "" {
			msg += "; " + suggest.Mean(near, suggest.Quoted)
		}
		c.addf(n, field, "%s", msg)
		return ""
	}
	return s
}

// ombMinutes is a whole number of minutes; a --set may give a duration
// with its unit instead (--set testDurationMinutes=30s), to scale a run
// below OMB's one-minute steps.
func (c *collector) ombMinutes(n *yaml.Node, field string, zero bool) time.Duration {
	lo := int64(1)
	if zero {
		lo = 0
	}
	if n.Line < 0 && n.Kind == yaml.ScalarNode && units.LooksLikeDuration(n.Value) {
		d, err := units.ParseDuration(n.Value)
		if err != nil {
			c.addf(n, field, "%v", err)
		}
		return d
	}
	if !zero && n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) == "0" {
		c.addf(n, field, "0 runs until stopped in OMB; kbench needs an end: give the minutes to measure (--set %s=30s gives a duration below a minute)", field)
		return 0
	}
	m := c.ombInt(n, field, lo, math.MaxInt32, "")
	return time.Duration(m) * time.Minute
}

// ombGB is consumerBacklogSizeGB in bytes: whole GB (2^30 bytes, as OMB
// counts them), or from a --set a size with its unit
// (--set consumerBacklogSizeGB=64MiB), to scale a backlog down.
func (c *collector) ombGB(n *yaml.Node, field string) int64 {
	if n.Line < 0 && n.Kind == yaml.ScalarNode {
		if _, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err != nil {
			v, err := units.ParseSize(n.Value)
			if err != nil {
				c.addf(n, field, "%v (or a whole number of GB, 2^30 bytes each)", err)
			}
			return v
		}
	}
	return c.ombInt(n, field, 0, 1<<32, "") << 30
}
