package dbuswire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

var errShort = errors.New("dbuswire: message truncated")

// decoder reads basic values from b; alignment is relative to b's start, which is where the
// message (or its 8-aligned body) begins. The first failure sticks in err.
type decoder struct {
	b     []byte
	pos   int
	order binary.ByteOrder
	err   error
}

func (d *decoder) align(n int) {
	p := (d.pos + n - 1) &^ (n - 1)
	if p > len(d.b) {
		d.fail()
		return
	}
	d.pos = p
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShort
	}
	d.pos = len(d.b)
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || len(d.b)-d.pos < n {
		d.fail()
		return nil
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s
}

func (d *decoder) byte() byte {
	if s := d.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (d *decoder) uint32() uint32 {
	d.align(4)
	if s := d.take(4); s != nil {
		return d.order.Uint32(s)
	}
	return 0
}

func (d *decoder) uint64() uint64 {
	d.align(8)
	if s := d.take(8); s != nil {
		return d.order.Uint64(s)
	}
	return 0
}

func (d *decoder) string() string {
	n := d.uint32()
	if n > maxMessage {
		d.fail()
		return ""
	}
	s := d.take(int(n) + 1)
	if s == nil {
		return ""
	}
	return string(s[:n])
}

func (d *decoder) signature() string {
	n := int(d.byte())
	s := d.take(n + 1)
	if s == nil {
		return ""
	}
	return string(s[:n])
}

// maxNesting bounds the containers skip descends into (the D-Bus specification allows 32
// arrays and 32 structs deep).
const maxNesting = 64

// skip skips one value of the first complete type of sig, containers included (an a{ss} of
// attributes among the properties of a GetAll), and returns the rest of sig.
func (d *decoder) skip(sig string, depth int) string {
	if sig == "" || depth > maxNesting {
		d.err = fmt.Errorf("dbuswire: cannot skip a value of type %q", sig)
		return ""
	}
	switch sig[0] {
	case 'a':
		end := typeEnd(sig, 1)
		if end < 0 {
			d.err = fmt.Errorf("dbuswire: bad signature %q", sig)
			return ""
		}
		n := d.uint32()
		if n > maxMessage {
			d.fail()
			return ""
		}
		d.align(alignOf(sig[1])) // the padding before the first element is not counted in n
		d.take(int(n))
		return sig[end:]
	case '(', '{':
		end := typeEnd(sig, 0)
		if end < 0 {
			d.err = fmt.Errorf("dbuswire: bad signature %q", sig)
			return ""
		}
		d.align(8)
		for inner := sig[1 : end-1]; inner != "" && d.err == nil; {
			inner = d.skip(inner, depth+1)
		}
		return sig[end:]
	case 'v':
		inner := d.signature()
		if d.err == nil {
			if rest := d.skip(inner, depth+1); rest != "" && d.err == nil {
				d.err = fmt.Errorf("dbuswire: variant of %q holds more than one type", inner)
			}
		}
		return sig[1:]
	}
	d.skipBasic(sig[:1])
	return sig[1:]
}

// typeEnd is the index just past the complete type that starts at sig[i], or -1.
func typeEnd(sig string, i int) int {
	depth := 0
	for ; i < len(sig); i++ {
		switch sig[i] {
		case 'a':
			continue // an array's element type follows
		case '(', '{':
			depth++
			continue
		case ')', '}':
			depth--
			if depth < 0 {
				return -1
			}
		}
		if depth == 0 {
			return i + 1
		}
	}
	return -1
}

// alignOf is the alignment of values of the type whose signature starts with c.
func alignOf(c byte) int {
	switch c {
	case 'n', 'q':
		return 2
	case 'b', 'i', 'u', 'h', 's', 'o', 'a':
		return 4
	case 'x', 't', 'd', '(', '{':
		return 8
	}
	return 1
}

// skipBasic skips one value of a single basic type; containers are refused.
func (d *decoder) skipBasic(sig string) {
	if len(sig) != 1 {
		d.err = fmt.Errorf("dbuswire: cannot skip a value of type %q", sig)
		return
	}
	switch sig[0] {
	case 'y':
		d.byte()
	case 'n', 'q':
		d.align(2)
		d.take(2)
	case 'b', 'i', 'u', 'h':
		d.uint32()
	case 'x', 't', 'd':
		d.uint64()
	case 's', 'o':
		d.string()
	case 'g':
		d.signature()
	default:
		d.err = fmt.Errorf("dbuswire: cannot skip a value of type %q", sig)
	}
}

// Err returns the error reply as an Error, or nil for a method return.
func (r *Reply) Err() error {
	if r.ErrorName == "" {
		return nil
	}
	e := &Error{Name: r.ErrorName}
	if len(r.Signature) > 0 && r.Signature[0] == 's' {
		d := r.decoder()
		e.Message = d.string()
	}
	return e
}

// Error is an error reply.
type Error struct {
	Name, Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Name
	}
	return e.Name + ": " + e.Message
}

