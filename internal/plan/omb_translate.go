package plan

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ombTranslation turns a checked OMB workload and driver into a kbench
// plan's YAML tree, noting what each field became and where kbench
// differs.
type ombTranslation struct {
	wpath, dpath string
	w            *OMBWorkload
	d            *OMBDriver
	kbenchSets   []string
	rnd          ombRand
	topics       []OMBTopic
	fields       []OMBField
	notes        []string
}

func newOMBTranslation(wpath, dpath string, w *OMBWorkload, d *OMBDriver, kbenchSets []string, rnd ombRand) *ombTranslation {
	return &ombTranslation{wpath: wpath, dpath: dpath, w: w, d: d, kbenchSets: kbenchSets, rnd: rnd}
}

func (t *ombTranslation) source() *OMBSource {
	return &OMBSource{WorkloadFile: strings.TrimSuffix(filepath.Base(t.wpath), filepath.Ext(t.wpath)), Workload: *t.w, Driver: *t.d, Topics: t.topics}
}

// field records what an OMB field became; value "" shows the field as
// written, or its default.
func (t *ombTranslation) field(file, name, def, becomes string, args ...any) {
	given := t.w.given
	if file == "driver" {
		given = t.d.given
	}
	value := def
	if n := given[name]; n != nil {
		text := n.Value
		if file == "driver" && slices.Contains(ombConfigFields, name) {
			text = redactPropertiesText(text) // what OMB runs with, no secret shown
		}
		value = strings.TrimSpace(text)
		if n.Kind == yaml.ScalarNode && n.Style == yaml.LiteralStyle {
			value = strings.Join(strings.Fields(strings.ReplaceAll(text, "\n", " ")), " ")
		}
		if n.Line < 0 {
			value += " (--set)"
		}
	} else if def != "" {
		value = "(default " + def + ")"
	} else {
		value = "(not given)"
	}
	t.fields = append(t.fields, OMBField{File: file, Field: name, Value: value, Becomes: fmt.Sprintf(becomes, args...)})
}

func (t *ombTranslation) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// kbenchSet reports whether a kbench --set changes the path or a field
// under it.
func (t *ombTranslation) kbenchSet(prefixes ...string) bool {
	for _, s := range t.kbenchSets {
		path, _, _ := strings.Cut(s, "=")
		for _, p := range prefixes {
			if path == p || strings.HasPrefix(path, p+".") {
				return true
			}
		}
	}
	return false
}

// plan is the kbench plan, as a YAML tree with comments naming the OMB
// fields each value comes from.
func (t *ombTranslation) plan() *yaml.Node {
	w, d := t.w, t.d
	doc := ymap()
	name := ykey("name")
	name.HeadComment = fmt.Sprintf("The OpenMessaging Benchmark workload %s with the Kafka driver %s,\nas a kbench plan (kbench plan from-omb); docs/omb.md says what each OMB field becomes.",
		filepath.Base(t.wpath), filepath.Base(t.dpath))
	doc.Content = append(doc.Content, name, ystr(ombPlanName(t.wpath)))
	desc := "OpenMessaging Benchmark workload"
	if w.Name != "" {
		desc = w.Name + " (" + desc
		if d.Name != "" {
			desc += ", driver " + d.Name
		}
		desc += ")"
	}
	yput(doc, "description", ystr(desc), "name")
	t.field("workload", "name", "", "the plan's description; the plan is named %s, after the file (it names the results folder)", ombPlanName(t.wpath))
	doc.Content = append(doc.Content, ykey("cluster"), t.cluster())
	topics := ykey("topics")
	topics.HeadComment = "Named as OMB names them (test-topic-NNNNNNN-random), created anew before each repeat."
	doc.Content = append(doc.Content, topics, t.topicList())
	doc.Content = append(doc.Content, ykey("workloads"), t.workloads())
	return doc
}

