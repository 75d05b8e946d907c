package serde

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// Subject name strategies, as the Confluent serializers name them.
const (
	TopicNameStrategy       = "TopicNameStrategy" // <topic>-value, <topic>-key (the default)
	RecordNameStrategy      = "RecordNameStrategy"
	TopicRecordNameStrategy = "TopicRecordNameStrategy"
)

// Strategies are the accepted subject name strategies.
var Strategies = []string{TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy}

// Subject is the subject a Confluent serializer registers a record type
// under: TopicNameStrategy <topic>-value (or -key), RecordNameStrategy the
// record's full name, TopicRecordNameStrategy <topic>-<record name>.
func Subject(strategy, topic string, key bool, s *Schema) string {
	switch strategy {
	case RecordNameStrategy:
		return s.Name
	case TopicRecordNameStrategy:
		return topic + "-" + s.Name
	}
	if key {
		return topic + "-key"
	}
	return topic + "-value"
}

// Config is how to reach a registry and what serializers do there, read
// from the Confluent serializer properties (ConfigFrom).
type Config struct {
	URL      string
	User     string // basic auth, with Password
	Password string
	TLS      *tls.Config
	// AutoRegister registers the plan's schema (auto.register.schemas,
	// default true); otherwise it must be registered already.
	AutoRegister bool
	// UseLatest encodes with the subject's latest version
	// (use.latest.version, default false; with AutoRegister false).
	UseLatest     bool
	ValueStrategy string // value.subject.name.strategy
	KeyStrategy   string // key.subject.name.strategy
}

// Properties are the Confluent serializer properties kbench reads.
var Properties = []string{
	"schema.registry.url", "basic.auth.credentials.source", "basic.auth.user.info",
	"schema.registry.basic.auth.user.info",
	"schema.registry.ssl.truststore.location", "schema.registry.ssl.keystore.location",
	"schema.registry.ssl.key.location",
	"auto.register.schemas", "use.latest.version",
	"value.subject.name.strategy", "key.subject.name.strategy",
}

// PropError is a property with a bad value.
type PropError struct{ Key, Reason string }

func (e *PropError) Error() string { return e.Key + ": " + e.Reason }

// ConfigFrom reads the Confluent serializer properties. A strategy may be
// its short name or the Java class
// (io.confluent.kafka.serializers.subject.RecordNameStrategy). TLS takes
// PEM files: schema.registry.ssl.truststore.location (CA certificates) and
// schema.registry.ssl.keystore.location with schema.registry.ssl.key.location
// (a client certificate and key).
func ConfigFrom(props map[string]string) (Config, error) {
	c := Config{URL: props["schema.registry.url"], AutoRegister: true,
		ValueStrategy: TopicNameStrategy, KeyStrategy: TopicNameStrategy}
	if i := strings.IndexByte(c.URL, ','); i >= 0 {
		c.URL = c.URL[:i] // the first of a list, as the serializers try first
	}
	if c.URL != "" && !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
		return c, &PropError{"schema.registry.url", fmt.Sprintf("%q: write an http:// or https:// URL", RedactURLs(c.URL))}
	}
	boolProp := func(k string, def bool) (bool, error) {
		v, ok := props[k]
		if !ok {
			return def, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return def, &PropError{k, fmt.Sprintf("%q: write true or false", v)}
		}
		return b, nil
	}
	var err error
	if c.AutoRegister, err = boolProp("auto.register.schemas", true); err != nil {
		return c, err
	}
	if c.UseLatest, err = boolProp("use.latest.version", false); err != nil {
		return c, err
	}
	for _, k := range []string{"value.subject.name.strategy", "key.subject.name.strategy"} {
		v, ok := props[k]
		if !ok {
			continue
		}
		short := v[strings.LastIndexByte(v, '.')+1:]
		found := false
		for _, s := range Strategies {
			found = found || s == short
		}
		if !found {
			return c, &PropError{k, fmt.Sprintf("%q: use one of %s", v, strings.Join(Strategies, ", "))}
		}
		if k == "value.subject.name.strategy" {
			c.ValueStrategy = short
		} else {
			c.KeyStrategy = short
		}
	}
	info := props["basic.auth.user.info"]
	if info == "" {
		info = props["schema.registry.basic.auth.user.info"]
	}
	switch src := strings.ToUpper(props["basic.auth.credentials.source"]); src {
	case "", "USER_INFO":
		if info != "" {
			u, p, ok := strings.Cut(info, ":")
			if !ok {
				return c, &PropError{"basic.auth.user.info", "write USER:PASSWORD"}
			}
			c.User, c.Password = u, p
		}
	case "URL":
		// user:password@ in the URL: net/http sends it as basic auth.
	default:
		return c, &PropError{"basic.auth.credentials.source", fmt.Sprintf("%q: use USER_INFO or URL", src)}
	}
	if c.TLS, err = registryTLS(props); err != nil {
		return c, err
	}
	return c, nil
}

