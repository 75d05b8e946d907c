package kafkaconf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Common holds the settings every Java client has. It is embedded in
// [Producer] and [Consumer], so p.BootstrapServers and c.ClientID work.
type Common struct {
	// BootstrapServers is bootstrap.servers, nil when not set: the caller
	// may take it from --bootstrap-server instead (and must then add
	// kgo.SeedBrokers itself, since Opts adds it only when set here).
	BootstrapServers []string
	// ClientID is client.id; "" means the Java client's generated one
	// ("producer-1", "consumer-<group.id>-1").
	ClientID string
	// RequestTimeout is request.timeout.ms.
	RequestTimeout time.Duration
	// MetadataMaxAge is metadata.max.age.ms.
	MetadataMaxAge time.Duration
	// RetryBackoff and RetryBackoffMax are retry.backoff.ms and
	// retry.backoff.max.ms: Java's exponential backoff with 20% jitter.
	RetryBackoff, RetryBackoffMax time.Duration
	// ConnectionsMaxIdle is connections.max.idle.ms; -1 means never.
	ConnectionsMaxIdle time.Duration
	// ConnectionSetupTimeout is socket.connection.setup.timeout.ms.
	ConnectionSetupTimeout time.Duration
	// SecurityProtocol is security.protocol: PLAINTEXT, SSL,
	// SASL_PLAINTEXT or SASL_SSL, with the ssl.* and sasl.* properties
	// resolved into security.
	SecurityProtocol string
	security         security
	// EnableMetricsPush is enable.metrics.push (KIP-714 client metrics).
	EnableMetricsPush bool

	set map[string]Prop // explicitly set properties: Java's "did the user configure it?" rules and error sources
}

// kgo's bounds for the options kbench sets (see kgo's cfg.validate).
const (
	kgoMaxIdle       = 15 * time.Minute
	kgoMinIdle       = 100 * time.Millisecond
	kgoMinMetaAge    = 10 * time.Millisecond
	kgoDefMetaMinAge = 5 * time.Second
)

// commonProps are the shared settings except client.id and
// request.timeout.ms, whose meaning differs by client.
func commonProps() []prop[Common] {
	return []prop[Common]{
		{
			key:     "bootstrap.servers",
			meaning: "kgo.SeedBrokers; kbench's CLI may supply it from --bootstrap-server instead",
			set: func(c *Common, v string) error {
				l, err := parseList(v)
				if err != nil {
					return err
				}
				for _, addr := range l {
					if err := checkAddr(addr); err != nil {
						return err
					}
				}
				c.BootstrapServers = l
				return nil
			},
			get: func(c *Common) string { return strings.Join(c.BootstrapServers, ",") },
		},
		msProp("metadata.max.age.ms", "300000", 10, 3600000, func(c *Common) *time.Duration { return &c.MetadataMaxAge },
			"kgo.MetadataMaxAge (franz-go allows 10 ms to 1 h); kgo.MetadataMinAge is lowered to match when below 5 s"),
		msProp("retry.backoff.ms", "100", 0, maxMillis, func(c *Common) *time.Duration { return &c.RetryBackoff },
			"kgo.RetryBackoffFn: Java's exponential backoff (doubling, 20% jitter) from this value"),
		msProp("retry.backoff.max.ms", "1000", 0, maxMillis, func(c *Common) *time.Duration { return &c.RetryBackoffMax },
			"kgo.RetryBackoffFn: the cap of that backoff; a static backoff of this value if below retry.backoff.ms"),
		{
			key: "connections.max.idle.ms", def: "540000",
			meaning: "kgo.ConnIdleTimeout (franz-go allows 100 ms to 15 min; -1, never, becomes 15 min)",
			set: func(c *Common, v string) error {
				n, err := parseInt(v, -1, kgoMaxIdle.Milliseconds())
				if err != nil || (n >= 0 && n < kgoMinIdle.Milliseconds()) {
					return &badValue{allowed: "-1 (never) or 100 to 900000"}
				}
				c.ConnectionsMaxIdle = time.Duration(n) * time.Millisecond
				return nil
			},
			get: func(c *Common) string { return millis(c.ConnectionsMaxIdle) },
		},
		msProp("socket.connection.setup.timeout.ms", "10000", 1, maxMillis, func(c *Common) *time.Duration { return &c.ConnectionSetupTimeout },
			"kgo.DialTimeout"),
		enumProp("security.protocol", "PLAINTEXT", true, []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"},
			func(c *Common) *string { return &c.SecurityProtocol },
			"SSL adds kgo.DialTLSConfig (ssl.*), SASL_* adds kgo.SASL (sasl.mechanism, sasl.jaas.config); see docs/security.md"),
		boolProp("enable.metrics.push", "true", func(c *Common) *bool { return &c.EnableMetricsPush },
			"false adds kgo.DisableClientMetrics (KIP-714)"),
	}
}

// checkAddr checks one bootstrap address, HOST:PORT or [IPv6]:PORT, as
// Java's ClientUtils.parseAndValidateAddresses does, and also refuses port
// 0, which no broker listens on. Without it a bad port surfaced only as a
// connection failure after the 15 s connect timeout.
func checkAddr(addr string) error {
	const allowed = "HOST:PORT entries such as localhost:9092, ports 1 to 65535"
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &badValue{why: fmt.Sprintf("%q is not HOST:PORT", addr), allowed: allowed}
	}
	if host == "" {
		return &badValue{why: fmt.Sprintf("%q has no host", addr), allowed: allowed}
	}
	if port == "" {
		return &badValue{why: fmt.Sprintf("%q has no port", addr), allowed: allowed}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return &badValue{why: fmt.Sprintf("%q: port %q is not a number from 1 to 65535", addr, port), allowed: allowed}
	}
	return nil
}

