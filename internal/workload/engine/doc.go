// Package engine holds what every engine family (produce, consume,
// share, and the kinds that compose them) is built from, so that the
// families need not import each other: client construction (NewClient,
// PerClient) and each client's metrics hooks, error kinds, the
// connection watch, bounds on closing and on admin requests, bounded
// interval series and the interval histogram, a distributed workload's
// slice arithmetic, the send-time header, and the commit clock shared by
// transactional producers and read_committed readers of one process.
package engine
