// Package consume is the consumer engine: clients that read a consumer
// group's partitions or partitions assigned directly, and what they
// measured (StartConsumer, RunConsumer): records, rates, end-to-end
// latency, lag, rebalances and the catch-up of a backlog.
//
// A run's counting, stop conditions, reporter and lag series serve other
// kinds of group too: StartWith takes a Membership that says how its
// clients join and read (package share's share groups), so that this
// package knows no other kind.
package consume
