package plan

// typeRule is what a workload type does and which fields it takes. Code
// that needs to know what a workload does asks its rule (Sends, Reads and
// the checks in workload.go), never its type's name: a new type is one
// entry here, plus its builder in the runner.
type typeRule struct {
	sends bool // writes records: message, rate, stages, vus, warmup, profile, transaction apply
	reads bool // reads records
	// group: joins a consumer group; backlog: may wait for bytes written;
	// idleTimeout: stops on an idle timeout (timeout); these are a reader's
	// that does not read its own records.
	group, backlog, idleTimeout bool
	sendTimeHeader              bool // may stamp send times for other readers (send_time_header)
	balanced                    bool // may follow OMB's balanced-rate search (rate: balanced)
	verify                      bool // its records are verified by default under faults
	endToEnd                    bool // reads its own records as it writes them: end-to-end latency
}

// typeRules returns the workload types and their rules, a fresh map.
func typeRules() map[string]typeRule {
	return map[string]typeRule{
		Produce:  {sends: true, sendTimeHeader: true, balanced: true, verify: true},
		Consume:  {reads: true, group: true, backlog: true, idleTimeout: true},
		EndToEnd: {sends: true, reads: true, endToEnd: true},
	}
}

// rule is the workload's type's rule (none for an unknown type, which the
// checks report).
func (w *Workload) rule() typeRule { return typeRules()[w.Type] }

// Sends says whether the workload writes records.
func (w *Workload) Sends() bool { return w.rule().sends }

// Reads says whether the workload reads records.
func (w *Workload) Reads() bool { return w.rule().reads }
