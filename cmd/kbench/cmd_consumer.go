package main

import (
	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/userr"
)

// newConsumerPerfCmd is being built (issue 3); until then it says so.
func newConsumerPerfCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:  "consumer-perf-test",
		RunE: func(*cobra.Command, []string) error { return userr.Errorf("consumer-perf-test: not built yet") },
	}
}
