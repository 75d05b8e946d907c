package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/units"
)

// sideWords are the words a side of a network fault's link may be, beside
// its targets.
var sideWords = []string{"brokers", "controllers", "clients", "controller"}

// betweenForms says how a link is written, for errors.
const betweenForms = "write between: [A, B], each a broker ({broker: 1}), {leader: {topic: T, partition: 0}}, controller, {fault: NAME}, brokers, controllers, clients, a zone of network.zones, or a list of them"

// between reads a network fault's link: two sides.
func (c *collector) between(n *yaml.Node, path string, names map[string]bool) []faults.Side {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		c.addf(n, path, "is %s; %s", shape(n), betweenForms)
		return nil
	}
	var sides []faults.Side
	for i, sn := range n.Content {
		sides = append(sides, c.side(sn, fmt.Sprintf("%s[%d]", path, i), names))
	}
	for _, z := range sides[0].Zones {
		if slices.ContainsFunc(sides[1].Zones, func(o faults.Zone) bool { return o.Name == z.Name }) {
			c.addf(n, path, "links zone %s with itself: a link runs between two zones, each node on one side; name another zone, brokers, controllers or clients as the other end", z.Name)
		}
	}
	return sides
}

// shape names what a node is, with the length of a list.
func shape(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return fmt.Sprintf("a list of %d", len(n.Content))
	}
	return kindName(n)
}

// side reads one end of a link: a word, a target, or a list of them.
func (c *collector) side(n *yaml.Node, path string, names map[string]bool) faults.Side {
	var s faults.Side
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	for _, it := range items {
		if it.Kind == yaml.ScalarNode {
			switch it.Value {
			case "brokers":
				s.Brokers = true
			case "controllers":
				s.Controllers = true
			case "clients":
				s.Clients = true
			case "controller":
				s.Targets = append(s.Targets, faults.Target{Controller: true})
			default:
				if d := c.zones[it.Value]; d != nil {
					s.Zones = append(s.Zones, d.zone)
					continue
				}
				c.oneOf(it, path, append(slices.Clone(sideWords), c.zoneNames()...)...)
			}
			continue
		}
		if it.Kind != yaml.MappingNode {
			c.addf(it, path, "is %s; %s", kindName(it), betweenForms)
			continue
		}
		s.Targets = append(s.Targets, c.faultTarget(it, path, names))
	}
	return s
}

// linkOf fills in a network fault's link from its target when between is
// not given: a broker's every link (the other nodes and the clients), or
// the clients' links to every broker.
func linkOf(t faults.Target) []faults.Side {
	if t.Clients {
		return []faults.Side{{Clients: true}, {Brokers: true}}
	}
	return []faults.Side{{Targets: []faults.Target{t}}, {Brokers: true, Controllers: true, Clients: true}}
}

// networkFault checks and completes fault f of a network kind (or a heal).
func (c *collector) networkFault(f *faults.Fault, k faults.Kind, fn *yaml.Node, path string, given map[string]*yaml.Node, earlier []faults.Fault) {
	network := faults.IsNetwork(k)
	switch {
	case k.Effect.Heals:
		if given["between"] != nil {
			c.addf(given["between"], path+".between", "a heal undoes the fault named in its target; leave between out")
		}
		if tn := given["target"]; tn != nil && f.Target.Fault == "" {
			c.addf(tn, path+".target", "a heal undoes an earlier network fault: write target: {fault: NAME}")
		}
		if j := indexOfFault(earlier, f.Target.Fault); j >= 0 {
			if !faults.IsNetwork(c.faultKinds()[earlier[j].Action]) {
				c.addf(given["target"], path+".target.fault", "fault %q is a %s, not a network fault; a heal undoes a %s (a broker comes back with restart or resume)", f.Target.Fault, earlier[j].Action, orList(c.networkNames()))
			} else if earlier[j].Params.Duration("duration") > 0 {
				c.addf(given["target"], path+".target.fault", "fault %q heals itself after its duration; give it no duration, or leave this heal out", f.Target.Fault)
			}
		}
		return
	case !network:
		if given["between"] != nil {
			c.addf(given["between"], path+".between", "only network faults (%s) act on a link; a %s acts on its target", strings.Join(c.networkNames(), ", "), f.Action)
		}
		if f.Target.Clients {
			c.addf(given["target"], path+".target", "a %s acts on a broker; only network faults (%s) act on the clients' side", f.Action, strings.Join(c.networkNames(), ", "))
		}
		return
	}
	switch {
	case given["between"] != nil && given["target"] != nil:
		c.addf(given["between"], path+".between", "give target (the broker or clients and every link of it) or between: [A, B], not both")
	case given["between"] != nil:
		if len(f.Between) == 2 {
			f.Target = firstTarget(f.Between[0])
		}
	case given["target"] != nil:
		f.Between = linkOf(f.Target)
	}
	for _, p := range k.Params {
		if p.Required && given[p.Name] == nil {
			c.addf(fn, path+"."+p.Name, "missing; a %s needs %s (%s)", f.Action, p.Name, paramExample(p))
		}
	}
}

