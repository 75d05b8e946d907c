package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultRegistryVersion is the Apicurio Registry release a local cluster's
// schema registry runs: 3.0.x is the newest line that runs on Java 17
// (3.3 needs Java 21).
const DefaultRegistryVersion = "3.0.9"

// RegistryPath is where Apicurio serves its Confluent-compatible API: the
// schema.registry.url a Confluent serializer, or franz-go's sr client, is
// given.
const RegistryPath = "/apis/ccompat/v7"

// registryStartTimeout bounds the wait for the registry to answer: 5-10 s
// of CPU on an idle machine, three times that beside brokers starting on
// two cores.
const registryStartTimeout = 2 * time.Minute

// registryMarker is a system property on the registry's command line that
// names its cluster's directory: how inspect recognises the process later
// (its jar is shared by every cluster, so it does not).
const registryMarker = "-Dkbench.registry="

// Registry is a local cluster's schema registry: Apicurio Registry in
// memory (every start is empty), on 127.0.0.1 only.
type Registry struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
	Jar     string `json:"jar"`
	Dir     string `json:"dir"` // <cluster dir>/registry
	LogPath string `json:"log_path"`
	// Down says why kbench took it down ("stopped"), until it starts again.
	Down string `json:"down,omitempty"`
}

// URL is the registry's Confluent-compatible base URL, the value of
// schema.registry.url.
func (r Registry) URL() string {
	return "http://127.0.0.1:" + strconv.Itoa(r.Port) + RegistryPath
}

func (r Registry) marker() string { return registryMarker + r.Dir }

// RegistryDist is a fetched Apicurio Registry: its runner jar beside its lib
// folder.
type RegistryDist struct {
	Version string
	Dir     string // <cache dir>/apicurio/<version>
	Jar     string
}

// FetchRegistry resolves Apicurio Registry's ready-built server
// (io.apicurio:apicurio-registry-app, classifier all, a tar.gz) from Maven
// Central with mvn, once, and unpacks it with tar (Maven's own unpack cuts
// long jar names): later calls find it in the cache and run offline. It
// honours WithRegistryVersion, WithCacheDir, WithMaven and WithLog.
func FetchRegistry(ctx context.Context, opts ...Opt) (*RegistryDist, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return fetchRegistry(ctx, cfg)
}

func fetchRegistry(ctx context.Context, cfg config) (*RegistryDist, error) {
	v := cfg.registryVer
	root := filepath.Join(cfg.cacheDir, "apicurio")
	d := &RegistryDist{Version: v, Dir: filepath.Join(root, v)}
	d.Jar = filepath.Join(d.Dir, "apicurio-registry-app-"+v+"-runner.jar")
	if isComplete(d.Dir) {
		return d, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(root, v+".lock"))
	if err != nil {
		return nil, fmt.Errorf("fetch Apicurio Registry %s: %w", v, err)
	}
	defer unlock()
	if isComplete(d.Dir) {
		return d, nil
	}
	mvn, err := exec.LookPath(cfg.maven)
	if err != nil {
		return nil, fmt.Errorf("%s not found on PATH: install Apache Maven 3.6 or newer (it fetches the schema registry once): %w", cfg.maven, err)
	}
	tarCmd, err := exec.LookPath("tar")
	if err != nil {
		return nil, fmt.Errorf("tar not found on PATH: it unpacks the schema registry once: %w", err)
	}
	fmt.Fprintf(cfg.log, "fetching Apicurio Registry %s from Maven Central with mvn (first run only)\n", v)
	start := time.Now()
	tmp, err := os.MkdirTemp(root, ".fetch-"+v+"-")
	if err != nil {
		return nil, fmt.Errorf("fetch Apicurio Registry %s: %w", v, err)
	}
	defer os.RemoveAll(tmp)
	if err := runMavenRegistry(ctx, mvn, tarCmd, tmp, v); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("fetch Apicurio Registry %s: %w", v, err)
	}
	if err := os.RemoveAll(d.Dir); err != nil {
		return nil, fmt.Errorf("fetch Apicurio Registry %s: remove stale %s: %w", v, d.Dir, err)
	}
	if err := os.Rename(tmp, d.Dir); err != nil {
		return nil, fmt.Errorf("fetch Apicurio Registry %s: %w", v, err)
	}
	fmt.Fprintf(cfg.log, "fetched Apicurio Registry %s in %.1fs into %s\n", v, time.Since(start).Seconds(), d.Dir)
	return d, nil
}

// registryPom is a pom with no dependencies: dependency:copy needs a
// project, and an artifact with a classifier and a type is named on the
// command line.
const registryPom = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kbench</groupId>
  <artifactId>registry-dist</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
