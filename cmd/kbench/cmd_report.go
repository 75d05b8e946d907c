package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kbench/kbench/internal/ombresult"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/report"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/userr"
)

func newReportCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write a results folder's reports again from its result.json",
		Long: `Write summary.md, summary.csv and report.html of a results folder (from
kbench run) again from its result.json: after an upgrade of kbench, or for a
result.json copied from elsewhere; for a run of OpenMessaging Benchmark files,
omb-result.json too. DIR may also be the result.json itself.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, path, err := resultPath(args[0])
			if err != nil {
				return err
			}
			doc, err := result.Read(path)
			if err != nil {
				return userr.Errorf("report: %v", err)
			}
			if doc.Plan == nil {
				return userr.Errorf("report: %s is a %s result; reports are written for study plans (kbench run)", path, doc.Kind)
			}
			cutOff(dir, doc)
			// The statistics are computed again from the repeats, so a
			// result written by an older kbench gets today's.
			if err := doc.Plan.Reaggregate(); err != nil {
				return userr.Errorf("report: %s: %v", path, err)
			}
			if err := report.WriteAll(dir, doc); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			written := "summary.md, summary.csv and report.html"
			if doc.Plan.OMB != nil {
				w, err := ombresult.WriteAll(dir, "", doc, ombresult.RunOf(doc.Plan.OMB))
				if err != nil {
					return fmt.Errorf("report: %w", err)
				}
				for _, s := range w.Skipped {
					fmt.Fprintf(st.stderr, "kbench: OMB's result not written for %s\n", s)
				}
				written += " and OMB's result"
			}
			fmt.Fprintf(st.stderr, "kbench: wrote %s in %s\n", written, dir)
			return nil
		},
	}
}

// resultPath accepts a results folder or a result file and returns both.
func resultPath(arg string) (dir, path string, err error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return "", "", userr.Errorf("%s: %v; give a results folder (from kbench run) or its result.json", arg, err)
	}
	if fi.IsDir() {
		return arg, filepath.Join(arg, "result.json"), nil
	}
	return filepath.Dir(arg), arg, nil
}

// cutOff marks a result whose run is gone before it finished (killed with
// kill -9, or the machine went down): result.json says "running", which it
// holds only between repeats, and no process holds the results folder.
// The reports then say "cut off", with the repeats that were finished.
func cutOff(dir string, doc *result.Document) {
	if doc.Status != study.StatusRunning || outfile.Held(dir) {
		return
	}
	doc.Status = "cut off"
	if doc.Error == "" {
		doc.Error = "the run ended before it finished, its process killed or its machine stopped; the results are the repeats it finished"
		if _, err := os.Stat(filepath.Join(dir, study.EarlierRunDir, "result.json")); err == nil {
			doc.Error += "; the results of the earlier run it was replacing (--overwrite) are kept in " + filepath.Join(dir, study.EarlierRunDir)
		}
	}
}
