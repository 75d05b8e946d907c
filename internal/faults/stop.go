package faults

import "context"

// stop shuts a broker down cleanly (SIGTERM locally, SIGKILL after 30 s):
// its leaders move before it exits, and it is down until an action brings
// it back.
type stop struct{}

func (stop) Effect() Effect     { return Effect{Away: true, Down: true} }
func (stop) Params() []Param    { return nil }
func (stop) Commands() []string { return []string{Stop} }

func (stop) Act(ctx context.Context, a Action) (Done, error) { return onEach(ctx, a, Stop, 1) }
