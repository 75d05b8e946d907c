package study

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload"
)

// schemaIDs are the schema ids the producers frame their records with,
// resolved at the registry before anything is sent, as a Confluent
// serializer resolves them on its first record: a registry that does not
// answer, a subject missing with auto.register.schemas=false or a schema
// refused as incompatible fails the plan before it sends.
type schemaIDs struct {
	reg *serde.Registry
	// readers is the consumers' client: a deserializer of its own, which
	// fetches each schema by id once (the producers' knows them all).
	readers *serde.Registry
	topics  map[string]bool // written with a schema format
	cfg     serde.Config
	ids     map[string]resolvedSchema // by subject and schema text
	// resolve is how long resolving every subject took (the cold cache),
	// cold the requests it made.
	resolve time.Duration
	cold    serde.Stats

	evMu       sync.Mutex
	evolutions []result.SchemaEvolution
	// restart says how to bring back a registry that does not answer when
	// it is a named local cluster's ("": the plan names the registry, or
	// started it with its own cluster).
	restart string
}

type resolvedSchema struct {
	subject string
	id      int
	schema  *serde.Schema // the schema to encode with (use.latest.version: the latest)
}

// newSchemaIDs is a registry client for the plan's properties, with url
// when the plan names none (its local cluster's registry).
func newSchemaIDs(p *plan.Plan, url string) (*schemaIDs, error) {
	props := map[string]string{}
	for k, v := range p.SchemaRegistry {
		props[k] = v
	}
	if props["schema.registry.url"] == "" {
		props["schema.registry.url"] = url
	}
	cfg, err := serde.ConfigFrom(props)
	if err != nil {
		return nil, userr.Errorf("schema_registry.%v", err)
	}
	reg, err := serde.NewRegistry(cfg)
	if err != nil {
		return nil, userr.Errorf("schema_registry.%v", err)
	}
	readers, err := serde.NewRegistry(cfg)
	if err != nil {
		return nil, userr.Errorf("schema_registry.%v", err)
	}
	return &schemaIDs{reg: reg, readers: readers, cfg: cfg, ids: map[string]resolvedSchema{}, topics: map[string]bool{}}, nil
}

// resolveAll resolves every subject the scenarios' producers write.
func (s *schemaIDs) resolveAll(ctx context.Context, scenarios []plan.Scenario) error {
	start := time.Now()
	defer func() { s.resolve += time.Since(start) }()
	for i := range scenarios {
		for j := range scenarios[i].Workloads {
			w := &scenarios[i].Workloads[j]
			if !w.Sends() || w.Message.Schema == nil {
				continue
			}
			r, err := s.resolveOne(ctx, w.Topic, false, w.Message.Schema)
			if err != nil {
				return fmt.Errorf("workload %q: %w", w.Name, err)
			}
			if r.schema != w.Message.Schema && w.Message.Template != nil {
				// use.latest.version: the registry's version must fit the
				// template as the plan's was checked to.
				src, err := payload.CompileTemplate(*w.Message.Template, 1)
				if err == nil {
					err = serde.Check(src, r.schema, 64)
				}
				if err != nil {
					return userr.Errorf("workload %q: the latest version of subject %q (id %d, use.latest.version) does not fit the template: %v", w.Name, r.subject, r.id, err)
				}
			}
			if w.Message.KeySchema != nil {
				if _, err := s.resolveOne(ctx, w.Topic, true, w.Message.KeySchema); err != nil {
					return fmt.Errorf("workload %q, keys: %w", w.Name, err)
				}
			}
		}
	}
	return nil
}

func (s *schemaIDs) subject(topic string, key bool, sch *serde.Schema) string {
	strategy := s.cfg.ValueStrategy
	if key {
		strategy = s.cfg.KeyStrategy
	}
	return serde.Subject(strategy, topic, key, sch)
}

func (s *schemaIDs) resolveOne(ctx context.Context, topic string, key bool, sch *serde.Schema) (resolvedSchema, error) {
	subject := s.subject(topic, key, sch)
	k := subject + "\x00" + sch.Text
	if r, ok := s.ids[k]; ok {
		return r, nil
	}
	id, use, err := s.reg.Resolve(ctx, s.cfg, subject, sch)
	if err != nil {
		return resolvedSchema{}, err
	}
	r := resolvedSchema{subject: subject, id: id, schema: use}
	s.ids[k] = r
	s.topics[topic] = true
	return r, nil
}