func (t *ombTranslation) cluster() *yaml.Node {
	d := t.d
	cl := ymap()
	bootstrap, hasBootstrap := property(d.CommonConfig, "bootstrap.servers")
	replaced := t.kbenchSet("cluster.name", "cluster.local", "cluster.bootstrap")
	switch {
	case replaced:
		if hasBootstrap {
			t.note("the driver's bootstrap.servers (%s) is replaced by the cluster your --set names", bootstrap)
		}
	case hasBootstrap:
		yput(cl, "bootstrap", ystr(bootstrap), "commonConfig bootstrap.servers")
	default:
		t.note("the driver's commonConfig has no bootstrap.servers: kbench starts a local Apache Kafka for the run (cluster.local; --set cluster.local.brokers=3 for replicationFactor 3)")
	}
	common := t.commonProps()
	if len(common) > 0 {
		yput(cl, "properties", yprops(common), "commonConfig: every client and the admin client")
	}
	becomes := "cluster.properties (every producer, consumer and the admin client, as OMB's)"
	switch {
	case replaced:
		becomes = "bootstrap.servers is replaced by the cluster your --set names; the rest " + becomes
	case hasBootstrap:
		becomes = fmt.Sprintf("bootstrap.servers is cluster.bootstrap (%s; --set cluster.local.brokers=3 runs on a local cluster kbench starts instead); the rest cluster.properties (every producer, consumer and the admin client, as OMB's)", bootstrap)
	}
	t.field("driver", "name", "", "the plan's description")
	t.field("driver", "driverClass", "", "%s: kbench runs it with franz-go clients", OMBKafkaProtocolDrivers[t.d.Class])
	t.field("driver", "reset", "false", "not needed: kbench deletes and creates the run's own topics before each repeat (names of its own, as OMB's), and never touches the cluster's other topics")
	if t.d.Reset {
		t.note("reset: true deleted the benchmark's topics before the run in OMB (every topic of the cluster in OMB before 2022, those with the run's prefix in the Redpanda fork); kbench deletes and creates only the topics this run names, before each repeat, so topics left by other runs stay")
	}
	t.field("driver", "commonConfig", "", "%s", becomes)
	if len(cl.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	}
	return cl
}

func (t *ombTranslation) topicList() *yaml.Node {
	w, d := t.w, t.d
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for i := 0; i < w.Topics; i++ {
		tp := OMBTopic{Name: fmt.Sprintf("test-topic-%07d-%s", i, t.rnd(5)), Producers: fmt.Sprintf("producers-%07d", i)}
		for j := 0; j < w.SubscriptionsPerTopic; j++ {
			tp.Subscriptions = append(tp.Subscriptions, fmt.Sprintf("sub-%03d-%s", j, t.rnd(5)))
		}
		t.topics = append(t.topics, tp)
		m := ymap()
		yput(m, "name", ystr(tp.Name), "")
		yput(m, "partitions", yint(int64(w.PartitionsPerTopic)), "partitionsPerTopic")
		yput(m, "replication", yint(int64(d.ReplicationFactor)), "replicationFactor")
		if len(d.TopicConfig) > 0 {
			yput(m, "configs", yprops(d.TopicConfig), "topicConfig")
		}
		list.Content = append(list.Content, m)
	}
	first := ""
	if len(t.topics) > 0 {
		first = t.topics[0].Name
	}
	more := ""
	if len(t.topics) > 1 {
		more = fmt.Sprintf(" … %s", t.topics[len(t.topics)-1].Name)
	}
	t.field("workload", "topics", "", "%d topic(s): %s%s", w.Topics, first, more)
	t.field("workload", "partitionsPerTopic", "", "partitions: %d on each topic", w.PartitionsPerTopic)
	t.field("driver", "replicationFactor", "", "replication: %d on each topic", d.ReplicationFactor)
	if len(d.TopicConfig) > 0 {
		t.field("driver", "topicConfig", "", "configs of each topic: %s", propertiesText(d.TopicConfig))
	} else {
		t.field("driver", "topicConfig", "", "no topic configs")
	}
	return list
}

