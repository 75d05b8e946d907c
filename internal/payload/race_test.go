//go:build race

package payload

// raceEnabled: the race detector is on (sync.Pool drops its items, so
// allocation counts mean nothing).
const raceEnabled = true
