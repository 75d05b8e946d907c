package faults

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestCommandActor(t *testing.T) {
	a := CommandActor{Commands: map[string]string{
		Kill:    "echo killing 'broker {broker}'",
		Stop:    "sh -c 'echo oops >&2; exit 3'",
		Restart: "echo $HOME {broker}",
	}}
	out, err := a.Act(context.Background(), kill, 2)
	if err != nil || out != "killing broker 2\n" {
		t.Errorf("kill: %q, %v", out, err)
	}
	out, err = a.Act(context.Background(), stop, 2)
	if err == nil || out != "oops\n" || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("stop: %q, %v; want the output and the exit status", out, err)
	}
	// No shell: $HOME stays as written. A bounce runs the restart command
	// (the bounce kind's operation), times times.
	done, err := bounce.Act(context.Background(), Action{Brokers: []int32{1}, Params: Params{"times": int64(2)}, Actor: a})
	if err != nil || done.Output != "$HOME 1\n$HOME 1\n" {
		t.Errorf("bounce: %q, %v", done.Output, err)
	}
	a.Shell = true
	out, err = a.Act(context.Background(), restart, 1)
	if err != nil || out == "$HOME 1\n" || !strings.HasSuffix(out, " 1\n") {
		t.Errorf("with a shell: %q, %v; want $HOME expanded", out, err)
	}
	if _, err := a.Act(context.Background(), pause, 1); err == nil || !strings.Contains(err.Error(), "no pause command") {
		t.Errorf("pause without a command: %v", err)
	}
	a = CommandActor{Commands: map[string]string{Kill: "sleep 5"}, Timeout: 100 * time.Millisecond}
	if _, err := a.Act(context.Background(), kill, 1); err == nil || !strings.Contains(err.Error(), "did not finish within 100ms") {
		t.Errorf("slow command: %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"kubectl delete pod kafka-{broker}", []string{"kubectl", "delete", "pod", "kafka-{broker}"}, false},
		{`ssh host "sudo systemctl stop kafka"`, []string{"ssh", "host", "sudo systemctl stop kafka"}, false},
		{`a '' b`, []string{"a", "", "b"}, false},
		{"a 'b", nil, true},
		{"   ", nil, true},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if (err != nil) != tt.err || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestCommandActorEndsItsProcessGroup: regression: with fault_shell, a
// command's children outlived it and held its output open, so the fault
// (and the repeat) waited for them: `sleep 1000 &` kept a run for minutes.
// The command's whole process group now ends with it.
func TestCommandActorEndsItsProcessGroup(t *testing.T) {
	tests := []struct {
		name    string
		command string
		timeout time.Duration
		errHas  string
		outHas  string
	}{
		{"child left behind", "sleep 1000 & echo $!", time.Minute, "", "kbench ended the processes the command left running"},
		{"timed out with a child", "echo $$; sleep 1000; echo never", 300 * time.Millisecond, "did not finish within 300ms", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := CommandActor{Commands: map[string]string{Kill: tt.command}, Shell: true, Timeout: tt.timeout}
			type answer struct {
				out string
				err error
			}
			done := make(chan answer, 1)
			go func() {
				out, err := a.Act(context.Background(), kill, 1)
				done <- answer{out, err}
			}()
			var got answer
			select {
			case got = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the fault command did not return within 20 s")
			}
			if tt.errHas == "" && got.err != nil || tt.errHas != "" && (got.err == nil || !strings.Contains(got.err.Error(), tt.errHas)) {
				t.Fatalf("error %v, want %q", got.err, tt.errHas)
			}
			if !strings.Contains(got.out, tt.outHas) {
				t.Errorf("output %q, want %q", got.out, tt.outHas)
			}
			pid, err := strconv.Atoi(strings.Fields(got.out)[0])
			if err != nil {
				t.Fatalf("output %q: %v", got.out, err)
			}
			// The group was sent SIGKILL before Act returned: the process
			// ends as soon as the kernel delivers it (it may remain a
			// zombie until its new parent reaps it).
			if !gone(pid, 10*time.Second) {
				t.Errorf("process %d of the command still runs 10 s after the command ended", pid)
			}
		})
	}
}

// gone waits until process pid has ended (or is a zombie), at most bound:
// its pidfd becomes readable when it exits.
func gone(pid int, bound time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) // already reaped
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(bound)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}
