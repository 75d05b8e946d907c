// Package share is the share-group consumer (KIP-932, Kafka's queues):
// members that acquire records one by one from any partition and
// acknowledge each (accept, release, reject, renew), what they did with
// their deliveries, their group's lag and stalls, and the check that
// every record was settled exactly once (Start, Run.Wait).
//
// Members are readers of a consume run (a consume.Membership): the run
// counts, reports and stops them as it does consumers.
package share
