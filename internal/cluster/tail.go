package cluster

import (
	"io"
	"os"
	"strings"
)

// tailLines is the last n lines of s, for error messages.
func tailLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tailFile is the last n lines of a file, reading at most its last 64 KiB:
// broker logs grow large and only the end explains a failure.
func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return tailLines(string(b), n)
}

// nodeTail is what an error shows about a node: the end of its broker log
// and of its stdout/stderr, where the JVM reports what log4j cannot.
func nodeTail(b Broker, n int) string {
	var parts []string
	if t := tailFile(b.LogPath, n); t != "" {
		parts = append(parts, "--- last lines of "+b.LogPath+" ---\n"+t)
	}
	if t := tailFile(b.OutPath, n); t != "" {
		parts = append(parts, "--- last lines of "+b.OutPath+" ---\n"+t)
	}
	if len(parts) == 0 {
		return "(broker " + b.Dir + " wrote no log)"
	}
	return strings.Join(parts, "\n")
}
