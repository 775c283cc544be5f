package javaudf

import (
	"context"
	"testing"

	"github.com/minicass/minicass/types"
)

// BenchmarkCallArith measures one call of a short arithmetic body.
func BenchmarkCallArith(b *testing.B) {
	f, err := Compile([]Param{{"a", types.IntType}, {"b", types.IntType}}, types.IntType,
		"return Integer.valueOf((a != null ? a.intValue() : 0) + b.intValue());", Options{CalledOnNullInput: true})
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

// BenchmarkCallLoop measures a body looping 1,000 times.
func BenchmarkCallLoop(b *testing.B) {
	f, err := Compile([]Param{{"n", types.IntType}}, types.BigintType,
		"long s = 0; for (int i = 0; i < n; i++) s += i * i; return s;", Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	args := []any{int32(1000)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile measures compiling a body of a few statements.
func BenchmarkCompile(b *testing.B) {
	body := "StringBuilder sb = new StringBuilder();\n for (int i = 0; i < n; i++)\n sb.append(v);\n return sb.toString();"
	params := []Param{{"v", types.TextType}, {"n", types.IntType}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(params, types.TextType, body, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
