package plan

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// OMB is an OpenMessaging Benchmark workload file run with an OMB Kafka
// driver file, translated into a kbench plan. Plan runs it; YAML is the
// same plan in kbench's own format (what `kbench plan from-omb` prints,
// after --set, secrets redacted); Fields say what each OMB field became,
// Notes where kbench does differently for this workload (said before a
// run). docs/omb.md describes the translation field by field.
type OMB struct {
	Plan   *Plan
	YAML   []byte
	Fields []OMBField
	Notes  []string
	// Warnings are what the files hold that OMB ignores (unknown fields,
	// with a did-you-mean), each with file:line; Plan.Warnings has them
	// too, so a run says them.
	Warnings []string
}

// OMBField is one OMB field, its value and what it became.
type OMBField struct {
	File    string // "workload" or "driver"
	Field   string
	Value   string // as written, or "(default 1)"
	Becomes string
}

// OMBSource is what a plan translated from OMB keeps of its files (in
// Plan.OMB), for what reads its results the OMB way.
type OMBSource struct {
	// WorkloadFile is the workload file's name without its folder and
	// extension: OMB names its result files after it.
	WorkloadFile string
	Workload     OMBWorkload
	Driver       OMBDriver
	// Topics are the topics in OMB's order, each with the kbench workloads
	// made from it.
	Topics []OMBTopic
}

// OMBTopic is one topic of an OMB workload and the kbench workloads made
// from it.
type OMBTopic struct {
	Name string
	// Producers is the produce workload of its producersPerTopic producers.
	Producers string
	// Subscriptions are its consume workloads, one per subscription (the
	// workload and its consumer group have the subscription's name).
	Subscriptions []string
}

// ombRand makes the random parts of topic and subscription names; tests
// replace it.
type ombRand func(n int) string

// LoadOMB reads an OMB workload file and a Kafka driver file, applies the
// --set overrides and translates them into a kbench plan. --set PATH=VALUE
// addresses an OMB workload field by its name (producerRate=5000), a
// driver field under driver. (driver.replicationFactor=1, a property of a
// *Config text as driver.producerConfig.linger\.ms=5), and anything else a
// field of the translated kbench plan (repeat=3, cluster.local.brokers=3).
// A bad file or --set is a userr error listing every problem, each with
// where it is.
// ctx interrupts the reading of the files (a FIFO with no writer waits).
func LoadOMB(ctx context.Context, workloadPath, driverPath string, sets []string, opts ...Option) (*OMB, error) {
	o, err := loadOMB(ctx, workloadPath, driverPath, sets, cryptoName, opts...)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("read the OMB workload %s: %w", workloadPath, context.Cause(ctx))
	}
	return o, err
}

// cryptoName is n random bytes in base64url without padding, as OMB's
// RandomGenerator.getRandomString makes its names' suffixes.
func cryptoName(n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b) // crypto/rand.Read never fails on supported systems
	return base64.RawURLEncoding.EncodeToString(b)
}

// WithOMBNames draws the random parts of an OMB workload's topic and
// subscription names from seed instead of at random: every worker of a
// distributed run (seed: the run's id) names them alike, so their slices
// are of one topic and one group.
func WithOMBNames(seed string) Option {
	return func(c *collector) { c.ombNames = seed }
}

// seededNames draws names as cryptoName does, from seed: the i-th name of
// a seed is always the same.
func seededNames(seed string) ombRand {
	i := 0
	return func(n int) string {
		i++
		var b []byte
		for j := 0; len(b) < n; j++ {
			sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%d", seed, i, j)))
			b = append(b, sum[:]...)
		}
		return base64.RawURLEncoding.EncodeToString(b[:n])
	}
}

