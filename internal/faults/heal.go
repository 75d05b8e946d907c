package faults

import (
	"context"
	"errors"
)

// healLink undoes an earlier network fault ({fault: NAME}) before the end
// of the timeline.
var healLink = Kind{
	Name:   HealLink,
	Effect: Effect{Back: true, Heals: true},
}

// undo runs the undo of the fault a heal names (Action.Undo).
func undo(ctx context.Context, a Action) (Done, error) {
	if a.Undo == nil {
		return Done{}, errors.New("the fault it heals left nothing to undo (it failed, had a duration, or was healed already)")
	}
	out, err := a.Undo(ctx)
	return Done{Output: out}, err
}
