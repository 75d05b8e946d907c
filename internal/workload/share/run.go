package share

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
)

// Run is a share group's members reading, started by Start.
type Run struct {
	spec   consume.ConsumerSpec
	opts   Options
	group  *shareGroup
	run    *consume.ConsumerRun
	admin  *kgo.Client
	starts map[string]map[int32]int64 // where the group starts, per partition (Verify)
}

// Options are what a share run does around its members' reading.
type Options struct {
	// Verify checks, once the run ended, that every record from where
	// the group started to the topic's end was settled exactly once
	// (accepted once, rejected, or archived after its last delivery);
	// otherwise Wait fails with what was not.
	Verify bool
	// ShortOK: stopped by its idle timeout short of its records, the run
	// has not failed (the drop-in, which exits 0 as the Apache tool does).
	ShortOK bool
	// GroupConfigs are set on the share group before its members join
	// (share.auto.offset.reset, share.record.lock.duration.ms,
	// share.delivery.count.limit), as kafka-configs --entity-type groups.
	GroupConfigs map[string]string
}

// Start checks that the cluster runs share groups and that the
// topics exist, sets the group's configs, notes where the group starts
// (Verify), and starts spec.Clients members of the share group
// spec.Group, reading as sh says. Records and the rates count settled
// records. Use Ready, then Wait for the result.
func Start(ctx context.Context, spec consume.ConsumerSpec, sh Spec, opts Options) (_ *Run, err error) {
	sh.Ledger = sh.Ledger || opts.Verify
	r := &Run{spec: spec, opts: opts}
	defer func() {
		if err != nil {
			r.closeAdmin()
		}
	}()
	admin, err := kgo.NewClient(spec.ClientOpts(0)...)
	if err != nil {
		return nil, fmt.Errorf("share consumer: admin client: %w", err)
	}
	r.admin = admin
	if err := checkShareGroups(ctx, admin, spec.Group); err != nil {
		return nil, err
	}
	// The topics must exist before anything else asks for them: the
	// admin client has the consumer's options, and with Java's
	// allow.auto.create.topics=true its metadata requests (kadm's
	// ListStartOffsets below) create a missing topic, which the run then
	// reported missing and left behind. consume.ResolveTopics never creates one.
	if _, err := consume.ResolveTopics(ctx, admin, spec); err != nil {
		return nil, err
	}
	if err := setGroupConfigs(ctx, admin, spec.Group, opts.GroupConfigs); err != nil {
		return nil, err
	}
	if opts.Verify {
		starts, err := shareStarts(ctx, kadm.NewClient(admin), spec.Group, spec.Topics)
		if err != nil {
			return nil, err
		}
		r.starts = starts
	}
	switch {
	case spec.Group == "":
		return nil, errors.New("consumer: a share consumer needs a group")
	case spec.Regex != nil:
		return nil, errors.New("consumer: a share consumer reads named topics, not a regex")
	}
	r.group = &shareGroup{spec: spec, share: sh}
	run, err := consume.StartWith(ctx, spec, r.group)
	if err != nil {
		return nil, fmt.Errorf("start share consumers: %w", err)
	}
	r.run = run
	return r, nil
}

// setGroupConfigs sets the share group's configs (resource type GROUP).
func setGroupConfigs(ctx context.Context, cl *kgo.Client, group string, configs map[string]string) error {
	if len(configs) == 0 {
		return nil
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	names := make([]string, 0, len(configs))
	for k := range configs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = k, kmsg.StringPtr(configs[k])
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	actx, cancel := context.WithTimeout(ctx, engine.AdminTimeout)
	defer cancel()
	resp, err := kadmin.Await(actx, func(ctx context.Context) (*kmsg.IncrementalAlterConfigsResponse, error) {
		return req.RequestWith(ctx, cl)
	})
	if err != nil {
		return fmt.Errorf("share group %s: set %v: %w", group, names, err)
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return userr.Errorf("share group %s: the broker refused its configs %v: %v%s", group, configs, err, msg)
		}
	}
	return nil
}

// shareStarts is where the group reads each partition from: its start
// offset when it has one (an earlier run of the group), else the log's
// start (the plan sets share.auto.offset.reset=earliest).
func shareStarts(ctx context.Context, adm *kadm.Client, group string, topics []string) (map[string]map[int32]int64, error) {
	actx, cancel := context.WithTimeout(ctx, engine.AdminTimeout)
	defer cancel()
	logStarts, err := kadmin.Await(actx, func(ctx context.Context) (kadm.ListedOffsets, error) {
		return adm.ListStartOffsets(ctx, topics...)
	})
	if err != nil {
		return nil, fmt.Errorf("share consumer: list start offsets: %w", err)
	}
	if err := logStarts.Error(); err != nil {
		return nil, fmt.Errorf("share consumer: list start offsets: %w", err)
	}
	out := map[string]map[int32]int64{}
	logStarts.Each(func(o kadm.ListedOffset) {
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.Offset
	})
	described, err := kadmin.Await(actx, func(ctx context.Context) (kadm.DescribedShareGroupsOffsets, error) {
		return adm.DescribeShareGroupOffsets(ctx, group)
	})
	if err == nil {
		for t, ps := range described[group].Offsets {
			for p, o := range ps {
				if o.Err == nil && o.StartOffset >= 0 && out[t] != nil {
					out[t][p] = max(out[t][p], o.StartOffset)
				}
			}
		}
	}
	return out, nil
}

