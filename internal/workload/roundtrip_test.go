package workload

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/workload/consume"
)

func TestRoundTripID(t *testing.T) {
	t.Parallel()
	id := appendRoundTripID(nil, 0xdeadbeef01234567, 3, 42, 1_700_000_000_123_456_789)
	if string(id) != "deadbeef01234567-3-42-1700000000123456789" {
		t.Fatalf("id %q", id)
	}
	nonce, client, seq, sent, ok := parseRoundTripID(id)
	if !ok || nonce != 0xdeadbeef01234567 || client != 3 || seq != 42 || sent != 1_700_000_000_123_456_789 {
		t.Fatalf("parsed %x %d %d %d %v", nonce, client, seq, sent, ok)
	}
	for _, bad := range []string{"", "k", "deadbeef01234567-3-42", "deadbeef01234567-3-42-", "DEADBEEF01234567-3-42-1",
		"deadbeef01234567-3-42-1x", "deadbeef01234567--42-1", "deadbeef0123456-3-42-1", "deadbeef01234567-3-42-99999999999999999999",
		"deadbeef01234567-9999999999-1-1"} {
		if _, _, _, _, ok := parseRoundTripID([]byte(bad)); ok {
			t.Errorf("%q parsed as an id", bad)
		}
	}
}

// rtOutput is an output as a service would write it: the id where the
// match looks for it.
func rtOutput(key bool, id []byte) *kgo.Record {
	if key {
		return &kgo.Record{Key: id, Value: []byte("v")}
	}
	return &kgo.Record{Key: []byte("service's own key"), Value: []byte("v"), Headers: []kgo.RecordHeader{{Key: "other", Value: []byte("x")}, {Key: RoundTripHeader, Value: id}}}
}

// TestRoundTripMatching: outputs matched by header or by key, each once;
// a second read is a duplicate, an output without an id of the run is
// unmatched, and an acknowledged record never read is missing.
func TestRoundTripMatching(t *testing.T) {
	t.Parallel()
	const nonce = 0x0123456789abcdef
	for _, key := range []bool{false, true} {
		t.Run("key="+strconv.FormatBool(key), func(t *testing.T) {
			t.Parallel()
			epoch := time.Unix(1_700_000_000, 0)
			m := newRTMatcher(nonce, key, 2, epoch, time.Second)
			acked := make([]bitset, 2)
			sentNs := epoch.UnixNano()
			var outs []*kgo.Record
			for c := range 2 {
				for seq := range int64(10) {
					acked[c].set(seq)
					if c == 1 && seq >= 8 {
						continue // two missing
					}
					outs = append(outs, rtOutput(key, appendRoundTripID(nil, nonce, c, seq, sentNs+seq*int64(time.Millisecond))))
				}
			}
			outs = append(outs,
				rtOutput(key, appendRoundTripID(nil, nonce, 0, 3, sentNs)),   // duplicated
				rtOutput(key, appendRoundTripID(nil, nonce, 0, 3, sentNs)),   // duplicated again
				rtOutput(key, appendRoundTripID(nil, nonce+1, 0, 4, sentNs)), // another run's
				rtOutput(key, appendRoundTripID(nil, nonce, 7, 4, sentNs)),   // a client the run lacks
				&kgo.Record{Value: []byte("no id")},                          // unmatched
			)
			// Read 20 ms after the epoch: round trips of 20 ms less the send offset.
			now := sentNs + 20*int64(time.Millisecond)
			m.observe(outs[:7], now)
			m.observe(outs[7:], now+int64(time.Second)) // the next interval
			s := m.section(acked, "header", 5*time.Second)
			want := RoundTripSection{Acked: 20, Matched: 18, Missing: 2, Duplicated: 2, Unmatched: 3}
			if s.Acked != want.Acked || s.Matched != want.Matched || s.Missing != want.Missing || s.Duplicated != want.Duplicated || s.Unmatched != want.Unmatched {
				t.Fatalf("acked %d matched %d missing %d duplicated %d unmatched %d, want %+v", s.Acked, s.Matched, s.Missing, s.Duplicated, s.Unmatched, want)
			}
			if n := s.Latency.Count(); n != 18 || s.Latency.Min() != 14_000 || s.Latency.Max() != 1_020_000 {
				t.Errorf("latency: %d values from %d to %d µs, want 18 from 14,000 to 1,020,000", n, s.Latency.Min(), s.Latency.Max())
			}
			if len(s.Series) != 2 || s.Series[0].Index != 0 || s.Series[0].Latency.Count() != 7 || s.Series[1].Index != 1 || s.Series[1].Latency.Count() != 11 {
				t.Errorf("series %+v, want 7 matched in interval 0 and 11 in interval 1", s.Series)
			}
			if got := s.OutputsPerSecond(); got != 18 {
				t.Errorf("%v outputs/s, want 18 (18 over the 1 s from the first read to the last)", got)
			}
		})
	}
}