// workloads makes, for each topic, the produce workload of its producers
// and a consume workload per subscription.
func (t *ombTranslation) workloads() *yaml.Node {
	w := t.w
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	t.messageFields()
	t.rateFields()
	for _, tp := range t.topics {
		list.Content = append(list.Content, t.producers(tp))
		for _, sub := range tp.Subscriptions {
			list.Content = append(list.Content, t.consumers(tp, sub))
		}
	}
	t.field("workload", "subscriptionsPerTopic", "0", "%s", plural(w.SubscriptionsPerTopic, "consume workload", "s")+" on each topic, each a consumer group named like OMB's subscriptions (sub-NNN-random)")
	t.field("workload", "producersPerTopic", "", "clients: %d in each topic's produce workload (a producer client each, as OMB's)", w.ProducersPerTopic)
	t.field("workload", "consumerPerSubscription", "0", "clients: %d in each consume workload (consumers of the group)", w.ConsumerPerSubscription)
	t.field("driver", "producerConfig", "", "properties of the produce workloads%s", propsSuffix(t.producerProps()))
	t.field("driver", "consumerConfig", "", "properties of the consume workloads%s", propsSuffix(t.consumerProps()))
	t.durationFields()
	t.differences()
	return list
}

func propsSuffix(list []OMBProperty) string {
	if len(list) == 0 {
		return " (none)"
	}
	return ": " + propertiesText(list)
}

// maxConsumerRequestTimeout is the longest request.timeout.ms franz-go's
// consumers take (15 minutes); OMB's kafka-throughput.yaml gives every
// client 1200000.
const maxConsumerRequestTimeout = 900000

