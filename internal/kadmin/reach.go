package kadmin

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Reachable checks once that the cluster behind opts answers: a metadata
// request to any of its brokers within ConnectTimeout (15 s), however long
// franz-go itself would wait (a paused broker accepts connections and
// never answers). It returns nil; ctx's error when ctx ended first; or an
// error wrapping ErrUnreachable that says what to check.
func Reachable(ctx context.Context, opts []kgo.Opt) error {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	return Ping(ctx, cl)
}

// Await runs f and returns what it returns, or ctx's error as soon as ctx
// ends. franz-go notices a cancelled context only between the steps of a
// request: a dial (up to 10 s) or a read from a paused broker holds the
// request past its context, and Ctrl-C with it. f goes on in the
// background until it returns on its own (its client's timeouts bound
// it); what it returns then is dropped.
func Await[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := f(ctx)
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
