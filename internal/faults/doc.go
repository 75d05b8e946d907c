// Package faults breaks brokers on a timeline while a scenario runs and
// measures, from the client's side, what the cluster did about it: the
// time until every partition the broker led has a new leader, and after
// the broker returns, the time until every partition's in-sync replica set
// is full again. Learn Kind, Fault and Timeline first.
//
// A fault kind (kill, pause, restart, ...) is a file of its own behind the
// Kind interface, registered by its action name in Kinds. A kind says what
// it does to its target brokers (its Effect: taken away, brought back),
// which is all the timeline measures from, and acts on the cluster through
// an Actor: on the local cluster the broker processes (LocalActor); on a
// remote cluster the commands the plan gives (CommandActor: kubectl delete
// pod ...), without a shell unless asked, keeping their output.
package faults
