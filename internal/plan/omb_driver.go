package plan

import (
	"strings"

	"github.com/kbench/kbench/internal/javaprops"

	"go.yaml.in/yaml/v3"
)

// OMBKafkaDriver is the driverClass of OMB's Kafka driver, the one kbench
// runs.
const OMBKafkaDriver = "io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver"

// OMBKafkaProtocolDrivers are the driver classes kbench runs: OMB's Kafka
// driver, which the Confluent and AutoMQ forks keep under its name, and
// the Redpanda fork's, a Kafka-protocol driver with the same fields (its
// Config.java: replicationFactor, reset and the four *Config texts). Each
// says what it is in --dry-run's field list.
var OMBKafkaProtocolDrivers = map[string]string{
	OMBKafkaDriver: "OMB's Kafka driver (also the Confluent and AutoMQ forks')",
	"io.openmessaging.benchmark.driver.redpanda.RedpandaBenchmarkDriver": "the Redpanda fork's Kafka-protocol driver",
}

// ombDrivers names the systems of OMB's other drivers, to refuse a driver
// file by what it is.
var ombDrivers = map[string]string{
	"io.openmessaging.benchmark.driver.artemis.ArtemisBenchmarkDriver":             "Apache ActiveMQ Artemis",
	"io.openmessaging.benchmark.driver.bookkeeper.DlogBenchmarkDriver":             "Apache BookKeeper (DistributedLog)",
	"io.openmessaging.benchmark.driver.jms.JMSBenchmarkDriver":                     "JMS (even over Kafka: a JMS client, not Kafka's)",
	"io.openmessaging.benchmark.driver.kop.KopBenchmarkDriver":                     "Kafka on Pulsar (KoP)",
	"io.openmessaging.benchmark.driver.mqtt5.MqttBenchmarkDriver":                  "MQTT 5",
	"io.openmessaging.benchmark.driver.nats.NatsBenchmarkDriver":                   "NATS",
	"io.openmessaging.benchmark.driver.natsStreaming.NatsStreamingBenchmarkDriver": "NATS Streaming",
	"io.openmessaging.benchmark.driver.nsq.NsqBenchmarkDriver":                     "NSQ",
	"io.openmessaging.benchmark.driver.pravega.PravegaBenchmarkDriver":             "Pravega",
	"io.openmessaging.benchmark.driver.pulsar.PulsarBenchmarkDriver":               "Apache Pulsar",
	"io.openmessaging.benchmark.driver.rabbitmq.RabbitMqBenchmarkDriver":           "RabbitMQ",
	"io.openmessaging.benchmark.driver.redis.RedisBenchmarkDriver":                 "Redis",
	"io.openmessaging.benchmark.driver.rocketmq.RocketMQBenchmarkDriver":           "Apache RocketMQ",
	"io.openmessaging.benchmark.driver.rocketmq.RocketMQ5BenchmarkDriver":          "Apache RocketMQ 5",
}

// ombDriverFields are the Kafka driver's fields (DriverConfiguration.java
// and the Kafka driver's Config.java).
// reset is OMB's before 2022 and the forks' (Redpanda, AutoMQ) still.
var ombDriverFields = []string{"name", "driverClass", "replicationFactor", "reset", "topicConfig", "commonConfig", "producerConfig", "consumerConfig"}

// ombConfigFields are the driver's fields that hold Java properties text.
var ombConfigFields = []string{"topicConfig", "commonConfig", "producerConfig", "consumerConfig"}

// OMBDriver is an OMB Kafka driver file, checked. The *Config fields are
// Java properties, in the order written (a later line with the same name
// wins, as java.util.Properties does).
type OMBDriver struct {
	Name              string
	Class             string
	ReplicationFactor int
	// Reset is the forks' reset: true, deleting the benchmark's topics
	// before the run (see the translation's note); kbench deletes and
	// creates its own topics before each repeat either way.
	Reset          bool
	TopicConfig    []OMBProperty
	CommonConfig   []OMBProperty
	ProducerConfig []OMBProperty
	ConsumerConfig []OMBProperty

	given map[string]*yaml.Node
}

// OMBProperty is one property of a driver's *Config text.
type OMBProperty struct{ Key, Value string }

// ombPropSet is a --set of one property inside a driver's *Config text
// (--set 'driver.producerConfig.linger\.ms=5').
type ombPropSet struct {
	field, key, value string
	index             int // of the --set
}

