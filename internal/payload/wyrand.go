package payload

import "math/bits"

// wyrand is the template's random stream: wyrand (Wang Yi's), one
// multiplication a number, which passes BigCrush and PractRand. A
// template renders a record's uuid, strings and numbers from some eight
// numbers: ChaCha8 cost a fifth of the rendering, this a twentieth. It is
// not cryptographically strong, which no value of a load test needs: the
// same seed gives the same values, and a run's uuids are distinct while it
// draws fewer than 2^64 numbers.
type wyrand struct{ state uint64 }

func newWyrand(seed uint64) *wyrand { return &wyrand{state: splitmix(seed)} }

// Uint64 is the next number.
func (r *wyrand) Uint64() uint64 {
	r.state += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.state, r.state^0xe7037ed1a0b428db)
	return hi ^ lo
}
