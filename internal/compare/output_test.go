package compare

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenReport compares two plans: a steady scenario, one whose name holds
// markup and a pipe (swept values are free text), and one scenario on each
// side only.
func goldenReport(t *testing.T) *Report {
	t.Helper()
	odd := "<b>acks=1|all</b>"
	a := planDir(t,
		sc("acks=1", []float64{990, 1000, 1010}, []float64{9.9, 10, 10.1}, 0),
		sc(odd, []float64{1000}, []float64{10}, 0),
		sc("old", []float64{1000}, []float64{10}, 0))
	b := planDir(t,
		sc("acks=1", []float64{1090, 1100, 1110}, []float64{9.8, 10, 10.2}, 0),
		sc(odd, []float64{1000}, []float64{12}, 2),
		sc("new", []float64{1000}, []float64{10}, 0))
	return load(t, a, b)
}

func TestOutputGolden(t *testing.T) {
	t.Parallel()
	r := goldenReport(t)
	for _, f := range []struct {
		name  string
		write func(io.Writer, *Report) error
	}{{"compare.md", WriteMarkdown}, {"compare.html", WriteHTML}} {
		var buf bytes.Buffer
		if err := f.write(&buf, r); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", f.name)
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if buf.String() != string(want) {
			t.Errorf("%s differs from %s (run with -update after checking):\n%s", f.name, golden, buf.String())
		}
	}
}

// TestHTMLEscapes guards against a scenario name reaching the page as
// markup.
func TestHTMLEscapes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "<b>") || !strings.Contains(s, "&lt;b&gt;acks=1|all&lt;/b&gt;") {
		t.Errorf("scenario name not escaped:\n%s", s)
	}
	if s := buf.String(); strings.Contains(s, "<script") || strings.Contains(s, "http") {
		t.Errorf("compare.html must be self-contained, with no script and nothing fetched")
	}
}

func TestWriteFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "folder")
	if err := WriteFiles(dir, goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	// The permissions os.WriteFile(0o644) gives, as the results folder's
	// other files have (regression: 0600).
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	for _, name := range []string{"compare.md", "compare.html"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 || fi.Mode() != want.Mode() {
			t.Errorf("%s: %v, mode %v, want %v", name, err, fi.Mode(), want.Mode())
		}
	}
}
