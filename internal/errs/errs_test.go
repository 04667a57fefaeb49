package errs

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

type custom struct{}

func (custom) Error() string   { return "custom" }
func (custom) ErrorKind() Kind { return Forbidden }
func TestKindOf(t *testing.T) {
	sentinel := New(NotFound, "plan not found")
	cases := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, Internal},
		{"plain", io.EOF, Internal},
		{"errorf", Errorf(Invalid, "line %d: bad", 3), Invalid},
		{"wrapped by fmt", fmt.Errorf("loading: %w", Errorf(Conflict, "stale")), Conflict},
		{"sentinel", sentinel, NotFound},
		{"other type with a kind", fmt.Errorf("x: %w", custom{}), Forbidden},
		{"wrap", Wrap(TooLarge, io.ErrShortBuffer, "too big"), TooLarge},
	}
	for _, c := range cases {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("%s: KindOf = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestErrorfKeepsCause(t *testing.T) {
	err := Errorf(Invalid, "reading body: %w", io.ErrUnexpectedEOF)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%v does not wrap its cause", err)
	}
	if err.Error() != "reading body: unexpected EOF" {
		t.Fatalf("message %q", err.Error())
	}
	if Wrap(Invalid, nil, "x") != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
}

func TestKindString(t *testing.T) {
	if NotFound.String() != "not_found" || Kind(99).String() != "kind(99)" {
		t.Fatalf("names: %s %s", NotFound, Kind(99))
	}
}
