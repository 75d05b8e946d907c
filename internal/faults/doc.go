// Package faults is what a plan's faults are: their kinds, targets,
// parameters and the actors that carry them out. Learn Kind and Fault
// first. Package timeline (internal/faults/timeline) runs them while a
// scenario runs and measures what the cluster did; this package talks to
// no Kafka client, so that plans can read it.
//
// A fault kind (kill, pause, restart, delay, ...) is one Kind value in a
// file of its own, registered by its action name in Kinds. A kind says
// what it does to its target brokers and links (its Effect: taken away,
// brought back, a link disrupted, cut or healed), which is all the
// timeline measures from, and acts on the cluster through an Actor: on
// the local cluster the broker processes and the links through its
// network proxies (LocalActor, built by cluster.FaultActor: the kind's
// Broker or Shape); on a remote cluster the commands the plan gives
// (CommandActor: the kind's Command, kubectl delete pod ...), without a
// shell unless asked, keeping their output.
package faults
