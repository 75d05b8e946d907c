package kadmin

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// versionsTimeout bounds BrokerVersions: the versions are informational,
// and a broker that does not answer must not hold up the run.
const versionsTimeout = 10 * time.Second

// BrokerVersions returns, per broker, the Apache Kafka release its
// ApiVersions answer matches ("v4.1", "at least v4.3"; franz-go's guess
// from the request versions it serves), so a result says which brokers it
// measured even against a cluster kbench did not start. Distinct guesses
// are returned sorted; brokers that did not answer are left out. brokers
// counts those that answered.
func BrokerVersions(ctx context.Context, opts []kgo.Opt) (versions []string, brokers int, err error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, 0, fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	vctx, cancel := context.WithTimeout(ctx, versionsTimeout)
	defer cancel()
	vs, err := Await(vctx, kadm.NewClient(cl).ApiVersions)
	if err != nil {
		return nil, 0, fmt.Errorf("ask the brokers for their API versions: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	vs.Each(func(v kadm.BrokerApiVersions) {
		if v.Err != nil {
			return
		}
		brokers++
		g := strings.TrimSpace(v.VersionGuess())
		if g != "" && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	})
	sort.Strings(out)
	return out, brokers, nil
}
