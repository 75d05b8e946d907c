package faults

import "context"

// resume continues a paused broker (SIGCONT locally): the same process goes
// on, keeping the partitions the cluster had not moved yet.
type resume struct{}

func (resume) Effect() Effect     { return Effect{Back: true, Continues: true} }
func (resume) Params() []Param    { return nil }
func (resume) Commands() []string { return []string{Resume} }

func (resume) Act(ctx context.Context, a Action) (Done, error) { return onEach(ctx, a, Resume, 1) }
