package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CommandActor runs a command per kind on a remote cluster: {broker} in
// a template is replaced by the broker id. Without Shell the template is
// split into words (single and double quotes group) and run directly;
// with Shell it is given to sh -c. Each command runs in a process group of
// its own, which is killed when the command ends (see runGroup).
type CommandActor struct {
	Commands map[string]string // by a kind's Command (cluster.fault_commands)
	Shell    bool
	Timeout  time.Duration // per command (default 2 minutes)
}

// maxOutput bounds the output kept per command.
const maxOutput = 8 << 10

// outputGrace bounds the wait for a command's output after its process
// group was killed: a process that left the group (setsid, a daemon) may
// still hold the output open.
const outputGrace = time.Second

// Act runs kind k's command (a bounce's is restart).
func (a CommandActor) Act(ctx context.Context, k Kind, broker int32) (string, error) {
	tmpl, ok := a.Commands[k.Command]
	if !ok {
		return "", fmt.Errorf("cluster.fault_commands has no %s command", k.Command)
	}
	return a.run(ctx, strings.ReplaceAll(tmpl, "{broker}", strconv.Itoa(int(broker))))
}

// run runs one command line, split into words or through sh, bounded by
// the actor's Timeout.
func (a CommandActor) run(ctx context.Context, line string) (string, error) {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := []string{"sh", "-c", line}
	if !a.Shell {
		var err error
		if args, err = SplitCommand(line); err != nil {
			return "", fmt.Errorf("fault command %q: %w", line, err)
		}
	}
	text, err := runGroup(cctx, args)
	if err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("did not finish within %s", timeout)
		}
		return text, fmt.Errorf("fault command %q: %w", line, err)
	}
	return text, nil
}

// runGroup runs a command in a process group of its own and returns its
// output (stdout and stderr, the first maxOutput bytes). When the command
// exits, or ctx ends, every process still in its group is killed: a child
// it started in the background must neither outlive the fault nor keep its
// output open (which kept the fault, and the run, waiting for it).
func runGroup(ctx context.Context, args []string) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	// The command writes to the pipe directly, so Wait returns when it
	// exits, not when every holder of the pipe has closed it.
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return "", err
	}
	var out capped
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&out, r)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-exited
	}
	leftovers := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) == nil
	grace := time.NewTimer(outputGrace)
	defer grace.Stop()
	select {
	case <-read:
	case <-grace.C:
		r.Close() // ends the copy
		<-read
	}
	text := out.String()
	if leftovers && err == nil {
		text += "[kbench ended the processes the command left running]\n"
	}
	return text, err
}

// capped keeps the first maxOutput bytes written to it and counts the rest.
type capped struct {
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxOutput - c.buf.Len(); room < n {
		c.dropped += int64(n - room)
		p = p[:room]
	}
	c.buf.Write(p)
	return n, nil
}

func (c *capped) String() string {
	if c.dropped > 0 {
		return c.buf.String() + "\n[output cut at 8 KiB]"
	}
	return c.buf.String()
}

// Heal does nothing remotely: kbench cannot know how to bring a remote
// broker back beyond the plan's own restart commands.
func (CommandActor) Heal(context.Context) ([]Healed, error) { return nil, nil }

// SplitCommand splits a command line into words as a shell would for
// plain words and quotes, without expanding anything.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return words, nil
}
