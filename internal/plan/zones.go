package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
)

var networkFields = []string{"zones"}

// zoneNameRE is what a zone may be called: a word a link's side can name
// without quotes.
var zoneNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// zoneForm says how a zone is written, for errors.
const zoneForm = "write a list of broker ids, with clients if the clients sit in it, such as a: [1, 2] or b: [3, clients]"

// zoneDef is a zone as the plan declares it: the zone, and where each of
// its brokers is written (for the checks against the cluster).
type zoneDef struct {
	zone    faults.Zone
	brokers []*yaml.Node // each broker id's node, as zone.Brokers
	paths   []string     // and its path
}

// network reads network.zones: named sets of nodes that a network fault's
// between names as one side. A broker or the clients belong to at most one
// zone: overlapping zones would make "between: [a, b]" cut or slow a
// node's link to itself, or name the same link twice.
func (c *collector) network(n *yaml.Node) {
	c.zones = map[string]*zoneDef{}
	c.fields(n, "network", networkFields, func(key string, v *yaml.Node) {
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			c.addf(v, "network.zones", "is %s; write a mapping of zone names to their nodes: zones: {a: [1, 2], b: [3, clients]}", shape(v))
			return
		}
		owner := map[string]string{} // "broker 2", "the clients" → its zone
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, zn := v.Content[i], v.Content[i+1]
			name := k.Value
			path := "network.zones." + name
			switch {
			case c.zones[name] != nil:
				c.addf(k, path, "given twice; keep one")
				continue
			case slices.Contains(sideWords, name):
				c.addf(k, path, "%q is a word of between itself (%s); name the zone otherwise, such as zone-a", name, strings.Join(sideWords, ", "))
				continue
			case !zoneNameRE.MatchString(name):
				c.addf(k, path, "%q: a zone's name is lower-case letters, digits, '-' and '_', starting with a letter, such as a or eu-west-1a", name)
				continue
			}
			d := c.zone(zn, path, name, owner)
			c.zones[name] = d
		}
	})
}

// zone reads one zone's list; owner says which zone took each node so far.
func (c *collector) zone(n *yaml.Node, path, name string, owner map[string]string) *zoneDef {
	d := &zoneDef{zone: faults.Zone{Name: name}}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		c.addf(n, path, "is empty; %s", zoneForm)
		return d
	}
	for j, it := range items {
		ip := path
		if n.Kind == yaml.SequenceNode {
			ip = fmt.Sprintf("%s[%d]", path, j)
		}
		if it.Kind != yaml.ScalarNode {
			c.addf(it, ip, "is %s; %s", kindName(it), zoneForm)
			continue
		}
		who, is := "broker "+it.Value, "is"
		if it.Value == "clients" {
			who, is = "the clients", "are"
		} else {
			id, err := strconv.ParseInt(it.Value, 10, 32)
			if err != nil || id < 0 {
				c.addf(it, ip, "%q is neither a broker id nor clients; %s", it.Value, zoneForm)
				continue
			}
		}
		switch prev, taken := owner[who]; {
		case taken && prev == name:
			c.addf(it, ip, "%s %s listed twice in zone %s; keep one", who, is, name)
			continue
		case taken:
			c.addf(it, ip, "%s %s in zone %s already; zones may not overlap (a link between them would link %s with %s): put %s in one of them", who, is, prev, who, who, who)
			continue
		}
		owner[who] = name
		if it.Value == "clients" {
			d.zone.Clients = true
			continue
		}
		id, _ := strconv.ParseInt(it.Value, 10, 32)
		d.zone.Brokers = append(d.zone.Brokers, int32(id))
		d.brokers = append(d.brokers, it)
		d.paths = append(d.paths, ip)
	}
	return d
}

// checkZones checks the zones' brokers against the cluster: the local
// cluster the plan starts has brokers 1 to its size; a named one is known
// only once loaded (CheckBrokers); a remote cluster's ids are its own.
func (c *collector) checkZones(p *Plan) {
	local := p.Cluster.Bootstrap == ""
	brokers := max(p.Cluster.Local.Brokers, 1)
	for _, name := range sortedZones(c.zones) {
		d := c.zones[name]
		var valid []int32
		for j, id := range d.zone.Brokers {
			n, path := d.brokers[j], d.paths[j]
			switch {
			case local && p.Cluster.Name != "":
				pr := c.problem(n, path, "")
				p.brokerRefs = append(p.brokerRefs, brokerRef{id: id, where: strings.TrimSuffix(pr.String(), ": ")})
			case local && (id < 1 || int(id) > brokers):
				c.addf(n, path, "the local cluster has brokers 1 to %d, not %d; pick one of them or raise cluster.local.brokers", brokers, id)
				continue // said once, here, not again by every link naming the zone
			}
			valid = append(valid, id)
		}
		d.zone.Brokers = valid
	}
}

func sortedZones(zs map[string]*zoneDef) []string {
	names := make([]string, 0, len(zs))
	for name := range zs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// zoneNames are the plan's zones, for a side's allowed words.
func (c *collector) zoneNames() []string { return sortedZones(c.zones) }
