// Package kafkaconf turns the Apache Kafka Java client's property names
// (acks, batch.size, linger.ms, group.id, ...) into franz-go options, so that
// kbench behaves as the Java client would with the same properties.
//
// Start with [ParseProducer] and [ParseConsumer]: they take [Prop]s (from
// [ParsePairs] for --producer-props style flags or [ReadFile] for a
// .properties file), apply the Apache Kafka 4.x Java client defaults, and
// return a typed [Producer] or [Consumer] whose Opts method builds the
// kgo options. Every invalid value is reported in one error marked with
// userr; properties that are unknown or have no effect in kbench come back as
// [Warning]s. [ProducerDefaults] and [ConsumerDefaults] are the one table of
// defaults; docs/properties.md is checked against them by a test.
package kafkaconf
