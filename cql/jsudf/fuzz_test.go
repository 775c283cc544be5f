package jsudf

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/minicass/minicass/types"
)

// FuzzCall compiles and runs arbitrary bodies on an int, a list and a user
// type argument: Compile and Call must answer with a value or one of their
// documented errors, never panic or report an internal error.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		"a + 1;", "lst.get(0)", "u.getString('t')", "throw 'x'", "while(true){}", "java.lang.Math.max(a, 2)",
		"Java.type('java.io.File')", "lst.iterator().next()", "udfContext.newReturnUDTValue()",
		"u.setInt('i', a)", "function f(){return f()} f()", "new java.math.BigInteger('1')", "lst[5]",
		"java.lang.Long.valueOf(a).intValue()", "foo bar", "m.get(1)", "m.keySet().iterator().next()",
	} {
		f.Add(s)
	}
	ut := types.Type{Kind: types.Tuple, Params: []types.Type{{Kind: types.Text}, {Kind: types.Int}},
		UDT: &types.UserType{Keyspace: "ks", Name: "u", Fields: []string{"t", "i"}}}
	params := []Param{
		{Name: "a", Type: types.Type{Kind: types.Int}},
		{Name: "lst", Type: types.Type{Kind: types.List, Params: []types.Type{{Kind: types.Bigint}}}},
		{Name: "u", Type: ut},
		{Name: "m", Type: types.Type{Kind: types.Map, Params: []types.Type{{Kind: types.Int}, {Kind: types.Text}}}},
	}
	args := []any{int32(3), []any{int64(1), int64(2)}, map[string]any{"t": "x", "i": int32(1)},
		[]types.MapEntry{{Key: int32(1), Value: "one"}}}
	rets := []types.Type{{Kind: types.Int}, {Kind: types.Text}, ut, {Kind: types.Decimal}, params[1].Type}
	f.Fuzz(func(t *testing.T, body string) {
		for _, ret := range rets {
			fn, err := Compile(params, ret, body, Options{Function: "ks.f", Language: "javascript"})
			if err != nil {
				var ce *CompileError
				if !errors.As(err, &ce) {
					t.Fatalf("Compile(%q): %v", body, err)
				}
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			out, err := fn.Call(ctx, args)
			cancel()
			if errors.Is(err, ErrInternal) {
				t.Fatalf("Call(%q): %v", body, err)
			}
			if err == nil && out != nil {
				if _, err := types.Encode(ret, out); err != nil {
					t.Fatalf("Call(%q) returned %#v, which %s does not encode: %v", body, out, ret, err)
				}
			}
		}
	})
}
