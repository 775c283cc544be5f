package jsudf

import (
	"context"
	"testing"

	"github.com/minicass/minicass/types"
)

// benchCall compiles body, a function of two ints returning an int, and
// measures one call of it per iteration.
func benchCall(b *testing.B, body string) {
	intT := types.Type{Kind: types.Int}
	f, err := Compile([]Param{{Name: "a", Type: intT}, {Name: "b", Type: intT}}, intT, body, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	args := []any{int32(1), int32(2)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall measures one call of a small body (a fresh runtime with
// the Java shim and the guards, the arguments bound, the result
// converted).
func BenchmarkCall(b *testing.B) { benchCall(b, "a + b;") }

// BenchmarkCallGuarded is BenchmarkCall with a body that reaches the
// guarded built-ins, so the call installs the Java globals and the guards.
func BenchmarkCallGuarded(b *testing.B) { benchCall(b, "[a, b].join('').length;") }
