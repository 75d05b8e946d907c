package plan

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// RoundTrip is the workload type that measures a service around Kafka:
// it writes topic, the service writes what it makes of each record to
// reply_topic, and the workload reads it and matches it to what it sent.
const RoundTrip = "round-trip"

// Round-trip matching: by kbench's header (the service carries it
// through) or by the record's key.
const (
	MatchHeader = "header"
	MatchKey    = "key"
)

// DefaultReplyTimeout is how long after its last send a round-trip
// workload waits for outputs before it counts the rest as missing.
const DefaultReplyTimeout = 30 * time.Second

// Reply is how a round-trip workload reads its service's outputs.
type Reply struct {
	Topic   string        // the topic the service writes (reply_topic)
	Match   string        // MatchHeader (default) or MatchKey
	Timeout time.Duration // after the last send (reply_timeout)
}

// roundTripFields are the fields only a round-trip workload takes.
var roundTripFields = []string{"reply_topic", "match", "reply_timeout"}

// reply reads and checks a workload's round-trip fields: required for a
// type whose rule says RoundTrip, refused for any other.
func (c *collector) reply(n *yaml.Node, path string, w *Workload, given map[string]*yaml.Node) {
	if !w.rule().RoundTrip {
		for _, f := range roundTripFields {
			if v := given[f]; v != nil {
				c.addf(v, join(path, f), "applies to round-trip workloads (a service's outputs read back and matched)")
			}
		}
		return
	}
	r := &Reply{Match: MatchHeader, Timeout: DefaultReplyTimeout}
	w.Reply = r
	v := given["reply_topic"]
	if v == nil {
		c.addf(n, join(path, "reply_topic"), "missing; name the topic the service writes its outputs to, such as reply_topic: %s-out", orWord(w.Topic, "orders"))
	} else {
		p := join(path, "reply_topic")
		r.Topic = c.text(v, p)
		switch {
		case r.Topic != "" && !topicNameRE.MatchString(r.Topic):
			c.addf(v, p, "%q is not a legal topic name; use letters, digits, '.', '_' and '-', at most 249 characters", r.Topic)
		case r.Topic != "" && r.Topic == w.Topic:
			c.addf(v, p, "is the workload's topic %q; the service reads topic and writes its outputs to another topic: name that one", w.Topic)
		}
	}
	if v := given["match"]; v != nil {
		r.Match = c.oneOf(v, join(path, "match"), MatchHeader, MatchKey)
		if r.Match == MatchKey && given["message"] != nil && (w.Message.KeyRange > 0 || w.Message.KeyTemplate != nil) {
			c.addf(v, join(path, "match"), "match: key gives every record a key of kbench's own (the match); leave out message.key or use match: header")
		}
	}
	if v := given["reply_timeout"]; v != nil {
		r.Timeout = c.duration(v, join(path, "reply_timeout"))
		if r.Timeout <= 0 && v.Value != "" {
			c.addf(v, join(path, "reply_timeout"), "must be more than 0, such as 30s")
		}
	}
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// Matching says what a round-trip workload matches and how long it waits
// ("" for any other workload): the dry run's line.
func (w *Workload) Matching() string {
	r := w.Reply
	if r == nil {
		return ""
	}
	how := fmt.Sprintf("by kbench's header %s, which the service must carry from input to output", RoundTripHeader)
	if r.Match == MatchKey {
		how = "by key (kbench sets each record's key; the service must keep it)"
	}
	return fmt.Sprintf("round trip %s: writes %s, reads %s from its end, matches outputs %s; an output not read within %s after the last send (its acknowledgement) is missing",
		w.Name, w.Topic, r.Topic, how, r.Timeout)
}

// RoundTripHeader is the header a round-trip workload stamps on each
// record with match: header (workload reads it by this name too).
const RoundTripHeader = "kbench-rt-id"
