package plan

import (
	"slices"
	"sort"
)

// TypeRule is what a workload type does and which fields it takes. Code
// that needs to know what a workload does asks its rule (Sends, Reads and
// the checks in workload.go), never its type's name: a new type is one
// entry in Types, plus its builder in the runner's kinds.
type TypeRule struct {
	Sends bool // writes records: message, rate, stages, vus, warmup, profile, transaction apply
	Reads bool // reads records
	// Group: joins a consumer group; Backlog: may wait for bytes written;
	// IdleTimeout: stops on an idle timeout (timeout). These are a plain
	// reader's, one that does not read its own records.
	Group, Backlog, IdleTimeout bool
	SendTimeHeader              bool // may stamp send times for other readers (send_time_header)
	Balanced                    bool // may follow OMB's balanced-rate search (rate: balanced)
	Verify                      bool // its records are verified by default under faults
	EndToEnd                    bool // reads its own records as it writes them: end-to-end latency
	Share                       bool // a share group's members: takes share (acknowledgement, processing)
}

// Types returns the workload types and their rules, a fresh map.
func Types() map[string]TypeRule {
	return map[string]TypeRule{
		Produce:      {Sends: true, SendTimeHeader: true, Balanced: true, Verify: true},
		Consume:      {Reads: true, Group: true, Backlog: true, IdleTimeout: true},
		ShareConsume: {Reads: true, Group: true, IdleTimeout: true, Share: true},
		EndToEnd:     {Sends: true, Reads: true, EndToEnd: true},
	}
}

// Option changes how a plan is read.
type Option func(*collector)

// WithType accepts one more workload type, with its rule (a test's kind,
// registered with the runner too).
func WithType(name string, r TypeRule) Option {
	return func(c *collector) { c.types[name] = r }
}

// typeNames lists the types a plan accepts: the built-in ones in their
// documented order, then any added, sorted.
func (c *collector) typeNames() []string {
	names := []string{Produce, Consume, ShareConsume, EndToEnd}
	var extra []string
	for n := range c.types {
		if !slices.Contains(names, n) {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}

// rule is the workload's type's rule: the one the plan was read with, or
// the built-in one (none for an unknown type, which the checks report).
func (w *Workload) rule() TypeRule {
	if w.typeRule != nil {
		return *w.typeRule
	}
	return Types()[w.Type]
}

// Sends says whether the workload writes records.
func (w *Workload) Sends() bool { return w.rule().Sends }

// Reads says whether the workload reads records.
func (w *Workload) Reads() bool { return w.rule().Reads }
