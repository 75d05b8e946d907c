package faults

import "context"

// restart starts a broker again, stopping it first if it runs (a running
// broker's shutdown moves its leaders), and returns once it has joined.
type restart struct{}

func (restart) Effect() Effect     { return Effect{Away: true, Back: true} }
func (restart) Params() []Param    { return nil }
func (restart) Commands() []string { return []string{Restart} }

func (restart) Act(ctx context.Context, a Action) (Done, error) { return onEach(ctx, a, Restart, 1) }
