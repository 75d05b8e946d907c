package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUserTextWording keeps the README, docs and bench scripts speaking of
// studies by what they are and free of machine paths. Regression: the docs
// and bench/seeds.sh named studies by internal seed numbers ("seed 002's
// example", "seed 000a: OK ...").
func TestUserTextWording(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"../../README.md", "../../docs/*.md", "../../bench/*.sh", "../../examples/*.md", "../../examples/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v; run from cmd/kbench", files)
	}
	// A random-number seed stays allowed ("payload.Random(size, seed)"); a
	// study cited by number or as "the seed's" is not.
	bad := []struct {
		re  *regexp.Regexp
		fix string
	}{
		{regexp.MustCompile(`(?i)\bseeds?[ -]?0\d\d`), "name the study (\"the record-size sweep\", \"the MSK partition study\")"},
		{regexp.MustCompile(`(?i)\bseeds?'s?(\s|$)|\bthe seeds?\b`), "name the study, not \"the seed\""},
		{regexp.MustCompile(`(?i)\bseeds?\.sh\b|SEEDS_ONLY`), "the script is bench/studies.sh, filtered with ONLY="},
		{regexp.MustCompile(`(/home/|/root/|/work/|/Users/)`), "write ~/... or <dir>, not a machine path"},
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, b := range bad {
				if m := b.re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q: %s", filepath.Base(f), i+1, m, b.fix)
				}
			}
		}
	}
}
