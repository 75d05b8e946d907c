package faults

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Kind is one fault operation as a value: its name, what it does to its
// targets (Effect, all the timeline and the plan read), its parameters,
// the command a remote cluster runs for it, and how the local cluster
// carries it out (Broker, on a broker process; Shape, on a link between
// two ends). LocalActor, CommandActor and `kbench cluster NAME` read these
// fields; nothing switches on the name. A new kind is a file of its own
// and a line in Kinds.
type Kind struct {
	// Name is the plan's action: "kill", "delay".
	Name string
	// Effect says what the action does to the brokers it targets and to
	// its link. The timeline measures from it, never from the name.
	Effect Effect
	// Params are the parameters the action takes beside its target and its
	// time (a bounce's times); a plan checks them before the run.
	Params []Param
	// Command is the key of cluster.fault_commands a remote cluster runs
	// for the action (a bounce runs restart); a network kind's heal runs
	// "heal_" and it (HealCommand). Empty for a heal, which runs the
	// command of the fault it undoes.
	Command string
	// Example is a Command for messages that ask for one, HealExample a
	// HealCommand (docs/faults.md has them with their setup).
	Example, HealExample string
	// Broker, for a kind that acts on broker processes, is what the local
	// cluster does to one (LocalActor).
	Broker func(ctx context.Context, p Processes, id int) error
	// Repeat, if set, names the CountParam that repeats Broker on each
	// broker (a bounce's times).
	Repeat string
	// Shape, for a network kind, sets and clears its fault on a local
	// cluster's link; nil for any other kind (IsNetwork).
	Shape *Shaping
	// Manual, if set, makes the action a command of its own for a local
	// cluster's brokers: kbench cluster NAME --broker N.
	Manual *Manual
}

// Kinds are the fault kinds by action name: a fresh map of the built-in
// ones, so that a caller (a test) may add its own. A new kind is a file
// and a line here.
func Kinds() map[string]Kind {
	return map[string]Kind{
		Kill:    kill,
		Stop:    stop,
		Pause:   pause,
		Resume:  resume,
		Restart: restart,
		Bounce:  bounce,

		Delay:     delay,
		Loss:      loss,
		Bandwidth: bandwidth,
		Cut:       partition,
		HealLink:  healLink,
	}
}

// Commands are the cluster.fault_commands a remote cluster needs for the
// action: its Command, and for a network kind its HealCommand.
func (k Kind) Commands() []string {
	switch {
	case k.Command == "":
		return nil
	case IsNetwork(k):
		return []string{k.Command, k.HealCommand()}
	}
	return []string{k.Command}
}

// HealCommand is the key of cluster.fault_commands that undoes a network
// kind's fault.
func (k Kind) HealCommand() string { return "heal_" + k.Command }

// IsNetwork says whether kind acts on links (its fault takes between).
func IsNetwork(k Kind) bool { return k.Shape != nil }

// Act carries the action out on its resolved targets: what it printed,
// and how to undo what it leaves in place when the timeline ends.
func (k Kind) Act(ctx context.Context, a Action) (Done, error) {
	switch {
	case k.Effect.Heals:
		return undo(ctx, a)
	case IsNetwork(k):
		return shape(ctx, a, k)
	}
	times := int64(1)
	if k.Repeat != "" {
		times = a.Params.Count(k.Repeat)
	}
	return onEach(ctx, a, k, int(times))
}

// Example is an example of the cluster.fault_commands command named
// command, from the kind that runs it ("" if none has one).
func Example(kinds map[string]Kind, command string) string {
	for _, name := range Names(kinds) {
		k := kinds[name]
		switch {
		case k.Example != "" && command == k.Command:
			return k.Example
		case k.HealExample != "" && IsNetwork(k) && command == k.HealCommand():
			return k.HealExample
		}
	}
	return ""
}

