// Package compat speaks the Apache Kafka perf tools' language: their command
// lines (Parse, following argparse4j and jopt-simple, which those tools use)
// and their exact output formats, so scripts written for any release since
// 2.x run unchanged against kbench.
package compat

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// Kind is how an option takes values.
type Kind int

const (
	Value         Kind = iota // exactly one value: --topic T or --topic=T
	Flag                      // no value: --print-metrics
	List                      // one or more values, repeatable: --producer-props a=1 b=2
	OptionalValue             // jopt-simple's optional argument: --timeout [ms]
)

// Option is one command-line option of a tool.
type Option struct {
	Name    string // with dashes: "--topic"
	Kind    Kind
	Metavar string
	Help    string
	// Deprecated names the replacement; using the option still works and
	// prints a note, as the Apache tools do.
	Deprecated string
	// Kbench marks options kbench adds to the Apache tool's set.
	Kbench bool
}

// Args holds a parsed command line.
type Args struct {
	values     map[string][]string
	Positional []string
	// Notes are messages for stderr, such as deprecation notes.
	Notes []string
}

// Parse reads args against options. tool names the command in errors.
// Positional arguments are kept only when allowPositional is set.
func Parse(tool string, options []Option, args []string, allowPositional bool) (*Args, error) {
	byName := make(map[string]Option, len(options))
	for _, o := range options {
		byName[o.Name] = o
	}
	a := &Args{values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			a.Positional = append(a.Positional, args[i+1:]...)
			break
		}
		if !isOption(arg) {
			if !allowPositional {
				return nil, userr.Errorf("%s: unexpected argument %q (options start with --; see --help)", tool, arg)
			}
			a.Positional = append(a.Positional, arg)
			continue
		}
		name, inline, hasInline := strings.Cut(arg, "=")
		opt, err := lookup(tool, byName, name)
		if err != nil {
			return nil, err
		}
		if opt.Deprecated != "" {
			a.Notes = append(a.Notes, fmt.Sprintf("%s is deprecated; use %s", opt.Name, opt.Deprecated))
		}
		switch opt.Kind {
		case Flag:
			if hasInline {
				return nil, userr.Errorf("%s: option %s takes no value (got %q)", tool, opt.Name, inline)
			}
			a.values[opt.Name] = append(a.values[opt.Name], "true")
		case Value:
			v := inline
			if !hasInline {
				if i+1 >= len(args) || isOption(args[i+1]) {
					return nil, userr.Errorf("%s: option %s needs a value (%s)", tool, opt.Name, metavar(opt))
				}
				i++
				v = args[i]
			}
			a.values[opt.Name] = append(a.values[opt.Name], v)
		case OptionalValue:
			v := inline
			if !hasInline && i+1 < len(args) && !isOption(args[i+1]) {
				i++
				v = args[i]
			}
			a.values[opt.Name] = append(a.values[opt.Name], v)
		case List:
			var vs []string
			if hasInline {
				vs = append(vs, inline)
			}
			for i+1 < len(args) && !isOption(args[i+1]) && args[i+1] != "--" {
				i++
				vs = append(vs, args[i])
			}
			if len(vs) == 0 {
				return nil, userr.Errorf("%s: option %s needs at least one value (%s)", tool, opt.Name, metavar(opt))
			}
			a.values[opt.Name] = append(a.values[opt.Name], vs...)
		}
	}
	return a, nil
}

// isOption reports whether arg is an option rather than a value. Negative
// numbers are values (--throughput -1), as in argparse4j, and so is
// anything else that starts with a minus and a digit (--duration -5s), so
// that its option can say what is wrong with it rather than that it is
// missing: no option name starts with a digit.
func isOption(arg string) bool {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return false
	}
	if c := arg[1]; c >= '0' && c <= '9' || c == '.' {
		return false
	}
	_, err := strconv.ParseFloat(arg, 64)
	return err != nil
}

