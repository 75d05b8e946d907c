package plan

import (
	"strings"
	"testing"
	"time"
)

// TestParseTransaction: a producing workload says when its transactions
// commit, by time, by records or both, and which share it aborts; anything else is an error that
// names the place and the fix.
func TestParseTransaction(t *testing.T) {
	t.Parallel()
	plan := func(typ, tx string) string {
		return "name: x\nworkloads:\n  - name: p\n    type: " + typ + "\n    topic: t\n    records: 10\n    message: {size: 10}\n    transaction: " + tx + "\n"
	}
	for _, tt := range []struct {
		tx   string
		want Transaction
	}{
		{"{duration: 300ms}", Transaction{Duration: 300 * time.Millisecond}},
		{"{records: 1k}", Transaction{Records: 1000}},
		{"{duration: 2s, records: 500}", Transaction{Duration: 2 * time.Second, Records: 500}},
		{"{records: 100, abort_ratio: 0.3}", Transaction{Records: 100, AbortRatio: 0.3}},
		{"{records: 100, abort_ratio: 25%}", Transaction{Records: 100, AbortRatio: 0.25}},
		{"{abort_ratio: 1}", Transaction{AbortRatio: 1}}, // every 3 s, as without transaction:
	} {
		p, err := testParse("plan.yaml", []byte(plan("produce", tt.tx)), nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.tx, err)
		}
		scs, _ := p.Scenarios()
		if got := scs[0].Workloads[0].Transaction; got == nil || *got != tt.want {
			t.Errorf("%s: transaction %+v, want %+v", tt.tx, got, tt.want)
		}
	}
	for _, bad := range []struct{ typ, tx, want string }{
		{"produce", "{}", "plan.yaml:8:18: workloads[0].transaction: say when to commit"},
		{"produce", "{duration: 0s}", "workloads[0].transaction.duration: \"0s\": a duration must be above 0"},
		{"produce", "{records: 0}", "workloads[0].transaction.records: 0 records"},
		{"produce", "{every: 3s}", `unknown field "every"`},
		{"produce", "{records: 100, abort_ratio: 1.5}", `plan.yaml:8:46: workloads[0].transaction.abort_ratio: "1.5": write the share of transactions to abort as a number from 0 to 1`},
		{"produce", "{records: 100, abort_ratio: -0.1}", "workloads[0].transaction.abort_ratio: \"-0.1\""},
		{"produce", "{records: 100, abort_ratio: NaN}", "workloads[0].transaction.abort_ratio: \"NaN\""},
		{"produce", "{abort_ratio: 0}", "workloads[0].transaction: say when to commit"},
		{"produce", "3s", "workloads[0].transaction: is"},
		{"consume", "{duration: 1s}", "workloads[0].transaction: a consume workload sends nothing"},
	} {
		text := plan(bad.typ, bad.tx)
		if bad.typ == "consume" {
			text = strings.Replace(text, "    message: {size: 10}\n", "", 1)
		}
		if _, err := testParse("plan.yaml", []byte(text), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: err %v, want %q", bad.typ, bad.tx, err, bad.want)
		}
	}
}
