package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

const roundTripW = "name: x\nworkloads:\n  - name: rt\n    type: round-trip\n    topic: in\n    records: 100\n    message: {size: 10}\n"

func TestRoundTripWorkload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, extra string
		want        Reply
		line        string
	}{
		{"defaults", "    reply_topic: out\n", Reply{Topic: "out", Match: MatchHeader, Timeout: DefaultReplyTimeout},
			"round trip rt: writes in, reads out from its end, matches outputs by kbench's header kbench-rt-id, which the service must carry from input to output; an output not read within 30s after the last send (its acknowledgement) is missing"},
		{"by key", "    reply_topic: out\n    match: key\n    reply_timeout: 5s\n", Reply{Topic: "out", Match: MatchKey, Timeout: 5 * time.Second},
			"matches outputs by key (kbench sets each record's key; the service must keep it); an output not read within 5s after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := testParse("plan.yaml", []byte(roundTripW+tt.extra), nil)
			if err != nil {
				t.Fatal(err)
			}
			scs, err := p.Scenarios()
			if err != nil {
				t.Fatal(err)
			}
			w := scs[0].Workloads[0]
			if w.Reply == nil || *w.Reply != tt.want {
				t.Fatalf("reply %+v, want %+v", w.Reply, tt.want)
			}
			if !w.Sends() || !w.Reads() {
				t.Errorf("sends %v, reads %v; a round trip does both", w.Sends(), w.Reads())
			}
			if got := w.Matching(); !strings.Contains(got, tt.line) {
				t.Errorf("dry-run line %q, want it to contain %q", got, tt.line)
			}
		})
	}
}

func TestRoundTripWorkloadBad(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, plan, want string }{
		{"no reply topic", roundTripW, "plan.yaml:3:5: workloads[0].reply_topic: missing; name the topic the service writes its outputs to, such as reply_topic: in-out"},
		{"reply topic is the topic", roundTripW + "    reply_topic: in\n", `plan.yaml:8:18: workloads[0].reply_topic: is the workload's topic "in"`},
		{"bad reply topic", roundTripW + "    reply_topic: a/b\n", `plan.yaml:8:18: workloads[0].reply_topic: "a/b" is not a legal topic name`},
		{"bad match", roundTripW + "    reply_topic: out\n    match: value\n", `plan.yaml:9:12: workloads[0].match: "value" is not one of header or key`},
		{"key match with keys", strings.Replace(roundTripW, "{size: 10}", "{size: 10, key_range: 5}", 1) + "    reply_topic: out\n    match: key\n",
			"plan.yaml:9:12: workloads[0].match: match: key gives every record a key of kbench's own"},
		{"zero timeout", roundTripW + "    reply_topic: out\n    reply_timeout: 0s\n", "plan.yaml:9:20: workloads[0].reply_timeout: must be more than 0"},
		{"reply topic on produce", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 1, message: {size: 1}, reply_topic: u}\n",
			"plan.yaml:3:85: workloads[0].reply_topic: applies to round-trip workloads"},
		{"match on consume", "name: x\nworkloads:\n  - {name: c, type: consume, topic: t, match: key}\n", "workloads[0].match: applies to round-trip workloads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := testParse("plan.yaml", []byte(tt.plan), nil)
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a user error containing %q", err, tt.want)
			}
		})
	}
}
