package javaudf

import (
	"context"
	"testing"

	"github.com/minicass/minicass/types"
)

// benchCall compiles body and measures one call of it with args per
// iteration.
func benchCall(b *testing.B, params []Param, ret types.Type, body string, opts Options, args ...any) {
	f, err := Compile(params, ret, body, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallArith measures one call of a short arithmetic body.
func BenchmarkCallArith(b *testing.B) {
	benchCall(b, []Param{{"a", types.IntType}, {"b", types.IntType}}, types.IntType,
		"return Integer.valueOf((a != null ? a.intValue() : 0) + b.intValue());", Options{CalledOnNullInput: true},
		int32(1), int32(2))
}

// BenchmarkCallLoop measures a body looping 1,000 times.
func BenchmarkCallLoop(b *testing.B) {
	benchCall(b, []Param{{"n", types.IntType}}, types.BigintType,
		"long s = 0; for (int i = 0; i < n; i++) s += i * i; return s;", Options{}, int32(1000))
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