func registryTLS(props map[string]string) (*tls.Config, error) {
	ca, cert, key := props["schema.registry.ssl.truststore.location"], props["schema.registry.ssl.keystore.location"], props["schema.registry.ssl.key.location"]
	if ca == "" && cert == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, &PropError{"schema.registry.ssl.truststore.location", err.Error()}
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &PropError{"schema.registry.ssl.truststore.location", "holds no PEM certificate"}
		}
	}
	if cert != "" {
		if key == "" {
			key = cert
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, &PropError{"schema.registry.ssl.keystore.location", err.Error()}
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Registry is a schema registry client that counts and times its requests
// and caches schemas by id. Safe for concurrent use.
type Registry struct {
	cl  *sr.Client
	url string // without user:password@: the one shown

	requests atomic.Int64
	failures atomic.Int64
	nanos    atomic.Int64
	maxNanos atomic.Int64

	mu    sync.Mutex
	byID  map[int]*Schema
	stats []time.Duration // each request's latency, in order
}

// NewRegistry is a client of the registry c names.
func NewRegistry(c Config) (*Registry, error) {
	if c.URL == "" {
		return nil, &PropError{"schema.registry.url", "is not set; give the registry's URL (a local cluster's is printed by kbench cluster up --schema-registry)"}
	}
	r := &Registry{url: RedactURLs(c.URL), byID: map[int]*Schema{}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = c.TLS
	hc := &http.Client{Timeout: 10 * time.Second, Transport: timed{r, tr}}
	opts := []sr.ClientOpt{sr.URLs(c.URL), sr.HTTPClient(hc), sr.UserAgent("kbench")}
	if c.User != "" {
		opts = append(opts, sr.BasicAuth(c.User, c.Password))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, redactErr(fmt.Errorf("schema registry %s: %w", r.url, err))
	}
	r.cl = cl
	return r, nil
}

// timed counts and times every request.
type timed struct {
	r  *Registry
	rt http.RoundTripper
}

func (t timed) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.rt.RoundTrip(req)
	d := time.Since(start)
	t.r.requests.Add(1)
	if err != nil || resp.StatusCode >= 500 {
		t.r.failures.Add(1)
	}
	t.r.nanos.Add(int64(d))
	for {
		m := t.r.maxNanos.Load()
		if int64(d) <= m || t.r.maxNanos.CompareAndSwap(m, int64(d)) {
			break
		}
	}
	t.r.mu.Lock()
	t.r.stats = append(t.r.stats, d)
	t.r.mu.Unlock()
	return resp, err
}

// Stats is what the registry cost: requests, failures, their latencies.
type Stats struct {
	Requests  int64
	Failures  int64
	Total     time.Duration
	Max       time.Duration
	Latencies []time.Duration // each request's, in order
}

// Stats returns the requests made so far.
func (r *Registry) Stats() Stats {
	r.mu.Lock()
	lat := append([]time.Duration(nil), r.stats...)
	r.mu.Unlock()
	return Stats{Requests: r.requests.Load(), Failures: r.failures.Load(),
		Total: time.Duration(r.nanos.Load()), Max: time.Duration(r.maxNanos.Load()), Latencies: lat}
}

// URL is the registry's base URL, without the user and password a URL
// may carry (basic.auth.credentials.source=URL): the one to show.
func (r *Registry) URL() string { return r.url }

// ErrUnreachable is a registry that did not answer.
var ErrUnreachable = errors.New("schema registry unreachable")

// ErrSubjectNotFound is a subject with no such schema while
// auto.register.schemas is false.
var ErrSubjectNotFound = errors.New("subject not found")

// ErrIncompatible is a schema the registry refused as incompatible (409).
var ErrIncompatible = errors.New("incompatible schema")

// Resolve finds the schema id a serializer would write for s under
// subject: auto.register.schemas registers it (or finds it registered);
// use.latest.version takes the subject's latest version, whose schema is
// then the one to encode with (returned); otherwise s must be registered.
func (r *Registry) Resolve(ctx context.Context, c Config, subject string, s *Schema) (int, *Schema, error) {
	schema := sr.Schema{Schema: s.Text, Type: s.Format.SchemaType()}
	switch {
	case c.UseLatest && !c.AutoRegister:
		ss, err := r.cl.SchemaByVersion(ctx, subject, -1)
		if err != nil {
			return 0, nil, r.wrap(err, subject, "fetch the latest version of")
		}
		latest, err := Parse(s.Format, ss.Schema.Schema)
		if err != nil {
			return 0, nil, fmt.Errorf("subject %q's latest version (id %d): %w", subject, ss.ID, err)
		}
		r.remember(ss.ID, latest)
		return ss.ID, latest, nil
	case c.AutoRegister:
		ss, err := r.cl.CreateSchema(ctx, subject, schema)
		if err != nil {
			return 0, nil, r.wrap(err, subject, "register the schema under")
		}
		r.remember(ss.ID, s)
		return ss.ID, s, nil
	}
	ss, err := r.cl.LookupSchema(ctx, subject, schema)
	if err != nil {
		return 0, nil, r.wrap(err, subject, "look the schema up under")
	}
	r.remember(ss.ID, s)
	return ss.ID, s, nil
}

// Register registers s under subject whatever the config (schema
// evolution): the new version's id.
func (r *Registry) Register(ctx context.Context, subject string, s *Schema) (int, error) {
	ss, err := r.cl.CreateSchema(ctx, subject, sr.Schema{Schema: s.Text, Type: s.Format.SchemaType()})
	if err != nil {
		return 0, r.wrap(err, subject, "register the schema under")
	}
	r.remember(ss.ID, s)
	return ss.ID, nil
}

// SetCompatibility sets a subject's compatibility level (BACKWARD, ...).
func (r *Registry) SetCompatibility(ctx context.Context, subject, level string) error {
	var l sr.CompatibilityLevel
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return fmt.Errorf("compatibility level %q: %w", level, err)
	}
	for _, res := range r.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: l}, subject) {
		if res.Err != nil {
			return r.wrap(res.Err, subject, "set the compatibility level of")
		}
	}
	return nil
}

