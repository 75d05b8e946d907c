package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	ombChartScript = "testdata/omb-charts/create_charts.py"
	// ombChartBlob is the script's git blob in OMB's repository: the
	// vendored copy is OMB's, unchanged.
	ombChartBlob = "9090516204015e23883ec69fbca6a26e9247bcd2"
	// pygal is the script's one dependency, pinned so that the test is
	// the same everywhere.
	ombChartDeps = "pygal==3.1.3"
)

// ombCharts are the files OMB's chart script renders for one workload.
var ombCharts = []string{
	"Publish latency 99pct", "Publish Delay latency 99pct", "Publish rate", "Publish Error rate",
	"End To End Latency 95pct", "Consume rate", "End To End Latency Avg",
	"Publish Latency Quantiles", "Publish Delay Latency Quantiles", "End To End Latency Quantiles",
}

// renderOMBCharts runs OMB's create_charts.py, unchanged, on an OMB result
// and checks that it drew every chart of workload. It skips, saying why,
// where python3 with venv or PyPI is missing, unless
// KBENCH_OMB_CHART_TESTS is set (CI installs python3-venv): then it fails.
func renderOMBCharts(t *testing.T, resultFile, workload string) {
	t.Helper()
	python := ombChartPython(t)
	abs, err := filepath.Abs(resultFile)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(ombChartScript)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(python, script, abs)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("OMB's create_charts.py on %s: %v\n%s", resultFile, err, out)
	}
	for _, c := range ombCharts {
		name := fmt.Sprintf("%s - %s.svg", strings.ReplaceAll(workload, "/", "-"), c)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("OMB's chart script drew no %q: %v", name, err)
			continue
		}
		if !strings.Contains(string(b), "<svg") {
			t.Errorf("%s is no SVG", name)
		}
	}
}

var ombChartEnv struct {
	once   sync.Once
	python string
	skip   string
}

// ombChartPython is a python with pygal, in a virtual environment made
// once and kept in the user's cache folder (made in a temporary folder
// and renamed, so two test processes never see half of one).
func ombChartPython(t *testing.T) string {
	t.Helper()
	checkOMBChartScript(t)
	e := &ombChartEnv
	e.once.Do(func() { e.python, e.skip = makeOMBChartEnv() })
	if e.skip != "" {
		if os.Getenv("KBENCH_OMB_CHART_TESTS") != "" {
			t.Fatalf("OMB's chart script cannot run (KBENCH_OMB_CHART_TESTS is set): %s", e.skip)
		}
		t.Skipf("OMB's chart script not run: %s; CI installs python3-venv (set KBENCH_OMB_CHART_TESTS=1 to fail instead)", e.skip)
	}
	return e.python
}

func makeOMBChartEnv() (python, skip string) {
	sys, err := exec.LookPath("python3")
	if err != nil {
		return "", "no python3 on this machine"
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	venv := filepath.Join(cache, "kbench-test", "omb-charts-"+strings.NewReplacer("=", "-", ".", "_").Replace(ombChartDeps))
	python = filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(python); err == nil {
		return python, ""
	}
	if err := os.MkdirAll(filepath.Dir(venv), 0o755); err != nil {
		return "", err.Error()
	}
	tmp, err := os.MkdirTemp(filepath.Dir(venv), "making-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command(sys, "-m", "venv", tmp).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("python3 -m venv failed (Debian: apt-get install python3-venv): %v: %s", err, out)
	}
	if out, err := exec.Command(filepath.Join(tmp, "bin", "pip"), "install", "-q", "--disable-pip-version-check", ombChartDeps).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("pip install %s from PyPI failed: %v: %s", ombChartDeps, err, out)
	}
	// Only the venv's python is used, which finds its packages from where
	// it is (its scripts' first lines name the temporary folder). Rename
	// makes it whole at once; another process may have made it first.
	if err := os.Rename(tmp, venv); err != nil {
		if _, serr := os.Stat(python); serr == nil {
			return python, ""
		}
		return "", err.Error()
	}
	return python, ""
}

// checkOMBChartScript: the vendored script is OMB's own, byte for byte.
func checkOMBChartScript(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(ombChartScript)
	if err != nil {
		t.Fatal(err)
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	if got := hex.EncodeToString(h.Sum(nil)); got != ombChartBlob {
		t.Fatalf("%s is not OMB's create_charts.py (git blob %s, want %s)", ombChartScript, got, ombChartBlob)
	}
}