// lookup finds an option by exact name or, as argparse4j and jopt-simple
// allow, by an unambiguous prefix (--num → --num-records).
func lookup(tool string, byName map[string]Option, name string) (Option, error) {
	if o, ok := byName[name]; ok {
		return o, nil
	}
	var names, matches []string
	for n := range byName {
		names = append(names, n)
		if strings.HasPrefix(n, name) && strings.HasPrefix(name, "--") && len(name) > 2 {
			matches = append(matches, n)
		}
	}
	sort.Strings(matches)
	switch {
	case len(matches) == 1:
		return byName[matches[0]], nil
	case len(matches) > 1:
		return Option{}, userr.Errorf("%s: option %s is ambiguous: %s", tool, name, strings.Join(matches, ", "))
	}
	if hint := suggest.Hint(name, names, suggest.Bare); hint != "" {
		return Option{}, userr.Errorf("%s: unknown option %s; %s (see --help)", tool, name, hint)
	}
	return Option{}, userr.Errorf("%s: unknown option %s (see --help)", tool, name)
}

func metavar(o Option) string {
	if o.Metavar != "" {
		return o.Metavar
	}
	return strings.ToUpper(strings.TrimLeft(o.Name, "-"))
}

// Has reports whether the option was given.
func (a *Args) Has(name string) bool { return len(a.values[name]) > 0 }

// String returns the option's last value, or "" when absent.
func (a *Args) String(name string) string {
	vs := a.values[name]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// List returns every value given for the option, in order.
func (a *Args) List(name string) []string { return a.values[name] }

// Int64 parses the option's value as an integer; def when absent.
func (a *Args) Int64(name string, def int64) (int64, error) {
	if !a.Has(name) {
		return def, nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(a.String(name)), 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		size := "large: at most 9223372036854775807"
		if v < 0 {
			size = "small: at least -9223372036854775808"
		}
		return 0, userr.Errorf("option %s: %q is too %s", name, a.String(name), size)
	}
	if err != nil {
		return 0, userr.Errorf("option %s: %q is not a whole number", name, a.String(name))
	}
	return v, nil
}

// bounded parses the option's value as an integer of at most hi; def when
// absent. Values beyond hi are reported rather than truncated by the
// caller's conversion (int32(4294967297) is 1); the lower bound is left to
// the caller's own check.
func bounded(a *Args, name string, def, hi int64, errs *[]error) int64 {
	v, err := a.Int64(name, def)
	if err == nil && v > hi {
		err = userr.Errorf("option %s: %d is too large; Kafka allows at most %d", name, v, hi)
		v = def
	}
	if err != nil {
		*errs = append(*errs, err)
	}
	return v
}

// Float64 parses the option's value as a number; def when absent.
func (a *Args) Float64(name string, def float64) (float64, error) {
	if !a.Has(name) {
		return def, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(a.String(name)), 64)
	if err != nil {
		return 0, userr.Errorf("option %s: %q is not a number", name, a.String(name))
	}
	return v, nil
}

// Usage prints the options, one per line, kbench's additions marked.
func Usage(w io.Writer, usage string, options []Option) {
	fmt.Fprintf(w, "usage: %s\n\noptions:\n", usage)
	for _, o := range options {
		left := o.Name
		switch o.Kind {
		case Value:
			left += " " + metavar(o)
		case List:
			left += " " + metavar(o) + " [" + metavar(o) + " ...]"
		case OptionalValue:
			left += " [" + metavar(o) + "]"
		}
		help := o.Help
		if o.Deprecated != "" {
			help = "(deprecated: use " + o.Deprecated + ") " + help
		}
		if o.Kbench {
			help = "[kbench] " + help
		}
		fmt.Fprintf(w, "  %-44s %s\n", left, help)
	}
}

// jsonPath is --json's file; given empty it is an error, as a run that
// writes no result while asked to would lose it silently.
func jsonPath(a *Args, errs *[]error) string {
	if a.Has("--json") && strings.TrimSpace(a.String("--json")) == "" {
		*errs = append(*errs, userr.Errorf("option --json: needs a file name, such as --json result.json"))
	}
	return a.String("--json")
}
