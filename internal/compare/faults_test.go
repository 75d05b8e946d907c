package compare

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// faulted is a plan scenario of repeats with a kill (election, ISR shrink
// and unavailability measured) and a verified producer; status, lost and
// the times per repeat as given.
func faulted(name, status string, electionMs []float64, lost int64) result.Scenario {
	sc := result.Scenario{Name: name}
	for i, e := range electionMs {
		e, u, s := e, e+500, e/2
		rep := result.Repeat{Index: i + 1, Status: status,
			Faults: []result.Fault{
				{Name: "kill-leader", Action: "kill", ElectionMs: &e, UnavailableMs: &u, ISRShrunkMs: &s, Status: "done"},
				{Name: "restart", Action: "restart", ISRRecoveredMs: &u, Status: "done"},
			},
			Verification: []result.Verification{{Workload: "writer", Acks: "all", Lost: lost, Passed: lost == 0}},
		}
		if status == result.StatusFailed {
			rep.Error = "acknowledged records lost"
		}
		sc.Repeats = append(sc.Repeats, rep)
	}
	if err := result.AggregateScenario(&sc); err != nil {
		panic(err)
	}
	return sc
}

// TestCompareFaultsAndVerification: regression: compare knew no fault or
// verification metric (--fail-if 'lost>0' was an unknown metric), and a
// scenario whose every B repeat failed was not compared at all, so
// 'errors>+0%' exited 2 ("only A measured errors") where B had clearly
// failed the gate. Issue 41: isr_shrunk_ms was in result.json but not a
// metric.
func TestCompareFaultsAndVerification(t *testing.T) {
	t.Parallel()
	a := planDir(t, faulted("acks=all", result.StatusOK, []float64{7800, 7900, 8000}, 0))
	b := planDir(t, faulted("acks=all", result.StatusFailed, []float64{9800, 9900, 10000}, 20))
	r := load(t, a, b)
	tests := []struct {
		metric string
		want   []string // A, B, change, verdict
	}{
		{"election_ms", []string{"7900 (−3.1/+3.2%)", "9900 (−2.5/+2.5%)", "+25.3%", "worse"}},
		{"unavailable_ms", []string{"8400 (−2.9/+3.0%)", "10400 (−2.4/+2.4%)", "+23.8%", "worse"}},
		{"isr_shrunk_ms", []string{"3950 (−3.1/+3.2%)", "4950 (−2.5/+2.5%)", "+25.3%", "worse"}},
		{"isr_recovered_ms", []string{"8400 (−2.9/+3.0%)", "10400 (−2.4/+2.4%)", "+23.8%", "worse"}},
		{"lost", []string{"0", "60", "n/a", "worse"}},
		{"duplicated", []string{"0", "0", "0.0%", "same"}},
		{"errors", []string{"0", "3", "n/a", "worse"}},
	}
	for _, tt := range tests {
		if got := find(t, r, "acks=all", tt.metric)[2:]; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.metric, got, tt.want)
		}
	}
	for _, row := range r.Rows {
		if row.Metric.Name == "records_per_sec" || row.Metric.Name == "p99_ms" {
			t.Errorf("%s compared though no B repeat ended ok", row.Metric.Name)
		}
	}
	if want := "scenario acks=all: no repeat ended ok in B; only its errors, faults and verification are compared"; !reflect.DeepEqual(r.Notes, []string{want}) {
		t.Errorf("notes %q, want %q", r.Notes, want)
	}
	var rules []Rule
	for _, s := range []string{"lost>0", "errors>+0%", "election_ms>+20%", "isr_shrunk_ms>+20%", "duplicated>0"} {
		rule, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, rule)
	}
	crossings, err := Check(r, rules)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range crossings {
		got = append(got, c.String())
	}
	want := []string{
		"scenario acks=all: lost is 60 records in B, crossing --fail-if lost>0",
		"scenario acks=all: errors changed n/a (0 → 3), crossing --fail-if errors>+0%",
		"scenario acks=all: election_ms changed +25.3% (7900 → 9900 ms), crossing --fail-if election_ms>+20%",
		"scenario acks=all: isr_shrunk_ms changed +25.3% (3950 → 4950 ms), crossing --fail-if isr_shrunk_ms>+20%",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("crossings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A bound on a figure B did not measure cannot hold: the user's error.
	noFaults := planDir(t, sc("acks=all", []float64{1000}, []float64{10}, 0))
	rule, _ := ParseRule("lost>0")
	if _, err := Check(load(t, a, noFaults), []Rule{rule}); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "B did not measure verification (lost records)") {
		t.Errorf("lost>0 against a B without verification: %v", err)
	}
}

// TestCompareNegligibleChange: regression: a change too small to show
// printed as -0.0% and, with one repeat, "worse".
func TestCompareNegligibleChange(t *testing.T) {
	t.Parallel()
	r := load(t, planDir(t, sc("s", []float64{1000}, []float64{10}, 0)), planDir(t, sc("s", []float64{999.9999}, []float64{10.000001}, 0)))
	for _, metric := range []string{"records_per_sec", "p99_ms"} {
		if got := find(t, r, "s", metric)[4:]; !reflect.DeepEqual(got, []string{"0.0%", "same"}) {
			t.Errorf("%s: %q, want 0.0%% and same", metric, got)
		}
	}
}

// TestHTMLNoColourWithoutSpread: regression: compare.html painted verdicts
// of a single repeat red and green, though without a spread they give a
// direction only (the docs say grey).
func TestHTMLNoColourWithoutSpread(t *testing.T) {
	t.Parallel()
	r := load(t, planDir(t, sc("s", []float64{1000}, []float64{10}, 0)), planDir(t, sc("s", []float64{900}, []float64{12}, 3)))
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, `<td class="worse">worse (1 repeat`) || !strings.Contains(page, `<td class="unjudged">worse (1 repeat: spread unknown)</td>`) {
		t.Errorf("a one-repeat verdict is coloured:\n%s", page)
	}
	if !strings.Contains(page, `<td class="worse">worse</td>`) {
		t.Errorf("errors, compared exactly, lost their colour:\n%s", page)
	}
}

// TestLoadRefusesDuplicateScenarios: regression: a result with two
// scenarios of one name was compared, each matched against the same one.
func TestLoadRefusesDuplicateScenarios(t *testing.T) {
	t.Parallel()
	dir := planDir(t, sc("acks=1", []float64{1000}, []float64{10}, 0), sc("acks=1", []float64{2000}, []float64{20}, 0))
	_, err := Load(dir)
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), `two scenarios are named "acks=1"`) || !strings.Contains(err.Error(), filepath.Join(dir, "result.json")) {
		t.Fatalf("Load: %v; want a user error naming the file and the scenario", err)
	}
	var ue *userr.Error
	if !errors.As(err, &ue) {
		t.Fatal("not a user error")
	}
	if _, err := os.Stat(filepath.Join(dir, "compare.md")); err == nil {
		t.Error("compare.md written for a refused result")
	}
}