func (r *Registry) remember(id int, s *Schema) {
	r.mu.Lock()
	r.byID[id] = s
	r.mu.Unlock()
}

// ByID returns the schema with that id, fetched once and then cached
// (what a deserializer does): format is the format to parse it as when
// the registry does not say.
func (r *Registry) ByID(ctx context.Context, id int) (*Schema, error) {
	r.mu.Lock()
	s := r.byID[id]
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	got, err := r.cl.SchemaByID(ctx, id)
	if err != nil {
		return nil, r.wrap(err, "", fmt.Sprintf("fetch schema id %d from", id))
	}
	f := Avro
	switch got.Type {
	case sr.TypeJSON:
		f = JSONSchema
	case sr.TypeProtobuf:
		f = Protobuf
	}
	s, err = Parse(f, got.Schema)
	if err != nil {
		return nil, fmt.Errorf("schema id %d: %w", id, err)
	}
	r.remember(id, s)
	return s, nil
}

// Decode decodes a framed record, fetching its schema by id (cached).
func (r *Registry) Decode(ctx context.Context, b []byte) (any, int, error) {
	id, rest, err := SchemaID(b)
	if err != nil {
		return nil, 0, err
	}
	s, err := r.ByID(ctx, id)
	if err != nil {
		return nil, id, err
	}
	v, err := s.DecodePayload(rest)
	return v, id, err
}

// wrap words a registry error with what was done, where; the URLs in it
// lose their credentials (sr's errors quote the URL requested whole).
func (r *Registry) wrap(err error, subject, what string) error {
	return redactErr(r.wrapped(err, subject, what))
}

func (r *Registry) wrapped(err error, subject, what string) error {
	var re *sr.ResponseError
	where := "schema registry " + r.url
	if subject != "" {
		what += " subject " + strconv.Quote(subject) + " in"
	}
	if errors.As(err, &re) {
		switch {
		case re.StatusCode == http.StatusConflict:
			return fmt.Errorf("%s %s: %w: %s (the subject's compatibility level refuses this schema: make it compatible, or change the level)", what, where, ErrIncompatible, re.Message)
		case re.StatusCode == http.StatusNotFound && subject != "":
			return fmt.Errorf("%s %s: %w: %s (auto.register.schemas is false: register the schema first, or set auto.register.schemas=true)", what, where, ErrSubjectNotFound, re.Message)
		}
		return fmt.Errorf("%s %s: %w", what, where, err)
	}
	return fmt.Errorf("%s %s: %w: %w", what, where, ErrUnreachable, err)
}

// urlUser is the user:password@ (or user@) of a URL in text, as written or
// as net/http shows it (user:***@).
var urlUser = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#@\s"'<>]*@`)

// RedactURLs removes the user and password from every URL in text: a
// registry URL may carry them (basic.auth.credentials.source=URL), and
// errors quote the URL they requested.
func RedactURLs(text string) string { return urlUser.ReplaceAllString(text, "$1") }

// redactedError is an error whose text lost its URLs' credentials; the
// error it words is still there for errors.Is and As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := RedactURLs(msg); red != msg {
		return &redactedError{red, err}
	}
	return err
}
