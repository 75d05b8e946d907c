package live

import (
	"fmt"
	"time"
)

// The time left, from the plan: each workload's planned records or
// duration and the pace it measured. A workload that cannot be estimated
// yet (records planned, none done; a start that waits for a backlog) makes
// the whole estimate unknown, and the view says which and why: an estimate
// from the other workloads alone said "about 9 s left" before a repeat of
// 28 s (a phase that had not started was left out).

// estimate is a workload's end as far as it can be known: own is false
// for a workload with no end of its own (neither records nor a duration:
// it ends with the others); why says what is missing when it is unknown.
type estimate struct {
	end       time.Time
	own, know bool
	why       string
}

// left estimates the time the plan still needs: the running repeat's
// workloads' ends (the latest decides), then each repeat yet to start as
// long as the ended ones took on average (before any ended, as long as
// this one will have taken). Unknown, with why, while any workload's end
// is. Called with the view's lock held.
func (v *View) left() (time.Duration, bool, string) {
	now := time.Now()
	end, known := now, false
	memo := map[string]estimate{}
	for _, w := range v.wl {
		e := v.workloadEnd(w, now, memo, 0)
		switch {
		case !e.own:
			continue
		case !e.know:
			return 0, false, e.why
		}
		if e.end.After(end) {
			end = e.end
		}
		known = true
	}
	if !known {
		return 0, false, "no workload has records or a duration to go by"
	}
	cur := end.Sub(now)
	after := v.total - v.ended - 1 // repeats after the running one
	if after <= 0 {
		return cur, true, ""
	}
	per := now.Sub(v.cur.Started) + cur
	if v.ended > 0 {
		per = v.took / time.Duration(v.ended)
	}
	return cur + per*time.Duration(after), true, ""
}

// workloadEnd estimates when w ends. A workload that has not started yet
// starts at its start_after time, or when the workload it waits for ends
// (depth guards a cycle, which the plan refuses anyway).
func (v *View) workloadEnd(w *workloadState, now time.Time, memo map[string]estimate, depth int) estimate {
	if e, ok := memo[w.info.Name]; ok {
		return e
	}
	e := v.endOf(w, now, memo, depth)
	memo[w.info.Name] = e
	return e
}

func (v *View) endOf(w *workloadState, now time.Time, memo map[string]estimate, depth int) estimate {
	in := w.info
	if in.Records <= 0 && in.Duration <= 0 {
		return estimate{}
	}
	if w.done {
		return estimate{end: now, own: true, know: true}
	}
	unknown := func(format string, args ...any) estimate {
		return estimate{own: true, why: in.Name + ": " + fmt.Sprintf(format, args...)}
	}
	if !w.begun {
		start := w.started.Add(in.StartAfter)
		if in.AfterWorkload != "" {
			o := v.find(in.AfterWorkload)
			if o == nil || depth > len(v.wl) {
				return unknown("waits for %s, whose end is unknown", in.AfterWorkload)
			}
			oe := v.workloadEnd(o, now, memo, depth+1)
			if !oe.own || !oe.know {
				return unknown("waits for %s, whose end is unknown", in.AfterWorkload)
			}
			start = later(start, oe.end)
		}
		if in.Backlog > 0 {
			return unknown("waits for a backlog to be written")
		}
		if in.Duration <= 0 {
			return unknown("not started: %d records at a pace not measured yet", in.Records)
		}
		return estimate{end: later(start, now).Add(in.Duration), own: true, know: true}
	}
	var end time.Time
	if in.Duration > 0 {
		// From when it began: its start_after, or for a workload that
		// waited, its first records.
		start := w.started.Add(in.StartAfter)
		if in.AfterWorkload != "" || in.Backlog > 0 {
			start = w.firstData
			if start.IsZero() {
				start = now
			}
		}
		end = start.Add(in.Duration)
	}
	if in.Records > 0 {
		if w.records == 0 || !now.After(w.firstData) {
			if end.IsZero() {
				return unknown("no records yet, so no pace")
			}
		} else {
			spent := now.Sub(w.firstData)
			rest := max(in.Records-w.records, 0)
			if r := now.Add(time.Duration(float64(spent) * float64(rest) / float64(w.records))); end.IsZero() || r.Before(end) {
				end = r // the first of its records and its duration ends it
			}
		}
	}
	return estimate{end: later(end, now), own: true, know: true}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
