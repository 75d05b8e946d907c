package kafkaconf

import (
	"fmt"
	"sort"
	"strings"
)

// Profiles are named sets of producer properties applied under the user's
// own: Java's defaults stay the default, for drop-in compatibility.
var Profiles = map[string][]Prop{
	// throughput is what the fastest clients do by default (franz-go and
	// librdkafka): batches of up to 1 MiB, no linger (batches fill while
	// the previous ones are in flight), five requests in flight per
	// broker and a buffer deep enough to keep them full.
	"throughput": {
		{Key: "batch.size", Value: "1048576"},
		{Key: "linger.ms", Value: "0"},
		{Key: "buffer.memory", Value: "268435456"},
		{Key: "max.in.flight.requests.per.connection", Value: "5"},
	},
}

// ProfileNames lists the profiles, sorted.
func ProfileNames() []string {
	names := make([]string, 0, len(Profiles))
	for n := range Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WithProfile puts profile name's properties before props, so that every
// property the user gave wins (later properties override earlier ones),
// and describes what it set for the output. An empty name is no profile.
func WithProfile(name, source string, props []Prop) ([]Prop, string, error) {
	if name == "" {
		return props, "", nil
	}
	prof, ok := Profiles[name]
	if !ok {
		return nil, "", fmt.Errorf("%s %q: no such profile; use %s", source, name, strings.Join(ProfileNames(), " or "))
	}
	given := map[string]bool{}
	for _, p := range props {
		given[p.Key] = true
	}
	out := make([]Prop, 0, len(prof)+len(props))
	var set, kept []string
	for _, p := range prof {
		out = append(out, Prop{Key: p.Key, Value: p.Value, Source: source + " " + name})
		if given[p.Key] {
			kept = append(kept, p.Key)
		} else {
			set = append(set, p.Key+"="+p.Value)
		}
	}
	desc := fmt.Sprintf("profile %s: %s", name, strings.Join(set, ", "))
	if len(kept) > 0 {
		desc += fmt.Sprintf(" (yours kept: %s)", strings.Join(kept, ", "))
	}
	return append(out, props...), desc, nil
}
