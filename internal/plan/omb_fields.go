package plan

import (
	"slices"
)

// What each OMB field became, and the notes on where kbench differs: the
// lines --dry-run prints.

// sortedFields are the fields in the order of OMB's files: the
// workload's, then the driver's.
func (t *ombTranslation) sortedFields() []OMBField {
	order := func(f OMBField) int {
		if f.File == "driver" {
			return len(ombWorkloadFields) + slices.Index(ombDriverFields, f.Field)
		}
		return slices.Index(ombWorkloadFields, f.Field)
	}
	out := slices.Clone(t.fields)
	slices.SortStableFunc(out, func(a, b OMBField) int { return order(a) - order(b) })
	return out
}

func (t *ombTranslation) messageFields() {
	w := t.w
	switch w.KeyDistributor {
	case OMBRoundRobin:
		t.field("workload", "keyDistributor", OMBNoKey, "key: {distribution: sequential, count: 10000, format: omb}: OMB's 10,000 keys of 10 characters, in turn")
	case OMBRandomNano:
		t.field("workload", "keyDistributor", OMBNoKey, "key: {distribution: uniform, count: 10000, format: omb}: OMB's 10,000 keys of 10 characters, one at random per record")
	default:
		t.field("workload", "keyDistributor", OMBNoKey, "no keys")
	}
	if w.UseRandomizedPayloads {
		t.field("workload", "messageSize", "", "message.size: %d", w.MessageSize)
		t.field("workload", "useRandomizedPayloads", "false", "values from a pool made before the run (message.pool)")
		t.field("workload", "randomBytesRatio", "0", "random_ratio: %g: each value's first %d bytes random, the rest zeros", w.RandomBytesRatio, int(float64(w.MessageSize)*w.RandomBytesRatio))
		t.field("workload", "randomizedPayloadPoolSize", "0", "pool: %d values, one picked at random per record", w.PoolSize)
		if w.given["payloadFile"] != nil {
			t.field("workload", "payloadFile", "", "not read: useRandomizedPayloads is true (OMB does not read it either)")
			t.note("payloadFile is not read: useRandomizedPayloads is true, as in OMB")
		} else {
			t.field("workload", "payloadFile", "", "not used")
		}
		return
	}
	t.field("workload", "messageSize", "", "the payload file's size, checked: %d bytes", w.MessageSize)
	t.field("workload", "useRandomizedPayloads", "false", "values from payloadFile")
	for _, f := range []string{"randomBytesRatio", "randomizedPayloadPoolSize"} {
		if w.given[f] != nil {
			t.field("workload", f, "", "not used: useRandomizedPayloads is false (OMB does not use it either)")
			t.note("%s is not used: useRandomizedPayloads is false, as in OMB", f)
		} else {
			t.field("workload", f, "", "not used")
		}
	}
	t.field("workload", "payloadFile", "", "message.payload_file: %s with delimiter: none: the whole file (%d bytes) is every record's value, as OMB reads it", w.payloadPath, w.MessageSize)
}

func (t *ombTranslation) rateFields() {
	w := t.w
	if w.ProducerRate == 0 {
		t.field("workload", "producerRate", "0", "rate: balanced on each of the %d topic(s)' produce workload: OMB's search for the highest rate producers and consumers sustain in balance, one rate over all %d producer(s)", w.Topics, w.Topics*w.ProducersPerTopic)
		t.note("producerRate 0: OMB's balanced-rate search, as OMB runs it: from 10,000 msg/s over all producers, every 3 s the rate goes down to what was received (or acknowledged) when more than 1,000 records wait to be read (or acknowledged), and up by a factor (doubling back to ×2) otherwise, for the whole run; result.json's balanced_rates shows where it went. It never goes below 1 msg/s (OMB's can reach 0 and stay there). kbench's own search under a latency SLO is rate: max (docs/plans.md)")
		return
	}
	per := float64(w.ProducerRate) / float64(w.Topics)
	t.field("workload", "producerRate", "0", "rate: %s on each of the %d topic(s)' produce workload, shared by its %d client(s), each sending on a schedule (intended send times)", rateText(per), w.Topics, w.ProducersPerTopic)
}

func (t *ombTranslation) durationFields() {
	w := t.w
	if w.BacklogBytes > 0 {
		t.field("workload", "consumerBacklogSizeGB", "0", "the consume workloads start after the warm-up once the producers have written %s of values (÷ %d subscription(s)), and read each topic from its start (start_after, backlog: a catch-up read)", sizeText(t.backlogBytes()), max(w.SubscriptionsPerTopic, 1))
	} else {
		t.field("workload", "consumerBacklogSizeGB", "0", "no backlog: the consumers read as the producers write")
	}
	t.field("workload", "backlogDrainRatio", "1", "the whole backlog is read")
	if w.BacklogBytes > 0 {
		t.field("workload", "testDurationMinutes", "", "the producers run %s after the consumers start (duration: %s in all)", durationText(w.TestDuration), durationText(t.producerDuration()))
	} else {
		t.field("workload", "testDurationMinutes", "", "duration: %s (the warm-up and then the test)", durationText(t.producerDuration()))
	}
	if w.WarmupDuration > 0 {
		t.field("workload", "warmupDurationMinutes", "1", "warmup: %s on the produce workloads: sent, and left out of the statistics", durationText(w.WarmupDuration))
	} else {
		t.field("workload", "warmupDurationMinutes", "1", "no warm-up")
	}
}

// differences notes where kbench runs this workload differently from OMB.
func (t *ombTranslation) differences() {
	w, d := t.w, t.d
	if w.BacklogBytes > 0 {
		t.note("backlog: the consumers start once the producers have written %s of values (and the warm-up is over), then read each topic from its start; OMB's consumers read through the warm-up and pause. The producers stop %s after that start, which assumes they reach producerRate (OMB runs the test time after the drain has ended); the drain time is in result.json (catch_up), and records sent before the consumers started count as backlog, not in their end-to-end latency",
			sizeText(t.backlogBytes()), durationText(w.TestDuration))
	}
	if w.WarmupDuration > 0 && w.SubscriptionsPerTopic > 0 && w.BacklogBytes == 0 {
		t.note("the consumers' end-to-end latency in result.json and summary.md includes the warm-up's records (kbench's consume workloads have no warm-up yet); OMB leaves them out, and so does omb-result.json")
	}
	if v, long := t.longRequestTimeout(); long {
		t.note("commonConfig's request.timeout.ms=%s goes to the producers; the consumers get %d, the longest franz-go's consumers take (15 minutes)", v, maxConsumerRequestTimeout)
	}
	if ms, ok := t.drainDeliveryTimeout(); ok {
		t.note("the producers get delivery.timeout.ms=%d, Java's for these properties: at the end they wait for the records they hold up to that long, as OMB's do when it closes them (kbench's own plans wait 5 s)", ms)
	}
	if _, ok := property(d.ConsumerConfig, "group.id"); ok {
		t.note("consumerConfig's group.id is not used: each subscription is its own group, named as OMB names it")
	}
	if v, ok := property(d.ConsumerConfig, "enable.auto.commit"); w.SubscriptionsPerTopic > 0 && (!ok || v != "true") {
		t.note("OMB's consumers commit their offsets after every poll (enable.auto.commit is not true); kbench's commit none")
	}
}
