package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestConnWatchWordsABrokerGoingAway: regression: a stall line after a
// broker was killed ended in franz-go's "is TLS missing?" (or SASL), a
// security question for a client whose settings had connected all along.
// Before any connection succeeded the hint stays: then it may be right.
func TestConnWatchWordsABrokerGoingAway(t *testing.T) {
	meta := kgo.BrokerMetadata{Host: "127.0.0.1", Port: 9092}
	closed := &kgo.ErrFirstReadEOF{}
	tests := []struct {
		name      string
		connected bool
		err       error
		want      string
		not       string
	}{
		{"never connected", false, closed, "TLS", "stopping"},
		{"connected before", true, closed, "the broker closed the connection as it opened (it is stopping, starting or was killed)", "TLS"},
		{"another error", true, errors.New("dial tcp 127.0.0.1:9092: connect: connection refused"), "connection refused", "stopping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w ConnWatch
			if tt.connected {
				w.OnBrokerConnect(meta, 0, nil, nil)
			}
			w.OnBrokerConnect(meta, 0, nil, tt.err)
			got := w.Last()
			if !strings.HasPrefix(got, "connecting to 127.0.0.1:9092: ") || !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("%q: want %q in it, and not %q", got, tt.want, tt.not)
			}
		})
	}
}
