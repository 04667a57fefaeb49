package acp

// The exported face of the scanner in scan.go, for the stdio proxy (internal/acpproxy), which
// looks at every frame on the forwarding path and cannot afford encoding/json there. Every
// function expects JSON text that has already passed json.Valid (or a part of such text), as
// the unexported ones do; on anything else they stop early rather than misread.

// TrimSpace trims JSON whitespace only; bytes.TrimSpace would also eat Unicode spaces.
func TrimSpace(b []byte) []byte { return trimSpace(b) }

// IsBlank reports whether b holds nothing but JSON whitespace.
func IsBlank(b []byte) bool { return isBlank(b) }

// IsObject reports whether the value v starts as an object.
func IsObject(v []byte) bool { return isObject(v) }

// IsArray reports whether the value v starts as an array.
func IsArray(v []byte) bool { return isArray(v) }

// IsNull reports whether the value v is null.
func IsNull(v []byte) bool { return isNull(v) }

// Unquote decodes a JSON string value; ok is false when v is not a string.
func Unquote(v []byte) (s string, ok bool) { return unquote(v) }

// Lookup fills out[i] with the value of member keys[i] of the object obj (nil when absent). A
// repeated key keeps its last value, as encoding/json does.
func Lookup(obj []byte, out [][]byte, keys ...string) { lookup(obj, out, keys...) }

// IDKey turns a JSON-RPC id (a string or a number) into a map key that keeps "1" and 1 apart;
// ok is false for any other value.
func IDKey(id []byte) (key string, ok bool) { return idKey(id) }

// DecodeImplementation reads an Implementation object (clientInfo, agentInfo); nil when v is
// not an object.
func DecodeImplementation(v []byte) *Implementation { return implementation(v) }

// ArrayIter walks the elements of a JSON array.
type ArrayIter struct{ it arrIter }

// NewArrayIter starts walking the array arr.
func NewArrayIter(arr []byte) *ArrayIter { return &ArrayIter{newArrIter(arr)} }

// Next returns the next element; ok is false after the last.
func (a *ArrayIter) Next() (el []byte, ok bool) { return a.it.next() }

// Find is Lookup that stops as soon as every key has been seen (the first occurrence counts),
// and returns the last object or array it needs open-ended, running to the end of obj: the
// caller descends into it, and walking it to its end first would be wasted. The proxy's tap uses
// it to find a frame's method and params without reading a megabyte of tool output behind them.
func Find(obj []byte, out [][]byte, keys ...string) {
	left := len(keys)
	i := skipSpace(obj, 0) + 1
	for left > 0 {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		ke := stringEnd(obj, i)
		if ke-i < 2 {
			return
		}
		key := obj[i+1 : ke-1]
		i = skipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		vs := skipSpace(obj, i+1)
		if vs >= len(obj) {
			return
		}
		k := -1
		for j, want := range keys {
			if out[j] == nil && string(key) == want {
				k = j
				break
			}
		}
		if k >= 0 {
			left--
			if left == 0 && (obj[vs] == '{' || obj[vs] == '[') {
				out[k] = obj[vs:]
				return
			}
		}
		ve := valueEnd(obj, vs)
		if ve == vs {
			return
		}
		if k >= 0 {
			out[k] = obj[vs:ve]
		}
		i = ve
	}
}
