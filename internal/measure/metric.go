package measure

import "strings"

// Metric is one row of the Java clients' --print-metrics table: a Kafka
// MetricName (group, name, tags) and its value.
type Metric struct {
	Group string
	Name  string
	// Tags are printed in this order, as Java's LinkedHashMap of tags
	// does: the client's tags (client-id) first, then the metric's own
	// (node-id, topic).
	Tags []Tag
	// Value is a float64, printed like Java's %.3f, or anything else,
	// printed like Java's %s (strings as they are, integers in decimal).
	Value any
}

// Tag is one key=value pair of a Metric's tags.
type Tag struct{ Key, Value string }

// Key returns the name Java prints for m: group:name:{k1=v1, k2=v2}, the
// tags as Java's Map.toString writes them.
func (m Metric) Key() string {
	var b strings.Builder
	b.WriteString(m.Group)
	b.WriteByte(':')
	b.WriteString(m.Name)
	b.WriteString(":{")
	for i, t := range m.Tags {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Key)
		b.WriteByte('=')
		b.WriteString(t.Value)
	}
	b.WriteByte('}')
	return b.String()
}