// Names lists the kinds' action names, sorted.
func Names(kinds map[string]Kind) []string {
	names := make([]string, 0, len(kinds))
	for name := range kinds {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// CommandNames lists the commands the kinds run on a remote cluster,
// sorted: the keys cluster.fault_commands takes.
func CommandNames(kinds map[string]Kind) []string {
	var names []string
	for _, k := range kinds {
		for _, c := range k.Commands() {
			if !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	sort.Strings(names)
	return names
}

// Effect is what an action does to the brokers it targets; the timeline
// measures from it.
type Effect struct {
	// Away: the brokers stop serving, for good or for a while (a kill, a
	// stop, a pause, a restart's shutdown). The partitions they led are
	// watched until each has a leader again (the election), and the
	// acknowledgement gaps that begin during the action are the fault's.
	Away bool
	// Down: they stay away after the action, until one brings them Back. An
	// action on a broker that is down moves no leaders itself: the
	// election, whenever it comes, belongs to the fault that took it down.
	Down bool
	// Back: they serve again after the action; the recovery of every
	// in-sync replica set is measured.
	Back bool
	// Continues: with Back, the same process goes on (a resume, not a
	// restart), so it may keep the partitions the cluster had not moved
	// yet: an election still watched for it settles instead of waiting.
	Continues bool
	// Disrupts: the brokers keep serving, more slowly or less reliably (a
	// delay, a loss): no election is watched, but the acknowledgement gaps
	// that begin during the action are the fault's, as for Away, unless it
	// Slows.
	Disrupts bool
	// Slows, with Disrupts: every request still gets through, only later
	// (a delay, a bandwidth limit), so the action makes no partition
	// unavailable and the acknowledgement gaps under it are not the
	// fault's (no unavailable_ms). A 0 ms delay was given the load's own
	// gaps between acknowledgements, 433-529 ms, as unavailability.
	Slows bool
	// Cuts, for a network kind: the link carries nothing while it lasts
	// (a partition). The result says what a single broker was cut from.
	Cuts bool
	// Heals: the action undoes the earlier network fault its target names
	// ({fault: NAME}) before the end of the timeline.
	Heals bool
}

// Action is a fault as its kind carries it out, at its moment.
type Action struct {
	// Brokers are the target's node ids, resolved when the fault happens:
	// one for every target a plan has (a broker, a partition's leader, the
	// controller, an earlier fault's broker). Network kinds will get the
	// other side beside it (brokers, controllers, kbench's clients).
	Brokers []int32
	// Params are the kind's parameters, with the defaults of those the
	// plan left out.
	Params Params
	// Actor acts on the cluster's broker processes.
	Actor Actor
	// Link, for a network kind, is the link's two ends, resolved.
	Link *Link
	// Ended is closed when the timeline ends: an action that lasts (a
	// network fault's duration) stops waiting.
	Ended <-chan struct{}
	// Undo, for a heal, undoes the fault it names (that fault's
	// Done.Heal, which the end of the timeline then does not run).
	Undo func(ctx context.Context) (string, error)
}

// Done is what an action did.
type Done struct {
	Output string
	// Heal, if set, undoes what the action left in place (a network rule)
	// when the timeline ends. Brokers left down or paused are not for it:
	// the actor's Heal brings back every one of them.
	Heal func(ctx context.Context) (output string, err error)
	// HealedAt, if set, is when the action undid itself (a network fault's
	// duration ended): it brought its brokers back then.
	HealedAt time.Time
}

// ParamKind is the grammar of a parameter's value (internal/units').
type ParamKind int

// The kinds of parameter values and their Go types in Params.
const (
	CountParam    ParamKind = iota // a whole number in [Min, Max]: int64
	DurationParam                  // above 0: time.Duration
	SizeParam                      // bytes in [Min, Max]: int64
	RateParam                      // per second, above 0: float64
	ShareParam                     // a share from 0 to 1 (5% or 0.05): float64
	ByteRateParam                  // bytes per second in [Min, Max] (1MB/s): int64
)

// Param is one parameter of a kind, written beside the fault's action in
// a plan (times: 3).
type Param struct {
	Name     string
	Kind     ParamKind
	Min, Max int64 // CountParam, SizeParam
	// Default is the value when the plan leaves it out, of the kind's Go
	// type.
	Default any
	// Required: a plan must give it (a delay's latency).
	Required bool
	// Zero: a DurationParam may be 0, which does nothing (a matrix's
	// baseline: latency 0).
	Zero bool
	// Does says what it makes the action do, after the kind's name: "only
	// a bounce repeats".
	Does string
}

// Params are a fault's parameter values by name, of their ParamKind's Go
// type.
type Params map[string]any

// Count is a CountParam's value (0 when absent).
func (p Params) Count(name string) int64 { v, _ := p[name].(int64); return v }

// Duration is a DurationParam's value (0 when absent).
func (p Params) Duration(name string) time.Duration { v, _ := p[name].(time.Duration); return v }

// Size is a SizeParam's value in bytes (0 when absent).
func (p Params) Size(name string) int64 { v, _ := p[name].(int64); return v }

// Rate is a RateParam's value per second (0 when absent).
func (p Params) Rate(name string) float64 { v, _ := p[name].(float64); return v }

// Share is a ShareParam's value from 0 to 1 (0 when absent).
func (p Params) Share(name string) float64 { v, _ := p[name].(float64); return v }

// ByteRate is a ByteRateParam's value in bytes per second (0 when absent).
func (p Params) ByteRate(name string) int64 { v, _ := p[name].(int64); return v }

// String lists the values by name: "times 3".
func (p Params) String() string {
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %v", name, p[name])
	}
	return strings.Join(parts, ", ")
}

// WithDefaults is p with the default of every parameter of k it lacks.
func WithDefaults(k Kind, p Params) Params {
	out := Params{}
	for _, param := range k.Params {
		if param.Default != nil {
			out[param.Name] = param.Default
		}
	}
	for name, v := range p {
		out[name] = v
	}
	return out
}

// ParamNames lists every parameter any of the kinds takes, sorted.
func ParamNames(kinds map[string]Kind) []string {
	var names []string
	for _, k := range kinds {
		for _, p := range k.Params {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// ParamOf finds kind k's parameter name.
func ParamOf(k Kind, name string) (Param, bool) {
	for _, p := range k.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}
