package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Clean deletes every topic but Kafka's internal ones, and every consumer
// and share group, from a local cluster: what the runs on it left (a local
// cluster is kbench's), so that the next study's faults do not recover
// hundreds of partitions nobody measures. It returns what it deleted,
// sorted. It talks to the brokers the way status does (past the proxies,
// on a secured cluster's internal listener).
func (c *Cluster) Clean(ctx context.Context) (topics, groups []string, err error) {
	var seeds []string
	for _, b := range c.Brokers {
		seeds = append(seeds, b.ProbeAddr())
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, c.probeOpts()...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("clean cluster %q: %w", c.Name, err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	listed, err := adm.ListTopics(ctx) // internal topics left out
	if err != nil {
		return nil, nil, fmt.Errorf("clean cluster %q: list topics: %w", c.Name, err)
	}
	var errs []error
	if names := listed.Names(); len(names) > 0 {
		resps, err := adm.DeleteTopics(ctx, names...)
		if err != nil {
			return nil, nil, fmt.Errorf("clean cluster %q: delete topics: %w", c.Name, err)
		}
		for _, r := range resps.Sorted() {
			if r.Err != nil {
				errs = append(errs, fmt.Errorf("topic %s: %w", r.Topic, r.Err))
				continue
			}
			topics = append(topics, r.Topic)
		}
	}
	gs, err := adm.ListGroups(ctx)
	if err != nil {
		return topics, nil, errors.Join(append(errs, fmt.Errorf("clean cluster %q: list groups: %w", c.Name, err))...)
	}
	if names := gs.Groups(); len(names) > 0 {
		resps, err := adm.DeleteGroups(ctx, names...)
		if err != nil {
			return topics, nil, errors.Join(append(errs, fmt.Errorf("clean cluster %q: delete groups: %w", c.Name, err))...)
		}
		for _, r := range resps.Sorted() {
			if r.Err != nil {
				errs = append(errs, fmt.Errorf("group %s: %w", r.Group, r.Err))
				continue
			}
			groups = append(groups, r.Group)
		}
	}
	sort.Strings(topics)
	sort.Strings(groups)
	if len(errs) > 0 {
		return topics, groups, fmt.Errorf("clean cluster %q: %s", c.Name, strings.ReplaceAll(errors.Join(errs...).Error(), "\n", "; "))
	}
	return topics, groups, nil
}