// longRequestTimeout is commonConfig's request.timeout.ms when it is
// longer than a consumer takes: producers get it, consumers the longest
// they take (said in a note).
func (t *ombTranslation) longRequestTimeout() (string, bool) {
	v, ok := property(t.d.CommonConfig, "request.timeout.ms")
	if !ok {
		return "", false
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return v, err == nil && ms > maxConsumerRequestTimeout
}

// commonProps are cluster.properties: commonConfig without
// bootstrap.servers (cluster.bootstrap) and a request timeout longer than
// consumers take.
func (t *ombTranslation) commonProps() []OMBProperty {
	common := without(t.d.CommonConfig, "bootstrap.servers")
	if _, long := t.longRequestTimeout(); long {
		common = without(common, "request.timeout.ms")
	}
	return common
}

// producerProps are producerConfig, after commonConfig's long request
// timeout, and with the delivery timeout Java would use when the driver
// gives none (drainDeliveryTimeout).
func (t *ombTranslation) producerProps() []OMBProperty {
	list := t.d.ProducerConfig
	if v, long := t.longRequestTimeout(); long {
		if _, own := property(list, "request.timeout.ms"); !own {
			list = append([]OMBProperty{{Key: "request.timeout.ms", Value: v}}, list...)
		}
	}
	if ms, ok := t.drainDeliveryTimeout(); ok {
		list = append(list, OMBProperty{Key: "delivery.timeout.ms", Value: strconv.FormatInt(ms, 10)})
	}
	return list
}

// Java producer defaults the delivery timeout depends on.
const (
	javaDeliveryTimeoutMs = 120000
	javaRequestTimeoutMs  = 30000
	javaLingerMs          = 5
)

// drainDeliveryTimeout is the delivery.timeout.ms the producers get when
// the driver sets none: Java's (120000, or linger.ms + request.timeout.ms
// when that is longer). OMB closes its producers at the end, which waits
// for every record they hold, up to that timeout; kbench waits that long
// only for a delivery.timeout.ms the plan sets (else 5 s, then counts the
// records left as failed).
func (t *ombTranslation) drainDeliveryTimeout() (int64, bool) {
	if _, ok := property(t.d.ProducerConfig, "delivery.timeout.ms"); ok {
		return 0, false
	}
	if _, ok := property(t.d.CommonConfig, "delivery.timeout.ms"); ok {
		return 0, false
	}
	ms := func(key string, def int64) int64 {
		v, ok := property(t.d.ProducerConfig, key)
		if !ok {
			v, ok = property(t.d.CommonConfig, key)
		}
		if !ok {
			return def
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return def // kafkaconf reports the bad value
		}
		return n
	}
	return max(javaDeliveryTimeoutMs, ms("linger.ms", javaLingerMs)+ms("request.timeout.ms", javaRequestTimeoutMs)), true
}

// consumerProps are consumerConfig without group.id, which OMB replaces
// with each subscription's name, after the longest request timeout
// consumers take when commonConfig's is longer.
func (t *ombTranslation) consumerProps() []OMBProperty {
	list := without(t.d.ConsumerConfig, "group.id")
	if _, long := t.longRequestTimeout(); long {
		if _, own := property(list, "request.timeout.ms"); !own {
			list = append([]OMBProperty{{Key: "request.timeout.ms", Value: strconv.Itoa(maxConsumerRequestTimeout)}}, list...)
		}
	}
	return list
}

func (t *ombTranslation) producers(tp OMBTopic) *yaml.Node {
	w := t.w
	m := ymap()
	yput(m, "name", ystr(tp.Producers), "")
	yput(m, "type", ystr(Produce), "")
	yput(m, "topic", ystr(tp.Name), "")
	yput(m, "clients", yint(int64(w.ProducersPerTopic)), "producersPerTopic")
	if props := t.producerProps(); len(props) > 0 {
		comment := "producerConfig"
		if _, long := t.longRequestTimeout(); long {
			comment += ", commonConfig's request.timeout.ms"
		}
		if _, ok := t.drainDeliveryTimeout(); ok {
			comment += ", and Java's delivery.timeout.ms for them"
		}
		yput(m, "properties", yprops(props), comment)
	}
	yput(m, "message", t.message(), "")
	if w.SubscriptionsPerTopic > 0 {
		yput(m, "send_time_header", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}, "end-to-end latency to the microsecond")
	}
	if w.ProducerRate == 0 {
		yput(m, "rate", ystr("balanced"), "producerRate 0: OMB's balanced-rate search, from 10,000 msg/s over all producers, adjusted every 3 s")
	} else {
		yput(m, "rate", ystr(rateText(float64(w.ProducerRate)/float64(w.Topics))), "producerRate ÷ topics")
	}
	if w.WarmupDuration > 0 {
		yput(m, "warmup", ystr(durationText(w.WarmupDuration)), "warmupDurationMinutes")
	}
	comment := "warmupDurationMinutes + testDurationMinutes"
	if w.BacklogBytes > 0 {
		comment = "until the backlog is built, then testDurationMinutes"
	}
	yput(m, "duration", ystr(durationText(t.producerDuration())), comment)
	return m
}

// backlogStart is when the consumers of a backlog workload start: after
// the warm-up, once the producers have written the backlog (at
// producerRate).
func (t *ombTranslation) backlogStart() time.Duration {
	w := t.w
	bytesPerSec := float64(w.ProducerRate) * float64(w.MessageSize)
	build := time.Duration(math.Ceil(float64(t.backlogBytes())/bytesPerSec)) * time.Second
	return max(w.WarmupDuration, build)
}

// backlogBytes is the value bytes the producers write before the
// consumers start: OMB waits for (subscriptionsPerTopic × sent −
// received) × messageSize ≥ consumerBacklogSizeGB, all topics together.
func (t *ombTranslation) backlogBytes() int64 {
	return t.w.BacklogBytes / int64(max(t.w.SubscriptionsPerTopic, 1))
}

func (t *ombTranslation) producerDuration() time.Duration {
	w := t.w
	if w.BacklogBytes > 0 {
		return t.backlogStart() + w.TestDuration
	}
	return w.WarmupDuration + w.TestDuration
}

