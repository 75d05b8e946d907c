package plan

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
)

// WithFaultKind accepts one more fault kind (a test's), beside the
// built-in ones.
func WithFaultKind(k faults.Kind) Option {
	return func(c *collector) { c.faultKinds()[k.Name] = k }
}

// faultKinds are the fault kinds the plan may use, by action name:
// faults.Kinds() and any added with WithFaultKind.
func (c *collector) faultKinds() map[string]faults.Kind {
	if c.kinds == nil {
		c.kinds = faults.Kinds()
	}
	return c.kinds
}

// actions are the fault kinds' names, sorted.
func (c *collector) actions() []string { return faults.Names(c.faultKinds()) }

// faultFields are a fault's fields: every fault's, and every kind's
// parameters.
func (c *collector) faultFields() []string {
	return append(slices.Clone(commonFaultFields), faults.ParamNames(c.faultKinds())...)
}

// faultCommandActions are the keys cluster.fault_commands takes: the
// commands of every kind (a bounce runs the restart command).
func (c *collector) faultCommandActions() []string { return faults.CommandNames(c.faultKinds()) }

var (
	// commonFaultFields are every fault's; a kind's parameters go beside
	// them (a bounce's times).
	commonFaultFields = []string{"name", "action", "target", "between", "at", "after", "delay"}
	targetFields      = []string{"broker", "leader", "controller", "fault"}
	leaderFields      = []string{"topic", "partition"}
)

// faultNodes remembers where each fault was written, for checks that need
// the scenarios.
type faultNodes struct {
	list   []*yaml.Node
	at     []*yaml.Node // its at or delay value (nil when neither)
	target []*yaml.Node // its target (the fault itself when missing)
}

// faults decodes a scenario's fault timeline (after substitution).
func (c *collector) faults(n *yaml.Node) ([]faults.Fault, faultNodes) {
	var nodes faultNodes
	var out []faults.Fault
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		c.addf(n, "faults", "is %s; write a list of faults (- action: kill, target: {broker: 1}, at: 30s)", kindName(n))
		return nil, nodes
	}
	names := map[string]bool{}
	kinds, actions, fields := c.faultKinds(), c.actions(), c.faultFields()
	for i, fn := range n.Content {
		path := fmt.Sprintf("faults[%d]", i)
		var f faults.Fault
		given := map[string]*yaml.Node{}
		if !c.fields(fn, path, fields, func(key string, v *yaml.Node) {
			given[key] = v
			kp := join(path, key)
			switch key {
			case "name":
				f.Name = c.text(v, kp)
				if f.Name != "" && names[f.Name] {
					c.addf(v, kp, "fault %q is named twice; names must differ", f.Name)
				}
			case "action":
				f.Action = c.oneOf(v, kp, actions...)
			case "target":
				f.Target = c.faultTarget(v, kp, names)
			case "between":
				f.Between = c.between(v, kp, names)
			case "at", "delay":
				f.At = c.duration(v, kp)
			case "after":
				f.After = c.text(v, kp)
				if f.After != "" && !names[f.After] {
					c.addf(v, kp, "no earlier fault is named %q; name the fault it follows (name: ...) above this one", f.After)
				}
			}
		}) {
			continue
		}
		names[f.Name] = true
		if given["action"] == nil {
			c.addf(fn, path+".action", "missing; one of %s", quoteList(actions))
		}
		if given["target"] == nil && (given["between"] == nil || !faults.IsNetwork(kinds[f.Action])) {
			c.addf(fn, path+".target", "missing; write {broker: 1}, {leader: {topic: T, partition: 0}}, controller or {fault: NAME}")
		}
		k, known := kinds[f.Action]
		latency, meant := requiredDuration(k)
		switch {
		case given["at"] != nil && given["after"] != nil:
			c.addf(given["after"], path+".after", "give at (from the workloads' start) or after with delay, not both")
		case given["delay"] != nil && given["after"] == nil && meant:
			c.addf(given["delay"], path+".delay", "delay counts from the fault named in after; a %s fault's %s is %s", f.Action, latency.Name, paramExample(latency))
		case given["delay"] != nil && given["after"] == nil:
			c.addf(given["delay"], path+".delay", "delay counts from the fault named in after; add after, or use at")
		case given["at"] == nil && given["after"] == nil:
			c.addf(fn, path+".at", "missing; say when: at: 30s from the workloads' start, or after: NAME with delay: 10s")
		}
		if known {
			f.Params = c.faultParams(k, f.Action, path, given)
			c.networkFault(&f, k, fn, path, given, out)
		}
		when := given["at"]
		if when == nil {
			when = given["delay"]
		}
		nodes.list = append(nodes.list, fn)
		if tn := given["target"]; tn != nil {
			nodes.target = append(nodes.target, tn)
		} else if bn := given["between"]; bn != nil {
			nodes.target = append(nodes.target, bn)
		} else {
			nodes.target = append(nodes.target, fn)
		}
		nodes.at = append(nodes.at, when)
		out = append(out, f)
	}
	return out, nodes
}

