// Package brokermetrics reads the brokers' own Kafka metrics through a
// repeat from Prometheus text-format endpoints: a local broker's JMX
// exporter agent (cluster/agent.go), or a remote cluster's endpoints
// (the plan's cluster.metrics). Start scrapes each Target at once and
// every interval, Stop once more and returns each endpoint's figures
// (result.KafkaMetrics): counters' increases, the request handlers' idle
// share, request times, partitions' health, and what an endpoint lacks.
package brokermetrics

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// Target is one Prometheus endpoint.
type Target struct {
	// ID is a local broker's node id (0 for a remote endpoint); Endpoint
	// is a remote one as the result shows it (its password left out).
	ID       int
	Endpoint string
	URL      string
	// Client makes the requests (nil: a plain one); Username and
	// Password, if set, are sent as basic auth.
	Client             *http.Client
	Username, Password string
}

func (t Target) name() string {
	if t.Endpoint != "" {
		return "endpoint " + t.Endpoint
	}
	return fmt.Sprintf("broker %d's endpoint", t.ID)
}

// scrapeTimeout bounds one scrape: an endpoint that hangs costs the
// repeat's end at most this.
const scrapeTimeout = 5 * time.Second

// maxBody bounds what one scrape reads: kbench's agent config exports
// about 20 kB; a remote exporter exporting everything may give megabytes.
const maxBody = 64 << 20

// Scraper follows the targets from Start to Stop.
type Scraper struct {
	targets []Target
	clock   func() int64
	cancel  context.CancelFunc
	done    sync.WaitGroup

	mu      sync.Mutex
	repeats []*repeat
}

// Start scrapes every target now, then every interval, each on its own
// goroutine (a slow endpoint delays only itself).
func Start(ctx context.Context, targets []Target, every time.Duration) *Scraper {
	began := time.Now()
	s := &Scraper{targets: targets, clock: func() int64 { return int64(time.Since(began)) }}
	ctx, s.cancel = context.WithCancel(ctx)
	for i, t := range targets {
		s.repeats = append(s.repeats, newRepeat(t.name(), began, every))
		s.scrape(ctx, i)
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					s.scrape(ctx, i)
				}
			}
		}()
	}
	return s
}

// scrape reads target i once.
func (s *Scraper) scrape(ctx context.Context, i int) {
	v, err := fetch(ctx, s.targets[i])
	at := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repeats[i]
	if err != nil {
		if r.err == nil && ctx.Err() == nil {
			r.err = err
		}
		return
	}
	r.add(v, at)
}

// Stop scrapes every target a last time and returns their figures, one
// entry per target, in the targets' order.
func (s *Scraper) Stop() []result.BrokerCost {
	s.cancel()
	s.done.Wait()
	out := make([]result.BrokerCost, len(s.targets))
	var wg sync.WaitGroup
	for i := range s.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.scrape(context.Background(), i)
		}()
	}
	wg.Wait()
	for i, t := range s.targets {
		out[i] = result.BrokerCost{ID: t.ID, Endpoint: t.Endpoint, Kafka: s.repeats[i].figures()}
	}
	return out
}

// fetch reads one endpoint's samples.
func fetch(ctx context.Context, t Target) (values, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", t.name(), err)
	}
	// The text format: kbench parses no other.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	if t.Username != "" || t.Password != "" {
		req.SetBasicAuth(t.Username, t.Password)
	}
	c := t.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", t.name(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", t.name(), resp.Status)
	}
	v, err := parse(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", t.name(), err)
	}
	return v, nil
}
