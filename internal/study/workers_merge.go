package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/result"
)

// sliceDoc is what a worker publishes for one repeat.
type sliceDoc struct {
	Worker int         `json:"worker"`
	Host   string      `json:"host,omitempty"`
	Clock  coord.Clock `json:"clock"`
	// ControlBytes is what the worker had written to the control topic
	// after Seconds since it joined.
	ControlBytes int64   `json:"control_bytes"`
	Seconds      float64 `json:"seconds"`
	// StartLateMs is how long after the common start the worker released
	// the repeat's workloads, on its clock as converted to the reference
	// (absent: it did not reach the start).
	StartLateMs *float64      `json:"start_late_ms,omitempty"`
	Repeat      result.Repeat `json:"repeat"`
}

// decodeSlice reads worker k's slice of repeat r, and refuses one that is
// not (damage, or a record no worker wrote): any JSON object decodes, and
// a slice of zeros would merge as repeat 0 of worker 0.
func decodeSlice(data []byte, k, r int) (sliceDoc, error) {
	var sd sliceDoc
	if err := json.Unmarshal(data, &sd); err != nil {
		return sd, fmt.Errorf("not a result slice: %w", err)
	}
	switch {
	case sd.Worker != k:
		return sd, fmt.Errorf("not a result slice of worker %d: it says worker %d", k, sd.Worker)
	case sd.Repeat.Index != r:
		return sd, fmt.Errorf("not a result slice of repeat %d: it says repeat %d", r, sd.Repeat.Index)
	case sd.Repeat.Status == "":
		return sd, errors.New("not a result slice: its repeat has no status")
	}
	return sd, nil
}

// sliceMerger merges the slices of each repeat and keeps what the run
// learns of its workers: worker 0's, and kbench collect's.
type sliceMerger struct {
	runID   string
	workers int
	clocks  map[int]result.WorkerClock
	lost    map[int]bool
	// notGathered counts the slices not gathered because worker 0 was
	// interrupted: they may still be published, for kbench collect.
	notGathered int
	// control is each worker's control-topic bytes and seconds at its
	// latest slice.
	control map[int]controlSeen
}

// controlSeen is what a worker had written to the control topic, and how
// long after it joined.
type controlSeen struct {
	bytes   int64
	seconds float64
}

func newSliceMerger(runID string, workers int) *sliceMerger {
	return &sliceMerger{runID: runID, workers: workers, clocks: map[int]result.WorkerClock{}, lost: map[int]bool{}, control: map[int]controlSeen{}}
}

// Why a worker's slice of a repeat is missing: it never came (the worker
// is reported lost), or worker 0 was interrupted before it came.
const (
	lostSlice   = "lost: no result slice (it stopped heartbeating, or did not publish in time); its share is missing from this repeat"
	notGathered = "not gathered: the run was interrupted before this worker's slice arrived"
)

// missingSlice says why worker k's slice is missing: the repeat's status
// for it (failed: its share is lost; interrupted: not gathered) and why.
type missingSlice func(k int) (status, why string)

// lost is the missingSlice of a worker that never published.
func lost(int) (string, string) { return result.StatusFailed, lostSlice }

// repeat merges repeat r's slices by worker; a worker without a slice,
// or with one that does not decode as its slice of r, fails the merged
// repeat (or leaves it interrupted) as missing says.
//
// checked are the lost workers' records worker 0 checked from the ledger
// pieces they published: their verifications, merged with the others'.
func (m *sliceMerger) repeat(r int, got map[int][]byte, checked map[int][]result.Verification, missing missingSlice) (result.Repeat, error) {
	reps := make([]result.Repeat, m.workers)
	for k := range reps {
		data, ok := got[k]
		var sd sliceDoc
		var err error
		if ok {
			sd, err = decodeSlice(data, k, r)
		}
		if !ok || err != nil {
			status, why := missing(k)
			if err != nil {
				status, why = result.StatusFailed, "its result slice is damaged ("+err.Error()+"); its share is missing from this repeat"
			}
			switch status {
			case result.StatusFailed:
				m.lost[k] = true
			case result.StatusInterrupted:
				m.notGathered++
			}
			reps[k] = result.Repeat{Index: r, Status: status, Error: why, Verification: checked[k]}
			continue
		}
		reps[k] = sd.Repeat
		if _, seen := m.clocks[k]; !seen {
			m.clocks[k] = result.WorkerClock{Worker: k, Host: sd.Host, OffsetMs: sd.Clock.OffsetMs,
				UncertaintyMs: sd.Clock.UncertaintyMs, RoundTripMs: sd.Clock.RoundTripMs}
		}
		m.noteLate(k, sd.StartLateMs)
		if sd.Seconds > m.control[k].seconds {
			m.control[k] = controlSeen{bytes: sd.ControlBytes, seconds: sd.Seconds}
		}
	}
	return result.MergeRepeats(reps)
}

// noteLate keeps worker k's start lateness farthest from the common
// start over the repeats.
func (m *sliceMerger) noteLate(k int, late *float64) {
	c, ok := m.clocks[k]
	if !ok || late == nil {
		return
	}
	if c.StartLateMs == nil || math.Abs(*late) > math.Abs(*c.StartLateMs) {
		v := *late
		c.StartLateMs = &v
		m.clocks[k] = c
	}
}

// distributed is what the run's document says of its workers.
func (m *sliceMerger) distributed() *result.Distributed {
	d := &result.Distributed{RunID: m.runID, Workers: m.workers}
	for _, c := range m.control {
		if c.bytes > d.ControlBytes {
			d.ControlBytes, d.ControlSeconds = c.bytes, c.seconds
		}
	}
	for k := range m.workers {
		if c, ok := m.clocks[k]; ok {
			d.Clocks = append(d.Clocks, c)
		}
		if m.lost[k] {
			d.Lost = append(d.Lost, k)
		}
	}
	slices.Sort(d.Lost)
	return d
}
