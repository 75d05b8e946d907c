package engine

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrorKind names an error for counting: the Kafka error code name when
// the broker sent one, else the client-side cause.
func ErrorKind(err error) string {
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		return ke.Message
	case errors.Is(err, context.Canceled):
		return "CANCELLED"
	case errors.Is(err, context.DeadlineExceeded):
		return "DEADLINE_EXCEEDED"
	case errors.Is(err, kgo.ErrRecordTimeout):
		return "DELIVERY_TIMEOUT"
	case errors.Is(err, kgo.ErrRecordRetries):
		return "RETRIES_EXHAUSTED"
	case errors.Is(err, kgo.ErrClientClosed):
		return "CLIENT_CLOSED"
	case errors.Is(err, kgo.ErrMaxBuffered):
		return "BUFFER_FULL"
	default:
		return "CLIENT_ERROR"
	}
}

// FatalFetchError reports errors that franz-go will not recover from by
// retrying: missing permissions. Everything else (leader moves, a broker
// restarting, a rebalance) the client retries, and the run goes on.
func FatalFetchError(err error) bool {
	for _, e := range []error{kerr.TopicAuthorizationFailed, kerr.GroupAuthorizationFailed,
		kerr.ClusterAuthorizationFailed, kerr.SaslAuthenticationFailed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