</project>
`

func runMavenRegistry(ctx context.Context, mvn, tarCmd, dir, version string) error {
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, []byte(registryPom), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", pom, err)
	}
	dl := filepath.Join(dir, ".download")
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "-f", pom, "dependency:copy",
		"-Dartifact=io.apicurio:apicurio-registry-app:"+version+":tar.gz:all", "-DoutputDirectory="+dl)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("fetch Apicurio Registry %s with mvn: %w", version, ctx.Err())
		}
		return fmt.Errorf("fetch Apicurio Registry %s with mvn (check network access to Maven Central, or proxy settings in ~/.m2/settings.xml): %w\n%s",
			version, err, tailLines(ansiRE.ReplaceAllString(string(out), ""), 30))
	}
	archive := filepath.Join(dl, "apicurio-registry-app-"+version+"-all.tar.gz")
	out, err = exec.CommandContext(ctx, tarCmd, "-xzf", archive, "-C", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("unpack Apicurio Registry %s: %w\n%s", version, err, tailLines(string(out), 10))
	}
	if err := os.RemoveAll(dl); err != nil {
		return fmt.Errorf("unpack Apicurio Registry %s: %w", version, err)
	}
	jar := filepath.Join(dir, "apicurio-registry-app-"+version+"-runner.jar")
	if _, err := os.Stat(jar); err != nil {
		return fmt.Errorf("unpack Apicurio Registry %s: the archive has no %s", version, filepath.Base(jar))
	}
	return nil
}

// registryCommand is the registry's command line: a small serial heap and
// C1 only halve its start (it is a control plane, not the system under
// test), HTTP on 127.0.0.1 only (it listens on every interface unless
// told), and the marker naming its cluster.
func (c *Cluster) registryCommand(r Registry) []string {
	return []string{c.Java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
		"-Djava.awt.headless=true",
		"-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + strconv.Itoa(r.Port),
		r.marker(), "-jar", r.Jar}
}

// registry returns a copy of the registry's state (nil without one).
func (c *Cluster) registry() *Registry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Registry == nil {
		return nil
	}
	r := *c.Registry
	return &r
}

// launchRegistry starts the registry detached, as a broker is, with its
// output appended to its log, and records its PID. It does not wait.
func (c *Cluster) launchRegistry() (*child, error) {
	r := c.registry()
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("start the schema registry: %w", err)
	}
	out, err := os.OpenFile(r.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start the schema registry: %w", err)
	}
	defer out.Close()
	fmt.Fprintf(out, "=== kbench: starting the schema registry at %s\n", time.Now().Format(time.RFC3339))
	argv := c.registryCommand(*r)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr(c.stopOnExit)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the schema registry: %w", err)
	}
	ch := &child{proc: cmd.Process, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	c.mu.Lock()
	c.registryProc = ch
	c.mu.Unlock()
	if err := c.updateRegistry(func(r *Registry) { r.PID, r.Down = cmd.Process.Pid, "" }); err != nil {
		return ch, err
	}
	return ch, nil
}

// waitRegistry polls the registry's subjects until it answers, its
// process exits or the time is up.
func (c *Cluster) waitRegistry(ctx context.Context, ch *child) error {
	r := c.registry()
	ctx, cancel := context.WithTimeout(ctx, registryStartTimeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if ch.exited() {
			tail := tailFile(r.LogPath, 20)
			err := fmt.Errorf("the schema registry exited while starting: %v\n%s", ch.err, tail)
			if strings.Contains(tail, "Address already in use") || strings.Contains(tail, "Port already bound") {
				err = fmt.Errorf("%w: %w", err, errPortInUse)
			}
			return err
		}
		if last = registryAnswers(ctx, *r); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the schema registry did not answer on %s within %s (%v):\n%s", r.URL(), registryStartTimeout, last, tailFile(r.LogPath, 20))
		case <-tick.C:
		}
	}
}

// registryAnswers asks the registry for its subjects, within 2 s: the
// readiness check (its health endpoints answer before the API does).
func registryAnswers(ctx context.Context, r Registry) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL()+"/subjects", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/subjects: %s", r.URL(), resp.Status)
	}
	return nil
}

// startRegistry launches the registry and waits until it answers; a
// registry that does not is killed.
func (c *Cluster) startRegistry(ctx context.Context) error {
	ch, err := c.launchRegistry()
	if err != nil {
		return err
	}
	if err := c.waitRegistry(ctx, ch); err != nil {
		_ = ch.proc.Kill()
		<-ch.done
		return err
	}
	r := c.registry()
	c.logf("schema registry up: Apicurio Registry %s, pid %d, %s", r.Version, r.PID, r.URL())
	return nil
}

// registryState is whether the registry runs: the wait status for a
// process this one started, else its PID still running with its marker.
func (c *Cluster) registryState() procState {
	c.mu.Lock()
	r, ch := c.Registry, c.registryProc
	c.mu.Unlock()
	if r == nil {
		return procGone
	}
	if ch != nil && ch.proc.Pid == r.PID && ch.exited() {
		return procGone
	}
	return inspectMarker(r.PID, r.marker())
}

// inspectMarker is inspect for a process recognised by one argument of its
// command line rather than its last.
func inspectMarker(pid int, marker string) procState {
	if pid <= 0 {
		return procGone
	}
	state, cmdline, err := procInfo(pid)
	if err != nil || !strings.Contains(cmdline+" ", " "+marker+" ") {
		return procGone
	}
	return stateOf(state)
}

// signalRegistry sends sig to the registry if its PID is still it.
func (c *Cluster) signalRegistry(sig syscall.Signal) {
	r := c.registry()
	if r == nil || inspectMarker(r.PID, r.marker()) == procGone {
		return
	}
	_ = syscall.Kill(r.PID, sig)
}

// stopRegistry ends the registry: SIGTERM, SIGKILL after 10 s.
func (c *Cluster) stopRegistry(ctx context.Context) error {
	r := c.registry()
	if r == nil || c.registryState() == procGone {
		return nil
	}
	c.signalRegistry(syscall.SIGTERM)
	c.signalRegistry(syscall.SIGCONT)
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !c.waitRegistryGone(gctx) {
		c.signalRegistry(syscall.SIGKILL)
		kctx, kcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer kcancel()
		if !c.waitRegistryGone(kctx) {
			return fmt.Errorf("the schema registry (pid %d) still runs after SIGKILL", r.PID)
		}
	}
	return c.updateRegistry(func(r *Registry) { r.Down = "stopped" })
}

func (c *Cluster) waitRegistryGone(ctx context.Context) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for c.registryState() != procGone {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// updateRegistry changes the registry's state in memory and, under the
// state's lock, on disk, as updateBroker does for a broker.
func (c *Cluster) updateRegistry(fn func(r *Registry)) error {
	c.mu.Lock()
	if c.Registry != nil {
		fn(c.Registry)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path := filepath.Join(c.Dir, stateFile)
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	defer unlock()
	disk, err := readState(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	if disk.Registry == nil {
		reg := *c.registry()
		disk.Registry = &reg
	} else {
		fn(disk.Registry)
	}
	return disk.write(path)
}

// RegistryStatus is a local cluster's schema registry as RegistryStatus
// found it.
type RegistryStatus struct {
	Registry
	Alive   bool // its process runs
	Answers bool // it listed its subjects within 2 s
}

// State is a one-word summary: up, unresponsive, stopped (by kbench) or
// dead (on its own).
func (s RegistryStatus) State() string {
	switch {
	case !s.Alive && s.Down != "":
		return s.Down
	case !s.Alive:
		return "dead"
	case !s.Answers:
		return "unresponsive"
	}
	return "up"
}

// RegistryStatus checks the schema registry's process and asks it for its
// subjects; nil on a cluster without one.
func (c *Cluster) RegistryStatus(ctx context.Context) (*RegistryStatus, error) {
	r := c.registry()
	if r == nil {
		return nil, nil
	}
	st := &RegistryStatus{Registry: *r, Alive: c.registryState() != procGone}
	if st.Alive {
		st.Answers = registryAnswers(ctx, *r) == nil
	}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("schema registry status of cluster %q: %w", c.Name, err)
	}
	return st, nil
}

// RegistryURL is the schema registry's schema.registry.url, "" on a
// cluster without one.
func (c *Cluster) RegistryURL() string {
	if r := c.registry(); r != nil {
		return r.URL()
	}
	return ""
}

// AddRegistry starts a schema registry beside a running cluster that has
// none (a plan that uses schemas, on a cluster started without), or starts
// its registry again when it is down. It fetches Apicurio first if needed.
// The registry is in memory: started again, it is empty.
func (c *Cluster) AddRegistry(ctx context.Context, opts ...Opt) error {
	cfg, err := newConfig(opts)
	if err != nil {
		return err
	}
	if c.registry() != nil && c.registryState() != procGone {
		return nil
	}
	if c.registry() == nil {
		dist, err := fetchRegistry(ctx, cfg)
		if err != nil {
			return err
		}
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.Registry = newRegistry(c.Dir, dist, ports[0])
		c.mu.Unlock()
	}
	if err := c.startRegistry(ctx); err != nil {
		return fmt.Errorf("cluster %q: %w", c.Name, err)
	}
	return nil
}

func newRegistry(clusterDir string, dist *RegistryDist, port int) *Registry {
	dir := filepath.Join(clusterDir, "registry")
	return &Registry{Version: dist.Version, Port: port, Jar: dist.Jar, Dir: dir, LogPath: filepath.Join(dir, "registry.log")}
}
