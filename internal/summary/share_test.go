package summary

import (
	"slices"
	"testing"

	"github.com/kbench/kbench/internal/workload/share"
)

// TestShareSummaryPerMemberIsSettled guards result.json's per_member,
// which held each member's accepted records (summing to 18,817 of a
// run's 20,000) though docs/share-groups.md says settled ones.
func TestShareSummaryPerMemberIsSettled(t *testing.T) {
	t.Parallel()
	r := &share.Result{
		Accepted: 18817, Rejected: 200, Archived: 983, Settled: 20000, PerMember: []int64{9600, 10400}}
	sh, err := Share(r)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sh.PerMember, []int64{9600, 10400}) {
		t.Errorf("per_member %v, want each member's settled records [9600 10400]", sh.PerMember)
	}
}