func loadOMB(ctx context.Context, workloadPath, driverPath string, sets []string, rnd ombRand, opts ...Option) (*OMB, error) {
	named := newCollector(workloadPath, nil)
	for _, o := range opts {
		o(named)
	}
	if named.ombNames != "" {
		rnd = seededNames(named.ombNames)
	}
	wroot, err := ombFile(ctx, workloadPath, "workload")
	if err != nil {
		return nil, err
	}
	droot, err := ombFile(ctx, driverPath, "driver")
	if err != nil {
		return nil, err
	}
	if err := ombKinds(workloadPath, wroot, driverPath, droot); err != nil {
		return nil, err
	}
	wc, dc := newCollector(workloadPath, sets), newCollector(driverPath, sets)
	kbenchSets, props, setProblems := splitOMBSets(wroot, droot, sets)
	if len(setProblems) > 0 {
		return nil, userr.New(setProblems)
	}
	w := wc.ombWorkload(wroot)
	d := dc.ombDriver(droot, props)
	dc.ombDriverCheck(d)
	if len(wc.list) == 0 && !w.UseRandomizedPayloads {
		wc.ombPayload(workloadPath, w)
	}
	if err := errors.Join(wc.err(), dc.err()); err != nil {
		return nil, userr.New(joinProblems(wc, dc))
	}
	t := newOMBTranslation(workloadPath, driverPath, w, d, kbenchSets, rnd)
	doc := t.plan()
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("write the OMB workload as a kbench plan: %w", err)
	}
	p, err := parse(ctx, workloadPath+" (as a kbench plan)", data, kbenchSets, true, opts...)
	if err != nil {
		return nil, err
	}
	// Payload files are where OMB would look (or found beside the
	// workload), relative to the folder kbench runs in.
	p.Dir = ""
	p.OMB = t.source()
	var warnings []string
	for _, w := range append(wc.warnings, dc.warnings...) {
		warnings = append(warnings, w.String())
	}
	p.warnings = append(warnings, p.warnings...)
	return &OMB{Plan: p, YAML: p.Redacted(), Fields: t.sortedFields(), Notes: t.notes, Warnings: warnings}, nil
}

