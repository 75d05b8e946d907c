package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/userr"
)

// Load reads the plan file, applies the --set overrides and checks it. A
// bad plan is a userr error listing every problem. ctx interrupts the
// reading of the plan and of the files it names (a FIFO with no writer
// waits for one): the error then wraps ctx's.
func Load(ctx context.Context, path string, sets []string, opts ...Option) (*Plan, error) {
	data, err := infile.ReadContext(ctx, path, MaxFile, "a plan")
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	if err != nil {
		return nil, userr.Errorf("read plan: %v", err)
	}
	p, err := parse(ctx, path, data, sets, false, opts...)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("read plan %s: %w", path, context.Cause(ctx))
	}
	if err != nil {
		return nil, err
	}
	p.Dir = filepath.Dir(path)
	return p, nil
}

// Parse checks a plan given as YAML text; file names it in errors; the
// files it names (templates, schemas) are read without a context. The
// plan as run (Redacted) has no comments: a comment is prose, and prose
// can hold a secret no pattern finds ("the truststore password is x").
func Parse(file string, data []byte, sets []string, opts ...Option) (*Plan, error) {
	return parse(context.Background(), file, data, sets, false, opts...)
}

// parse is Parse; ownComments keeps the comments in the plan as run, for
// a plan whose text kbench wrote (an OMB workload's translation).
func parse(ctx context.Context, file string, data []byte, sets []string, ownComments bool, opts ...Option) (*Plan, error) {
	c := newCollector(file, sets)
	c.ctx = ctx
	for _, o := range opts {
		o(c)
	}
	if len(c.types) == 0 {
		// A caller's mistake, not the user's: the kinds' table was not
		// handed over.
		return nil, errors.New("read plan: no workload types given to the parser (plan.WithType; study.PlanTypes)")
	}
	c.dir = filepath.Dir(file)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, userr.New(syntaxProblem(file, data, err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, userr.Errorf("%s: the plan is empty; see docs/plans.md for its fields", file)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		c.addf(root, "", "the plan is %s; write a mapping with name, workloads and the other fields of docs/plans.md", kindName(root))
		return nil, userr.New(c.err())
	}
	if hasAlias(root) {
		return nil, userr.Errorf("%s: the plan uses YAML anchors or aliases (&, *); write each value out", file)
	}
	for i, s := range sets {
		if err := applySet(root, s, i); err != nil {
			c.list = append(c.list, Problem{Where: "--set " + shownSet(s), Msg: err.Error()})
		}
	}
	if len(c.list) > 0 {
		return nil, userr.New(c.err())
	}
	p := &Plan{File: file}
	topics, workloads, matrix := c.header(root, p)
	c.checkZones(p)
	before := len(c.list)
	names, points := c.matrix(matrix)
	p.params = names
	matrixOK := len(c.list) == before
	// With the matrix or a reference wrong, the substituted values would
	// only add noise.
	if !c.checkRefs(root, topics, workloads, matrix, names) && matrixOK {
		taken := make(map[string]bool, len(points))
		for i, pt := range points {
			sc := Scenario{Index: i + 1, Name: p.Name}
			for _, name := range names {
				v, ok := pt.values[name]
				if !ok {
					c.addf(matrix.Content[i], fmt.Sprintf("matrix[%d]", i), "lacks %s, which other scenarios give; give every scenario the same parameters", name)
					continue
				}
				sc.Params = append(sc.Params, Param{Name: name, Value: valueText(v)})
			}
			if len(sc.Params) > 0 {
				var parts []string
				for _, pr := range sc.Params {
					parts = append(parts, pr.Name+"="+pr.Value)
				}
				sc.Name = strings.Join(parts, " ")
			}
			c.body(c.substitute(topics, pt, "topics"), c.substitute(workloads, pt, "workloads"), &sc)
			c.tiered(p, &sc)
			if c.brokerConfigsNode != nil {
				sc.BrokerConfigs = c.brokerConfigs(c.substitute(c.brokerConfigsNode, pt, "cluster.broker_configs"))
			}
			if c.faultsNode != nil {
				var nodes faultNodes
				sc.Faults, nodes = c.faults(c.substitute(c.faultsNode, pt, "faults"))
				c.checkFaults(p, &sc, nodes, c.clusterNode)
			}
			if taken[sc.Name] {
				// Values abbreviated alike ({…}): the number tells them apart.
				sc.Name = fmt.Sprintf("%s #%d", sc.Name, sc.Index)
			}
			taken[sc.Name] = true // a map: comparing each name with every earlier one took 10,000² steps
			p.scenarios = append(p.scenarios, sc)
		}
	}
	c.verifyDefaults(p)
	c.shareReleases(p)
	c.registryDefaults(p, root)
	if err := c.err(); err != nil {
		return nil, userr.New(err)
	}
	for _, w := range c.warnings {
		p.warnings = append(p.warnings, w.String())
	}
	redactSecrets(root)
	if ownComments {
		redactComments(&doc)
	} else {
		dropComments(&doc)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("render the plan as run: %w", err)
	}
	p.redacted = buf.Bytes()
	return p, nil
}

// parserProblems are the YAML library's errors that name the line of the
// enclosing collection rather than of the mistake.
var parserProblems = map[string]bool{
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected node content":     true,
	"did not find expected <document start>": true,
}

var (
	yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	// flowRef: an unquoted ${...} inside {...} or [...], alone or in a word.
	flowRef = regexp.MustCompile(`[{\[][^}\]"']*\$\{`)
)

// syntaxProblem turns the YAML library's error into file:line: message.
func syntaxProblem(file string, data []byte, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %s", file, strings.Join(te.Errors, "; "))
	}
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if strings.Contains(m[2], "tab character") || m[2] == "found character that cannot start any token" {
			if tl, col, ok := findTab(data, line); ok {
				return fmt.Errorf("%s:%d:%d: YAML syntax error: a tab character; YAML indents with spaces only: replace the tab with spaces", file, tl, col)
			}
		}
		where := ""
		if parserProblems[m[2]] {
			// The library names the 0-based line where the enclosing list or
			// mapping starts; the mistake is in it, often further down.
			line++
			where = fmt.Sprintf(" in the list or mapping that starts at line %d", line)
		}
		hint := ""
		// From the line named on: a flow list or mapping may span lines.
		rest := strings.Join(strings.Split(string(data), "\n")[min(max(line-1, 0), strings.Count(string(data), "\n")):], "\n")
		if flowRef.MatchString(rest) {
			hint = `; inside {...} or [...] put a value with a parameter in quotes: {size: "${size}"}, {topic: "t-${acks}"}`
		}
		return fmt.Errorf("%s:%d: YAML syntax error%s: %s%s", file, line, where, m[2], hint)
	}
	return fmt.Errorf("%s: YAML syntax error: %s", file, strings.TrimPrefix(msg, "yaml: "))
}