// TestRoundTripSectionMerges: two workers' parts (overlapping reads) and
// two repeats' (one after the other) merge exactly, and survive JSON.
func TestRoundTripSectionMerges(t *testing.T) {
	t.Parallel()
	at := func(s float64) time.Time {
		return time.Unix(1_700_000_000, 0).Add(time.Duration(s * float64(time.Second)))
	}
	part := func(first, last float64, matched int64, idx int) *RoundTripSection {
		s := &RoundTripSection{Match: "header", ReplyTimeoutSeconds: 30, Acked: matched + 1, Matched: matched, Missing: 1, IntervalSeconds: 1,
			Reading: []RoundTripSpan{{First: at(first), Last: at(last)}}}
		h := measure.NewSeriesHistogram()
		for range matched {
			s.Latency.Record(2000)
			h.Record(2000)
		}
		s.Series = []RoundTripInterval{{Index: idx, Latency: h}}
		return s
	}
	tests := []struct {
		name      string
		parts     []*RoundTripSection
		wantSecs  float64
		wantRate  float64
		wantIvals int
	}{
		{"workers overlap", []*RoundTripSection{part(0, 10, 100, 0), part(5, 12, 100, 0)}, 12, 200.0 / 12, 1},
		{"repeats follow", []*RoundTripSection{part(0, 10, 100, 0), part(20, 30, 100, 3)}, 20, 10, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			merged, err := measure.MergeSections(RoundTripSectionName, []measure.Section{tt.parts[0], tt.parts[1]})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(merged)
			if err != nil {
				t.Fatal(err)
			}
			var back RoundTripSection
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			s := &back
			if s.Matched != 200 || s.Acked != 202 || s.Missing != 2 || s.Latency.Count() != 200 || s.Match != "header" {
				t.Errorf("merged %+v", s)
			}
			if got := s.ReadingSeconds(); got != tt.wantSecs {
				t.Errorf("reading %v s, want %v", got, tt.wantSecs)
			}
			if got := s.OutputsPerSecond(); got != tt.wantRate {
				t.Errorf("%v outputs/s, want %v", got, tt.wantRate)
			}
			var n int64
			for _, iv := range s.Series {
				n += iv.Latency.Count()
			}
			if len(s.Series) != tt.wantIvals || n != 200 {
				t.Errorf("series of %d intervals holding %d, want %d holding 200", len(s.Series), n, tt.wantIvals)
			}
			row := s.Table().Row
			if row[1] != "200" || row[5] != "2.0" {
				t.Errorf("table row %v, want 200 matched at p50 2.0 ms", row)
			}
		})
	}
}

// rtService copies in to out as a service would, from the start of in:
// every dropEvery-th record is dropped (0: none), every dupEvery-th
// written twice; with key, only key and value are carried (the headers
// are lost). It runs until the test ends, which waits for it.
func rtService(t *testing.T, seeds []string, in, out string, key bool, dropEvery, dupEvery int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(in), kgo.DefaultProduceTopic(out),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(done)
		defer cl.Close()
		n := 0
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachRecord(func(r *kgo.Record) {
				n++
				if dropEvery > 0 && n%dropEvery == 0 {
					return
				}
				o := &kgo.Record{Key: r.Key, Value: r.Value}
				if !key {
					o.Headers = r.Headers
				}
				copies := 1
				if dupEvery > 0 && n%dupEvery == 0 {
					copies = 2
				}
				for range copies {
					cl.Produce(ctx, o, nil)
				}
			})
		}
	}()
}

// TestRoundTripEngine runs the kind against a fake broker and an
// in-test service that drops every 10th record and writes every 7th
// twice: matched, missing after the reply timeout, duplicated.
func TestRoundTripEngine(t *testing.T) {
	t.Parallel()
	for _, key := range []bool{false, true} {
		t.Run("key="+strconv.FormatBool(key), func(t *testing.T) {
			t.Parallel()
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "in", "out"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			seeds := c.ListenAddrs()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
			defer cancel()
			rtService(t, seeds, "in", "out", key, 10, 7)
			send := testSpec(t, seeds, "in")
			send.Records, send.Clients, send.Rate = 200, 2, 1000
			read := consume.ConsumerSpec{Topics: []string{"out"}, Interval: 50 * time.Millisecond,
				ClientOpts: func(int) []kgo.Opt {
					return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.FetchMaxWait(50 * time.Millisecond)}
				}}
			// The 20 dropped records hold the run to the whole reply
			// timeout; 5 s leaves a loaded machine's service time to write
			// every copy it carries (1 s lost a late duplicate under -race).
			e := RoundTrip{Send: send, Read: read, Key: key, Timeout: 5 * time.Second}.Engine()
			env := Env{Epoch: time.Now()}
			if err := e.Prepare(ctx, env); err != nil {
				t.Fatal(err)
			}
			<-e.(Reader).Ready()
			if err := e.Start(ctx, env); err != nil {
				t.Fatal(err)
			}
			m, err := e.Wait()
			if err != nil {
				t.Fatal(err)
			}
			s, ok := m.Sections[RoundTripSectionName].(*RoundTripSection)
			if !ok {
				t.Fatalf("sections %v", m.Sections)
			}
			// 200 records, the 20 dropped missing; of the 180 carried, the 26
			// whose number n ≤ 200 is divisible by 7 and not by 10 doubled.
			if s.Acked != 200 || s.Matched != 180 || s.Missing != 20 || s.Duplicated != 26 || s.Unmatched != 0 {
				t.Errorf("acked %d matched %d missing %d duplicated %d unmatched %d, want 200, 180, 20, 26, 0",
					s.Acked, s.Matched, s.Missing, s.Duplicated, s.Unmatched)
			}
			if s.Latency.Count() != 180 || s.Latency.Min() <= 0 {
				t.Errorf("latency %d values, min %d µs; want 180 positive", s.Latency.Count(), s.Latency.Min())
			}
			if want := map[bool]string{false: "header", true: "key"}[key]; s.Match != want || s.ReplyTimeoutSeconds != 5 {
				t.Errorf("match %q timeout %v, want %q and 5 s", s.Match, s.ReplyTimeoutSeconds, want)
			}
			if m.Publish == nil || m.Publish.Acked != 200 {
				t.Errorf("publish %+v, want 200 acked", m.Publish)
			}
		})
	}
}
