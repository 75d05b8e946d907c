package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/kbench/kbench/internal/infile"
)

// Bounds of reading a result document beside MaxFile. A document is
// decoded as a stream: arrays and objects element by element, and only the
// values that hold no array or map (a string, an interval, a latency) are
// decoded whole. encoding/json's Decoder.Decode reads a whole value before
// decoding it, so the document used to be held twice (its text in the
// decoder's buffer, grown by doubling, and what it decoded into), and a
// FIFO of endless valid JSON grew to 2 GB before the file's bound was
// reached.
const (
	// MaxValue bounds one value decoded whole: the largest a kbench
	// result holds is plan_yaml, a plan of at most 16 MiB, escaped.
	MaxValue = 64 << 20 // bytes
	// MaxKept bounds what a document keeps once decoded, counted as the
	// bytes of its arrays' elements, its map entries, its strings and what
	// its pointers point to: an empty interval ("{}") is 3 bytes of JSON
	// but some 300 in memory, so the file's bound alone would let an
	// endless array of them take 100 times the file. A document kbench
	// writes (indented) keeps about half its size.
	MaxKept = MaxFile // bytes
)

// limits are the bounds of one read (tests shrink them).
type limits struct{ file, value, kept int64 }

var readLimits = limits{file: MaxFile, value: MaxValue, kept: MaxKept}

// readChunk is the most the decoder's buffer is given at once, so that
// what it holds beyond the value it decodes stays small.
const readChunk = 256 << 10

// errValueTooLarge is a value over limits.value.
var errValueTooLarge = errors.New("value too large")

// decode reads one result document from r (named name in errors), as a
// stream, within lim: the text is never held whole, and what is kept is
// bounded as it grows. The error names the field (a JSON path) and the
// byte where the document went wrong.
func decode(r io.Reader, name string, lim limits) (*Document, error) {
	src := &source{r: r, limit: lim.value}
	d := &decoder{dec: json.NewDecoder(src), src: src, name: name, lim: lim}
	src.dec = d.dec
	var doc Document
	tok, err := d.token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("read result %s: not a kbench result document: it does not begin with a JSON object", name)
	}
	if err := d.object(reflect.ValueOf(&doc).Elem()); err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err := d.limitError(err); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("read result %s: not a kbench result document: more follows the document's end (byte %d)", name, d.dec.InputOffset())
	}
	return &doc, nil
}

// source is the decoder's input: it hands over at most readChunk bytes at
// a time and fails once the decoder holds more than limit bytes it has not
// decoded (a value longer than limit).
type source struct {
	r     io.Reader
	dec   *json.Decoder
	limit int64
	n     int64 // bytes read
}

func (s *source) Read(p []byte) (int, error) {
	if s.n-s.dec.InputOffset() > s.limit {
		return 0, errValueTooLarge
	}
	if len(p) > readChunk {
		p = p[:readChunk]
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	return n, err
}

// decoder decodes a document element by element; path is the JSON path of
// the value being decoded, kept what was kept so far.
type decoder struct {
	dec  *json.Decoder
	src  *source
	name string
	lim  limits
	path []byte
	kept int64
	// sep is the length of the separator (',' or ':') before the next
	// value, so that a value's first byte is known for its errors.
	sep int64
}

// keep counts n more bytes kept, and fails past the bound.
func (d *decoder) keep(n int64) error {
	if d.kept += n; d.kept > d.lim.kept {
		return tooLarge(fmt.Sprintf("read result %s: %s at byte %d: more than %s once decoded, the most kbench keeps of a result document: is it the right file?",
			d.name, d.at(), d.dec.InputOffset(), infile.Size(d.lim.kept)))
	}
	return nil
}

// tooLarge is a document past one of its bounds: infile.ErrTooLarge, as
// a file past its size is.
type tooLarge string

func (e tooLarge) Error() string { return string(e) }
func (e tooLarge) Unwrap() error { return infile.ErrTooLarge }

// at is the current path, for messages ("the document" at the top).
func (d *decoder) at() string {
	if len(d.path) == 0 {
		return "the document"
	}
	return string(d.path)
}

// push appends a path segment (".name" or "[i]") and returns the length
// to pop back to.
func (d *decoder) push(seg string) int {
	n := len(d.path)
	if n == 0 && strings.HasPrefix(seg, ".") {
		seg = seg[1:]
	}
	d.path = append(d.path, seg...)
	return n
}

func (d *decoder) pushIndex(i int) int {
	n := len(d.path)
	d.path = append(d.path, '[')
	d.path = strconv.AppendInt(d.path, int64(i), 10)
	d.path = append(d.path, ']')
	return n
}

// value decodes the next value into v.
func (d *decoder) value(v reflect.Value) error {
	if !streamed(v.Type()) {
		return d.leaf(v)
	}
	tok, err := d.token()
	if err != nil {
		return err
	}
	if tok == nil { // null, as encoding/json reads it
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			v.SetZero()
		}
		return nil
	}
	return d.composite(v, tok)
}

