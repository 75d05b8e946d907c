package main

import (
	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/userr"
)

// newEndToEndCmd is being built (issue 3); until then it says so.
func newEndToEndCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:  "end-to-end-latency",
		RunE: func(*cobra.Command, []string) error { return userr.Errorf("end-to-end-latency: not built yet") },
	}
}