// requiredDuration is the duration kind k must be given, if any (a
// delay's latency): a fault's delay field beside it without an after was
// likely meant for it.
func requiredDuration(k faults.Kind) (faults.Param, bool) {
	for _, p := range k.Params {
		if p.Required && p.Kind == faults.DurationParam {
			return p, true
		}
	}
	return faults.Param{}, false
}

// faultParams reads the parameters of an action of kind k from the fields
// given beside it, each by its grammar; a parameter of another kind is an
// error that says which kinds take it.
func (c *collector) faultParams(k faults.Kind, action, path string, given map[string]*yaml.Node) faults.Params {
	var ps faults.Params
	for _, name := range faults.ParamNames(c.faultKinds()) {
		v := given[name]
		if v == nil {
			continue
		}
		kp := join(path, name)
		p, ok := faults.ParamOf(k, name)
		if !ok {
			c.addf(v, kp, "%s; leave %s out of a %s", c.takenBy(name), name, action)
			continue
		}
		val, ok := c.faultParam(v, kp, p)
		if !ok {
			continue
		}
		if ps == nil {
			ps = faults.Params{}
		}
		ps[name] = val
	}
	return ps
}

// faultParam reads one parameter's value by its kind's grammar.
func (c *collector) faultParam(v *yaml.Node, path string, p faults.Param) (any, bool) {
	switch p.Kind {
	case faults.CountParam:
		return c.whole(v, path, p.Min, p.Max)
	case faults.DurationParam:
		if p.Zero && strings.TrimSpace(v.Value) == "0" {
			return time.Duration(0), true
		}
		d := c.duration(v, path)
		return d, d > 0
	case faults.SizeParam:
		n := c.size(v, path, p.Max)
		return n, n > 0
	case faults.RateParam:
		r := c.rateAbove0(v, path)
		return r, r > 0
	case faults.ShareParam:
		return c.share(v, path)
	case faults.ByteRateParam:
		return c.byteRate(v, path, p.Min, p.Max)
	}
	c.addf(v, path, "has a kind of value kbench cannot read")
	return nil, false
}

// takenBy says which kinds take parameter name: "only a bounce repeats".
func (c *collector) takenBy(name string) string {
	var which []string
	does := ""
	for _, action := range c.actions() {
		if p, ok := faults.ParamOf(c.faultKinds()[action], name); ok {
			which, does = append(which, "a "+action), p.Does
		}
	}
	return fmt.Sprintf("only %s %s", strings.Join(which, " or "), does)
}

func (c *collector) faultTarget(n *yaml.Node, path string, names map[string]bool) faults.Target {
	var t faults.Target
	if n.Kind == yaml.ScalarNode && n.Value == "controller" {
		t.Controller = true
		return t
	}
	if n.Kind == yaml.ScalarNode && n.Value == "clients" {
		t.Clients = true
		return t
	}
	set := 0
	c.fields(n, path, targetFields, func(key string, v *yaml.Node) {
		set++
		kp := join(path, key)
		switch key {
		case "broker":
			if b, ok := c.whole(v, kp, 0, 1<<31-1); ok {
				t.Broker = int32(b)
			}
		case "leader":
			t.Leader = &faults.Partition{}
			c.fields(v, kp, leaderFields, func(key string, v *yaml.Node) {
				switch key {
				case "topic":
					t.Leader.Topic = c.text(v, kp+".topic")
				case "partition":
					if pn, ok := c.whole(v, kp+".partition", 0, MaxPartitions-1); ok {
						t.Leader.Partition = int32(pn)
					}
				}
			})
			if t.Leader.Topic == "" {
				c.addf(v, kp+".topic", "missing; name the topic whose partition's leader to act on")
			}
		case "controller":
			if v.Value != "true" {
				c.addf(v, kp, "write controller: true, or target: controller")
			}
			t.Controller = true
		case "fault":
			t.Fault = c.text(v, kp)
			if t.Fault != "" && !names[t.Fault] {
				c.addf(v, kp, "no earlier fault is named %q; the target is the broker that fault acted on", t.Fault)
			}
		}
	})
	if n.Kind == yaml.MappingNode && set != 1 {
		c.addf(n, path, "give exactly one of broker, leader, controller or fault")
	}
	return t
}

