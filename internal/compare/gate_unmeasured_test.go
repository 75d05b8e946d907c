package compare

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// TestCheckUnmeasuredFaultFigure guards issue 33 item 8: the README's
// gate --fail-if 'lost>0' exited 2 on plans without faults ("B did not
// measure"), so one CI gate could not serve every plan. A fault or
// verification figure neither side measured passes with a note; one
// that A measured and B did not is still an error (B lost its check),
// and so is a latency neither measured.
func TestCheckUnmeasuredFaultFigure(t *testing.T) {
	t.Parallel()
	plain := func() string { return planDir(t, sc("s", []float64{1000}, []float64{10}, 0)) }
	tests := []struct {
		rule     string
		wantNote string
		wantErr  string
	}{
		{rule: "lost>0", wantNote: "--fail-if lost>0 not checked: neither result measured verification (lost records)"},
		{rule: "duplicated>0", wantNote: "--fail-if duplicated>0 not checked"},
		{rule: "election_ms>+20%", wantNote: "--fail-if election_ms>+20% not checked: neither result measured fault measurements (election_ms) (only a plan with faults measures it)"},
		{rule: "e2e_p99_ms>+10%", wantErr: "neither result measured end-to-end latency"},
	}
	for _, tt := range tests {
		r := load(t, plain(), plain())
		rule, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		crossings, err := Check(r, []Rule{rule})
		if tt.wantErr != "" {
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: %v, want a user error containing %q", tt.rule, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(crossings) > 0 {
			t.Errorf("%s: crossings %v, error %v; want it to pass", tt.rule, crossings, err)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), tt.wantNote) {
			t.Errorf("%s: notes %q, want %q", tt.rule, r.Notes, tt.wantNote)
		}
	}
}