func (r *Reply) decoder() *decoder {
	return &decoder{b: r.Body, order: r.order}
}

func (r *Reply) want(sig string) (*decoder, error) {
	if r.ErrorName != "" {
		return nil, r.Err()
	}
	if r.Signature != sig {
		return nil, fmt.Errorf("dbuswire: reply signature %q, want %q", r.Signature, sig)
	}
	return r.decoder(), nil
}

// Int32x4 decodes a "(iiii)" reply, such as Component.GetExtents.
func (r *Reply) Int32x4() ([4]int32, error) {
	var out [4]int32
	d, err := r.want("(iiii)")
	if err != nil {
		return out, err
	}
	for i := range out {
		out[i] = int32(d.uint32())
	}
	return out, d.err
}

// String decodes an "s" reply.
func (r *Reply) String() (string, error) {
	d, err := r.want("s")
	if err != nil {
		return "", err
	}
	s := d.string()
	return s, d.err
}

// Uint32s decodes an "au" reply, such as Accessible.GetState.
func (r *Reply) Uint32s() ([]uint32, error) {
	d, err := r.want("au")
	if err != nil {
		return nil, err
	}
	n := d.uint32()
	if n%4 != 0 || int(n) > len(d.b)-d.pos {
		d.fail()
		return nil, d.err
	}
	out := make([]uint32, 0, n/4)
	for range n / 4 {
		out = append(out, d.uint32())
	}
	return out, d.err
}

// Variant decodes a "v" reply (Properties.Get) holding a basic value: int32, uint32,
// float64, string, bool, byte, int16, uint16, int64 or uint64. Other types are an error.
func (r *Reply) Variant() (any, error) {
	d, err := r.want("v")
	if err != nil {
		return nil, err
	}
	sig := d.signature()
	if d.err != nil {
		return nil, d.err
	}
	var v any
	switch sig {
	case "i":
		v = int32(d.uint32())
	case "u":
		v = d.uint32()
	case "b":
		v = d.uint32() != 0
	case "d":
		v = math.Float64frombits(d.uint64())
	case "x":
		v = int64(d.uint64())
	case "t":
		v = d.uint64()
	case "y":
		v = d.byte()
	case "n", "q":
		d.align(2)
		s := d.take(2)
		if s != nil {
			u := d.order.Uint16(s)
			if sig == "n" {
				v = int16(u)
			} else {
				v = u
			}
		}
	case "s", "o", "g":
		if sig == "g" {
			v = d.signature()
		} else {
			v = d.string()
		}
	default:
		return nil, fmt.Errorf("dbuswire: variant of type %q not supported", sig)
	}
	if d.err != nil {
		return nil, d.err
	}
	return v, nil
}

// Decoder reads a reply body value by value, for layouts without a typed method here. The
// first failure sticks: later reads return zero values, and Err reports it.
type Decoder struct{ d *decoder }

// Decoder checks that the reply is a method return with signature sig and returns a
// Decoder over its body.
func (r *Reply) Decoder(sig string) (*Decoder, error) {
	d, err := r.want(sig)
	if err != nil {
		return nil, err
	}
	return &Decoder{d}, nil
}

// Struct aligns to the start of a struct or dict entry.
func (d *Decoder) Struct() { d.d.align(8) }

// Uint32 reads a u.
func (d *Decoder) Uint32() uint32 { return d.d.uint32() }

// Int32 reads an i.
func (d *Decoder) Int32() int32 { return int32(d.d.uint32()) }

// String reads an s or o.
func (d *Decoder) String() string { return d.d.string() }

// Array reads an array's length and aligns to its first element (elemAlign: 8 for structs,
// 4 for strings and 32-bit numbers); read elements while More(end).
func (d *Decoder) Array(elemAlign int) (end int) {
	n := d.d.uint32()
	d.d.align(elemAlign)
	if d.d.err != nil || int(n) > len(d.d.b)-d.d.pos {
		d.d.fail()
		return d.d.pos
	}
	return d.d.pos + int(n)
}

// More reports whether an array that ends at end has more elements.
func (d *Decoder) More(end int) bool { return d.d.err == nil && d.d.pos < end }

// Err is the first failure.
func (d *Decoder) Err() error { return d.d.err }

// End checks that an array's elements ended exactly at end.
func (d *Decoder) End(end int) {
	if d.d.err == nil && d.d.pos != end {
		d.d.err = errors.New("dbuswire: array elements overrun their length")
	}
}

// Signature reads a g, such as a variant's type.
func (d *Decoder) Signature() string { return d.d.signature() }

// Skip skips one value of a basic type or of a struct of basic types ("(so)"); other types
// are a failure.
func (d *Decoder) Skip(sig string) {
	rest := d.d.skip(sig, 0)
	if rest != "" && d.d.err == nil {
		d.d.err = fmt.Errorf("dbuswire: %q is more than one type", sig)
	}
}