// ombDriver checks an OMB driver file: first that it is Kafka's, then its
// fields strictly.
func (c *collector) ombDriver(root *yaml.Node, props []ombPropSet) *OMBDriver {
	d := &OMBDriver{given: map[string]*yaml.Node{}}
	if root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if k.Value == "driverClass" && v.Kind == yaml.ScalarNode && OMBKafkaProtocolDrivers[v.Value] == "" {
				what := ombDrivers[v.Value]
				switch {
				case strings.Contains(v.Value, ".redpanda."):
					what = "a driver of the Redpanda fork kbench does not translate (transactions or swarm clients)"
				case what == "":
					what = "not a Kafka-protocol driver kbench knows"
				default:
					what = "OMB's driver for " + what
				}
				c.addf(v, "driverClass", "%s is %s; kbench runs Kafka only: give a driver file of OMB's driver-kafka folder (driverClass: %s) or the Redpanda fork's driver-redpanda/redpanda-*.yaml (driverClass: io.openmessaging.benchmark.driver.redpanda.RedpandaBenchmarkDriver)", v.Value, what, OMBKafkaDriver)
				return d // its other fields are another system's
			}
		}
	}
	if !c.ombFields(root, ombDriverFields, "driver", d.given) {
		return d
	}
	g := d.given
	if g["driverClass"] == nil {
		c.addf(root, "driverClass", "missing; an OMB Kafka driver file says driverClass: %s", OMBKafkaDriver)
	}
	if v := g["name"]; v != nil {
		d.Name = c.ombText(v, "name")
	}
	if v := g["driverClass"]; v != nil {
		d.Class = c.ombText(v, "driverClass")
	}
	if v := g["reset"]; v != nil {
		d.Reset = c.ombBool(v, "reset")
	}
	if v := g["replicationFactor"]; v != nil {
		d.ReplicationFactor = int(c.ombInt(v, "replicationFactor", 1, 32767, ""))
	} else {
		c.addf(root, "replicationFactor", "missing; OMB reads it as 0, which Kafka refuses (OMB then retries creating the topics forever): give the replicas of each topic, such as replicationFactor: 3")
	}
	for _, f := range ombConfigFields {
		var list []OMBProperty
		if v := g[f]; v != nil {
			list = c.ombProperties(v, f)
		}
		for _, ps := range props {
			if ps.field == f {
				list = setProperty(list, ps.key, ps.value)
			}
		}
		switch f {
		case "topicConfig":
			d.TopicConfig = list
		case "commonConfig":
			d.CommonConfig = list
		case "producerConfig":
			d.ProducerConfig = list
		case "consumerConfig":
			d.ConsumerConfig = list
		}
	}
	return d
}

// ombProperties reads a *Config field: Java properties text, as OMB reads
// it with java.util.Properties.load (key=value, key: value or "key value"
// lines, # and ! comments, \ continuations and escapes).
func (c *collector) ombProperties(n *yaml.Node, field string) []OMBProperty {
	if n.Kind != yaml.ScalarNode {
		c.addf(n, field, "is %s; OMB reads Java properties text here, written as a block:\n    %s: |\n      name=value", kindName(n), field)
		return nil
	}
	if n.ShortTag() == "!!null" {
		return nil
	}
	props, err := javaprops.Parse(n.Value, "line")
	if err != nil {
		c.addf(n, field, "not Java properties text: %s", err)
		return nil
	}
	var list []OMBProperty
	for _, p := range props {
		list = setProperty(list, p.Key, p.Value) // the last one wins, as in Java
	}
	return list
}

// setProperty sets key in list, keeping its place if it is there.
func setProperty(list []OMBProperty, key, value string) []OMBProperty {
	for i := range list {
		if list[i].Key == key {
			out := append([]OMBProperty(nil), list...)
			out[i].Value = value
			return out
		}
	}
	return append(list, OMBProperty{Key: key, Value: value})
}

// property returns key's value in list.
func property(list []OMBProperty, key string) (string, bool) {
	for _, p := range list {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// without returns list without the keys.
func without(list []OMBProperty, keys ...string) []OMBProperty {
	var out []OMBProperty
	for _, p := range list {
		if !contains(keys, p.Key) {
			out = append(out, p)
		}
	}
	return out
}

// propertiesText is list as properties lines, for messages (secret
// values redacted).
func propertiesText(list []OMBProperty) string {
	var parts []string
	for _, p := range list {
		parts = append(parts, p.Key+"="+shownProperty(p.Key, p.Value))
	}
	return strings.Join(parts, " ")
}

// ombDriverCheck is what is wrong with a driver's properties as OMB reads
// them.
func (c *collector) ombDriverCheck(d *OMBDriver) {
	if v, ok := property(d.CommonConfig, "client.id"); ok && strings.Contains(v, "{zone.id}") {
		c.addf(d.given["commonConfig"], "commonConfig", "client.id %q: OMB replaces {zone.id} with its workers' zone.id system property, which kbench has not; write the client id out (--set 'driver.commonConfig.client\\.id=NAME')", v)
	}
}
