package faults

import "context"

// kill crashes a broker (SIGKILL locally): it is down until an action
// brings it back, and keeps its partitions until the controller fences it.
type kill struct{}

func (kill) Effect() Effect     { return Effect{Away: true, Down: true} }
func (kill) Params() []Param    { return nil }
func (kill) Commands() []string { return []string{Kill} }

func (kill) Act(ctx context.Context, a Action) (Done, error) { return onEach(ctx, a, Kill, 1) }
