package coord

import (
	"context"
	"fmt"
	"slices"
)

// Announce tells the others a decision of worker 0's, named name, that
// they act on (a rate search's next probe, or its end): data is what the
// caller encoded, JSON. The first announcement of a name stands. The
// others' Announce does nothing, as their Judge does.
func (w *Worker) Announce(ctx context.Context, name string, data []byte) error {
	if w.run.Index != 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.opts.LostAfter)
	defer cancel()
	return w.send(ctx, message{Kind: kindAnnounce, Barrier: name, Data: data})
}

// Announced waits for worker 0's announcement name (Announce) and returns
// its data. It waits as long as worker 0 gathers slices
// (Options.ResultTimeout) and a lost worker's silence, since worker 0
// decides after a merge; it fails at once when worker 0 left, ended the
// run or was lost, so that no worker waits for a decision that will not
// come.
func (w *Worker) Announced(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := w.wait(ctx, w.opts.ResultTimeout+w.opts.LostAfter, "worker 0's announcement "+name, func() (bool, error) {
		if m, ok := w.announced[name]; ok {
			data = m.Data
			return true, nil
		}
		return false, zeroGone(name, w.left, w.ended, slices.Contains(w.lost(), 0))
	})
	return data, err
}

// zeroGone is why a wait for worker 0's word name ends without it: worker
// 0 left, ended the run, or was lost; nil while it may still come.
func zeroGone(name string, left map[int]string, ended, lost bool) error {
	if reason, gone := left[0]; gone {
		return fmt.Errorf("%s: worker 0 ended the run (%s)", name, reason)
	}
	if ended {
		return fmt.Errorf("%s: worker 0 ended the run", name)
	}
	if lost {
		return fmt.Errorf("%s: worker 0 was lost", name)
	}
	return nil
}
