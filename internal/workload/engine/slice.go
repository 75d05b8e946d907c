package engine

import (
	"fmt"
)

// ClientSlice places a slice's clients among all of a workload's: its
// client i is the workload's client First+i of All. Zero: the whole.
type ClientSlice struct{ First, All int }

// ClientRange is worker index's clients of n among of workers: the first
// and how many (share's split, in order).
func ClientRange(n, index, of int) (first, count int) {
	for j := range index {
		first += int(EvenPart(int64(n), of, j))
	}
	return first, int(EvenPart(int64(n), of, index))
}

// Portion is clients [first, first+count) of all's part of total: the
// parts of consecutive ranges add up to total exactly.
func Portion(total int64, first, count, all int) int64 {
	return total*int64(first+count)/int64(all) - total*int64(first)/int64(all)
}

func CheckSlice(index, of int) error {
	if of < 1 || index < 0 || index >= of {
		return fmt.Errorf("worker %d of %d: no such worker", index, of)
	}
	return nil
}

// EvenPart splits total into n parts that differ by at most one.
func EvenPart(total int64, n, i int) int64 {
	part := total / int64(n)
	if int64(i) < total%int64(n) {
		part++
	}
	return part
}
