// Package timeline runs a plan's faults (package faults) while a scenario
// runs and measures, from the client's side, what the cluster did about
// them: the time until every partition a broker led has a new leader, and
// after the broker returns, the time until every partition's in-sync
// replica set is full again. Learn Timeline and Result first.
//
// A Timeline carries out each fault at its own time through its Kind,
// resolving its target at that moment (a partition's leader, the
// controller), and measures what the kind's Effect calls for from the
// cluster's metadata, polled through a franz-go client. It is the only
// part of the faults that talks to Kafka: package faults, which plans
// read, stays free of franz-go.
package timeline