// lookup is a resolved schema; without a registry (checks, preview) the
// schema itself with id 0.
func (s *schemaIDs) lookup(topic string, key bool, sch *serde.Schema) resolvedSchema {
	if s == nil {
		return resolvedSchema{schema: sch}
	}
	if r, ok := s.ids[s.subject(topic, key, sch)+"\x00"+sch.Text]; ok {
		return r
	}
	return resolvedSchema{schema: sch}
}

// encoded wraps a template source with its schema: the values (or keys) a
// Confluent serializer would send.
func (s *schemaIDs) encoded(src payload.Source, topic string, key bool, sch *serde.Schema) payload.Source {
	r := s.lookup(topic, key, sch)
	return serde.Rendered(serde.NewSource(src, r.schema, r.id))
}

// resolveSchemas resolves the producers' schema ids at the registry
// before anything is sent, then builds the scenarios again with them.
func resolveSchemas(ctx context.Context, p *plan.Plan, scenarios []plan.Scenario, localURL string, b *build, built []runner.Scenario, bootstrap string, run *result.PlanRun) error {
	if p.SchemaRegistry["schema.registry.url"] == "" && localURL == "" {
		name := p.Cluster.Name
		return userr.Errorf("messages have a schema format but cluster %q has no schema registry: start it with one (kbench cluster up --name %s --schema-registry), or give schema_registry: {schema.registry.url: ...}", name, name)
	}
	ids, err := newSchemaIDs(p, localURL)
	if err != nil {
		return err
	}
	if p.SchemaRegistry["schema.registry.url"] == "" && p.Cluster.Name != "" {
		ids.restart = fmt.Sprintf("the schema registry of cluster %q does not answer: kbench cluster up --name %s --schema-registry restarts it, empty", p.Cluster.Name, p.Cluster.Name)
	}
	if err := ids.resolveAll(ctx, scenarios); err != nil {
		if errors.Is(err, serde.ErrUnreachable) && ids.restart != "" {
			return fmt.Errorf("before sending: %w (%s)", err, ids.restart)
		}
		return fmt.Errorf("before sending: %w", err)
	}
	b.schemas = ids
	ids.cold = ids.reg.Stats()
	for i := range scenarios {
		if built[i], err = scenarioOf(p, &scenarios[i], bootstrap, b); err != nil {
			return fmt.Errorf("scenario %s: %w", scenarios[i].Name, err)
		}
	}
	return nil
}

// record writes what the registry cost into the run's result.
func (s *schemaIDs) record(run *result.PlanRun) {
	st, rd := s.reg.Stats(), s.readers.Stats()
	out := &result.SchemaRegistry{URL: s.reg.URL(), ColdMillis: millis(s.resolve), ColdRequests: s.cold.Requests,
		Failures: st.Failures + rd.Failures}
	warm := append(st.Latencies[min(int(s.cold.Requests), len(st.Latencies)):], rd.Latencies...)
	var sum, most time.Duration
	for _, d := range warm {
		sum += d
		most = max(most, d)
	}
	out.WarmRequests = int64(len(warm))
	if len(warm) > 0 {
		out.WarmMeanMillis, out.WarmMaxMillis = millis(sum)/float64(len(warm)), millis(most)
	}
	for _, r := range s.ids {
		out.Subjects = append(out.Subjects, result.SchemaSubject{Subject: r.subject, Format: string(r.schema.Format), ID: r.id})
	}
	sortSubjects(out.Subjects)
	s.evMu.Lock()
	out.Evolutions = append(out.Evolutions, s.evolutions...)
	s.evMu.Unlock()
	run.SchemaRegistry = out
}

