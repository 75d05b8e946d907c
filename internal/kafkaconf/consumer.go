package kafkaconf

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// Consumer is the Java consumer's effective configuration: the Apache Kafka
// 4.x defaults and the user's properties. Opts turns it into client and
// consumer kgo options; the caller adds the topics and, when GroupID is set,
// kgo.ConsumerGroup(GroupID) itself.
type Consumer struct {
	Common

	ClientRack string // client.rack

	// GroupID is group.id, "" for none. Set it before calling Opts if the
	// group comes from elsewhere (a --group flag): Opts adds
	// kgo.DisableAutoCommit only for a group, and the client id depends on it.
	GroupID         string
	GroupInstanceID string // group.instance.id
	// GroupProtocol is group.protocol: "classic", or "consumer" for KIP-848
	// groups (kgo.ServerSideBalancer).
	GroupProtocol string
	// GroupRemoteAssignor is group.remote.assignor: "", "uniform" or "range".
	GroupRemoteAssignor string
	// PartitionAssignmentStrategy is partition.assignment.strategy as kgo
	// protocol names, in preference order: range, roundrobin, sticky,
	// cooperative-sticky.
	PartitionAssignmentStrategy []string

	// AutoOffsetReset is auto.offset.reset: earliest, latest, none or
	// by_duration:<ISO-8601 duration>.
	AutoOffsetReset    string
	EnableAutoCommit   bool          // enable.auto.commit
	AutoCommitInterval time.Duration // auto.commit.interval.ms
	SessionTimeout     time.Duration // session.timeout.ms
	HeartbeatInterval  time.Duration // heartbeat.interval.ms
	MaxPollInterval    time.Duration // max.poll.interval.ms
	// MaxPollRecords is max.poll.records: the caller's to apply, with
	// PollRecords.
	MaxPollRecords int

	FetchMinBytes          int           // fetch.min.bytes
	FetchMaxBytes          int           // fetch.max.bytes
	FetchMaxWait           time.Duration // fetch.max.wait.ms
	MaxPartitionFetchBytes int           // max.partition.fetch.bytes
	IsolationLevel         string        // isolation.level: read_uncommitted or read_committed
	CheckCRCs              bool          // check.crcs
	AllowAutoCreateTopics  bool          // allow.auto.create.topics

	// ShareAcknowledgementMode is share.acknowledgement.mode, implicit or
	// explicit: share consumers only.
	ShareAcknowledgementMode string
}

const (
	assignorPackage      = "org.apache.kafka.clients.consumer."
	kgoMinFetchWait      = 10 * time.Millisecond
	kgoMinCommitInterval = 100 * time.Millisecond
)

// assignors maps Java assignor names (short or class) to kgo protocol names.
var assignors = map[string]string{
	"range": "range", assignorPackage + "RangeAssignor": "range",
	"roundrobin": "roundrobin", assignorPackage + "RoundRobinAssignor": "roundrobin",
	"sticky": "sticky", assignorPackage + "StickyAssignor": "sticky",
	"cooperative-sticky": "cooperative-sticky", assignorPackage + "CooperativeStickyAssignor": "cooperative-sticky",
}

var assignorClasses = map[string]string{
	"range": "RangeAssignor", "roundrobin": "RoundRobinAssignor",
	"sticky": "StickyAssignor", "cooperative-sticky": "CooperativeStickyAssignor",
}

// legalGroupInstanceID is Kafka's rule for topic names and group.instance.id.
var legalGroupInstanceID = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

