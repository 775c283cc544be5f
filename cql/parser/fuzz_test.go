package parser

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that every error matches
// ErrSyntax, and that a successful parse prints text that parses again to
// the same printed text. The seed corpus is in testdata/fuzz/FuzzParse plus
// the round-trip table.
func FuzzParse(f *testing.F) {
	for _, tc := range parseTests {
		f.Add(tc.input)
	}
	f.Fuzz(func(t *testing.T, in string) {
		st, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not match ErrSyntax", err)
			}
			return
		}
		text := st.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("re-parse of %q (from %q) failed: %v", text, in, err)
		}
		if got := again.String(); got != text {
			t.Fatalf("printed text changed:\n in:    %q\n first: %q\n again: %q", in, text, got)
		}
		if again.BindCount() != st.BindCount() {
			t.Fatalf("bind count changed for %q: %d vs %d", in, st.BindCount(), again.BindCount())
		}
	})
}

// FuzzSplitStatements checks that SplitStatements never panics and that each
// complete statement ends in ';'.
func FuzzSplitStatements(f *testing.F) {
	f.Add("BEGIN BATCH INSERT INTO t (k) VALUES (1); APPLY BATCH; SELECT 'a;b' FROM t;")
	f.Add("SELECT $$x;$$ /* ; */ -- ;\n;")
	f.Fuzz(func(t *testing.T, in string) {
		complete, _ := SplitStatements(in)
		for _, s := range complete {
			if len(s) == 0 || s[len(s)-1] != ';' {
				t.Fatalf("statement %q does not end in ';'", s)
			}
		}
	})
}