// checkFaults checks a scenario's timeline against the cluster and the
// scenario: brokers that exist, leaders of topics it prepares, faults due
// before it ends, commands that can run.
func (c *collector) checkFaults(p *Plan, sc *Scenario, nodes faultNodes, clusterNode *yaml.Node) {
	if len(sc.Faults) == 0 || len(nodes.list) != len(sc.Faults) {
		return
	}
	local := p.Cluster.Bootstrap == ""
	brokers := max(p.Cluster.Local.Brokers, 1)
	used := map[string]bool{}
	for i, f := range sc.Faults {
		path := fmt.Sprintf("faults[%d].target", i)
		if k, ok := c.faultKinds()[f.Action]; ok {
			for _, cmd := range k.Commands() {
				used[cmd] = true
			}
		}
		for _, tg := range faultTargets(f) {
			c.checkTarget(p, sc, tg, nodes.target[i], path, local, brokers)
		}
		if len(f.Between) == 2 {
			// Only the plan's own cluster has a broker count known here: a
			// named or remote one's leader is any of its brokers
			// (regression: {leader: ...} beside {broker: 1} on a named
			// cluster was refused as broker 1 linked with itself).
			planCluster := local && p.Cluster.Name == ""
			linkBrokers := 0
			if planCluster {
				linkBrokers = brokers
			}
			c.checkLink(f, nodes.target[i], fmt.Sprintf("faults[%d]", i), planCluster, linkBrokers)
		}
	}
	// A fault due after its scenario stops sending will not happen, unless
	// the run lasts longer than its estimate (a rate it cannot keep up, a
	// restart before it that takes long): a warning.
	if end, ok := sc.Estimate(); ok {
		for i := range sc.Faults {
			due := dueAt(sc.Faults, i)
			if due >= end && nodes.at[i] != nil {
				c.warnf(nodes.at[i], fmt.Sprintf("faults[%d]", i), "is due at %s, but scenario %q stops sending at %s: it will not happen; move it earlier or make the workloads run longer", due, sc.Name, end)
			}
		}
	}
	if local {
		if len(p.Cluster.FaultCommands) > 0 && p.Cluster.Name == "" {
			c.addf(clusterNode, "cluster.fault_commands", "apply to a remote cluster (cluster.bootstrap); kbench signals the local cluster's brokers itself")
		}
		return
	}
	for _, action := range sortedSet(used) {
		cmd, ok := p.Cluster.FaultCommands[action]
		if !ok {
			c.addf(clusterNode, "cluster.fault_commands."+action, "missing; on a remote cluster kbench runs your command for each action, e.g. %s: %s (docs/faults.md)", action, c.commandExample(action))
			continue
		}
		prog := "sh"
		if !p.Cluster.FaultShell {
			words, err := faults.SplitCommand(cmd)
			if err != nil {
				c.addf(clusterNode, "cluster.fault_commands."+action, "%v", err)
				continue
			}
			prog = words[0]
		}
		if _, err := exec.LookPath(prog); err != nil {
			c.addf(clusterNode, "cluster.fault_commands."+action, "%q cannot be run: %v; give a full path or install it", prog, err)
		}
	}
}

// faultTargets are the targets a fault names: its target, or every one
// of its link's.
func faultTargets(f faults.Fault) []faults.Target {
	if len(f.Between) != 2 {
		return []faults.Target{f.Target}
	}
	return append(append([]faults.Target(nil), f.Between[0].Targets...), f.Between[1].Targets...)
}

// checkTarget checks a target against the cluster and the scenario:
// brokers that exist, leaders of topics it prepares.
func (c *collector) checkTarget(p *Plan, sc *Scenario, tg faults.Target, n *yaml.Node, path string, local bool, brokers int) {
	isBroker := tg.Leader == nil && !tg.Controller && tg.Fault == "" && !tg.Clients
	switch {
	case isBroker && p.Cluster.Name != "":
		// The named cluster's brokers are known once it is loaded.
		pr := c.problem(n, path+".broker", "")
		p.brokerRefs = append(p.brokerRefs, brokerRef{id: tg.Broker, where: strings.TrimSuffix(pr.String(), ": ")})
	case isBroker && local:
		if b := int(tg.Broker); b < 1 || b > brokers {
			c.addf(n, path+".broker", "the local cluster has brokers 1 to %d, not %d; pick one of them or raise cluster.local.brokers", brokers, b)
		}
	}
	if l := tg.Leader; l != nil && l.Topic != "" {
		t, ok := findTopic(sc.Topics, l.Topic)
		switch {
		case !ok:
			c.addf(n, path+".leader.topic", "topic %q is not in topics; name a topic the plan prepares", l.Topic)
		case t.Partitions > 0 && int(l.Partition) >= t.Partitions:
			c.addf(n, path+".leader.partition", "topic %q has %d partitions (0 to %d), not %d", l.Topic, t.Partitions, t.Partitions-1, l.Partition)
		}
	}
}

