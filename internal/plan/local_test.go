package plan

import (
	"strings"
	"testing"
	"time"
)

// TestLocalTimeout: a plan's own cluster takes the start bound cluster up
// takes as --timeout (regression: the README's first command on a loaded
// machine failed after 90 s and no plan setting could raise it), and a
// bound that is not positive is refused where it is written.
func TestLocalTimeout(t *testing.T) {
	t.Parallel()
	const base = "name: p\ncluster:\n  local: {brokers: 1, timeout: %s}\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 1}, records: 1}]\n"
	p, err := Parse("plan.yaml", []byte(strings.Replace(base, "%s", "3m", 1)), nil)
	if err != nil || p.Cluster.Local.Timeout != 3*time.Minute {
		t.Fatalf("timeout: 3m: %v, %v", err, p)
	}
	for _, bad := range []struct{ value, want string }{
		{"0s", "plan.yaml:3:32: cluster.local.timeout: \"0s\": a duration must be above 0"},
		{"soon", "plan.yaml:3:32: cluster.local.timeout:"},
	} {
		_, err := Parse("plan.yaml", []byte(strings.Replace(base, "%s", bad.value, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("timeout: %s: %v; want %q", bad.value, err, bad.want)
		}
	}
}