func (t *ombTranslation) consumers(tp OMBTopic, sub string) *yaml.Node {
	w := t.w
	m := ymap()
	yput(m, "name", ystr(sub), "")
	yput(m, "type", ystr(Consume), "")
	yput(m, "topic", ystr(tp.Name), "")
	yput(m, "group", ystr(sub), "a subscription")
	yput(m, "clients", yint(int64(w.ConsumerPerSubscription)), "consumerPerSubscription")
	if props := t.consumerProps(); len(props) > 0 {
		comment := "consumerConfig"
		if _, long := t.longRequestTimeout(); long {
			comment += ", and the longest request.timeout.ms consumers take"
		}
		yput(m, "properties", yprops(props), comment)
	}
	if w.BacklogBytes > 0 {
		if w.WarmupDuration > 0 {
			yput(m, "start_after", ystr(durationText(w.WarmupDuration)), "warmupDurationMinutes, and then")
		}
		yput(m, "backlog", ystr(strings.ReplaceAll(sizeText(t.backlogBytes()), " ", "")),
			fmt.Sprintf("consumerBacklogSizeGB %s (GiB) ÷ subscriptionsPerTopic, in bytes: read from the topic's start", w.BacklogGB))
	}
	return m
}

// message is the produce workloads' message: the whole payload file, or
// OMB's pool of random values; and OMB's keys.
func (t *ombTranslation) message() *yaml.Node {
	w := t.w
	m := ymap()
	if w.UseRandomizedPayloads {
		yput(m, "size", yint(int64(w.MessageSize)), "messageSize")
		yput(m, "random_ratio", ystr(strconv.FormatFloat(w.RandomBytesRatio, 'f', -1, 64)), "randomBytesRatio")
		yput(m, "pool", yint(int64(w.PoolSize)), "randomizedPayloadPoolSize")
	} else {
		yput(m, "payload_file", ystr(w.payloadPath), "payloadFile, as found from the folder kbench ran in (a plan reads it from its own folder)")
		yput(m, "delimiter", ystr("none"), "the whole file is each record's value, as OMB reads it")
	}
	if dist := ombKeyDist[w.KeyDistributor]; dist != "" {
		k := ymap()
		k.Style = yaml.FlowStyle
		yput(k, "distribution", ystr(dist), "")
		yput(k, "count", yint(ombKeyCount), "")
		yput(k, "format", ystr("omb"), "")
		yput(m, "key", k, "keyDistributor "+w.KeyDistributor)
	}
	return m
}

var ombKeyDist = map[string]string{OMBRoundRobin: "sequential", OMBRandomNano: "uniform"}

// Nodes of the YAML tree.

func ymap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func ykey(k string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k} }

func ystr(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func yint(n int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(n, 10)}
}

// yput adds key: v to m, with a comment naming where v comes from.
func yput(m *yaml.Node, key string, v *yaml.Node, comment string) {
	k := ykey(key)
	if comment != "" {
		if v.Kind == yaml.ScalarNode || v.Style == yaml.FlowStyle {
			v.LineComment = comment
		} else {
			k.LineComment = comment
		}
	}
	m.Content = append(m.Content, k, v)
}

// yprops is a properties mapping, every value text.
func yprops(list []OMBProperty) *yaml.Node {
	m := ymap()
	for _, p := range list {
		m.Content = append(m.Content, ykey(p.Key), ystr(p.Value))
	}
	return m
}

// rateText is a rate in kbench's form: 50000/s, 3333.3333333333335/s.
func rateText(r float64) string {
	return strconv.FormatFloat(r, 'f', -1, 64) + "/s"
}

// durationText is d as a plan writes it: 16m, 1m30s, 90ms.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// sizeText is a byte count for messages: 100 GiB, 64 MiB, 1500 B.
func sizeText(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return fmt.Sprintf("%d %s", n/u.bytes, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

func plural(n int, word, suffix string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %s%s", n, word, suffix)
}
