package study

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload/engine"
)

// TestCommitToVisible: a transactional producer that aborts some of its
// transactions and a read_committed reader of its topic in one plan. The
// reader times every committed record it reads against its
// transaction's commit acknowledgement; aborted records are never read,
// so never timed; a read_uncommitted reader of the same topic gets no
// such section.
func TestCommitToVisible(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs a real Kafka broker")
	}
	bootstrap := testkafka.Bootstrap(t)
	topic := testTopic(t)
	text := fmt.Sprintf(`name: visible
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - {name: w, type: produce, topic: %[2]s, records: 4000, rate: 2000/s, message: {size: 100}, transaction: {records: 100, abort_ratio: 0.3}}
  - {name: committed, type: consume, topic: %[2]s, timeout: 5s, properties: {isolation.level: read_committed, auto.offset.reset: earliest}}
  - {name: all, type: consume, topic: %[2]s, records: 4000, timeout: 5s, properties: {auto.offset.reset: earliest}}
`, bootstrap, topic)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	doc, err := Run(ctx, p, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	w, committed, all := rep.Workloads[0], rep.Workloads[1], rep.Workloads[2]
	tx := w.Producer.Transactions
	if tx == nil || tx.Aborted == 0 || tx.CommittedRecords+tx.AbortedRecords != 4000 {
		t.Fatalf("transactions %+v: want some of 4000 records aborted", tx)
	}
	if committed.Consumer == nil || committed.Consumer.Records != tx.CommittedRecords {
		t.Fatalf("the read_committed reader read %+v, want the %d committed records", committed.Consumer, tx.CommittedRecords)
	}
	vis, ok := committed.Sections[engine.VisibleSectionName].(*engine.VisibleDelay)
	if !ok {
		t.Fatalf("the read_committed reader's sections: %#v, want its commit-to-visible delays", committed.Sections)
	}
	d := &vis.Delay
	t.Logf("commit-to-visible: %v", vis.Table().Row)
	if timed := d.Count() + d.Negative() + vis.Unattributed; timed != tx.CommittedRecords || vis.Unattributed != 0 {
		t.Errorf("timed %d records (%d before the acknowledgement, %d unattributed), want each of the %d committed ones, all attributed",
			timed, d.Negative(), vis.Unattributed, tx.CommittedRecords)
	}
	// A record is visible no sooner than its commit's markers are written,
	// and a reader polling a local broker sees it within seconds.
	if d.Count() > 0 && (d.Quantile(0.5) > 5_000_000 || d.Max() > 30_000_000) {
		t.Errorf("commit-to-visible p50 %d µs, max %d µs: not a local broker's", d.Quantile(0.5), d.Max())
	}
	if _, ok := all.Sections[engine.VisibleSectionName]; ok {
		t.Error("the read_uncommitted reader has a commit-to-visible section")
	}
	if all.Consumer == nil || all.Consumer.Records != 4000 {
		t.Errorf("the read_uncommitted reader read %+v, want all 4000 records, aborted ones too", all.Consumer)
	}
	agg := doc.Plan.Scenarios[0].Aggregate
	if agg == nil || agg.Workloads[1].Sections[engine.VisibleSectionName] == nil {
		t.Error("the scenario's statistics lack the merged commit-to-visible section")
	}
}
