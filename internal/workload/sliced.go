package workload

// Sliced is a spec that a distributed run splits between its workers:
// Slice returns worker index's share of it (of workers), and false when
// that worker runs none of it (fewer clients than workers). A share is
// whole clients: worker i runs a contiguous range of the spec's clients,
// with their own client ids (the range's indices, so ids stay unique
// across workers), and records, rates and virtual users in proportion, so
// that the slices of every worker add up to the spec.
type Sliced interface {
	Spec
	Slice(index, of int) (Spec, bool, error)
}
