package plan

import (
	"fmt"
	"strings"
	"time"
)

// WaitRemote is wait_for's value: start once the topic's oldest records
// are only in the remote tier.
const WaitRemote = "remote"

// WaitNone is wait_for's other value, the default: no wait (a matrix
// compares reads from both tiers with wait_for: ${wait}).
const WaitNone = "none"

// RemoteWait bounds wait_for: remote. A few MB on small segments move
// within seconds of being written (the local cluster copies and drops
// local segments every second); more than this is a topic whose segments
// never roll or whose local retention keeps them.
const RemoteWait = 2 * time.Minute

// remoteEnabled reports whether a topic's configs enable remote storage.
func remoteEnabled(t Topic) bool {
	return strings.EqualFold(t.Configs["remote.storage.enable"], "true")
}

// localRetention reports whether a topic's configs bound what stays in
// local segments.
func localRetention(t Topic) bool {
	bounded := func(v string) bool { return v != "" && v != "-2" } // -2: the topic's retention
	return bounded(t.Configs["local.retention.ms"]) || bounded(t.Configs["local.retention.bytes"])
}

// tiered checks a scenario's tiered storage: a workload that waits for the
// remote tier reads a topic the plan prepares with remote storage enabled
// (on a cluster kbench did not start, that is all kbench can check), and
// the cluster kbench starts has tiered storage when a topic enables it,
// with a local retention that lets the segments go.
func (c *collector) tiered(p *Plan, sc *Scenario) {
	topics := map[string]Topic{}
	for _, t := range sc.Topics {
		topics[t.Name] = t
	}
	starts := p.Cluster.Bootstrap == "" && p.Cluster.Name == ""
	brokerRetention := p.Cluster.Local.BrokerConfigs["log.local.retention.ms"] != "" || p.Cluster.Local.BrokerConfigs["log.local.retention.bytes"] != ""
	for i, t := range sc.Topics {
		if !remoteEnabled(t) {
			continue
		}
		p.Cluster.Local.RemoteStorage = true
		if starts && !p.Cluster.Local.TieredStorage {
			c.addf(valueNode(valueNode(c.topicNodes[i], "configs"), "remote.storage.enable"), fmt.Sprintf("topics[%d].configs.remote.storage.enable", i),
				"the cluster kbench starts for the plan has no tiered storage, and Kafka refuses the topic; add cluster.local.tiered_storage: true")
		}
	}
	for i, w := range sc.Workloads {
		if w.WaitFor != WaitRemote {
			continue
		}
		p.Cluster.Local.RemoteStorage = true
		path := fmt.Sprintf("workloads[%d].wait_for", i)
		t, ok := topics[w.Topic]
		switch {
		case !ok:
			c.addf(w.waitForNode, path, "topic %q is not in topics, so kbench cannot know that its records go to a remote tier; add {name: %s, partitions: N, configs: {remote.storage.enable: true, local.retention.bytes: 1, segment.bytes: 1048576}} to topics (existing: reuse keeps a topic that is there already)", w.Topic, w.Topic)
		case !remoteEnabled(t):
			c.addf(w.waitForNode, path, "topic %q lacks remote.storage.enable: true in its configs, so its records never reach the remote tier; add configs: {remote.storage.enable: true, local.retention.bytes: 1, segment.bytes: 1048576}", w.Topic)
		case starts && !localRetention(t) && !brokerRetention:
			c.addf(w.waitForNode, path, "topic %q keeps every segment locally (its local retention is its retention, 7 days by default), so no read is served from the remote tier; add local.retention.bytes: 1 (or local.retention.ms) to its configs", w.Topic)
		}
	}
}

// TieredLine says, for the dry run, what a workload that waits for the
// remote tier will check before it starts ("" for any other workload).
func (w *Workload) TieredLine() string {
	if w.WaitFor != WaitRemote {
		return ""
	}
	return fmt.Sprintf("%s waits (at most %s) until every partition of topic %s holding records has its oldest records only in the remote tier (ListOffsets: its earliest local offset past its earliest offset), then reads from the start", w.Name, RemoteWait, w.Topic)
}
