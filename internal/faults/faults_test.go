package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Unit tests of the timeline against franz-go's in-process cluster, whose
// leaders a fake actor moves; cmd/kbench's fault tests kill real brokers.

// moverActor "kills" a broker by moving its partitions' leadership to the
// next broker after a delay, as a controller would.
type moverActor struct {
	c     *kfake.Cluster
	delay time.Duration
	fail  map[string]error

	mu   sync.Mutex
	acts []string
}

func (a *moverActor) Act(_ context.Context, action string, broker int32) (string, error) {
	a.mu.Lock()
	a.acts = append(a.acts, action)
	a.mu.Unlock()
	if err := a.fail[action]; err != nil {
		return "it broke", err
	}
	if Removes(action) {
		go func() {
			time.Sleep(a.delay)
			for p := int32(0); p < 3; p++ {
				if a.c.LeaderFor("t", p) == broker {
					_ = a.c.MoveTopicPartition("t", p, (broker+1)%3) // kfake numbers nodes from 0
				}
			}
		}()
	}
	return "", nil
}

func (a *moverActor) Heal(context.Context) ([]Healed, error) {
	return []Healed{{Broker: 1, Action: Restart}}, nil
}

func cluster(t *testing.T) (*kfake.Cluster, []kgo.Opt) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
}

func TestTimeline(t *testing.T) {
	c, opts := cluster(t)
	leader := c.LeaderFor("t", 0)
	actor := &moverActor{c: c, delay: 300 * time.Millisecond}
	start := time.Now()
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor,
		Faults: []Fault{
			{Name: "k", Action: Kill, Target: Target{Leader: &Partition{Topic: "t", Partition: 0}}, At: 100 * time.Millisecond},
			{Action: Restart, Target: Target{Fault: "k"}, After: "k", At: 500 * time.Millisecond},
			{Action: Pause, Target: Target{Broker: 2}, At: time.Hour}, // never reached
		},
	}, start)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs := tl.Finish(ctx)
	if len(rs) != 4 {
		t.Fatalf("%d results, want the 3 faults and a heal: %+v", len(rs), rs)
	}
	kill, restart, pause, heal := rs[0], rs[1], rs[2], rs[3]
	if kill.Status != StatusDone || kill.Broker != leader || kill.Election == nil {
		t.Fatalf("kill %+v; want done on broker %d with an election time", kill, leader)
	}
	if e := *kill.Election; e < 250*time.Millisecond || e > 2*time.Second {
		t.Errorf("election %s; the actor moved leaders after 300 ms", e)
	}
	for _, m := range kill.Affected {
		if m.From != leader || m.To == leader || m.To < 0 {
			t.Errorf("partition %+v: want moved away from %d", m, leader)
		}
	}
	if kill.At < 100*time.Millisecond || kill.At > 400*time.Millisecond {
		t.Errorf("kill at %s, want about 100ms", kill.At)
	}
	if restart.Status != StatusDone || restart.Broker != leader || restart.ISRRecovered == nil {
		t.Errorf("restart %+v; want done on the killed broker %d with an ISR time", restart, leader)
	}
	if restart.At < kill.At+500*time.Millisecond {
		t.Errorf("restart at %s; want 500ms after the kill at %s was done", restart.At, kill.At)
	}
	if pause.Status != StatusNotReached {
		t.Errorf("pause %+v; want not reached", pause)
	}
	if heal.Name != "heal" || heal.Action != Restart || heal.ISRRecovered == nil {
		t.Errorf("heal %+v", heal)
	}
}

func TestTimelineFailedActionSkipsFollowers(t *testing.T) {
	c, opts := cluster(t)
	actor := &moverActor{c: c, fail: map[string]error{Stop: errors.New("no such pod")}}
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor,
		Faults: []Fault{
			{Name: "s", Action: Stop, Target: Target{Broker: 3}},
			{Action: Restart, Target: Target{Fault: "s"}, After: "s"},
		},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	rs := tl.Finish(context.Background())
	if rs[0].Status != StatusFailed || !strings.Contains(rs[0].Error, "no such pod") || rs[0].Output != "it broke" {
		t.Errorf("stop %+v; want failed with its error and output", rs[0])
	}
	if rs[1].Status != StatusSkipped {
		t.Errorf("restart %+v; want skipped", rs[1])
	}
	if len(actor.acts) != 1 {
		t.Errorf("actions %v; want only the stop", actor.acts)
	}
}

func TestCommandActor(t *testing.T) {
	a := CommandActor{Commands: map[string]string{
		Kill:    "echo killing 'broker {broker}'",
		Stop:    "sh -c 'echo oops >&2; exit 3'",
		Restart: "echo $HOME {broker}",
	}}
	out, err := a.Act(context.Background(), Kill, 2)
	if err != nil || out != "killing broker 2\n" {
		t.Errorf("kill: %q, %v", out, err)
	}
	out, err = a.Act(context.Background(), Stop, 2)
	if err == nil || out != "oops\n" || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("stop: %q, %v; want the output and the exit status", out, err)
	}
	// No shell: $HOME stays as written. A bounce runs the restart command.
	out, err = a.Act(context.Background(), Bounce, 1)
	if err != nil || out != "$HOME 1\n" {
		t.Errorf("bounce: %q, %v", out, err)
	}
	a.Shell = true
	out, err = a.Act(context.Background(), Restart, 1)
	if err != nil || out == "$HOME 1\n" || !strings.HasSuffix(out, " 1\n") {
		t.Errorf("with a shell: %q, %v; want $HOME expanded", out, err)
	}
	if _, err := a.Act(context.Background(), Pause, 1); err == nil || !strings.Contains(err.Error(), "no pause command") {
		t.Errorf("pause without a command: %v", err)
	}
	a = CommandActor{Commands: map[string]string{Kill: "sleep 5"}, Timeout: 100 * time.Millisecond}
	if _, err := a.Act(context.Background(), Kill, 1); err == nil || !strings.Contains(err.Error(), "did not finish within 100ms") {
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
				out, err := a.Act(context.Background(), Kill, 1)
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

// gone waits until process pid has ended (or is a zombie), at most bound.
func gone(pid int, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || bytes.Contains(st, []byte(") Z")) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
