package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestKubernetesManifestDocs runs every `kbench kubernetes manifest`
// command of docs/distributed.md's shell blocks, as written, and decodes
// what it prints strictly: the documented commands are the ones tested.
func TestKubernetesManifestDocs(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/distributed.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := shellCommands(string(doc), "kbench kubernetes manifest ")
	if len(cmds) < 2 {
		t.Fatalf("found %d manifest commands in docs/distributed.md, want the walk-through's", len(cmds))
	}
	for _, line := range cmds {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			words, err := shellWords(line)
			if err != nil {
				t.Fatal(err)
			}
			var plan string
			for i, w := range words {
				if strings.HasPrefix(w, "examples/") { // the docs run from the repository's root
					words[i] = "../../" + w
					plan = words[i]
				}
			}
			if plan == "" {
				t.Fatalf("%q names no plan of examples/", line)
			}
			st, stdout, stderr := manifestState()
			if code := runKbench(t, st, words[1:]...); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			job := decodeManifest(t, stdout.Bytes())
			text, err := os.ReadFile(plan)
			if err != nil {
				t.Fatal(err)
			}
			if planOf(job) != string(text) {
				t.Errorf("the Job's plan differs from %s", plan)
			}
			args := job.Spec.Template.Spec.Containers[0].Args
			for i, w := range words {
				if w == "--set" && !slices.Contains(args, strings.ReplaceAll(words[i+1], "$", "$$")) {
					t.Errorf("args %q lack --set %s", args, words[i+1])
				}
			}
		})
	}
}

// shellCommands returns the commands of the Markdown's sh blocks that
// start with prefix, continuation lines joined.
func shellCommands(markdown, prefix string) []string {
	var cmds []string
	in := false
	cmd := ""
	for _, line := range strings.Split(markdown, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			in = !in && strings.TrimPrefix(line, "```") == "sh"
			continue
		case !in:
			continue
		}
		line = strings.TrimSpace(line)
		if c, ok := strings.CutSuffix(line, "\\"); ok {
			cmd += c
			continue
		}
		cmd += line
		if strings.HasPrefix(cmd, prefix) {
			cmds = append(cmds, cmd)
		}
		cmd = ""
	}
	return cmds
}

// shellWords splits a command line as sh would for the docs' commands:
// words, single and double quotes, backslash escapes outside single
// quotes; it stops at an unquoted redirection or comment.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	quote := rune(0)
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case (r == '>' || r == '|' || r == '#' || r == ';' || r == '&') && !inWord:
			return words, nil
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
