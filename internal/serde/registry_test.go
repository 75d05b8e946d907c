package serde

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

func testSchema(t *testing.T) *Schema {
	t.Helper()
	s, err := Parse(Avro, testAvro)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResolveRegistersAndDecodesByID(t *testing.T) {
	t.Parallel()
	fake := srfake.New()
	t.Cleanup(fake.Close)
	c := Config{URL: fake.URL(), AutoRegister: true}
	r, err := NewRegistry(c)
	if err != nil {
		t.Fatal(err)
	}
	s := testSchema(t)
	subject := Subject(TopicNameStrategy, "users", false, s)
	id, _, err := r.Resolve(context.Background(), c, subject, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Encode(nil, id, []byte(testValue))
	if err != nil {
		t.Fatal(err)
	}
	// A fresh client, as a consumer: fetches the schema by id once.
	dec, _ := NewRegistry(Config{URL: fake.URL()})
	for range 3 {
		v, gotID, err := dec.Decode(context.Background(), b)
		if err != nil || gotID != id || v.(map[string]any)["id"] != "u-1" {
			t.Fatalf("Decode = %v, %d, %v", v, gotID, err)
		}
	}
	if n := dec.Stats().Requests; n != 1 {
		t.Errorf("decoding 3 records made %d registry requests, want 1 (cached)", n)
	}
}

func TestSubjectStrategies(t *testing.T) {
	t.Parallel()
	s := testSchema(t)
	for strategy, want := range map[string]string{
		TopicNameStrategy: "users-value", RecordNameStrategy: "kbench.test.User", TopicRecordNameStrategy: "users-kbench.test.User",
	} {
		if got := Subject(strategy, "users", false, s); got != want {
			t.Errorf("%s: %q, want %q", strategy, got, want)
		}
	}
	if got := Subject(TopicNameStrategy, "users", true, s); got != "users-key" {
		t.Errorf("key subject %q", got)
	}
	c, err := ConfigFrom(map[string]string{"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"})
	if err != nil || c.ValueStrategy != RecordNameStrategy {
		t.Errorf("Java class name: %+v, %v", c, err)
	}
	if _, err := ConfigFrom(map[string]string{"value.subject.name.strategy": "Nope"}); err == nil || !strings.Contains(err.Error(), "value.subject.name.strategy") {
		t.Errorf("bad strategy: %v", err)
	}
}

// The error paths: each names what to do and is testable with errors.Is.
func TestResolveErrors(t *testing.T) {
	t.Parallel()
	s := testSchema(t)
	ctx := context.Background()

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		c := Config{URL: "http://" + addr, AutoRegister: true}
		r, _ := NewRegistry(c)
		_, _, err := r.Resolve(ctx, c, "users-value", s)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
			t.Errorf("err = %v, want ErrUnreachable naming %s", err, addr)
		}
	})
	t.Run("subject not found without auto-register", func(t *testing.T) {
		t.Parallel()
		fake := srfake.New()
		t.Cleanup(fake.Close)
		c := Config{URL: fake.URL(), AutoRegister: false}
		r, _ := NewRegistry(c)
		_, _, err := r.Resolve(ctx, c, "users-value", s)
		if !errors.Is(err, ErrSubjectNotFound) || !strings.Contains(err.Error(), `"users-value"`) || !strings.Contains(err.Error(), "auto.register.schemas") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("incompatible", func(t *testing.T) {
		t.Parallel()
		fake := srfake.New()
		t.Cleanup(fake.Close)
		fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/versions") {
				return false
			}
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(sr.ResponseError{ErrorCode: 409, Message: "Schema being registered is incompatible with an earlier schema"})
			return true
		})
		c := Config{URL: fake.URL(), AutoRegister: true}
		r, _ := NewRegistry(c)
		_, _, err := r.Resolve(ctx, c, "users-value", s)
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), `"users-value"`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("use latest", func(t *testing.T) {
		t.Parallel()
		fake := srfake.New()
		t.Cleanup(fake.Close)
		fake.SeedSchema("users-value", 1, 41, sr.Schema{Schema: testAvro, Type: sr.TypeAvro})
		c := Config{URL: fake.URL(), UseLatest: true}
		r, _ := NewRegistry(c)
		id, got, err := r.Resolve(ctx, c, "users-value", s)
		if err != nil || id != 41 || got.Name != "kbench.test.User" {
			t.Errorf("Resolve = %d, %v, %v", id, got, err)
		}
	})
}

// TestRegistryErrorsHideTheURLsCredentials: regression: with
// basic.auth.credentials.source=URL, an unreachable registry's error
// quoted http://bob:PASS@host twice (kbench's words and sr's), and it went
// to stderr, result.json and report.html. Every error, and URL, shows the
// registry without its user; the error is still ErrUnreachable.
func TestRegistryErrorsHideTheURLsCredentials(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	c, err := ConfigFrom(map[string]string{"schema.registry.url": "http://bob:PASS@" + dead + "/apis", "basic.auth.credentials.source": "URL"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRegistry(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.URL() != "http://"+dead+"/apis" {
		t.Errorf("URL() = %q, want no user", r.URL())
	}
	s := testSchema(t)
	_, _, resolveErr := r.Resolve(context.Background(), c, "t-value", s)
	_, byIDErr := r.ByID(context.Background(), 3)
	setErr := r.SetCompatibility(context.Background(), "t-value", "BACKWARD")
	for _, err := range []error{resolveErr, byIDErr, setErr} {
		if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "bob") || strings.Contains(err.Error(), "PASS") || !strings.Contains(err.Error(), "http://"+dead+"/apis") {
			t.Errorf("err = %v, want ErrUnreachable naming http://%s/apis without bob:PASS", err, dead)
		}
	}
	_, err = ConfigFrom(map[string]string{"schema.registry.url": "ftp://bob:PASS@h"})
	if err == nil || strings.Contains(err.Error(), "PASS") {
		t.Errorf("a bad URL's error: %v", err)
	}
	for in, want := range map[string]string{
		`Post "http://bob:***@h:1/x": refused`: `Post "http://h:1/x": refused`,
		"at https://u@h/p and http://h/a@b":    "at https://h/p and http://h/a@b",
	} {
		if got := RedactURLs(in); got != want {
			t.Errorf("RedactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}
