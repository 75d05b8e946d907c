package plan

// typeRule is what a workload type does. Code that needs to know what a
// workload does asks its rule (Sends, Reads), never its type's name: a new
// type is one entry here.
type typeRule struct {
	sends bool // writes records to its topic
	reads bool // reads records from its topics
}

// typeRules returns the workload types and their rules, a fresh map.
func typeRules() map[string]typeRule {
	return map[string]typeRule{
		Produce:  {sends: true},
		Consume:  {reads: true},
		EndToEnd: {sends: true, reads: true},
	}
}

// Sends says whether the workload writes records.
func (w *Workload) Sends() bool { return typeRules()[w.Type].sends }

// Reads says whether the workload reads records.
func (w *Workload) Reads() bool { return typeRules()[w.Type].reads }
