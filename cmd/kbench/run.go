package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/compare"
	"github.com/kbench/kbench/internal/suggest"
	"github.com/kbench/kbench/internal/userr"
)

// Exit codes, decided here and nowhere else.
const (
	exitOK          = 0
	exitFailure     = 1   // the run failed: broker unreachable or died, records failed; or a --fail-if gate crossed
	exitUsage       = 2   // bad flags, property values or input files
	exitThresholds  = 99  // a plan's threshold was crossed (k6's code); everything was written
	exitInterrupted = 130 // SIGINT/SIGTERM, as a shell reports it
)

// toolAliases maps the names of the Apache Kafka tools to kbench subcommands,
// so that a link named like the tool behaves as that tool (busybox style).
var toolAliases = map[string]string{
	"kafka-producer-perf-test":       "producer-perf-test",
	"kafka-consumer-perf-test":       "consumer-perf-test",
	"kafka-share-consumer-perf-test": "share-consumer-perf-test",
	"kafka-e2e-latency":              "end-to-end-latency",
	"kafka-end-to-end-latency":       "end-to-end-latency",
}

// runClassTools maps the classes that scripts start with kafka-run-class
// (the MSK partition study: kafka-run-class.sh kafka.tools.EndToEndLatency ...) to kbench
// subcommands: old Scala names and the 3.5+ Java names alike.
var runClassTools = map[string]string{
	"kafka.tools.EndToEndLatency":                     "end-to-end-latency",
	"org.apache.kafka.tools.EndToEndLatency":          "end-to-end-latency",
	"kafka.tools.ConsumerPerformance":                 "consumer-perf-test",
	"org.apache.kafka.tools.ConsumerPerformance":      "consumer-perf-test",
	"org.apache.kafka.tools.ProducerPerformance":      "producer-perf-test",
	"org.apache.kafka.tools.ShareConsumerPerformance": "share-consumer-perf-test",
}

// run is kbench minus process state: it parses args (args[0] is the program
// name), runs the command and returns the exit code.
func run(ctx context.Context, args []string, st *state) int {
	root := newRootCmd(st)
	root.SetArgs(commandArgs(args))
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		// Interrupted while failing (a dead broker's timeouts): the user
		// stopped the run, whatever error it was also having.
		fmt.Fprintf(st.stderr, "kbench: %v\n", err)
		err = ctx.Err()
	}
	return exitCode(err, ctx.Err() != nil, st)
}

// commandArgs turns os.Args into cobra's arguments, inserting the subcommand
// when kbench was invoked through a link named like an Apache tool.
func commandArgs(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	name := strings.TrimSuffix(filepath.Base(args[0]), ".sh")
	if sub, ok := toolAliases[name]; ok {
		return append([]string{sub}, args[1:]...)
	}
	if name == "kafka-run-class" && len(args) > 1 {
		if sub, ok := runClassTools[args[1]]; ok {
			return append([]string{sub}, args[2:]...)
		}
	}
	return args[1:]
}

// exitCode decides the exit code; interrupted says the run's context was
// cancelled (a signal). Only then is a cancellation an interruption: the
// run cancels requests itself too (records still unanswered at a deadline).
func exitCode(err error, interrupted bool, st *state) int {
	switch {
	case err == nil:
		return exitOK
	case interrupted && errors.Is(err, context.Canceled):
		fmt.Fprintln(st.stderr, "kbench: interrupted")
		return exitInterrupted
	case errors.As(err, new(thresholdsCrossed)):
		fmt.Fprintf(st.stderr, "kbench: %v\n", err)
		return exitThresholds
	case userr.Is(err):
		fmt.Fprintf(st.stderr, "kbench: %v\n", err)
		return exitUsage
	case errors.As(err, new(*compare.Crossed)):
		// The comparison ran and was written; B failed the CI gate.
		fmt.Fprintf(st.stderr, "kbench: %v\n", err)
		return exitFailure
	default:
		fmt.Fprintf(st.stderr, "kbench: %v\n", err)
		return exitFailure
	}
}

func newRootCmd(st *state) *cobra.Command {
	root := &cobra.Command{
		Use:           "kbench",
		Short:         "Load testing and benchmarking for Apache Kafka",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(st.stdout)
	root.SetErr(st.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// exitCode prefixes "kbench: "; name the subcommand after it.
		if sub := strings.TrimPrefix(c.CommandPath(), "kbench "); sub != c.CommandPath() {
			return userr.Errorf("%s: %v (see '%s --help')", sub, err, c.CommandPath())
		}
		return userr.Errorf("%v (see 'kbench --help')", err)
	})
	// Registered explicitly, in the order shown by --help.
	for _, newCmd := range []func(*state) *cobra.Command{
		newRunCmd,
		newCollectCmd,
		newPlanCmd,
		newReportCmd,
		newPreviewCmd,
		newProducerPerfCmd,
		newConsumerPerfCmd,
		newShareConsumerPerfCmd,
		newEndToEndCmd,
		newClusterCmd,
		newKubernetesCmd,
		newSizeCmd,
		newCompareCmd,
		newVersionCmd,
	} {
		root.AddCommand(newCmd(st))
	}
	for _, sub := range root.Commands() {
		usageArgs(sub)
	}
	// Without RunE cobra prints help for anything, unknown commands
	// included, and exits 0: an unknown command must be an error.
	root.Args = cobra.ArbitraryArgs // RunE reports unknown commands, as usage errors
	root.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, sub := range c.Commands() {
			names = append(names, sub.Name())
		}
		if hint := suggest.Hint(args[0], names, suggest.Quoted); hint != "" {
			return userr.Errorf("unknown command %q; %s (see 'kbench --help')", args[0], hint)
		}
		return userr.Errorf("unknown command %q (see 'kbench --help')", args[0])
	}
	return root
}

// usageArgs makes a wrong number of arguments, to c and every command under
// it, a usage error (exit 2) that names the command and shows its usage;
// cobra's own checks return plain errors (exit 1) naming neither.
func usageArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
	check := c.Args
	if check == nil {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil || userr.Is(err) {
			return err
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown command") && len(args) > 0 {
			msg = fmt.Sprintf("takes no arguments, got %q", args[0]) // cobra.NoArgs
		}
		usage := cmd.UseLine()
		if strings.Contains(cmd.Use, "[") {
			usage = strings.TrimSuffix(usage, " [flags]") // Use lists them already
		}
		return userr.Errorf("%s: %s; usage: %s (see '%s --help')",
			strings.TrimPrefix(cmd.CommandPath(), "kbench "), msg, usage, cmd.CommandPath())
	}
}