// findTab finds the tab behind a YAML tab error: the library's line is the
// tab's, or the one before it (a tab that breaks indentation), so those
// come first; then the first line indented with a tab. line and col are
// 1-based.
func findTab(data []byte, near int) (line, col int, ok bool) {
	lines := strings.Split(string(data), "\n")
	indentTab := func(i int) int {
		if i < 0 || i >= len(lines) {
			return -1
		}
		l := lines[i]
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		return strings.IndexByte(indent, '\t')
	}
	for _, i := range []int{near - 1, near} {
		if c := indentTab(i); c >= 0 {
			return i + 1, c + 1, true
		}
	}
	if i := near - 1; i >= 0 && i < len(lines) {
		if c := strings.IndexByte(lines[i], '\t'); c >= 0 {
			return near, utf8.RuneCountInString(lines[i][:c]) + 1, true
		}
	}
	for i := range lines {
		if c := indentTab(i); c >= 0 {
			return i + 1, c + 1, true
		}
	}
	return 0, 0, false
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	for _, ch := range n.Content {
		if hasAlias(ch) {
			return true
		}
	}
	return false
}

// secretKey matches property names whose values must not be written out.
var secretKey = regexp.MustCompile(`(?i)(password|secret|jaas|credentials|token|ssl\.key|user\.info)`)

func redactSecrets(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode && secretKey.MatchString(k.Value) {
				v.Value, v.Tag, v.Style = "[redacted]", "!!str", 0
				continue
			}
			if v.Kind == yaml.ScalarNode && strings.HasSuffix(k.Value, ".url") {
				v.Value = redactURLUser(v.Value) // basic.auth.credentials.source=URL
			}
			redactSecrets(v)
		}
		return
	}
	for _, ch := range n.Content {
		redactSecrets(ch)
	}
}

// redactURLUser hides the password of a URL's user:password@.
func redactURLUser(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	at := strings.LastIndexByte(rest, '@')
	if !ok || at < 0 || strings.ContainsAny(rest[:at], "/?#") {
		return s
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + ":[redacted]" + rest[at:]
}