func consumerProps() []prop[Consumer] {
	common := func(c *Consumer) *Common { return &c.Common }
	cp := commonProps()
	ps := lift(cp[:1], common)
	ps = append(ps, []prop[Consumer]{
		clientIDProp(common, (*Consumer).clientID, "kgo.ClientID; when unset, Java's generated consumer-<group.id>-1"),
		strProp("group.id", 0, false, func(c *Consumer) *string { return &c.GroupID },
			"exposed as GroupID; the caller adds kgo.ConsumerGroup"),
		groupInstanceIDProp(),
		enumProp("group.protocol", "classic", true, []string{"classic", "consumer"}, func(c *Consumer) *string { return &c.GroupProtocol },
			"consumer adds kgo.ServerSideBalancer (KIP-848); franz-go falls back to classic on brokers without it"),
		enumProp("group.remote.assignor", "", false, []string{"uniform", "range"}, func(c *Consumer) *string { return &c.GroupRemoteAssignor },
			"group.protocol=consumer only: range puts kgo.RangeBalancer first, otherwise kgo.StickyBalancer (the broker's uniform)"),
		assignmentStrategyProp(),
		autoOffsetResetProp(),
		boolProp("enable.auto.commit", "true", func(c *Consumer) *bool { return &c.EnableAutoCommit },
			"false adds kgo.DisableAutoCommit (only with a group, as without one Java never commits)"),
		msProp("auto.commit.interval.ms", "5000", 0, math.MaxInt32, func(c *Consumer) *time.Duration { return &c.AutoCommitInterval },
			"kgo.AutoCommitInterval (at least 100 ms in franz-go)"),
		msProp("session.timeout.ms", "45000", 100, math.MaxInt32, func(c *Consumer) *time.Duration { return &c.SessionTimeout },
			"kgo.SessionTimeout (classic groups)"),
		msProp("heartbeat.interval.ms", "3000", 1, math.MaxInt32, func(c *Consumer) *time.Duration { return &c.HeartbeatInterval },
			"kgo.HeartbeatInterval (classic groups)"),
		msProp("max.poll.interval.ms", "300000", 100, math.MaxInt32, func(c *Consumer) *time.Duration { return &c.MaxPollInterval },
			"kgo.RebalanceTimeout: Java sends this as the JoinGroup rebalance timeout (franz-go does not leave on slow polls)"),
		intProp("max.poll.records", "500", 1, math.MaxInt32, func(c *Consumer) *int { return &c.MaxPollRecords },
			"exposed as MaxPollRecords for the caller's PollRecords"),
		intProp("fetch.min.bytes", "1", 0, math.MaxInt32, func(c *Consumer) *int { return &c.FetchMinBytes }, "kgo.FetchMinBytes"),
		intProp("fetch.max.bytes", "52428800", 0, kgoMaxBatch, func(c *Consumer) *int { return &c.FetchMaxBytes },
			"kgo.FetchMaxBytes, with kgo.BrokerMaxReadBytes raised to twice it when above 50 MiB"),
		msProp("fetch.max.wait.ms", "500", 0, math.MaxInt32, func(c *Consumer) *time.Duration { return &c.FetchMaxWait },
			"kgo.FetchMaxWait (at least 10 ms in franz-go; franz-go's own default is 5 s)"),
		intProp("max.partition.fetch.bytes", "1048576", 0, math.MaxInt32, func(c *Consumer) *int { return &c.MaxPartitionFetchBytes },
			"kgo.FetchMaxPartitionBytes"),
		enumProp("share.acknowledgement.mode", "implicit", false, []string{"implicit", "explicit"},
			func(c *Consumer) *string { return &c.ShareAcknowledgementMode },
			"share consumers: implicit accepts each polled record at the next poll; explicit acknowledges record by record (Record.Ack)"),
		enumProp("isolation.level", "read_uncommitted", false, []string{"read_uncommitted", "read_committed"},
			func(c *Consumer) *string { return &c.IsolationLevel }, "kgo.FetchIsolationLevel"),
		boolProp("check.crcs", "true", func(c *Consumer) *bool { return &c.CheckCRCs }, "false adds kgo.DisableFetchCRCValidation"),
		boolProp("allow.auto.create.topics", "true", func(c *Consumer) *bool { return &c.AllowAutoCreateTopics },
			"true adds kgo.AllowAutoTopicCreation (the broker's auto.create.topics.enable still decides)"),
		strProp("client.rack", 512, false, func(c *Consumer) *string { return &c.ClientRack }, "kgo.Rack (KIP-392 fetch from the closest replica)"),
		msProp("request.timeout.ms", "30000", 100, 900000, func(c *Consumer) *time.Duration { return &c.RequestTimeout },
			"kgo.RequestTimeoutOverhead: a fetch's deadline is fetch.max.wait.ms plus this (franz-go allows 100 ms to 15 min)"),
	}...)
	return append(ps, lift(cp[1:], common)...)
}

// groupInstanceIDProp is group.instance.id (static membership), with its legal characters.
func groupInstanceIDProp() prop[Consumer] {
	return prop[Consumer]{
		key: "group.instance.id", meaning: "kgo.InstanceID (static membership)",
		set: func(c *Consumer, v string) error {
			v = strings.TrimSpace(v)
			if !legalGroupInstanceID.MatchString(v) {
				return &badValue{allowed: "1 to 249 of the characters a-z A-Z 0-9 . _ -"}
			}
			c.GroupInstanceID = v
			return nil
		},
		get: func(c *Consumer) string { return c.GroupInstanceID },
	}
}

