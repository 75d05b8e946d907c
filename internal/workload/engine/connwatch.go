package engine

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ConnWatch remembers the last failed connection attempt of a client
// (franz-go hook), so that a stall can say why.
type ConnWatch struct {
	err       atomic.Pointer[string]
	connected atomic.Bool // some connection of this client succeeded
}

func (w *ConnWatch) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		w.connected.Store(true)
		w.err.Store(nil)
		return
	}
	msg := fmt.Sprintf("connecting to %s:%d: %s", meta.Host, meta.Port, connErrText(err, w.connected.Load()))
	w.err.Store(&msg)
}

// connErrText words a failed connection. franz-go's text for a connection
// closed at its first read asks "is TLS missing?" or "is SASL missing?";
// once this client has connected with its settings, the cause is the
// broker going away (killed, stopping or restarting), not security, and
// the question misled (a trial's killed broker read as a TLS problem).
func connErrText(err error, connectedBefore bool) string {
	if connectedBefore && errors.As(err, new(*kgo.ErrFirstReadEOF)) {
		return "the broker closed the connection as it opened (it is stopping, starting or was killed)"
	}
	return err.Error()
}

func (w *ConnWatch) Last() string {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return ""
}