// evolve starts a repeat's schema evolutions: each producing workload with
// schema_evolution encodes with its first version again, and After later
// the new version is registered under its subject (the subject's
// compatibility level set to BACKWARD first, Confluent's default, so that
// the registry checks it) and its producers switch to it. An evolution
// that fails, or that the repeat ended before, is said at once through
// warn. stop ends the waits, returns once the registrations are done, and
// returns the first evolution that did not happen: the repeat measured
// something other than what the plan asked for (a registry killed mid-run
// was seen only in result.json, the run saying ok).
func (s *schemaIDs) evolve(ctx context.Context, sc *plan.Scenario, built runner.Scenario, repeat int, warn func(string)) (stop func() error) {
	if s == nil {
		return func() error { return nil }
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	start := time.Now()
	for _, w := range sc.Workloads {
		ev := w.Message.Evolution
		if ev == nil || w.Message.Schema == nil {
			continue
		}
		src := valuesSource(built, w.Name)
		if src == nil {
			continue
		}
		first := s.lookup(w.Topic, false, w.Message.Schema)
		src.SetVersion(first.schema, first.id)
		subject := s.subject(w.Topic, false, w.Message.Schema)
		fail := func(rec result.SchemaEvolution, why string) {
			msg := fmt.Sprintf("schema evolution of workload %q (subject %q) did not happen: %s", w.Name, subject, why)
			warn(msg)
			mu.Lock()
			if failed == nil {
				failed = errors.New(msg)
			}
			mu.Unlock()
			s.evMu.Lock()
			s.evolutions = append(s.evolutions, rec)
			s.evMu.Unlock()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTimer(ev.After)
			defer t.Stop()
			rec := result.SchemaEvolution{Scenario: sc.Index, Repeat: repeat, Workload: w.Name, Subject: subject, FromID: first.id}
			select {
			case <-ctx.Done():
				if parent.Err() == nil { // the repeat ended first, not Ctrl-C
					rec.AtSeconds = time.Since(start).Seconds()
					rec.Error = fmt.Sprintf("not registered: the repeat ended after %.1fs, before after: %s", rec.AtSeconds, ev.After)
					fail(rec, rec.Error+"; make after shorter than the workload's run")
				}
				return
			case <-t.C:
			}
			rec.AtSeconds = time.Since(start).Seconds()
			began := time.Now()
			err := s.reg.SetCompatibility(ctx, subject, "BACKWARD")
			var id int
			if err == nil {
				id, err = s.reg.Register(ctx, subject, ev.Schema)
			}
			rec.Millis = millis(time.Since(began))
			if err != nil {
				rec.Error = err.Error()
				why := fmt.Sprintf("%s; the producers kept version id %d", rec.Error, first.id)
				if errors.Is(err, serde.ErrUnreachable) && s.restart != "" {
					why += " (" + s.restart + ")"
				}
				fail(rec, why)
				return
			}
			rec.ID = id
			src.SetVersion(ev.Schema, id)
			s.evMu.Lock()
			s.evolutions = append(s.evolutions, rec)
			s.evMu.Unlock()
		}()
	}
	return func() error {
		cancel()
		wg.Wait()
		return failed
	}
}

// valuesSource is the named producing workload's schema-encoded values.
func valuesSource(sc runner.Scenario, name string) *serde.Source {
	for _, w := range sc.Workloads {
		if w.Name != name {
			continue
		}
		if pr, ok := w.Spec.(workload.Producing); ok {
			src, _ := serde.SourceOf(pr.Producer().Values)
			return src
		}
	}
	return nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func sortSubjects(ss []result.SchemaSubject) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j].Subject < ss[j-1].Subject; j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}

// decoder is a consume workload's value decoder when its topic is written
// with a schema format (nil otherwise): each client's decoder keeps the
// schemas it has fetched, so only its first record of each id asks the
// registry.
func (s *schemaIDs) decoder(topic string) func(i int) func([]byte) error {
	if s == nil || !s.topics[topic] {
		return nil
	}
	return func(int) func([]byte) error {
		cache := map[int]*serde.Schema{}
		failed := map[int]error{} // not asked again: a registry down would stall every record
		return func(v []byte) error {
			id, rest, err := serde.SchemaID(v)
			if err != nil {
				return err
			}
			sch := cache[id]
			if sch == nil {
				if err := failed[id]; err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				sch, err = s.readers.ByID(ctx, id)
				cancel()
				if err != nil {
					failed[id] = err
					return err
				}
				cache[id] = sch
			}
			_, err = sch.DecodePayload(rest)
			return err
		}
	}
}
