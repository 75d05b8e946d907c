package cluster

import (
	"encoding/base64"
	"fmt"
	"io"
)

// newClusterID makes a KRaft cluster id as Kafka's Uuid.randomUuid does:
// 16 random bytes in URL-safe base64 without padding (22 characters),
// never starting with '-', which the tools would read as a flag.
func newClusterID(rand io.Reader) (string, error) {
	var b [16]byte
	for range 100 {
		if _, err := io.ReadFull(rand, b[:]); err != nil {
			return "", fmt.Errorf("cluster id: %w", err)
		}
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if id[0] != '-' && !allZero(b[:]) {
			return id, nil
		}
	}
	return "", fmt.Errorf("cluster id: random source gave no usable id")
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
