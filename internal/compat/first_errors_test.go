package compat

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestFirstErrors: regression: the first error of each kind printed once
// per client (three times with --producers 3), and a broker error printed
// its kind twice ("MESSAGE_TOO_LARGE: MESSAGE_TOO_LARGE: ...").
func TestFirstErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	onError := firstErrors(&out, "produce failed")
	var wg sync.WaitGroup
	for range 3 { // three clients, each reporting its first error of each kind
		wg.Add(1)
		go func() {
			defer wg.Done()
			onError("MESSAGE_TOO_LARGE", kerr.MessageTooLarge) // its text starts with the kind
			onError("DELIVERY_TIMEOUT", errors.New("records have timed out"))
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := map[string]bool{
		"kbench: produce failed: MESSAGE_TOO_LARGE: " + kerr.MessageTooLarge.Description + " (further MESSAGE_TOO_LARGE errors are counted, not printed)": true,
		"kbench: produce failed: DELIVERY_TIMEOUT: records have timed out (further DELIVERY_TIMEOUT errors are counted, not printed)":                     true,
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	for _, l := range got {
		if !want[l] {
			t.Errorf("unexpected line %q", l)
		}
	}
}