// assignmentStrategyProp is partition.assignment.strategy: Java's assignor classes or their short names, in order.
func assignmentStrategyProp() prop[Consumer] {
	return prop[Consumer]{
		key: "partition.assignment.strategy", def: assignorPackage + "RangeAssignor," + assignorPackage + "CooperativeStickyAssignor",
		meaning: "kgo.Balancers in the same order; class names or range, roundrobin, sticky, cooperative-sticky",
		set: func(c *Consumer, v string) error {
			l, err := parseList(v)
			if err != nil {
				return err
			}
			var names []string
			for _, a := range l {
				name, ok := assignors[a]
				if !ok {
					return &badValue{why: "unknown assignor " + a + " (kbench cannot load Java classes)",
						allowed: "range, roundrobin, sticky, cooperative-sticky or their " + assignorPackage + "*Assignor classes"}
				}
				names = append(names, name)
			}
			c.PartitionAssignmentStrategy = names
			return nil
		},
		get: func(c *Consumer) string {
			var out []string
			for _, a := range c.PartitionAssignmentStrategy {
				out = append(out, assignorPackage+assignorClasses[a])
			}
			return strings.Join(out, ",")
		},
	}
}

// autoOffsetResetProp is auto.offset.reset, as Java 4.x reads it (parseReset).
func autoOffsetResetProp() prop[Consumer] {
	return prop[Consumer]{
		key: "auto.offset.reset", def: "latest",
		meaning: "kgo.ConsumeStartOffset and kgo.ConsumeResetOffset: earliest AtStart, latest AtEnd, none AtCommitted/NoResetOffset, by_duration:<ISO-8601> LookbackOffset",
		set: func(c *Consumer, v string) error {
			s, err := parseReset(v)
			if err == nil {
				c.AutoOffsetReset = s
			}
			return err
		},
		get: func(c *Consumer) string { return c.AutoOffsetReset },
	}
}

// parseReset validates auto.offset.reset as Java 4.x does (KIP-1106 added
// by_duration).
func parseReset(v string) (string, error) {
	allowed := "earliest, latest, none, by_duration:<ISO-8601 duration such as PT1H>"
	s := strings.TrimSpace(v)
	lower := strings.ToLower(s)
	switch lower {
	case "earliest", "latest", "none":
		return lower, nil
	}
	if d, ok := strings.CutPrefix(lower, "by_duration:"); ok {
		if _, err := parseISODuration(d); err != nil {
			return "", &badValue{why: err.Error(), allowed: allowed}
		}
		return "by_duration:" + s[len("by_duration:"):], nil
	}
	if hint := suggest.Mean(resetSuggestion(lower), suggest.Bare); hint != "" {
		return "", &badValue{why: hint, allowed: allowed}
	}
	return "", &badValue{allowed: allowed}
}

// resetSynonyms are words people write for earliest and latest, including
// smallest and largest, their names before Kafka 0.9.
var resetSynonyms = map[string]string{
	"smallest": "earliest", "begin": "earliest", "beginning": "earliest", "start": "earliest",
	"first": "earliest", "oldest": "earliest", "from-beginning": "earliest",
	"largest": "latest", "end": "latest", "last": "latest", "newest": "latest",
}

// resetSuggestion returns the auto.offset.reset value v was likely meant to
// be, or "".
func resetSuggestion(v string) string {
	if s, ok := resetSynonyms[v]; ok {
		return s
	}
	if strings.HasPrefix(v, "by_duration") || strings.HasPrefix(v, "by-duration") {
		return "by_duration:<ISO-8601 duration such as PT1H>"
	}
	return suggest.Nearest(v, []string{"earliest", "latest", "none"})
}

// CheckConsumerValue checks one consumer property's value on its own, as
// ParseConsumer would, without the checks that relate properties. It is for
// values that a tool then overrides (consumer-perf-test sets
// auto.offset.reset itself): a mistyped value must still be reported.
// Unknown keys are not its concern and pass.
func CheckConsumerValue(p Prop) error {
	for _, pr := range consumerProps() {
		if pr.key == p.Key {
			if err := pr.set(new(Consumer), p.Value); err != nil {
				return invalid(p, err)
			}
			return nil
		}
	}
	return nil
}

