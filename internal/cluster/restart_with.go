package cluster

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/kbench/kbench/internal/javaprops"
)

// RestartWith sets static broker settings in broker id's server.properties
// (a nil value removes the setting: the broker's default again) and
// restarts it (Restart), so that it runs with them: a plan's static
// cluster.broker_configs, put in force one broker at a time. It returns
// the values the file held before (nil: absent), which put back the
// broker as it was. Only the cluster kbench started has such a file.
func (c *Cluster) RestartWith(ctx context.Context, id int, set map[string]*string) (map[string]*string, error) {
	b, ok := c.Broker(id)
	if !ok {
		return nil, fmt.Errorf("restart: cluster %q has no broker %d", c.Name, id)
	}
	data, err := os.ReadFile(b.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("broker %d's settings: %w", id, err)
	}
	props, err := javaprops.Parse(string(data), b.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("broker %d's settings: %w", id, err)
	}
	now := make(map[string]string, len(props))
	for _, p := range props {
		now[p.Key] = p.Value
	}
	before := make(map[string]*string, len(set))
	for k, v := range set {
		if slices.Contains(reservedProps, k) {
			return nil, fmt.Errorf("broker %d: %s is set by kbench to wire the nodes together", id, k)
		}
		if old, ok := now[k]; ok {
			before[k] = &old
		} else {
			before[k] = nil
		}
		if v == nil {
			delete(now, k)
		} else {
			now[k] = *v
		}
	}
	if err := os.WriteFile(b.ConfigPath, renderProps(now), 0o644); err != nil {
		return nil, fmt.Errorf("broker %d's settings: %w", id, err)
	}
	if err := c.Restart(ctx, id); err != nil {
		return before, err
	}
	return before, nil
}
