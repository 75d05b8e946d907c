package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kadmin"
)

// ShareConsume is the "share-consume" kind: members of a share group
// reading a topic as a queue. Spec.Share says how they acknowledge. With
// Verify, every record from where the group started to the topic's end
// when the run ended must be settled exactly once (accepted once,
// rejected, or archived after its last delivery); otherwise the run fails
// with what was not.
type ShareConsume struct {
	Spec   ConsumerSpec
	Verify bool
}

func (ShareConsume) Kind() string        { return "share-consume" }
func (s ShareConsume) Engine() Engine    { return &shareEngine{spec: s} }
func (ShareConsume) BalanceClients() int { return 0 }

type shareEngine struct {
	spec   ShareConsume
	run    *ConsumerRun
	admin  *kgo.Client
	starts map[string]map[int32]int64 // where the group starts, per partition (Verify)
}

func (e *shareEngine) Prepare(ctx context.Context, env Env) error {
	spec := e.spec.Spec
	spec.Epoch = env.Epoch
	if spec.Share == nil {
		spec.Share = &ShareSpec{}
	}
	sh := *spec.Share
	sh.Ledger = sh.Ledger || e.spec.Verify
	spec.Share = &sh
	if e.spec.Verify {
		admin, err := kgo.NewClient(append(spec.ClientOpts(0), kgo.ShareGroup(spec.Group))...)
		if err != nil {
			return fmt.Errorf("share consumer: admin client: %w", err)
		}
		e.admin = admin
		starts, err := shareStarts(ctx, kadm.NewClient(admin), spec.Group, spec.Topics)
		if err != nil {
			return err
		}
		e.starts = starts
	}
	run, err := StartConsumer(ctx, spec)
	if err != nil {
		return fmt.Errorf("start share consumers: %w", err)
	}
	e.run = run
	return nil
}

// shareStarts is where the group reads each partition from: its start
// offset when it has one (an earlier run of the group), else the log's
// start (the plan sets share.auto.offset.reset=earliest).
func shareStarts(ctx context.Context, adm *kadm.Client, group string, topics []string) (map[string]map[int32]int64, error) {
	actx, cancel := context.WithTimeout(ctx, adminTimeout)
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

func (e *shareEngine) Start(context.Context, Env) error { return nil }

func (e *shareEngine) Ready() <-chan struct{} {
	if e.run == nil {
		return closed
	}
	return e.run.Ready()
}

func (e *shareEngine) Wait() (Measured, error) {
	if e.run == nil {
		e.closeAdmin()
		return Measured{}, nil
	}
	res, err := e.run.Wait()
	spec := e.spec.Spec
	if res != nil && spec.Records > 0 && res.Records < spec.Records && res.Reason == StopIdle {
		err = errors.Join(err, fmt.Errorf("settled %d of %d records: no record arrived for %s", res.Records, spec.Records, spec.IdleTimeout))
	}
	if e.spec.Verify && res != nil && res.Share != nil && res.Share.Ledger != nil && res.Reason != StopCanceled {
		v, verr := e.verify(res.Share.Ledger)
		res.Share.Verdict = v
		err = errors.Join(err, verr)
	}
	e.closeAdmin()
	return Measured{Read: res}, err
}

// verify checks the ledger against the topics' end offsets now.
func (e *shareEngine) verify(l *ShareLedger) (*ShareVerdict, error) {
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	ends, err := kadmin.Await(ctx, func(ctx context.Context) (kadm.ListedOffsets, error) {
		return kadm.NewClient(e.admin).ListEndOffsets(ctx, e.spec.Spec.Topics...)
	})
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("share verification: list end offsets: %w", err)
	}
	end := map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if end[o.Topic] == nil {
			end[o.Topic] = map[int32]int64{}
		}
		end[o.Topic][o.Partition] = o.Offset
	})
	v := l.Verify(e.starts, end)
	var errs []error
	if v.AcceptedTwice > 0 {
		errs = append(errs, fmt.Errorf("share verification: %d records were accepted twice (delivered as done to two members)", v.AcceptedTwice))
	}
	if v.Unsettled > 0 {
		errs = append(errs, fmt.Errorf("share verification: %d of %d records were never accepted, rejected or archived (first: %s)", v.Unsettled, v.Records, v.Missing[0]))
	}
	return &v, errors.Join(errs...)
}

func (p PartitionOffset) String() string {
	return fmt.Sprintf("%s[%d]@%d", p.Topic, p.Partition, p.Offset)
}

func (e *shareEngine) closeAdmin() {
	if e.admin != nil {
		done := make(chan struct{})
		go func() { e.admin.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(closeBound):
		}
		e.admin = nil
	}
}

func (e *shareEngine) Stop() {
	if e.run != nil {
		e.run.Stop()
	}
}