// ombFile reads and parses an OMB YAML file.
func ombFile(ctx context.Context, path, what string) (*yaml.Node, error) {
	data, err := infile.ReadContext(ctx, path, MaxFile, "an OMB "+what+" file")
	if err != nil {
		return nil, userr.Errorf("read the OMB %s file: %v", what, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, userr.New(syntaxProblem(path, data, err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, userr.Errorf("%s: the OMB %s file is empty", path, what)
	}
	if hasAlias(doc.Content[0]) {
		return nil, userr.Errorf("%s: uses YAML anchors or aliases (&, *); write each value out", path)
	}
	return doc.Content[0], nil
}

// ombKinds refuses files given in each other's place, or a kbench plan
// given as an OMB workload, with what to do instead.
func ombKinds(wpath string, wroot *yaml.Node, dpath string, droot *yaml.Node) error {
	switch {
	case hasKey(wroot, "workloads"):
		return userr.Errorf("%s is a kbench plan, not an OpenMessaging Benchmark workload: run it without --omb-driver", wpath)
	case hasKey(wroot, "driverClass") && hasKey(droot, "partitionsPerTopic"):
		return userr.Errorf("%s is an OMB driver file and %s an OMB workload: give the workload first and the driver with --omb-driver", wpath, dpath)
	case hasKey(wroot, "driverClass"):
		return userr.Errorf("%s is an OMB driver file: give an OMB workload file (workloads/*.yaml), and the driver with --omb-driver", wpath)
	case hasKey(droot, "partitionsPerTopic") || hasKey(droot, "topics"):
		return userr.Errorf("--omb-driver %s is an OMB workload file: give a Kafka driver file (driver-kafka/*.yaml, with driverClass)", dpath)
	}
	return nil
}

func hasKey(n *yaml.Node, key string) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// LooksLikeOMB reports whether the file at path is an OMB workload (for a
// plan that fails to load: the user forgot --omb-driver). Only a regular
// file is read again: a FIFO's data went to the first reading.
func LooksLikeOMB(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	data, err := infile.Read(path, MaxFile, "a plan")
	if err != nil {
		return false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	return hasKey(root, "partitionsPerTopic") || hasKey(root, "producersPerTopic") || hasKey(root, "subscriptionsPerTopic")
}

// splitOMBSets applies the --sets of OMB fields to the files' trees and
// returns the driver's property settings and the --sets of the kbench
// plan, in order.
func splitOMBSets(wroot, droot *yaml.Node, sets []string) (kbench []string, props []ombPropSet, problems Problems) {
	bad := func(s, format string, args ...any) {
		problems = append(problems, Problem{Where: "--set " + shownSet(s), Msg: fmt.Sprintf(format, args...)})
	}
	for i, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			bad(s, "no '=': write --set FIELD=VALUE, such as --set producerRate=5000 or --set testDurationMinutes=1")
			continue
		}
		steps, err := parseSetPath(path)
		if err != nil {
			bad(s, "%v; write an OMB field (producerRate), driver.FIELD (driver.replicationFactor) or a kbench plan field (repeat)", err)
			continue
		}
		first := steps[0].key
		switch {
		case contains(ombWorkloadFields, first):
			if len(steps) > 1 {
				bad(s, "%s is a single value; write --set %s=VALUE", first, first)
				continue
			}
			if err := applySet(wroot, s, i); err != nil {
				bad(s, "%v", err)
			}
		case first == "driver":
			if len(steps) < 2 || steps[1].index >= 0 {
				bad(s, "name a driver field: driver.%s", strings.Join(ombDriverFields, ", driver."))
				continue
			}
			field := steps[1].key
			switch {
			case !contains(ombDriverFields, field):
				msg := fmt.Sprintf("driver.%s: the driver has no field %q; it has %s", field, field, strings.Join(ombDriverFields, ", "))
				if near := suggest.Nearest(field, ombDriverFields); near != "" {
					msg += "; " + suggest.Mean("driver."+near, suggest.Bare)
				}
				bad(s, "%s", msg)
			case len(steps) == 3 && contains(ombConfigFields, field) && steps[2].index < 0:
				props = append(props, ombPropSet{field: field, key: steps[2].key, value: value, index: i})
			case len(steps) > 2:
				bad(s, "driver.%s is a single value; a property of a *Config field is driver.%s.NAME, its dots written \\. (driver.producerConfig.linger\\.ms=5)", field, field)
			default:
				rest := strings.TrimPrefix(s, "driver.")
				if err := applySet(droot, rest, i); err != nil {
					bad(s, "%v", err)
				}
			}
		case contains(topFields, first):
			kbench = append(kbench, s)
		default:
			known := append(append([]string{"driver"}, ombWorkloadFields...), topFields...)
			msg := fmt.Sprintf("%q is neither an OMB workload field, driver.FIELD nor a kbench plan field", first)
			if near := suggest.Nearest(first, known); near != "" {
				msg += "; " + suggest.Mean(near, suggest.Quoted)
			}
			bad(s, "%s", msg)
		}
	}
	return kbench, props, problems
}

// joinProblems lists the workload file's problems, then the driver's.
func joinProblems(cs ...*collector) Problems {
	var all Problems
	for _, c := range cs {
		if err := c.err(); err != nil {
			all = append(all, c.list...)
		}
	}
	// --set problems first, as a plan's: they explain the rest.
	var sets, rest Problems
	for _, p := range all {
		if p.Line == 0 && strings.HasPrefix(p.Where, "--set ") {
			sets = append(sets, p)
		} else {
			rest = append(rest, p)
		}
	}
	return append(sets, rest...)
}

// ombPayload finds the payload file where OMB would (relative to the
// folder it runs in), else beside the workload file or in the folder
// above it (OMB's repository keeps workloads/ beside payload/), and checks
// that it holds messageSize bytes, as OMB does.
func (c *collector) ombPayload(workloadPath string, w *OMBWorkload) {
	n := w.given["payloadFile"]
	var tried []string
	candidates := []string{w.PayloadFile}
	if !filepath.IsAbs(w.PayloadFile) {
		dir := filepath.Dir(workloadPath)
		candidates = append(candidates, filepath.Join(dir, w.PayloadFile), filepath.Join(filepath.Dir(dir), w.PayloadFile))
	}
	for _, p := range candidates {
		if contains(tried, p) {
			continue
		}
		tried = append(tried, p)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.Mode().IsRegular() && fi.Size() != int64(w.MessageSize) {
			c.addf(n, "payloadFile", "%s holds %d bytes and messageSize is %d; OMB refuses the mismatch (\"Payload length mismatch\") as kbench does: the whole file is each record's value, so give its size as messageSize or a file of that size", p, fi.Size(), w.MessageSize)
		}
		w.payloadPath = p
		return
	}
	c.addf(n, "payloadFile", "%s not found (looked for %s); OMB reads it relative to the folder it runs in, kbench also beside the workload file and in the folder above it: run from the folder OMB would, or copy OMB's payload folder", w.PayloadFile, strings.Join(tried, ", "))
}

// planNameRE is what a plan's name may not hold.
var notPlanName = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// ombPlanName is the plan's name (its results folder) from the workload
// file's name.
func ombPlanName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name := strings.Trim(notPlanName.ReplaceAllString(base, "-"), "-")
	if name == "" {
		name = "omb"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return name
}
