package faults

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Shape runs k's command (cluster.fault_commands.delay, ...) once for
// every pair of the link's ends: {broker} is a node of the first end,
// {peer} one of the second, or the word brokers, controllers or clients
// for those sides; the kind's parameters fill {delay} (or {latency}),
// {jitter}, {loss} (a percentage: 5 for 5%), {retransmit}, {rate} (bytes/s)
// and {rate_kbit} (kilobits/s, as tc writes rates).
func (a CommandActor) Shape(ctx context.Context, k Kind, l Link, p Params) (string, error) {
	return a.onPairs(ctx, k.Command, l, netValues(p))
}

// Unshape runs k's heal command (heal_delay, ...) for every pair, with
// the same substitutions but the parameters'.
func (a CommandActor) Unshape(ctx context.Context, k Kind, l Link) (string, error) {
	return a.onPairs(ctx, k.HealCommand(), l, nil)
}

// onPairs runs the command of cluster.fault_commands named command once
// for every pair of the link's ends.
func (a CommandActor) onPairs(ctx context.Context, command string, l Link, values map[string]string) (string, error) {
	tmpl, ok := a.Commands[command]
	if !ok {
		return "", fmt.Errorf("cluster.fault_commands has no %s command", command)
	}
	var out strings.Builder
	for _, b := range sideNames(l[0]) {
		for _, peer := range sideNames(l[1]) {
			if b == peer {
				continue // a broker and itself: no network between them
			}
			r := []string{"{broker}", b, "{peer}", peer}
			for k, v := range values {
				r = append(r, "{"+k+"}", v)
			}
			text, err := a.run(ctx, strings.NewReplacer(r...).Replace(tmpl))
			out.WriteString(text)
			if err != nil {
				return out.String(), err
			}
		}
	}
	return out.String(), nil
}

// sideNames are what {broker} and {peer} become for one end.
func sideNames(e Ends) []string {
	var names []string
	for _, n := range e.Nodes {
		names = append(names, strconv.Itoa(int(n)))
	}
	for _, w := range []struct {
		on   bool
		word string
	}{{e.Brokers, "brokers"}, {e.Controllers, "controllers"}, {e.Clients, "clients"}} {
		if w.on {
			names = append(names, w.word)
		}
	}
	return names
}

// netValues are a network fault's parameters as fault commands take them.
func netValues(p Params) map[string]string {
	v := map[string]string{}
	if d := p.Duration("latency"); d > 0 {
		v["delay"], v["latency"] = millis(d), millis(d)
	}
	v["jitter"] = millis(p.Duration("jitter"))
	if s, ok := p["share"].(float64); ok {
		v["loss"] = strconv.FormatFloat(s*100, 'f', -1, 64)
	}
	if d := p.Duration("retransmit"); d > 0 {
		v["retransmit"] = millis(d)
	}
	if r := p.ByteRate("rate"); r > 0 {
		v["rate"] = strconv.FormatInt(r, 10)
		v["rate_kbit"] = strconv.FormatInt(max(r*8/1000, 1), 10)
	}
	return v
}

// netPlaceholders are the parameters netValues may fill, sorted.
var netPlaceholders = []string{"delay", "jitter", "latency", "loss", "rate", "rate_kbit", "retransmit"}

// placeholder finds {name} in a command; ${name} is not one. It finds a
// template's {{name}} and {{ name }} whole, which are not kbench's either
// ({{broker}} would reach the command as {1}).
var placeholder = regexp.MustCompile(`\$?\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}|\$?\{[A-Za-z_][A-Za-z0-9_]*\}`)

// Placeholders lists, sorted, the {names} kbench fills in op's command
// (a key of cluster.fault_commands): {broker} always; {peer} in a network
// fault's commands, and its parameters in the command that sets it.
func Placeholders(kinds map[string]Kind, op string) []string {
	for _, k := range kinds {
		if !IsNetwork(k) || !slices.Contains(k.Commands(), op) {
			continue
		}
		if op == k.HealCommand() {
			return []string{"broker", "peer"}
		}
		out := append([]string{"broker", "peer"}, netPlaceholders...)
		slices.Sort(out)
		return out
	}
	return []string{"broker"}
}

// UnknownPlaceholders lists the {names} of command (op's) that kbench
// does not fill: they would reach the command as written. A {{name}} (a
// template's double braces) of a name kbench fills is one; other double
// braces are left alone (kubectl's go-template {{end}}).
func UnknownPlaceholders(kinds map[string]Kind, op, command string) []string {
	known := Placeholders(kinds, op)
	var unknown []string
	for _, m := range placeholder.FindAllString(command, -1) {
		name := strings.TrimSpace(strings.Trim(m, "{}"))
		bad := !slices.Contains(known, name)
		if strings.HasPrefix(m, "{{") {
			bad = !bad
		}
		if m[0] != '$' && bad && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	return unknown
}

// millis writes d in whole milliseconds, as tc and Chaos Mesh read them:
// "20ms".
func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + "ms" }
