// Package browsertest opens a page in headless Chromium as a person would,
// for tests: what it drew (window.KBENCH_CHARTS), its console errors, the
// requests it made, and a screenshot.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a headless-capable Chromium. CI installs Debian's and sets
// KBENCH_BROWSER_TESTS=1, so there a missing browser fails the test rather
// than skipping it.
func chromium(t testing.TB) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KBENCH_BROWSER_TESTS") != "" {
		t.Fatal("no Chromium found (KBENCH_BROWSER_TESTS is set): install Debian's chromium package")
	}
	t.Skip("no Chromium on this machine; CI installs it (apt-get install chromium)")
	return ""
}

// Chart is one chart a report drew and how many points it has.
type Chart struct {
	Title  string `json:"title"`
	Points int    `json:"points"`
}

// Open loads page (a file path) in headless Chromium, waits for the
// report's data-ready mark, runs act, and returns the charts it drew, the
// console errors and warnings, and every request it made besides itself.
func Open(t testing.TB, page string, act ...chromedp.Action) (charts []Chart, consoleErrors, requests []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	var mu sync.Mutex
	self := "file://" + page
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning || ev.Type == runtime.APITypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				consoleErrors = append(consoleErrors, string(ev.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			consoleErrors = append(consoleErrors, "exception: "+ev.ExceptionDetails.Error())
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != self {
				requests = append(requests, ev.Request.URL)
			}
		}
	})
	var ready string
	actions := []chromedp.Action{
		network.Enable(),
		runtime.Enable(),
		chromedp.Navigate(self),
		chromedp.WaitVisible(`body[data-ready]`, chromedp.ByQuery),
		chromedp.AttributeValue(`body`, "data-ready", &ready, nil, chromedp.ByQuery),
	}
	actions = append(actions, act...)
	actions = append(actions, chromedp.Evaluate(`window.KBENCH_CHARTS.map(c => ({title: c.title, points: c.points}))`, &charts))
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("open %s in Chromium: %v", page, err)
	}
	if ready != "true" {
		t.Errorf("the page says data-ready=%q", ready)
	}
	mu.Lock()
	defer mu.Unlock()
	return charts, consoleErrors, requests
}

// Screenshot saves a full-page screenshot beside the test output
// ($KBENCH_ARTIFACTS, else the system's temporary folder) as name.
func Screenshot(t testing.TB, page, name string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`body[data-ready]`, chromedp.ByQuery), chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("KBENCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "kbench-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the report: %s", out)
}
