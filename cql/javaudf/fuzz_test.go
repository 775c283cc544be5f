package javaudf

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/minicass/minicass/types"
)

// FuzzCompile checks that no body makes Compile panic, and that a body
// that compiles runs (to a result or an error) without panic on null and
// zero arguments.
func FuzzCompile(f *testing.F) {
	seeds := []string{
		"return a + b;",
		"int s = 0; for (int i = 0; i < a; i++) s += i; return s;",
		"foobarbaz",
		"return (int) (a / (double) b);",
		`String s = "x"; return s.length();`,
		"List<Integer> l = new ArrayList<>(); l.add(a); return l.get(0);",
		"synchronized (this) { notify(); } return 0;",
		"\nreturn 0;\n}\nObject field;\n{",
		"try { throw new RuntimeException(); } catch (Exception e) { return 1; } finally { }",
		"switch (a) { case 1: return 1; default: return 2; }",
		"return a > b ? a : b;",
		"while (true) { }",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	params := []Param{{"a", types.IntType}, {"b", types.IntType}}
	f.Fuzz(func(t *testing.T, body string) {
		for _, called := range []bool{false, true} {
			fn, err := Compile(params, types.IntType, body, Options{CalledOnNullInput: called})
			if err != nil {
				continue
			}
			for _, args := range [][]any{{nil, nil}, {int32(0), int32(0)}} {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				_, err := fn.Call(ctx, args)
				cancel()
				if errors.Is(err, ErrInternal) {
					t.Fatalf("body %q: %v", body, err)
				}
			}
		}
	})
}
