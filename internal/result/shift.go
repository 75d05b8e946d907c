package result

import (
	"reflect"
	"time"
)

var timeType = reflect.TypeFor[time.Time]()

// ShiftTimes moves every timestamp that v points to (time.Time and
// *time.Time fields, in structs, slices, arrays, maps and pointers, all
// the way down) by d; a zero time stays zero. A distributed worker puts
// its result slice on the reference clock with it, whatever field a
// workload's result adds. v is a pointer.
func ShiftTimes(v any, d time.Duration) {
	if d != 0 {
		shift(reflect.ValueOf(v), d)
	}
}

func shift(v reflect.Value, d time.Duration) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			shift(v.Elem(), d)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			if t := v.Interface().(time.Time); !t.IsZero() && v.CanSet() {
				v.Set(reflect.ValueOf(t.Add(d)))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				shift(v.Field(i), d)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			shift(v.Index(i), d)
		}
	case reflect.Map:
		shiftMap(v, d)
	}
}

// shiftMap shifts a map's values: they are not addressable, so each is
// copied, shifted and put back.
func shiftMap(v reflect.Value, d time.Duration) {
	if v.IsNil() {
		return
	}
	iter := v.MapRange()
	for iter.Next() {
		c := reflect.New(iter.Value().Type()).Elem()
		c.Set(iter.Value())
		shift(c, d)
		v.SetMapIndex(iter.Key(), c)
	}
}