// Ready is closed once every member has joined (at once: a share group
// assigns no partitions a member could wait for).
func (r *Run) Ready() <-chan struct{} { return r.run.Ready() }

// Wait waits for the run to end and returns what its members read and
// what they did with their deliveries; with a result, an error says the
// run failed, fell short of its records or did not verify.
func (r *Run) Wait() (*consume.ConsumerResult, *Result, error) {
	res, err := r.run.Wait()
	sh := r.group.res // nil when the run never collected
	spec := r.spec
	if !r.opts.ShortOK && res != nil && spec.Records > 0 && res.Records < spec.Records && res.Reason == consume.StopIdle {
		err = errors.Join(err, fmt.Errorf("settled %d of %d records: no record arrived for %s", res.Records, spec.Records, spec.IdleTimeout))
	}
	if r.opts.Verify && sh != nil && sh.Ledger != nil {
		// An interrupted run is verified too, up to what it read: it
		// was not, and left 1,253 records unsettled unsaid. Its
		// verdict is reported, not made the run's error: the run was
		// interrupted, not failed.
		interrupted := res.Reason == consume.StopCanceled
		v, verr := r.verify(sh.Ledger, interrupted)
		sh.Verdict = v
		if !interrupted {
			err = errors.Join(err, verr)
		}
	}
	r.closeAdmin()
	return res, sh, err
}

// verify checks the ledger from where the group started to the topics'
// end offsets now (interrupted: to the last record read of each
// partition), with the group's share start offsets after the run: a
// record no member settled below its partition's was settled by the
// broker. kbench's list of unsettled records disagreed with the broker's
// start offset: records the broker had archived after deliveries no member
// processed were listed unsettled.
func (r *Run) verify(l *Ledger, interrupted bool) (*Verdict, error) {
	bound := engine.AdminTimeout
	if interrupted {
		bound = engine.InterruptCloseBound // Ctrl-C: the run ends within its bounds
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	adm := kadm.NewClient(r.admin)
	end := l.readEnds()
	if !interrupted {
		ends, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
			return adm.ListEndOffsets(ctx, r.spec.Topics...)
		})
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("share verification: list end offsets: %w", err)
		}
		end = map[string]map[int32]int64{}
		ends.Each(func(o kadm.ListedOffset) {
			if end[o.Topic] == nil {
				end[o.Topic] = map[int32]int64{}
			}
			end[o.Topic][o.Partition] = o.Offset
		})
	}
	brokerStart, brokerLag := r.brokerShareState(ctx)
	v := l.Verify(r.starts, end, brokerStart)
	v.Partial = interrupted
	if !interrupted {
		v.BrokerLag = brokerLag
	}
	var errs []error
	if v.AcceptedTwice > 0 {
		errs = append(errs, fmt.Errorf("share verification: %d records were accepted twice (delivered as done to two members)", v.AcceptedTwice))
	}
	if v.Unsettled > 0 {
		errs = append(errs, fmt.Errorf("share verification: %d of %d records were never accepted, rejected or archived (first: %s)", v.Unsettled, v.Records, v.Missing[0]))
	}
	return &v, errors.Join(errs...)
}

// brokerShareState is the group's share start offset of each partition
// now (nil when the broker does not say) and its lag in all (-1 when not
// known: Kafka before 4.2, or a partition without it).
func (r *Run) brokerShareState(ctx context.Context) (map[string]map[int32]int64, int64) {
	group := r.spec.Group
	described, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.DescribedShareGroupsOffsets, error) {
		return kadm.NewClient(r.admin).DescribeShareGroupOffsets(ctx, group)
	})
	if err != nil || described[group].Err != nil {
		return nil, -1
	}
	starts := map[string]map[int32]int64{}
	lag := int64(0)
	for t, ps := range described[group].Offsets {
		starts[t] = map[int32]int64{}
		for p, o := range ps {
			starts[t][p] = -1
			if o.Err != nil {
				lag = -1
				continue
			}
			starts[t][p] = o.StartOffset
			switch {
			case o.Lag < 0:
				lag = -1
			case lag >= 0:
				lag += o.Lag
			}
		}
	}
	return starts, lag
}

func (p PartitionOffset) String() string {
	return fmt.Sprintf("%s[%d]@%d", p.Topic, p.Partition, p.Offset)
}

func (r *Run) closeAdmin() {
	if r.admin != nil {
		done := make(chan struct{})
		go func() { r.admin.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(engine.CloseBound):
		}
		r.admin = nil
	}
}

// Stop ends the run now.
func (r *Run) Stop() { r.run.Stop() }
