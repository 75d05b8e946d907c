package study

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/result"
)

// Bounds of changing a scenario's broker settings.
const (
	// brokerConfigsTimeout bounds setting them, and seeing every broker
	// take them (a cluster-wide value reaches each broker through the
	// metadata log, in milliseconds).
	brokerConfigsTimeout = 30 * time.Second
	// brokerConfigsRestoreTimeout bounds putting the earlier values back,
	// also after Ctrl-C.
	brokerConfigsRestoreTimeout = 15 * time.Second
)

// setBrokerConfigs puts scenario i's cluster.broker_configs in force
// cluster-wide, records them in rsc as every broker reports them, and
// returns how to put back the values they replaced (a no-op when the
// scenario sets none).
func (s *session) setBrokerConfigs(ctx context.Context, i int, rsc *result.Scenario) (restore func(), err error) {
	want := s.scenarios[i].BrokerConfigs
	if len(want) == 0 {
		return func() {}, nil
	}
	cl, err := kgo.NewClient(s.built[i].Admin...)
	if err != nil {
		return nil, fmt.Errorf("cluster.broker_configs: %w", err)
	}
	adm := kadm.NewClient(cl)
	sctx, cancel := context.WithTimeout(ctx, brokerConfigsTimeout)
	defer cancel()
	earlier, err := clusterDefaults(sctx, adm, want)
	if err != nil {
		cl.Close()
		return nil, err
	}
	put := func(ctx context.Context, configs map[string]*string) error {
		var alter []kadm.AlterConfig
		for _, name := range slices.Sorted(maps.Keys(configs)) {
			if v := configs[name]; v != nil {
				alter = append(alter, kadm.AlterConfig{Op: kadm.SetConfig, Name: name, Value: v})
			} else {
				alter = append(alter, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: name})
			}
		}
		resps, err := adm.AlterBrokerConfigs(ctx, alter)
		if err == nil {
			for _, r := range resps {
				switch {
				case r.Err != nil && r.ErrMessage != "":
					// The broker's own words ("Cannot update these configs
					// dynamically: [log.dirs]"), not the code's description.
					err = errors.New(r.ErrMessage)
				case r.Err != nil:
					err = r.Err
				}
			}
		}
		return err
	}
	restore = func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), brokerConfigsRestoreTimeout)
		defer cancel()
		defer cl.Close()
		err := put(rctx, earlier)
		for err == nil {
			// Read back until the cluster says so: the next scenario reads
			// what to put back after it, and a broker answering from a
			// metadata log a moment behind would give it this one's values.
			now, rerr := clusterDefaults(rctx, adm, want)
			if rerr == nil && sameSettings(now, earlier) {
				break
			}
			select {
			case <-rctx.Done():
				err = fmt.Errorf("the cluster still reports %s", settingsText(now))
			case <-time.After(50 * time.Millisecond):
			}
		}
		if err != nil {
			fmt.Fprintf(s.opt.Progress, "kbench: warning: scenario %s: the broker settings it changed were not put back (%v): check %s on the cluster\n",
				s.scenarios[i].Name, err, strings.Join(slices.Sorted(maps.Keys(want)), ", "))
			return
		}
		fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: broker settings put back: %s\n", s.scenarios[i].Name, settingsText(earlier))
	}
	set := map[string]*string{}
	for k, v := range want {
		set[k] = &v
	}
	if err := put(sctx, set); err != nil && s.restartWith != nil && staticRefusal(err) {
		// Static settings: on kbench's own cluster, a rolling restart.
		cancel()
		restore, err := s.rollBrokerConfigs(ctx, i, adm, set)
		if err != nil {
			cl.Close()
			return nil, err
		}
		seen, err := awaitSettings(ctx, adm, want)
		if err != nil {
			restore()
			cl.Close()
			return nil, err
		}
		rsc.BrokerConfigs = seen
		return func() { restore(); cl.Close() }, nil
	} else if err != nil {
		cl.Close()
		return nil, fmt.Errorf("cluster.broker_configs: the brokers refused %s: %v; only settings a running broker takes (dynamic, cluster-wide: Kafka's docs list their update mode as cluster-wide) can be set here; for a cluster kbench starts, set a static one in cluster.local.broker_configs",
			settingsText(set), err)
	}
	seen, err := awaitSettings(sctx, adm, want)
	if err != nil {
		restore()
		return nil, err
	}
	rsc.BrokerConfigs = seen
	fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: broker settings in force on every broker: %s\n", s.scenarios[i].Name, settingsText(set))
	return restore, nil
}

// clusterDefaults returns the cluster-wide dynamic values the names have
// now (nil: none set, the brokers' own files decide).
func clusterDefaults(ctx context.Context, adm *kadm.Client, names map[string]string) (map[string]*string, error) {
	rcs, err := adm.DescribeBrokerConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster.broker_configs: read the cluster's settings: %w", err)
	}
	out := map[string]*string{}
	for name := range names {
		out[name] = nil
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			return nil, fmt.Errorf("cluster.broker_configs: read the cluster's settings: %w", rc.Err)
		}
		for _, c := range rc.Configs {
			if _, ok := names[c.Key]; ok && c.Source == kmsg.ConfigSourceDynamicDefaultBrokerConfig && c.Value != nil {
				v := *c.Value
				out[c.Key] = &v
			}
		}
	}
	return out, nil
}

