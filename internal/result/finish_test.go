package result

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFinishStatus: regression: a drop-in that ended on its stall bound
// wrote "status": "interrupted" (its clients were cancelled too), though no
// signal came. Interrupted is a cancellation and nothing else; a run that
// also failed otherwise is failed, with that reason.
func TestFinishStatus(t *testing.T) {
	stalled := errors.New("the cluster stopped acknowledging records: none acknowledged for 30s")
	cancelled := fmt.Errorf("producer client 0: %w", context.Canceled)
	for _, tt := range []struct {
		err          error
		status, text string
	}{
		{nil, StatusOK, ""},
		{context.Canceled, StatusInterrupted, "interrupted"},
		{errors.Join(cancelled, cancelled), StatusInterrupted, "interrupted"},
		{errors.Join(cancelled, stalled), StatusFailed, "the cluster stopped acknowledging records"},
		{stalled, StatusFailed, "the cluster stopped acknowledging records"},
	} {
		var d Document
		d.Finish(tt.err)
		if d.Status != tt.status || !strings.Contains(d.Error, tt.text) || strings.Contains(d.Error, "context canceled") {
			t.Errorf("Finish(%v): %s %q, want %s %q", tt.err, d.Status, d.Error, tt.status, tt.text)
		}
	}
}
