package cluster

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
)

func TestNewClusterID(t *testing.T) {
	t.Parallel()
	for range 1000 {
		id, err := newClusterID(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		b, err := base64.RawURLEncoding.DecodeString(id)
		if len(id) != 22 || err != nil || len(b) != 16 || id[0] == '-' {
			t.Fatalf("bad id %q (%v)", id, err)
		}
	}
}

func TestNewClusterIDSkips(t *testing.T) {
	t.Parallel()
	dash := bytes.Repeat([]byte{0xfb}, 16) // encodes as "-_v7..."
	zero := make([]byte, 16)
	good := bytes.Repeat([]byte{0x01}, 16)
	src := bytes.NewReader(append(append(dash, zero...), good...))
	id, err := newClusterID(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := base64.RawURLEncoding.EncodeToString(good); id != want {
		t.Fatalf("id = %q, want %q (dash and zero ids skipped)", id, want)
	}
	if _, err := newClusterID(strings.NewReader("short")); err == nil {
		t.Fatal("want an error from a short random source")
	}
}