// composite decodes an object or array begun by tok into v.
func (d *decoder) composite(v reflect.Value, tok json.Token) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			if err := d.keep(int64(v.Type().Elem().Size())); err != nil {
				return err
			}
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.composite(v.Elem(), tok)
	case reflect.Struct, reflect.Map:
		if tok != json.Delim('{') {
			return d.wrong(tok, "an object")
		}
		if v.Kind() == reflect.Map {
			return d.mapping(v)
		}
		return d.object(v)
	case reflect.Slice:
		if tok != json.Delim('[') {
			return d.wrong(tok, "an array")
		}
		return d.array(v)
	}
	return d.wrong(tok, v.Kind().String())
}

// object decodes an object's members into the struct v; its '{' has been
// read. Members are matched to fields as encoding/json does (the exact
// name, else regardless of case); others are skipped.
func (d *decoder) object(v reflect.Value) error {
	fields := fieldsOf(v.Type())
	for d.dec.More() {
		tok, err := d.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		f, ok := fields.find(key)
		back := d.push("." + key)
		d.sep = 1
		if ok {
			err = d.value(v.Field(f))
		} else {
			err = d.skip()
		}
		if err != nil {
			return err
		}
		d.path = d.path[:back]
	}
	_, err := d.token()
	return err
}

// chunkLen is the length past which an array's elements are decoded into
// chunks, joined once at the end: a slice grown by appending copies itself
// a dozen times on the way to a million intervals, and the garbage of the
// copies doubled the memory the document held.
const chunkLen = 4096

// array decodes an array's elements into the slice v; its '[' has been
// read.
func (d *decoder) array(v reflect.Value) error {
	t := v.Type()
	size := int64(t.Elem().Size())
	cur := reflect.MakeSlice(t, 0, 0) // [] is empty, not null
	var full []reflect.Value
	n := 0
	for ; d.dec.More(); n++ {
		back := d.pushIndex(n)
		if err := d.keep(size); err != nil {
			return err
		}
		switch {
		case cur.Len() < cur.Cap():
		case cur.Cap() < chunkLen:
			cur = reflect.Append(cur, reflect.Zero(t.Elem())).Slice(0, cur.Len())
		default:
			full, cur = append(full, cur), reflect.MakeSlice(t, 0, chunkLen)
		}
		cur = cur.Slice(0, cur.Len()+1)
		slot := cur.Index(cur.Len() - 1)
		if n < v.Len() {
			// A member given twice: encoding/json decodes into the
			// elements it holds.
			slot.Set(v.Index(n))
		}
		d.sep = min(int64(n), 1)
		if err := d.value(slot); err != nil {
			return err
		}
		d.path = d.path[:back]
	}
	if _, err := d.token(); err != nil {
		return err
	}
	if len(full) == 0 {
		v.Set(cur)
		return nil
	}
	out := reflect.MakeSlice(t, n, n)
	at := 0
	for i, c := range append(full, cur) {
		at += reflect.Copy(out.Slice(at, n), c)
		if i < len(full) {
			full[i] = reflect.Value{} // garbage from here
		}
	}
	v.Set(out)
	return nil
}