// networkNames are the network kinds' names, in the docs' order.
func (c *collector) networkNames() []string { return faults.NetworkNames(c.faultKinds()) }

// orList joins names as a sentence does: "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func firstTarget(s faults.Side) faults.Target {
	if len(s.Targets) > 0 {
		return s.Targets[0]
	}
	return faults.Target{Clients: s.Clients}
}

func paramExample(p faults.Param) string {
	switch p.Kind {
	case faults.DurationParam:
		return p.Name + ": 20ms"
	case faults.ShareParam:
		return p.Name + ": 5%"
	case faults.ByteRateParam:
		return p.Name + ": 1MB/s"
	}
	return p.Name + ": 1"
}

// share reads a share: 5% or a fraction from 0 to 1 (0.05).
func (c *collector) share(n *yaml.Node, path string) (float64, bool) {
	s, ok := c.scalar(n, path, "a share such as 5% or 0.05")
	if !ok {
		return 0, false
	}
	t := strings.TrimSpace(s)
	pct, isPct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
	switch {
	case err != nil || math.IsNaN(v):
		c.addf(n, path, "%q is not a share; write a percentage such as 5%% or a fraction such as 0.05", s)
		return 0, false
	case isPct && (v < 0 || v > 100):
		c.addf(n, path, "%s is outside 0%% to 100%%; write a share such as 5%%", s)
		return 0, false
	case !isPct && v > 1 && v <= 100:
		c.addf(n, path, "%s is above 1; write %s%% for %s percent, or a fraction from 0 to 1", s, t, t)
		return 0, false
	case !isPct && (v < 0 || v > 1):
		c.addf(n, path, "%s is outside 0%% to 100%%; write a share such as 5%% or 0.05", s)
		return 0, false
	}
	if isPct {
		v /= 100
	}
	if v == 0 {
		c.addf(n, path, "%s loses nothing; write a share above 0, such as 5%%", s)
		return 0, false
	}
	return v, true
}

// byteRate reads bytes per second: 1MB/s, 500KB/s, 125000/s.
func (c *collector) byteRate(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	s, ok := c.scalar(n, path, "bytes per second such as 1MB/s")
	if !ok {
		return 0, false
	}
	size, per := strings.TrimSpace(s), ""
	if i := strings.LastIndex(size, "/"); i >= 0 {
		size, per = strings.TrimSpace(size[:i]), strings.TrimSpace(size[i+1:])
	}
	if per != "s" {
		c.addf(n, path, "%q is not bytes per second; write a size per second such as 1MB/s, 500KB/s or 10MiB/s", s)
		return 0, false
	}
	v, err := units.ParseSize(size)
	if err != nil {
		c.addf(n, path, "%v", err)
		return 0, false
	}
	if v < lo || v > hi {
		c.addf(n, path, "%s is out of range; write from %d B/s (1KB/s: the proxies count in KB/s) to %d B/s", s, lo, hi)
		return 0, false
	}
	return v, true
}
