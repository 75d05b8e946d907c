package result

// KafkaMetrics are a broker's own figures over a repeat, from its
// Prometheus endpoint scraped at the repeat's start, every second, and at
// its end: totals are the counters' increases (a restarted broker's
// counter counted from its restart), ratios and means over the repeat.
// A figure the endpoint does not give is absent (nil) and named in Lacks,
// never guessed.
type KafkaMetrics struct {
	// Seconds is the time between the first and the last scrape.
	Seconds    float64  `json:"seconds"`
	Scrapes    int      `json:"scrapes"`
	BytesIn    *float64 `json:"bytes_in,omitempty"`
	BytesOut   *float64 `json:"bytes_out,omitempty"`
	MessagesIn *float64 `json:"messages_in,omitempty"`
	// RequestHandlerIdle is the request handlers' mean idle share over
	// the repeat (0 to 1), from the idle meter's count of nanoseconds.
	RequestHandlerIdle *float64 `json:"request_handler_idle_ratio,omitempty"`
	// HandlerBusy is the request handlers' busy share in percent through
	// the repeat, a step a second (the report's chart); HandlerBusyPct is
	// the repeat's.
	HandlerBusy *Steps `json:"request_handler_busy_pct,omitempty"`
	// NetworkProcessorIdle is the mean of the network processors' idle
	// gauge (0 to 1) over the scrapes.
	NetworkProcessorIdle *float64 `json:"network_processor_idle_ratio,omitempty"`
	// Produce and Fetch are the brokers' times of produce and consumer
	// fetch requests.
	Produce *RequestTimes `json:"produce,omitempty"`
	Fetch   *RequestTimes `json:"fetch,omitempty"`
	// UnderReplicated and Offline are the most partitions the gauges
	// showed at one scrape.
	UnderReplicated *float64 `json:"under_replicated_partitions_max,omitempty"`
	Offline         *float64 `json:"offline_partitions_max,omitempty"`
	IsrShrinks      *float64 `json:"isr_shrinks,omitempty"`
	IsrExpands      *float64 `json:"isr_expands,omitempty"`
	// RemoteFetchBytes are the bytes the broker read from the remote tier
	// (tiered storage) to serve fetches, RemoteCopyBytes those it copied
	// to it; nil on a broker without remote storage.
	RemoteFetchBytes *float64 `json:"remote_fetch_bytes,omitempty"`
	RemoteCopyBytes  *float64 `json:"remote_copy_bytes,omitempty"`
	// Topics are per-topic bytes, on a broker with remote storage only:
	// what each topic's reads took from each tier.
	Topics map[string]*TopicBytes `json:"topics,omitempty"`
	// Lacks says, once per figure, what the endpoint did not give and
	// what is therefore not measured.
	Lacks []string `json:"lacks,omitempty"`
	// Error is why scraping failed (the figures hold what was read until
	// then).
	Error string `json:"error,omitempty"`
}

// RequestTimes are one request type's times in ms: Mean over the repeat's
// requests (from the histograms' lifetime mean and count), P99 the
// broker's recent percentile at the repeat's end.
type RequestTimes struct {
	Requests *float64 `json:"requests,omitempty"`
	Total    *Time    `json:"total_ms,omitempty"`
	Queue    *Time    `json:"queue_ms,omitempty"`
	Local    *Time    `json:"local_ms,omitempty"`
	Remote   *Time    `json:"remote_ms,omitempty"`
}

// Time is one part of a request's time in ms.
type Time struct {
	Mean *float64 `json:"mean,omitempty"`
	P99  *float64 `json:"p99,omitempty"`
}

// HandlerBusyPct is the request handlers' busy share in percent (ok: the
// idle ratio was measured).
func (k *KafkaMetrics) HandlerBusyPct() (float64, bool) {
	if k == nil || k.RequestHandlerIdle == nil {
		return 0, false
	}
	return BusyPct(*k.RequestHandlerIdle), true
}

// TopicBytes are one topic's bytes on one broker over a repeat: BytesOut
// sent to consumers (from either tier), RemoteFetchBytes of them read from
// the remote tier, RemoteCopyBytes copied to it.
type TopicBytes struct {
	BytesOut         *float64 `json:"bytes_out,omitempty"`
	RemoteFetchBytes *float64 `json:"remote_fetch_bytes,omitempty"`
	RemoteCopyBytes  *float64 `json:"remote_copy_bytes,omitempty"`
}

// LocalReadBytes are the bytes sent to consumers that were not read from
// the remote tier: read from local segments (or the page cache).
func (t *TopicBytes) LocalReadBytes() float64 {
	if t == nil || t.BytesOut == nil {
		return 0
	}
	remote := 0.0
	if t.RemoteFetchBytes != nil {
		remote = *t.RemoteFetchBytes
	}
	return max(*t.BytesOut-remote, 0)
}