// checkLink refuses a link that carries no connection: a broker and
// itself, the clients and the clients, or, on the local cluster of n
// brokers the plan starts, ends between which no connection runs.
func (c *collector) checkLink(f faults.Fault, n *yaml.Node, path string, planCluster bool, brokers int) {
	a, aKnown := staticEnds(f.Between[0], brokers)
	b, bKnown := staticEnds(f.Between[1], brokers)
	what := "a " + f.Action
	nothing := func(e faults.Ends) bool { return !e.Clients && !e.Brokers && !e.Controllers && len(e.Nodes) == 0 }
	if (aKnown && nothing(a)) || (bKnown && nothing(b)) {
		return // a side left empty by its own error (a word or zone not known, a zone of no valid broker): said already
	}
	if id := faults.SameNode(a, b); aKnown && bKnown && id >= 0 {
		c.addf(n, path+".between", "links broker %d with itself: a broker reaches itself without the network; name another broker, brokers, controllers or clients as the other end", id)
		return
	}
	onlyClients := func(e faults.Ends) bool { return e.Clients && !e.Brokers && !e.Controllers && len(e.Nodes) == 0 }
	carries := faults.Carries(a, b, brokers)
	if (onlyClients(a) && onlyClients(b)) || (planCluster && aKnown && bKnown && !carries) {
		c.addf(n, path+".between", "%s between %s and %s isolates nothing: no connection runs between them (clients reach brokers, a broker every other broker and controller); name ends that talk to each other", what, f.Between[0], f.Between[1])
	}
}

// staticEnds is a side as far as the plan knows it: broker ids, and on a
// one-broker cluster any target is broker 1; known is false when a target
// is resolved only when the fault happens.
func staticEnds(s faults.Side, brokers int) (faults.Ends, bool) {
	e := faults.Ends{Brokers: s.Brokers, Controllers: s.Controllers, Clients: s.Clients}
	for _, z := range s.Zones {
		e = e.Union(z.Ends())
	}
	known := true
	for _, tg := range s.Targets {
		id := tg.Broker
		if tg.Leader != nil || tg.Controller || tg.Fault != "" {
			if brokers != 1 {
				known = false
				continue
			}
			id = 1
		}
		e.Nodes = append(e.Nodes, id)
	}
	return e, known
}

// dueAt is the earliest time fault i can happen: its at, plus the times of
// the faults it follows.
func dueAt(fs []faults.Fault, i int) time.Duration {
	d := fs[i].At
	for seen := 0; fs[i].After != "" && seen < len(fs); seen++ {
		j := indexOfFault(fs, fs[i].After)
		if j < 0 {
			break
		}
		d += fs[j].At
		i = j
	}
	return d
}

func indexOfFault(fs []faults.Fault, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func findTopic(ts []Topic, name string) (Topic, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// commandExample is an example command for action, a key of
// cluster.fault_commands.
func (c *collector) commandExample(action string) string {
	if e := faults.Example(c.faultKinds(), action); e != "" {
		return e
	}
	return "kubectl delete pod kafka-{broker}"
}

// verifyDefaults turns verification on for produce workloads of a plan
// with faults, and checks where it was asked for.
func (c *collector) verifyDefaults(p *Plan) {
	for si := range p.scenarios {
		sc := &p.scenarios[si]
		for _, f := range sc.Faults {
			if k, ok := c.faultKinds()[f.Action]; ok && faults.IsNetwork(k) {
				p.Cluster.Local.NetworkFaults = true
			}
		}
		for wi := range sc.Workloads {
			w := &sc.Workloads[wi]
			path := fmt.Sprintf("workloads[%d].verify", wi)
			if w.verifyNode == nil {
				w.Verify = len(sc.Faults) > 0 && w.rule().Verify && w.MaxRate == nil
				continue
			}
			if !w.Verify {
				continue
			}
			switch {
			case !w.rule().Verify:
				c.addf(w.verifyNode, path, "verification reads back what a produce workload wrote; a %s workload has nothing to verify", w.Type)
			case w.MaxRate != nil:
				c.addf(w.verifyNode, path, "rate: max runs many short probes; verify a workload with a fixed rate or count")
			case w.LatestPerKey && w.Message.KeyRange == 0 && w.Message.KeyTemplate == nil:
				c.addf(w.verifyNode, path+".latest_per_key", "needs keyed records: give the message keys (key_range: 1000, or key: {template: ...})")
			case w.LatestPerKey:
				for _, t := range sc.Topics {
					if t.Name == w.Topic && t.Existing != Reuse && !strings.Contains(t.Configs["cleanup.policy"], "compact") {
						c.addf(w.verifyNode, path+".latest_per_key", "topic %s is not compacted: give it configs: {cleanup.policy: compact} (compaction keeps the newest value per key, which this checks)", t.Name)
					}
				}
			}
		}
	}
}
