package verify

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestFaultsDocReadBackRecipe guards issue 33 item 8: docs/faults.md's
// read-back recipe ("decreasing sequence numbers within a partition")
// counted a duplicated batch as out of order. The recipe's awk script,
// run as written, counts as the judge does (check.go): copies as
// duplicated, and out of order only below the highest sequence seen.
func TestFaultsDocReadBackRecipe(t *testing.T) {
	t.Parallel()
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk")
	}
	doc, err := os.ReadFile("../../docs/faults.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "```awk\n")
	script, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("docs/faults.md has no awk recipe")
	}
	tests := []struct {
		name, records, want string
	}{
		// Batch 1-3 retried and written twice: three copies, none out
		// of order, though 1 follows 3.
		{"a duplicated batch", "0 r 0 0\n0 r 0 1\n0 r 0 2\n0 r 0 3\n0 r 0 1\n0 r 0 2\n0 r 0 3\n0 r 0 4\n", "duplicated 3 out_of_order 0"},
		{"one out of order", "0 r 0 0\n0 r 0 2\n0 r 0 1\n0 r 0 3\n", "duplicated 0 out_of_order 1"},
		{"clients and partitions apart", "0 r 0 5\n1 r 0 1\n0 r 1 0\n", "duplicated 0 out_of_order 0"},
	}
	for _, tt := range tests {
		cmd := exec.Command(awk, script)
		cmd.Stdin = strings.NewReader(tt.records)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
