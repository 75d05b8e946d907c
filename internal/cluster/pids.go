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

// DataDirs returns every broker's data directory (its log.dirs), by
// broker id: what measuring the brokers' disks finds the devices by.
func (c *Cluster) DataDirs() map[int]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int]string, len(c.Brokers))
	for _, b := range c.Brokers {
		out[b.ID] = dataDir(b)
	}
	return out
}

// ProxyPID is the network proxies' process on a network-faults cluster
// while it runs (0 otherwise): every record crosses it, so its CPU is
// the network's cost on this machine.
func (c *Cluster) ProxyPID() int {
	n := c.network()
	if n == nil || n.Down != "" {
		return 0
	}
	return n.PID
}
