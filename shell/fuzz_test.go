package shell

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/minicass/minicass"
)

// FuzzShellInput feeds arbitrary text to the shell, line by line and as -e
// does. Property: the shell never panics, always finishes, and reports an
// error for every input it could not run (Failed is set whenever anything
// was written to the error stream).
func FuzzShellInput(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM system.local;",
		"EXPAND ON\nSELECT key FROM system.local;\n",
		"/* c */ CONSISTENCY QUORUM; -- x\nPAGING 3",
		"BEGIN BATCH INSERT INTO a.b (k) VALUES (1); APPLY BATCH;",
		"SOURCE 'nonexistent';",
		"SELECT 'unterminated",
		"$$ dollar",
		"DESC KEYSPACES",
		"HELP\n?\nSHOW VERSION\n",
		";;;\n\n;",
	} {
		f.Add(s)
	}
	db, err := minicass.Open(minicass.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, input string) {
		if l := strings.ToLower(input); strings.Contains(l, "source") || strings.Contains(l, "copy") {
			return // keep the fuzzer off the file system
		}
		for _, execute := range []bool{false, true} {
			var out, errw bytes.Buffer
			sh, err := New(Config{DB: db, Out: &out, Err: &errw})
			if err != nil {
				t.Fatal(err)
			}
			if execute {
				sh.Execute(context.Background(), input)
			} else if err := sh.Run(context.Background(), strings.NewReader(input)); err != nil {
				t.Fatal(err)
			}
			if errw.Len() > 0 && !sh.Failed() {
				t.Fatalf("errors printed but Failed is false: %q", errw.String())
			}
		}
	})
}

func TestInteractiveLines(t *testing.T) {
	db, err := minicass.Open(minicass.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	sh, err := New(Config{DB: db, Out: &out, TTY: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pending := sh.Line(ctx, "", "CONSISTENCY")
	if pending != "" || out.String() != "Current consistency level is ONE.\n" {
		t.Fatalf("pending %q out %q", pending, out.String())
	}
	out.Reset()
	pending = sh.Line(ctx, "", "SELECT key")
	if pending == "" || sh.Prompt(pending != "") != "   ... " {
		t.Fatalf("want a continuation, got pending %q", pending)
	}
	pending = sh.Line(ctx, pending, "FROM system.local;")
	if pending != "" {
		t.Fatalf("statement should be complete, pending %q", pending)
	}
	// On a terminal errors carry no line prefix.
	out.Reset()
	sh.Line(ctx, "", "SELEC;")
	if !strings.HasPrefix(out.String(), "SyntaxException: ") {
		t.Fatalf("got %q", out.String())
	}
}