func clientIDProp[T any](common func(*T) *Common, generated func(*T) string, meaning string) prop[T] {
	p := strProp("client.id", 256, false, func(t *T) *string { return &common(t).ClientID }, meaning)
	p.get = generated
	return p
}

// commonNoEffect are the Java properties both clients know that kbench
// accepts and ignores, with why.
func commonNoEffect() map[string]string {
	const noClasses = "kbench cannot load Java classes"
	return map[string]string{
		"send.buffer.bytes":                        "franz-go sizes socket buffers itself",
		"receive.buffer.bytes":                     "franz-go sizes socket buffers itself",
		"client.dns.lookup":                        "franz-go dials every address a name resolves to",
		"bootstrap.resolve.timeout.ms":             "franz-go resolves names when it dials",
		"interceptor.classes":                      noClasses,
		"metric.reporters":                         "kbench measures and reports its own metrics",
		"auto.include.jmx.reporter":                "kbench measures and reports its own metrics",
		"security.providers":                       noClasses,
		"config.providers":                         noClasses,
		"reconnect.backoff.ms":                     "franz-go retries failed connections with the retry backoff, retry.backoff.ms",
		"reconnect.backoff.max.ms":                 "franz-go retries failed connections with the retry backoff, retry.backoff.max.ms",
		"socket.connection.setup.timeout.max.ms":   "franz-go uses socket.connection.setup.timeout.ms for every dial",
		"metadata.recovery.strategy":               "franz-go keeps the bootstrap servers as a fallback for metadata requests",
		"metadata.recovery.rebootstrap.trigger.ms": "franz-go keeps the bootstrap servers as a fallback for metadata requests",
	}
}

// checkCommon returns warnings for shared values franz-go cannot honor as is.
func (c *Common) checkCommon() (warns []Warning) {
	if c.ConnectionsMaxIdle < 0 {
		p := c.prop("connections.max.idle.ms", "-1")
		warns = append(warns, Warning{Key: p.Key, Source: p.Source,
			Message: "franz-go closes idle connections after at most 15 minutes; using 900000"})
	}
	if c.RetryBackoff > c.RetryBackoffMax {
		p := c.prop("retry.backoff.ms", millis(c.RetryBackoff))
		warns = append(warns, Warning{Key: p.Key, Source: p.Source,
			Message: fmt.Sprintf("greater than retry.backoff.max.ms (%s); as in Java, a static backoff of %s ms is used",
				millis(c.RetryBackoffMax), millis(c.RetryBackoffMax))})
	}
	return warns
}

// prop returns the property as the user set it, or as defaulted.
func (c *Common) prop(key, effective string) Prop {
	if p, ok := c.set[key]; ok {
		return p
	}
	return Prop{Key: key, Value: effective, Source: "default"}
}

// explicit reports whether the user set key, which some Java rules depend on.
func (c *Common) explicit(key string) bool {
	_, ok := c.set[key]
	return ok
}

// clientOpts are the kgo options for the shared settings.
func (c *Common) clientOpts(clientID string, overhead time.Duration) []kgo.Opt {
	var opts []kgo.Opt
	if len(c.BootstrapServers) > 0 {
		opts = append(opts, kgo.SeedBrokers(c.BootstrapServers...))
	}
	idle := c.ConnectionsMaxIdle
	if idle < 0 || idle > kgoMaxIdle {
		idle = kgoMaxIdle
	}
	opts = append(opts,
		kgo.ClientID(clientID),
		kgo.RequestTimeoutOverhead(min(max(overhead, 100*time.Millisecond), 15*time.Minute)),
		kgo.MetadataMaxAge(max(c.MetadataMaxAge, kgoMinMetaAge)),
		kgo.RetryBackoffFn(javaBackoff(c.RetryBackoff, c.RetryBackoffMax)),
		kgo.ConnIdleTimeout(max(idle, kgoMinIdle)),
		kgo.DialTimeout(c.ConnectionSetupTimeout),
	)
	if c.MetadataMaxAge < kgoDefMetaMinAge {
		// kgo requires its min age (default 5s) at most the max age.
		opts = append(opts, kgo.MetadataMinAge(max(c.MetadataMaxAge, kgoMinMetaAge)))
	}
	if !c.EnableMetricsPush {
		opts = append(opts, kgo.DisableClientMetrics())
	}
	return append(opts, c.securityOpts()...)
}

// javaBackoff mirrors Java's ExponentialBackoff(retry.backoff.ms, 2,
// retry.backoff.max.ms, 0.2): kgo calls it with the number of failures so
// far, starting at 1.
func javaBackoff(base, limit time.Duration) func(int) time.Duration {
	return func(fails int) time.Duration {
		if base <= 0 {
			return 0
		}
		if base >= limit {
			return limit // Java: a static backoff of retry.backoff.max.ms
		}
		exp := min(float64(max(fails-1, 0)), math.Log2(float64(limit)/float64(base)))
		d := time.Duration(float64(base) * math.Pow(2, exp) * (0.8 + 0.4*rand.Float64()))
		return min(d, limit)
	}
}
