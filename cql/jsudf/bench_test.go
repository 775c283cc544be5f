package jsudf

import (
	"context"
	"testing"

	"github.com/minicass/minicass/types"
)

// BenchmarkCall measures one call of a small body (a fresh runtime with
// the Java shim and the guards, the arguments bound, the result
// converted).
func BenchmarkCall(b *testing.B) {
	f, err := Compile([]Param{{Name: "a", Type: types.Type{Kind: types.Int}}, {Name: "b", Type: types.Type{Kind: types.Int}}},
		types.Type{Kind: types.Int}, "a + b;", Options{})
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

// BenchmarkCallGuarded is BenchmarkCall with a body that reaches the
// guarded built-ins, so the call installs the Java globals and the guards.
func BenchmarkCallGuarded(b *testing.B) {
	f, err := Compile([]Param{{Name: "a", Type: types.Type{Kind: types.Int}}, {Name: "b", Type: types.Type{Kind: types.Int}}},
		types.Type{Kind: types.Int}, "[a, b].join('').length;", Options{})
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
