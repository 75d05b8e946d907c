package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule    string
		metric  string
		op      string
		percent float64
		abs     bool
		value   float64
		wantErr string // substring; "" for a good rule
	}{
		{rule: "p99_ms>+10%", metric: "p99_ms", op: ">", percent: 10},
		{rule: "records_per_sec<-5%", metric: "records_per_sec", op: "<", percent: -5},
		{rule: " errors >= 0% ", metric: "errors", op: ">=", percent: 0},
		{rule: "e2e_p99_ms<=2.5%", metric: "e2e_p99_ms", op: "<=", percent: 2.5},
		{rule: "p99>+10%", wantErr: `--fail-if "p99>+10%": unknown metric "p99"; did you mean "p99_ms"?`},
		{rule: "p99_9>+10%", wantErr: `did you mean "p99_9_ms"?`},
		{rule: "latency>+10%", wantErr: `unknown metric "latency"; metrics: records_per_sec, mib_per_sec,`},
		// Regression: absolute rules were refused ("lost>0": unknown metric).
		{rule: "lost>0", metric: "lost", op: ">", abs: true, value: 0},
		{rule: "duplicated >= 1", metric: "duplicated", op: ">=", abs: true, value: 1},
		{rule: "p99_ms>250", metric: "p99_ms", op: ">", abs: true, value: 250},
		{rule: "election_ms>+20%", metric: "election_ms", op: ">", percent: 20},
		{rule: "p99_ms>+10", wantErr: `--fail-if "p99_ms>+10": +10 is signed, as a change is; write +10% for a change from A, or 10 for B's own value in ms`},
		{rule: "lost<-1", wantErr: `-1 is signed, as a change is; write -1% for a change from A (B's own values, in records, are never negative)`},
		{rule: "p99_ms=10%", wantErr: `--fail-if "p99_ms=10%": not a rule; write METRIC OP PERCENT`},
		{rule: "p99_ms>ten%", wantErr: "not a rule"},
		{rule: "", wantErr: "not a rule"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel()
			r, err := ParseRule(tt.rule)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !userr.Is(err) {
					t.Fatalf("ParseRule(%q) = %v; want a user error containing %q", tt.rule, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Metric.Name != tt.metric || r.Op != tt.op || r.Percent != tt.percent || r.Absolute != tt.abs || r.Value != tt.value {
				t.Errorf("ParseRule(%q) = %s %s %v%% (absolute %v: %v), want %s %s %v%% (absolute %v: %v)", tt.rule, r.Metric.Name, r.Op, r.Percent, r.Absolute, r.Value, tt.metric, tt.op, tt.percent, tt.abs, tt.value)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	base := sc("s", []float64{1000}, []float64{10}, 0)
	tests := []struct {
		name    string
		a, b    result.Scenario
		rules   []string
		want    []string // crossings, formatted
		wantErr string
	}{
		{name: "p99 crossed", a: base, b: sc("s", []float64{1000}, []float64{12}, 0), rules: []string{"p99_ms>+10%"},
			want: []string{"scenario s: p99_ms changed +20.0% (10.000 → 12.000 ms), crossing --fail-if p99_ms>+10%"}},
		{name: "p99 not crossed", a: base, b: sc("s", []float64{1000}, []float64{10.5}, 0), rules: []string{"p99_ms>+10%"}},
		{name: "rate drop crossed", a: base, b: sc("s", []float64{900}, []float64{10}, 0), rules: []string{"records_per_sec<-5%", "p99_ms>+10%"},
			want: []string{"scenario s: records_per_sec changed -10.0% (1000.0 → 900.0 records/s), crossing --fail-if records_per_sec<-5%"}},
		{name: "rate rise not crossed", a: base, b: sc("s", []float64{1100}, []float64{10}, 0), rules: []string{"records_per_sec<-5%"}},
		{name: "within noise still counts", a: sc("s", []float64{900, 1000, 1100}, []float64{10}, 0),
			b: sc("s", []float64{850, 950, 1050}, []float64{10}, 0), rules: []string{"records_per_sec<=-5%"},
			want: []string{"scenario s: records_per_sec changed -5.0% (1000.0 → 950.0 records/s), crossing --fail-if records_per_sec<=-5% (within noise)"}},
		{name: "errors from 0 cross any rise", a: base, b: sc("s", []float64{1000}, []float64{10}, 1), rules: []string{"errors>+0%"},
			want: []string{"scenario s: errors changed n/a (0 → 1), crossing --fail-if errors>+0%"}},
		{name: "neither measured", a: base, b: base, rules: []string{"e2e_p99_ms>+10%"},
			wantErr: `--fail-if "e2e_p99_ms>+10%": neither result measured end-to-end latency`},
		{name: "no common scenario", a: base, b: sc("t", []float64{1000}, []float64{10}, 0), rules: []string{"p99_ms>+10%"},
			wantErr: "no scenario present in both results measured publish latency in both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := load(t, planDir(t, tt.a), planDir(t, tt.b))
			var rules []Rule
			for _, s := range tt.rules {
				rule, err := ParseRule(s)
				if err != nil {
					t.Fatal(err)
				}
				rules = append(rules, rule)
			}
			crossings, err := Check(r, rules)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !userr.Is(err) {
					t.Fatalf("Check: %v; want a user error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range crossings {
				got = append(got, c.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("crossings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCrossedError(t *testing.T) {
	t.Parallel()
	r := load(t, planDir(t, sc("s", []float64{1000}, []float64{10}, 0)), planDir(t, sc("s", []float64{1000}, []float64{12}, 0)))
	rule, _ := ParseRule("p99_ms>+10%")
	crossings, err := Check(r, []Rule{rule})
	if err != nil {
		t.Fatal(err)
	}
	var err2 error = &Crossed{Crossings: crossings}
	var c *Crossed
	if !errors.As(err2, &c) || userr.Is(err2) {
		t.Fatal("a crossing must be a *Crossed, not a user error")
	}
	want := "1 --fail-if crossing(s):\n  scenario s: p99_ms changed +20.0% (10.000 → 12.000 ms), crossing --fail-if p99_ms>+10%"
	if err2.Error() != want {
		t.Errorf("got %q, want %q", err2.Error(), want)
	}
}
