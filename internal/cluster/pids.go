package cluster

// PIDs returns the process id of every broker that runs now (paused
// ones included), by broker id: what measuring the brokers' own cost
// reads /proc for. A broker restarted by hand or by another kbench is
// found by its config, as Status finds it.
func (c *Cluster) PIDs() map[int]int {
	out := map[int]int{}
	for _, id := range c.ids() {
		b, ok := c.Broker(id)
		if !ok || c.state(b) == procGone {
			continue
		}
		if b, ok = c.Broker(id); ok && b.PID > 0 { // state may have found a new pid
			out[id] = b.PID
		}
	}
	return out
}
