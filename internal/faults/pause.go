package faults

import "context"

// pause hangs a broker (SIGSTOP locally): the controller fences it once its
// session expires, unless a resume comes first.
type pause struct{}

func (pause) Effect() Effect     { return Effect{Away: true, Down: true} }
func (pause) Params() []Param    { return nil }
func (pause) Commands() []string { return []string{Pause} }

func (pause) Act(ctx context.Context, a Action) (Done, error) { return onEach(ctx, a, Pause, 1) }
