package plan

// TypeRule is what a workload type does and which fields it takes. Code
// that needs to know what a workload does asks its rule (Sends, Reads and
// the checks in workload.go), never its type's name. The parser holds no
// list of types: the kinds' table (study.Kinds) hands each name and rule
// to it with WithType, so a new kind is registered once, there.
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
	RoundTrip                   bool // reads a service's outputs of its records: takes reply_topic, match, reply_timeout
}

// The built-in kinds' rules, which their entries in the kinds' table
// name.
var (
	ProduceRule      = TypeRule{Sends: true, SendTimeHeader: true, Balanced: true, Verify: true}
	ConsumeRule      = TypeRule{Reads: true, Group: true, Backlog: true, IdleTimeout: true}
	ShareConsumeRule = TypeRule{Reads: true, Group: true, IdleTimeout: true, Share: true}
	EndToEndRule     = TypeRule{Sends: true, Reads: true, EndToEnd: true}
	RoundTripRule    = TypeRule{Sends: true, Reads: true, RoundTrip: true}
)

// Option changes how a plan is read.
type Option func(*collector)

// WithType accepts a workload type, with its rule; the types are listed
// to the user in the order given.
func WithType(name string, r TypeRule) Option {
	return func(c *collector) {
		if _, ok := c.types[name]; !ok {
			c.typeOrder = append(c.typeOrder, name)
		}
		c.types[name] = r
	}
}

// rule is the workload's type's rule, as the plan was read (none for an
// unknown type, which the checks report).
func (w *Workload) rule() TypeRule {
	if w.typeRule != nil {
		return *w.typeRule
	}
	return TypeRule{}
}

// Sends says whether the workload writes records.
func (w *Workload) Sends() bool { return w.rule().Sends }

// Reads says whether the workload reads records.
func (w *Workload) Reads() bool { return w.rule().Reads }
