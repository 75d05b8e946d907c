package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

const shareW = "name: x\nworkloads:\n  - name: q\n    type: share-consume\n    topic: t\n"

func TestShareWorkload(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(shareW+"    clients: 16\n    processing: {distribution: uniform, min: 1ms, max: 3ms}\n"+
		"    share: {release: 10%, reject: 0.01, renew: true, record_lock_duration: 20s, delivery_count_limit: 3}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	w := scs[0].Workloads[0]
	sh := w.Share
	switch {
	case w.Group != "":
		t.Errorf("group %q; without one the run names its own (the study)", w.Group)
	case !sh.Explicit || sh.Release != 0.1 || sh.Reject != 0.01 || !sh.Renew || sh.LockDuration != 20*time.Second || sh.DeliveryLimit != 3:
		t.Errorf("share %+v", sh)
	case !sh.Verify || w.Verify:
		t.Errorf("verify: share %v, workload %v; want the share ledger's, not the producers' read-back", sh.Verify, w.Verify)
	case sh.AutoOffsetReset != "earliest":
		t.Errorf("auto_offset_reset %q, want earliest", sh.AutoOffsetReset)
	case w.Processing == nil || w.Processing.Min != time.Millisecond || w.Processing.Max != 3*time.Millisecond:
		t.Errorf("processing %+v", w.Processing)
	}
	p, err = testParse("plan.yaml", []byte(shareW+"    share: {max_poll_records: 1k}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if scs, err = p.Scenarios(); err != nil {
		t.Fatal(err)
	}
	if got := scs[0].Workloads[0].Share.MaxPollRecords; got != 1000 {
		t.Errorf("max_poll_records %d, want 1000", got)
	}
	p, err = testParse("plan.yaml", []byte(shareW+"    verify: false\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, err = p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	if sh := scs[0].Workloads[0].Share; sh == nil || sh.Verify || sh.Explicit {
		t.Errorf("a bare share-consume: %+v; want implicit, verify off as asked", sh)
	}
}

func TestShareWorkloadBad(t *testing.T) {
	tests := []struct{ name, plan, want string }{
		{"ratio over 1", shareW + "    share: {release: 1.5}\n", `plan.yaml:6:22: workloads[0].share.release: "1.5": write the share`},
		{"ratios over 1", shareW + "    share: {release: 0.8, reject: 0.5}\n", "their sum must be at most 1"},
		{"implicit with outcomes", shareW + "    share: {acknowledgement: implicit, reject: 1%}\n", "need acknowledgement: explicit"},
		{"pattern and ratios", shareW + "    share: {ack_pattern: [accept, release], release: 0.1}\n", "not both"},
		{"bad pattern", shareW + "    share: {ack_pattern: [accept, retry]}\n", `"retry" is not one of`},
		// Regressions: NaN passed the range check (NaN < 0 and NaN > 1 are
		// false); an empty ack_pattern was called "a list; write a list".
		{"release NaN", shareW + "    share: {release: NaN}\n", `workloads[0].share.release: "NaN": write the share`},
		{"reject -.inf", shareW + "    share: {reject: -.inf}\n", `workloads[0].share.reject: "-.inf": write the share`},
		{"empty pattern", shareW + "    share: {ack_pattern: []}\n", "workloads[0].share.ack_pattern: is an empty list; write the outcomes of successive deliveries, repeated in turn, such as [accept, accept, release]"},
		{"processing without unit", shareW + "    processing: 5\n", `"5" has no unit`},
		{"exponential without mean", shareW + "    processing: {distribution: exponential}\n", "needs its mean"},
		{"lock too short", shareW + "    share: {record_lock_duration: 5s}\n", "15s to 1m0s"},
		{"delivery limit", shareW + "    share: {delivery_count_limit: 11}\n", "from 2 to 10"},
		{"max_poll_records 0", shareW + "    share: {max_poll_records: 0}\n", "plan.yaml:6:31: workloads[0].share.max_poll_records: 0 is out of range; write a whole number from 1 to 2147483647"},
		{"max_poll_records words", shareW + "    share: {max_poll_records: many}\n", "plan.yaml:6:31: workloads[0].share.max_poll_records:"},
		{"max_poll_records twice", shareW + "    properties: {max.poll.records: 10}\n    share: {max_poll_records: 50}\n", "plan.yaml:6:17: workloads[0].properties: max.poll.records is given twice"},
		{"share on consume", "name: x\nworkloads:\n  - {name: c, type: consume, topic: t, share: {release: 0.1}}\n", "applies to share-consume workloads"},
		{"processing on produce", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 1, message: {size: 1}, processing: 1ms}\n", "applies to consume and share-consume"},
		{"old release", "name: x\ncluster:\n  local: {version: 4.0.2}\n" + strings.TrimPrefix(shareW, "name: x\n"), "plan.yaml:3:20: cluster.local.version: Apache Kafka 4.0.2 has no share groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(tt.plan), nil)
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a user error containing %q", err, tt.want)
			}
		})
	}
}
