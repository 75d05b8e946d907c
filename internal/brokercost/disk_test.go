package brokercost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// fakeDiskstats writes root/diskstats with one line per device: sectors
// read and written and io_ticks in ms.
func fakeDiskstats(t *testing.T, root string, lines ...string) {
	t.Helper()
	text := ""
	for _, l := range lines {
		text += l + "\n"
	}
	if err := os.WriteFile(filepath.Join(root, "diskstats"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func diskLineOf(major, minor int, name string, read, written, ioTicks int64) string {
	// major minor name reads merged sectors_read ms writes merged
	// sectors_written ms in_flight io_ticks weighted discards...
	return fmt.Sprintf("%4d %7d %s 10 0 %d 5 20 0 %d 7 0 %d 40 0 0 0 0", major, minor, name, read, written, ioTicks)
}

// TestDiskSampler: brokers sharing a device are one entry; busy is the
// repeat's share with I/O in flight, the peak its busiest interval's;
// bytes are sectors of 512; a directory on no device, or on one diskstats
// does not list, is named and left out.
func TestDiskSampler(t *testing.T) {
	root := t.TempDir()
	fakeDiskstats(t, root, diskLineOf(253, 0, "vda", 1000, 5000, 10_000), diskLineOf(8, 16, "sdb", 0, 0, 0))
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	devs := map[string]string{"/d/1": "253:0", "/d/2": "253:0", "/d/4": "9:9"}
	devOf := func(dir string) (string, error) {
		if d, ok := devs[dir]; ok {
			return d, nil
		}
		return "", errors.New("on a file system with no block device (major 0)")
	}
	s := startDisks(root, devOf, map[int]string{1: "/d/1", 2: "/d/2", 3: "/tmp/3", 4: "/d/4"}, time.Hour, clock)

	advance(time.Second)
	fakeDiskstats(t, root, diskLineOf(253, 0, "vda", 1000, 7000, 10_900), diskLineOf(8, 16, "sdb", 0, 0, 0))
	s.sample() // 900 ms of I/O in 1 s: the busiest second, 90%
	advance(3 * time.Second)
	fakeDiskstats(t, root, diskLineOf(253, 0, "vda", 3000, 9000, 12_000), diskLineOf(8, 16, "sdb", 0, 0, 0))
	disks, unjudged := s.Stop()

	want := []result.Disk{{Device: "vda", Brokers: []int{1, 2}, BusyPct: 50, PeakBusyPct: 90, ReadBytes: 2000 * 512, WriteBytes: 4000 * 512}}
	if !reflect.DeepEqual(disks, want) {
		t.Errorf("disks:\n%+v\nwant\n%+v", disks, want)
	}
	wantUnjudged := []string{"broker 3: on a file system with no block device (major 0)", "brokers 4: device 9:9 not in diskstats"}
	if !reflect.DeepEqual(unjudged, wantUnjudged) {
		t.Errorf("unjudged %q, want %q", unjudged, wantUnjudged)
	}
}

// TestDeviceOf: a folder on a disk resolves to its device's
// "major:minor"; one on tmpfs, or one that is not there, is an error that
// says why.
func TestDeviceOf(t *testing.T) {
	if dev, err := deviceOf(t.TempDir()); err == nil {
		var major, minor int
		if n, _ := fmt.Sscanf(dev, "%d:%d", &major, &minor); n != 2 || major == 0 {
			t.Errorf("device %q, want major:minor with a major above 0", dev)
		}
	} else if !strings.Contains(err.Error(), "no block device") {
		t.Errorf("the test's folder: %v", err)
	}
	if _, err := deviceOf(filepath.Join(t.TempDir(), "gone")); err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Errorf("a missing folder: %v, want an error naming the data directory", err)
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		if _, err := deviceOf("/dev/shm"); err == nil || !strings.Contains(err.Error(), "no block device") {
			t.Errorf("tmpfs: %v, want no block device", err)
		}
	}
}
