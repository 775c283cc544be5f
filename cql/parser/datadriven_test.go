package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestDataDriven runs the golden files under testdata/:
//
//	parse   one statement; prints its canonical form or the syntax error
//	script  a ';'-separated script; prints one canonical statement a line
//
// Every printed statement is re-parsed and must print identically.
func TestDataDriven(t *testing.T) {
	for _, path := range []string{"testdata/seeds", "testdata/errors"} {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				st, err := Parse(d.Input)
				if err != nil {
					require.True(t, errors.Is(err, ErrSyntax), "error %v does not match ErrSyntax", err)
					return "error: " + err.Error() + "\n"
				}
				checkRoundTrip(t, st)
				return st.String() + "\n"
			case "script":
				sts, err := ParseScript(d.Input)
				var b strings.Builder
				for _, st := range sts {
					checkRoundTrip(t, st)
					fmt.Fprintf(&b, "%s\n", st)
				}
				if err != nil {
					fmt.Fprintf(&b, "error: %v\n", err)
				}
				return b.String()
			default:
				t.Fatalf("unknown command %q", d.Cmd)
				return ""
			}
		})
	}
}

// checkRoundTrip requires that st's canonical text parses back to an equal
// AST that prints identically.
func checkRoundTrip(t *testing.T, st Statement) {
	t.Helper()
	text := st.String()
	again, err := Parse(text)
	require.NoError(t, err, "re-parsing %q", text)
	require.Equal(t, text, again.String())
	require.Equal(t, st, again, "AST changed after printing and re-parsing %q", text)
}