// mapEntry is about what a map entry costs beside its key and value.
const mapEntry = 48

// mapping decodes an object's members into the map v (string keys); its
// '{' has been read.
func (d *decoder) mapping(v reflect.Value) error {
	t := v.Type()
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	for d.dec.More() {
		tok, err := d.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		back := d.push("[" + strconv.Quote(key) + "]")
		if err := d.keep(int64(len(key)) + int64(t.Key().Size()+t.Elem().Size()) + mapEntry); err != nil {
			return err
		}
		d.sep = 1
		e := reflect.New(t.Elem()).Elem()
		if err := d.value(e); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), e)
		d.path = d.path[:back]
	}
	_, err := d.token()
	return err
}

// leaf decodes a value holding no array or map whole, and counts what it
// keeps beside its own place: its strings and what its pointers point to.
func (d *decoder) leaf(v reflect.Value) error {
	d.dec.More() // past white space, so that the offset is the separator's
	start := d.dec.InputOffset() + d.sep
	if err := d.dec.Decode(v.Addr().Interface()); err != nil {
		return d.leafError(err, start)
	}
	return d.keep(held(v))
}

// held is what a decoded leaf keeps beside its own place.
func held(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return int64(v.Type().Elem().Size()) + held(v.Elem())
	case reflect.Struct:
		var n int64
		for _, i := range holding(v.Type()) {
			n += held(v.Field(i))
		}
		return n
	}
	return 0
}

var holdingCache sync.Map // reflect.Type → []int

// holding lists the fields of a struct type that can keep something
// beside their place (strings, pointers, structs holding them); a type
// decoding itself (time.Time) keeps nothing kbench counts.
func holding(t reflect.Type) []int {
	if f, ok := holdingCache.Load(t); ok {
		return f.([]int)
	}
	var out []int
	if !t.Implements(unmarshaler) && !reflect.PointerTo(t).Implements(unmarshaler) {
		for i := range t.NumField() {
			ft := t.Field(i).Type
			switch {
			case !t.Field(i).IsExported():
			case ft.Kind() == reflect.String, ft.Kind() == reflect.Pointer,
				ft.Kind() == reflect.Struct && len(holding(ft)) > 0:
				out = append(out, i)
			}
		}
	}
	holdingCache.Store(t, out)
	return out
}