// awaitSettings waits until every broker reports want, and returns the
// values they report.
func awaitSettings(ctx context.Context, adm *kadm.Client, want map[string]string) (map[string]string, error) {
	var lag string
	for {
		brokers, err := adm.ListBrokers(ctx)
		if err == nil {
			var rcs kadm.ResourceConfigs
			if rcs, err = adm.DescribeBrokerConfigs(ctx, brokers.NodeIDs()...); err == nil {
				got, behind := map[string]string{}, ""
				for _, rc := range rcs {
					for _, c := range rc.Configs {
						w, ok := want[c.Key]
						if !ok {
							continue
						}
						if c.MaybeValue() != w && behind == "" {
							behind = fmt.Sprintf("broker %s has %s=%s", rc.Name, c.Key, c.MaybeValue())
						}
						got[c.Key] = c.MaybeValue()
					}
				}
				if behind == "" && len(got) == len(want) {
					return got, nil
				}
				lag = behind
				if behind == "" {
					lag = "a setting is not listed by the brokers (misspelt?)"
				}
			}
		}
		if err != nil {
			lag = err.Error()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster.broker_configs: not every broker took the settings within %s: %s", brokerConfigsTimeout, lag)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// settingsText lists settings as name=value, sorted; "(none)" for a
// setting a value did not replace.
func settingsText(configs map[string]*string) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		v := "(the brokers' own)"
		if configs[name] != nil {
			v = strconv.Quote(*configs[name])
			v = v[1 : len(v)-1]
		}
		parts = append(parts, name+"="+v)
	}
	return strings.Join(parts, ", ")
}

// sameSettings reports whether a and b give every name the same value
// (nil: not set).
func sameSettings(a, b map[string]*string) bool {
	for name, v := range b {
		w := a[name]
		if (v == nil) != (w == nil) || v != nil && *v != *w {
			return false
		}
	}
	return true
}

// staticRefusal reports whether the brokers refused settings because
// they cannot change while a broker runs (Kafka: "Cannot update these
// configs dynamically").
func staticRefusal(err error) bool {
	return strings.Contains(err.Error(), "dynamically")
}

// Bounds of a rolling restart for static settings.
const (
	// rollBrokerTimeout bounds one broker's restart and the wait for its
	// partitions to be fully replicated again.
	rollBrokerTimeout = 3 * time.Minute
)

// rollBrokerConfigs puts static settings in force on a local cluster one
// broker at a time: each is restarted with them and the next waits until
// every partition is fully replicated again, so the cluster stays up. The
// time it takes is said, and is no part of any measurement (it happens
// before the scenario's repeats). The restore does the same with the
// values the brokers had.
func (s *session) rollBrokerConfigs(ctx context.Context, i int, adm *kadm.Client, set map[string]*string) (func(), error) {
	name := s.scenarios[i].Name
	roll := func(ctx context.Context, set func(id int) map[string]*string) (map[int]map[string]*string, error) {
		brokers, err := adm.ListBrokers(ctx)
		if err != nil {
			return nil, fmt.Errorf("cluster.broker_configs: list the brokers: %w", err)
		}
		before := map[int]map[string]*string{}
		t0 := time.Now()
		for _, id := range slices.Sorted(slices.Values(brokers.NodeIDs())) {
			if len(set(int(id))) == 0 {
				continue // nothing of this broker's to change
			}
			bctx, cancel := context.WithTimeout(ctx, rollBrokerTimeout)
			fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: restarting broker %d with %s\n", name, id, settingsText(set(int(id))))
			old, err := s.restartWith(bctx, int(id), set(int(id)))
			if err == nil {
				err = awaitReplicated(bctx, adm)
			}
			cancel()
			if old != nil {
				before[int(id)] = old
			}
			if err != nil {
				return before, fmt.Errorf("cluster.broker_configs: restart broker %d: %w", id, err)
			}
		}
		fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: rolling restart done in %s (not measured)\n", name, time.Since(t0).Round(100*time.Millisecond))
		return before, nil
	}
	fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: %s cannot change while a broker runs: a rolling restart puts them in force\n", name, settingsText(set))
	before, err := roll(ctx, func(int) map[string]*string { return set })
	restore := func() {
		rctx := context.WithoutCancel(ctx)
		if _, err := roll(rctx, func(id int) map[string]*string { return before[id] }); err != nil {
			fmt.Fprintf(s.opt.Progress, "kbench: warning: scenario %s: the broker settings it changed were not put back (%v): check %s in the brokers' server.properties\n",
				name, err, strings.Join(slices.Sorted(maps.Keys(set)), ", "))
			return
		}
		fmt.Fprintf(s.opt.Progress, "kbench: scenario %s: broker settings put back\n", name)
	}
	if err != nil {
		restore()
		return nil, err
	}
	return restore, nil
}

// awaitReplicated waits until every partition has all its replicas in
// sync: the next broker can go down without taking a partition offline.
func awaitReplicated(ctx context.Context, adm *kadm.Client) error {
	var behind string
	for {
		md, err := adm.Metadata(ctx)
		if err == nil {
			behind = ""
			for _, t := range md.Topics.Sorted() {
				for _, p := range t.Partitions.Sorted() {
					if p.Err != nil || len(p.ISR) < len(p.Replicas) {
						behind = fmt.Sprintf("%s[%d] has %d of %d replicas in sync", t.Topic, p.Partition, len(p.ISR), len(p.Replicas))
						break
					}
				}
				if behind != "" {
					break
				}
			}
			if behind == "" {
				return nil
			}
		} else {
			behind = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("partitions not fully replicated again: %s", behind)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