func consumerNoEffect() map[string]string {
	m := commonNoEffect()
	m["key.deserializer"] = "kbench reads raw bytes"
	m["value.deserializer"] = "kbench reads raw bytes"
	m["exclude.internal.topics"] = "kbench consumes the topics it names"
	m["default.api.timeout.ms"] = "kbench bounds each phase of a run with its own deadline"
	m["internal.leave.group.on.close"] = "franz-go leaves the group on close unless group.instance.id is set"
	return m
}

// ConsumerDefaults is the documented table of consumer properties kbench
// maps, with their Java 4.x defaults.
func ConsumerDefaults() []Default { return defaults(consumerProps()) }

// ParseConsumer applies props, later ones overriding earlier ones, on top
// of the Java 4.x consumer defaults, with errors and warnings as
// [ParseProducer]. group.id and bootstrap.servers may be absent.
func ParseConsumer(props []Prop) (*Consumer, []Warning, error) {
	c := new(Consumer)
	r := role{name: "consumer", other: "producer", noEffect: consumerNoEffect(),
		otherKeys: append(only(keys(producerProps()), keys(consumerProps())), "key.serializer", "value.serializer", "max.block.ms")}
	warns, errs := parseProps(c, consumerProps(), props, r, &c.Common)
	if len(errs) == 0 {
		errs = c.check()
	}
	warns = append(warns, c.checkCommon()...)
	warns = append(warns, c.approximations()...)
	if len(errs) > 0 {
		return nil, warns, userr.New(errors.Join(errs...))
	}
	return c, warns, nil
}

// check applies Java's cross-property rules.
func (c *Consumer) check() (errs []error) {
	// Java 4.x: some settings belong to one group protocol only.
	unsupported := map[string][]string{
		"classic":  {"group.remote.assignor"},
		"consumer": {"partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms"},
	}
	var bad []string
	for _, k := range unsupported[c.GroupProtocol] {
		if c.explicit(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		errs = append(errs, propError(c.prop("group.protocol", c.GroupProtocol),
			fmt.Sprintf("%s cannot be set when group.protocol=%s", strings.Join(bad, ", "), strings.ToUpper(c.GroupProtocol)), ""))
	}
	if c.GroupProtocol == "classic" && c.HeartbeatInterval >= c.SessionTimeout {
		errs = append(errs, propError(c.prop("heartbeat.interval.ms", millis(c.HeartbeatInterval)),
			fmt.Sprintf("Heartbeat must be set lower than the session timeout (session.timeout.ms=%s)", millis(c.SessionTimeout)),
			rangeText(1, c.SessionTimeout.Milliseconds()-1)))
	}
	if len(c.PartitionAssignmentStrategy) == 0 {
		errs = append(errs, propError(c.prop("partition.assignment.strategy", ""), "no assignor", "range, roundrobin, sticky, cooperative-sticky"))
	}
	if _, _, err := c.offsets(); err != nil {
		errs = append(errs, propError(c.prop("auto.offset.reset", c.AutoOffsetReset), err.Error(), ""))
	}
	return errs
}

// approximations warns about values franz-go cannot take as they are.
func (c *Consumer) approximations() (warns []Warning) {
	warn := func(key, msg string) {
		warns = append(warns, Warning{Key: key, Source: c.prop(key, "").Source, Message: msg})
	}
	if c.FetchMaxWait < kgoMinFetchWait {
		warn("fetch.max.wait.ms", "franz-go waits at least 10 ms for a fetch; using 10")
	}
	if c.EnableAutoCommit && c.AutoCommitInterval < kgoMinCommitInterval {
		warn("auto.commit.interval.ms", "franz-go commits at most every 100 ms; using 100")
	}
	return warns
}

// clientID is client.id, or the id the Java consumer would generate.
func (c *Consumer) clientID() string {
	if c.ClientID != "" {
		return c.ClientID
	}
	group, member := c.GroupID, c.GroupInstanceID
	if group == "" {
		group = "null" // Java formats a null group.id so
	}
	if member == "" {
		member = "1"
	}
	return "consumer-" + group + "-" + member
}

// Settings returns every effective setting kbench applies, defaults
// included, as Java property names and values, with secrets redacted.
func (c *Consumer) Settings() map[string]string {
	s := settings(c, consumerProps())
	if c.GroupID == "" && !c.explicit("enable.auto.commit") {
		s["enable.auto.commit"] = "false" // Java turns it off without a group
	}
	return s
}
