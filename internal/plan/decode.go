package plan

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
)

var (
	topFields      = []string{"name", "description", "cluster", "topics", "workloads", "matrix", "repeat", "faults", "network", "seed", "schema_registry", "delete_topics", "watch"}
	clusterFields  = []string{"name", "bootstrap", "properties", "local", "fault_commands", "fault_shell", "broker_configs", "metrics"}
	localFields    = []string{"brokers", "version", "heap", "broker_configs", "timeout", "tiered_storage"}
	topicFields    = []string{"name", "partitions", "replication", "configs", "existing"}
	workloadFields = []string{"name", "type", "topic", "clients", "group", "properties", "message", "rate", "slo", "stages", "vus", "records", "duration", "warmup", "timeout", "start_after", "backlog", "wait_for", "thresholds", "verify", "profile", "transaction", "send_time_header", "share", "processing", "reply_topic", "match", "reply_timeout"}
	messageFields  = []string{"size", "payload_file", "delimiter", "key_range", "key", "headers", "random_ratio", "pool", "template", "template_file", "seed", "format", "schema", "schema_file", "schema_evolution"}

	// Topic names as Kafka allows them.
	topicNameRE = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)
	// Plan names become folder names.
	planNameRE = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,100}$`)
	// Local cluster names, as `kbench cluster up --name` takes them.
	clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// maxRecordSize bounds message.size: what max.request.size can be raised to.
const maxRecordSize = 1 << 30

// header decodes the parts of a plan that the matrix cannot change.
func (c *collector) header(root *yaml.Node, p *Plan) (topics, workloads, matrix *yaml.Node) {
	p.Repeat = DefaultRepeat
	var nameNode *yaml.Node
	c.fields(root, "", topFields, func(key string, v *yaml.Node) {
		switch key {
		case "name":
			nameNode = v
			p.Name = c.text(v, "name")
			if p.Name != "" && !planNameRE.MatchString(p.Name) {
				c.addf(v, "name", "%q: use letters, digits, '.', '_' and '-' only (it names the results folder)", p.Name)
			}
		case "description":
			p.Description = c.text(v, "description")
		case "cluster":
			c.clusterNode = v
			c.cluster(v, &p.Cluster)
		case "faults":
			c.faultsNode = v
		case "network":
			c.network(v)
		case "topics":
			topics = v
		case "workloads":
			workloads = v
		case "matrix":
			matrix = v
		case "repeat":
			if n, ok := c.whole(v, "repeat", 1, MaxRepeat); ok {
				p.Repeat = int(n)
			}
		case "seed":
			if n, ok := c.whole(v, "seed", 0, MaxSeed); ok {
				p.Seed, p.SeedSet = uint64(n), true
			}
		case "schema_registry":
			p.SchemaRegistry = c.schemaRegistry(v, "schema_registry")
		case "delete_topics":
			p.DeleteTopics = c.boolean(v, "delete_topics")
		case "watch":
			p.Watch = c.watch(v)
		}
	})
	if root.Kind == yaml.MappingNode {
		if nameNode == nil {
			c.addf(root, "name", "missing; give the plan a name such as record-size-sweep")
		}
		if workloads == nil {
			c.addf(root, "workloads", "missing; a plan needs at least one workload (type: produce, consume or end-to-end)")
		}
	}
	return topics, workloads, matrix
}

func (c *collector) cluster(n *yaml.Node, cl *Cluster) {
	given := map[string]*yaml.Node{}
	defer c.clusterConflicts(given)
	c.fields(n, "cluster", clusterFields, func(key string, v *yaml.Node) {
		given[key] = v
		switch key {
		case "name":
			cl.Name = c.text(v, "cluster.name")
			cl.NameAt = strings.TrimSuffix(c.problem(v, "cluster.name", "").String(), ": ")
			if cl.Name != "" && !clusterNameRE.MatchString(cl.Name) {
				c.addf(v, "cluster.name", "%q is not a local cluster's name: letters, digits, '.', '_' and '-', starting with a letter or digit, as given to kbench cluster up --name", cl.Name)
			}
		case "bootstrap":
			cl.Bootstrap = c.text(v, "cluster.bootstrap")
		case "properties":
			cl.Properties = c.properties(v, "cluster.properties")
		case "fault_commands":
			cl.FaultCommands = c.properties(v, "cluster.fault_commands")
			commands := c.faultCommandActions()
			for action, cmd := range cl.FaultCommands {
				if !contains(commands, action) {
					c.addf(v, "cluster.fault_commands."+action, "is not an action that runs a command; use %s", quoteList(commands))
				} else if cmd == "" {
					c.addf(v, "cluster.fault_commands."+action, "is empty; give the command, e.g. %s", c.commandExample(action))
				} else if bad := faults.UnknownPlaceholders(c.faultKinds(), action, cmd); len(bad) > 0 {
					why := "not filled by kbench, so it would reach the command as written"
					for _, b := range bad {
						if strings.HasPrefix(b, "{{") {
							why = "not filled by kbench, whose placeholders take single braces: {{broker}} would reach the command as {1}"
						}
					}
					c.addf(valueNode(v, action), "cluster.fault_commands."+action, "%s: %s; this command takes %s",
						strings.Join(bad, ", "), why, braced(faults.Placeholders(c.faultKinds(), action)))
				}
			}
		case "fault_shell":
			cl.FaultShell = c.boolean(v, "cluster.fault_shell")
		case "metrics":
			cl.Metrics = c.metrics(v)
		case "broker_configs":
			c.brokerConfigsNode = v // per scenario: its values may take ${param}
		case "local":
			c.fields(v, "cluster.local", localFields, func(key string, v *yaml.Node) {
				path := "cluster.local." + key
				switch key {
				case "brokers":
					if b, ok := c.whole(v, path, 1, MaxLocalBrokers); ok {
						cl.Local.Brokers = int(b)
					}
				case "version":
					cl.Local.Version, cl.Local.versionNode = c.text(v, path), v
				case "heap":
					cl.Local.Heap = c.text(v, path)
				case "broker_configs":
					cl.Local.BrokerConfigs = c.properties(v, path)
				case "timeout":
					cl.Local.Timeout = c.duration(v, path) // units refuses 0 and below
				case "tiered_storage":
					cl.Local.TieredStorage = c.boolean(v, path)
				}
			})
		}
	})
}

// body decodes a scenario's topics and workloads (after substitution).
func (c *collector) body(topics, workloads *yaml.Node, sc *Scenario) {
	names := map[string]bool{}
	c.topicNodes = nil // this scenario's
	if topics != nil {
		if topics.Kind != yaml.SequenceNode {
			c.addf(topics, "topics", "is %s; write a list of topics (- name: ...)", kindName(topics))
		} else {
			for i, tn := range topics.Content {
				t := c.topic(tn, fmt.Sprintf("topics[%d]", i))
				if t.Name != "" && names[t.Name] {
					c.addf(tn, fmt.Sprintf("topics[%d].name", i), "topic %q is listed twice; keep one", t.Name)
				}
				names[t.Name] = true
				sc.Topics = append(sc.Topics, t)
				c.topicNodes = append(c.topicNodes, tn)
			}
		}
	}
	if workloads == nil {
		return
	}
	if workloads.Kind != yaml.SequenceNode || len(workloads.Content) == 0 {
		c.addf(workloads, "workloads", "is %s; write a list of at least one workload (- name: ..., type: produce)", kindName(workloads))
		return
	}
	wnames := map[string]bool{}
	for i, wn := range workloads.Content {
		path := fmt.Sprintf("workloads[%d]", i)
		w := c.workload(wn, path)
		if w.Name != "" && wnames[w.Name] {
			c.addf(wn, path+".name", "workload %q is named twice; names must differ", w.Name)
		}
		wnames[w.Name] = true
		sc.Workloads = append(sc.Workloads, w)
		if w.rule().EndToEnd && w.Topic != "" && !names[w.Topic] {
			// Its consumer starts before its producer: a topic nobody
			// prepared fails only once the run has started.
			c.addf(w.topicNode, path+".topic", "%q is not in topics; an end-to-end workload reads its topic from the start, so the plan must prepare it: add {name: %s, partitions: N} to topics (existing: reuse keeps a topic that is there already)", w.Topic, w.Topic)
		}
	}
	c.afterWorkloads(sc.Workloads)
	c.balancedNeedsConsumers(sc.Workloads)
}

func (c *collector) topic(n *yaml.Node, path string) Topic {
	t := Topic{Existing: Recreate}
	var nameSeen, partsSeen bool
	ok := c.fields(n, path, topicFields, func(key string, v *yaml.Node) {
		p := join(path, key)
		switch key {
		case "name":
			nameSeen = true
			t.Name = c.text(v, p)
			if t.Name != "" && !topicNameRE.MatchString(t.Name) {
				c.addf(v, p, "%q is not a legal topic name; use letters, digits, '.', '_' and '-', at most 249 characters", t.Name)
			}
		case "partitions":
			partsSeen = true
			if v, ok := c.whole(v, p, 1, MaxPartitions); ok {
				t.Partitions = int(v)
			}
		case "replication":
			if v, ok := c.whole(v, p, 1, 32767); ok {
				t.Replication = int(v)
			}
		case "configs":
			t.Configs = c.properties(v, p)
		case "existing":
			t.Existing = c.oneOf(v, p, Recreate, Reuse, Fail)
		}
	})
	if !ok {
		return t
	}
	if !nameSeen {
		c.addf(n, path+".name", "missing; every topic needs a name")
	}
	if !partsSeen && t.Existing != Reuse {
		c.addf(n, path+".partitions", "missing; give the partition count (existing: %s creates the topic)", t.Existing)
	}
	return t
}

// clusterConflicts checks that the plan names one cluster: a running local
// one by name, a remote one by bootstrap, or none (kbench starts one).
func (c *collector) clusterConflicts(given map[string]*yaml.Node) {
	if m := given["metrics"]; m != nil && given["bootstrap"] == nil {
		c.addf(m, "cluster.metrics", "are a remote cluster's endpoints, with cluster.bootstrap; kbench reads the metrics of a local cluster's brokers itself: leave metrics out")
	}
	name := given["name"]
	if name == nil {
		return
	}
	if given["bootstrap"] != nil {
		c.addf(given["bootstrap"], "cluster.bootstrap", "give name (a cluster started with kbench cluster up) or bootstrap (any other cluster), not both; kbench takes the named cluster's bootstrap from its state")
	}
	if given["local"] != nil {
		c.addf(given["local"], "cluster.local", "describes the cluster kbench starts for the plan; with cluster.name the plan runs on that cluster, already running: leave local out")
	}
	if given["fault_commands"] != nil {
		c.addf(given["fault_commands"], "cluster.fault_commands", "apply to a remote cluster; kbench signals the brokers of the cluster named in cluster.name itself: leave fault_commands out")
	}
}

// valueNode is the value of key in mapping m, or m itself.
func valueNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return m
}

// braced writes names as placeholders: {broker}, {peer}.
func braced(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "{" + n + "}"
	}
	return strings.Join(out, ", ")
}
