package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newVersionCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the kbench version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(st.stdout, "kbench %s\n", version)
			return err
		},
	}
}
