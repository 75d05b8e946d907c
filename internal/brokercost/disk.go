package brokercost

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kbench/kbench/internal/result"
)

// DiskSampler follows the block devices that hold a local cluster's data
// directories from Start to Stop: how much of the repeat each had I/O in
// flight (/proc/diskstats' io_ticks), its busiest second, and the bytes
// read and written. Brokers whose data share a device are one entry: the
// device, not the broker, is what saturates.
type DiskSampler struct {
	root  string // "/proc", or a test's folder holding diskstats
	now   func() time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	start time.Time

	mu      sync.Mutex
	devices []*device
	// Unjudged names the data directories on no block device (tmpfs, an
	// overlay), which the disk figures leave out.
	unjudged []string
}

// device is one block device's readings.
type device struct {
	id          string // "major:minor", diskstats' first two fields
	name        string
	brokers     []int
	first, last diskSample
	lastAt      time.Time
	peakBusy    float64 // the busiest interval's share, 0–1
}

// diskSample is one diskstats line's counters.
type diskSample struct {
	sectorsRead, sectorsWritten int64
	ioTicksMs                   int64 // time with I/O in flight
}

// sectorBytes is diskstats' sector: 512 bytes whatever the device's own.
const sectorBytes = 512

// StartDisks begins reading the devices under dirs (broker id → data
// directory) every interval. A directory that cannot be resolved to a
// device is named in the result's note, never guessed.
func StartDisks(dirs map[int]string, every time.Duration) *DiskSampler {
	return startDisks("/proc", deviceOf, dirs, every, time.Now)
}

func startDisks(root string, devOf func(string) (string, error), dirs map[int]string, every time.Duration, now func() time.Time) *DiskSampler {
	s := &DiskSampler{root: root, now: now, stop: make(chan struct{}), start: now()}
	byID := map[string]*device{}
	ids := make([]int, 0, len(dirs))
	for id := range dirs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		dev, err := devOf(dirs[id])
		if err != nil {
			s.unjudged = append(s.unjudged, fmt.Sprintf("broker %d: %v", id, err))
			continue
		}
		d := byID[dev]
		if d == nil {
			d = &device{id: dev}
			byID[dev] = d
			s.devices = append(s.devices, d)
		}
		d.brokers = append(d.brokers, id)
	}
	stats, err := readDiskstats(root)
	for _, d := range slices.Clone(s.devices) {
		line, ok := stats[d.id]
		if err != nil || !ok {
			s.unjudged = append(s.unjudged, fmt.Sprintf("brokers %s: device %s not in diskstats", joinInts(d.brokers), d.id))
			s.devices = slices.DeleteFunc(s.devices, func(x *device) bool { return x == d })
			continue
		}
		d.name, d.first, d.last, d.lastAt = line.name, line.sample, line.sample, s.start
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *DiskSampler) sample() {
	stats, err := readDiskstats(s.root)
	if err != nil {
		return // a reading missed; the next one spans the gap
	}
	at := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		line, ok := stats[d.id]
		if !ok {
			continue
		}
		if wall := at.Sub(d.lastAt).Milliseconds(); wall > 0 {
			d.peakBusy = max(d.peakBusy, min(1, float64(line.sample.ioTicksMs-d.last.ioTicksMs)/float64(wall)))
		}
		d.last, d.lastAt = line.sample, at
	}
}

// Stop takes a last reading and returns each device's figures over the
// repeat, and the data directories no device was found for.
func (s *DiskSampler) Stop() (disks []result.Disk, unjudged []string) {
	close(s.stop)
	s.done.Wait()
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		wall := d.lastAt.Sub(s.start).Milliseconds()
		if wall <= 0 {
			continue
		}
		busy := min(1, float64(d.last.ioTicksMs-d.first.ioTicksMs)/float64(wall))
		disks = append(disks, result.Disk{
			Device: d.name, Brokers: d.brokers,
			BusyPct: 100 * busy, PeakBusyPct: 100 * max(d.peakBusy, busy),
			ReadBytes:  (d.last.sectorsRead - d.first.sectorsRead) * sectorBytes,
			WriteBytes: (d.last.sectorsWritten - d.first.sectorsWritten) * sectorBytes,
		})
	}
	return disks, s.unjudged
}

// deviceOf is the "major:minor" of the block device holding dir.
func deviceOf(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	if major == 0 {
		// An anonymous device: tmpfs, overlayfs, a FUSE mount.
		return "", fmt.Errorf("%s is on a file system with no block device (major 0)", filepath.Base(filepath.Dir(dir)))
	}
	return fmt.Sprintf("%d:%d", major, minor), nil
}

// diskLine is one device's diskstats line.
type diskLine struct {
	name   string
	sample diskSample
}

// readDiskstats reads root/diskstats by "major:minor".
func readDiskstats(root string) (map[string]diskLine, error) {
	f, err := os.Open(filepath.Join(root, "diskstats"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]diskLine{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// major minor name reads merged sectors_read ms writes merged
		// sectors_written ms in_flight io_ticks weighted ...
		fs := strings.Fields(sc.Text())
		if len(fs) < 13 {
			continue
		}
		var v [13]int64
		ok := true
		for _, i := range []int{5, 9, 12} {
			if v[i], err = strconv.ParseInt(fs[i], 10, 64); err != nil {
				ok = false
			}
		}
		if ok {
			out[fs[0]+":"+fs[1]] = diskLine{name: fs[2], sample: diskSample{sectorsRead: v[5], sectorsWritten: v[9], ioTicksMs: v[12]}}
		}
	}
	return out, sc.Err()
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}
