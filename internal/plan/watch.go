package plan

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// watch is watch: {groups: [orders-service, billing]}.
func (c *collector) watch(n *yaml.Node) *Watch {
	w := &Watch{}
	c.fields(n, "watch", []string{"groups"}, func(key string, v *yaml.Node) {
		path := "watch.groups"
		if v.Kind != yaml.SequenceNode {
			c.addf(v, path, "is %s; write a list of consumer group names, such as [orders-service]", kindName(v))
			return
		}
		if len(v.Content) == 0 {
			c.addf(v, path, "is an empty list; write a list of consumer group names, such as [orders-service]")
			return
		}
		seen := map[string]bool{}
		for i, g := range v.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			name := c.text(g, p)
			switch {
			case name == "" && g.Kind == yaml.ScalarNode:
				c.addf(g, p, "is empty; give a consumer group's name")
			case seen[name]:
				c.addf(g, p, "%q is given twice; keep one", name)
			case name != "":
				seen[name] = true
				w.Groups = append(w.Groups, name)
			}
		}
	})
	if n.Kind == yaml.MappingNode && len(w.Groups) == 0 && len(n.Content) == 0 {
		c.addf(n, "watch", "is empty; give the groups to watch: {groups: [orders-service]}")
	}
	return w
}