// skip reads past a value kbench does not know (a newer kbench's field).
func (d *decoder) skip() error {
	depth := 0
	for {
		tok, err := d.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// token reads the next token; its error names the path and the byte.
func (d *decoder) token() (json.Token, error) {
	tok, err := d.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, d.leafError(err, d.dec.InputOffset())
	}
	return tok, nil
}

// wrong is the error of a value of the wrong type.
func (d *decoder) wrong(tok json.Token, want string) error {
	found := "a value"
	switch tok := tok.(type) {
	case json.Delim:
		found = map[json.Delim]string{'{': "an object", '[': "an array"}[tok]
	case string:
		found = "a string"
	case float64, json.Number:
		found = "a number"
	case bool:
		found = "true or false"
	}
	return fmt.Errorf("read result %s: not a kbench result document: %s at byte %d is %s, where %s belongs", d.name, d.at(), d.dec.InputOffset(), found, want)
}

// limitError is err when it is one of the bounds' (nil otherwise), as the
// error of the read.
func (d *decoder) limitError(err error) error {
	switch {
	case errors.Is(err, infile.ErrTooLarge):
		return fmt.Errorf("read result: %w", err)
	case errors.Is(err, errValueTooLarge):
		return tooLarge(fmt.Sprintf("read result %s: %s at byte %d: a single value longer than %s, the most kbench decodes at once: is it the right file?",
			d.name, d.at(), d.valueStart(), infile.Size(d.lim.value)))
	}
	return nil
}

// valueStart is the offset of the value the decoder failed in: it stays
// where the value's text (white space first) began.
func (d *decoder) valueStart() int64 {
	held, _ := io.ReadAll(d.dec.Buffered())
	return d.dec.InputOffset() + int64(len(held)-len(bytes.TrimLeft(held, " \t\r\n")))
}

// leafError says where a value that began at byte start went wrong: the
// field (inside the value too) and the byte.
func (d *decoder) leafError(err error, start int64) error {
	if lerr := d.limitError(err); lerr != nil {
		return lerr
	}
	at, off := string(d.path), start
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// The decoder's offsets count from where it last began scanning;
		// scan again what it holds from the value's start to find the
		// byte, and the member it was in.
		off = d.dec.InputOffset()
		held, _ := io.ReadAll(d.dec.Buffered())
		var syn2 *json.SyntaxError
		if errors.As(json.Unmarshal(held, new(json.RawMessage)), &syn2) && syn2.Offset > 0 && syn2.Offset <= int64(len(held)) {
			off += syn2.Offset - 1
			at += innerPath(held[:syn2.Offset-1])
		}
		err = errors.New(syn.Error())
	case errors.As(err, &typ):
		if typ.Field != "" {
			at += "." + typ.Field
		}
		off = start + typ.Offset
		err = fmt.Errorf("%s where %s belongs", typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = d.src.n
		err = errors.New("the document ends before it is complete")
	default:
		return fmt.Errorf("read result %s: %w", d.name, err)
	}
	if at = strings.TrimPrefix(at, "."); at == "" {
		at = "the document"
	}
	return fmt.Errorf("read result %s: not a kbench result document: %s at byte %d: %w", d.name, at, off, err)
}

// innerPath is the path, inside a value, to where text (the value's
// beginning) ends: ".p99", "[3].records".
func innerPath(text []byte) string {
	type frame struct {
		object  bool
		key     string
		index   int
		wantKey bool
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(text))
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].wantKey = true
			}
		}
	}
	valueStart := func() {
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			valueStart()
			stack = append(stack, frame{object: tok == json.Delim('{'), wantKey: true, index: -1})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = tok.(string), false
			continue
		}
		valueStart()
		valueDone()
	}
	var b strings.Builder
	for _, f := range stack {
		switch {
		case f.object && f.key != "":
			b.WriteString("." + f.key)
		case !f.object && f.index >= 0:
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	return b.String()
}

// fields are a struct's JSON members: their names and field indexes.
type fields struct {
	byName map[string]int
	names  []string
	index  []int
}

func (f *fields) find(key string) (int, bool) {
	if i, ok := f.byName[key]; ok {
		return i, true
	}
	for k, name := range f.names {
		if strings.EqualFold(name, key) {
			return f.index[k], true
		}
	}
	return 0, false
}

var fieldCache sync.Map // reflect.Type → *fields

// fieldsOf lists t's members as encoding/json names them (its tag's name,
// else the field's; "-" and unexported fields are not members).
func fieldsOf(t reflect.Type) *fields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*fields)
	}
	f := &fields{byName: map[string]int{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.byName[name] = i
		f.names = append(f.names, name)
		f.index = append(f.index, i)
	}
	fieldCache.Store(t, f)
	return f
}

var (
	streamedCache sync.Map // reflect.Type → bool
	unmarshaler   = reflect.TypeFor[json.Unmarshaler]()
)

// streamed says whether values of t are decoded element by element: a
// slice or a map (but bytes), a struct holding one, or a pointer to
// either. The others (numbers, strings, times, structs of those) are
// decoded whole.
func streamed(t reflect.Type) bool {
	if s, ok := streamedCache.Load(t); ok {
		return s.(bool)
	}
	s := streams(t, map[reflect.Type]bool{})
	streamedCache.Store(t, s)
	return s
}

func streams(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a cycle adds nothing the other fields do not
	}
	seen[t] = true
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer:
		return streams(t.Elem(), seen)
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8
	case reflect.Map:
		return t.Key().Kind() == reflect.String
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).Anonymous {
				return false // its members promoted: decoded whole, as encoding/json does
			}
		}
		for i := range t.NumField() {
			if sf := t.Field(i); sf.IsExported() && streams(sf.Type, seen) {
				return true
			}
		}
	}
	return false
}
