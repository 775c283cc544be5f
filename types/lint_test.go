package types

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeafPackage fails if a non-test file imports another minicass
// package than the CQL lexer: types is the bottom layer every other package
// builds on, and reads literals and type strings with the lexer, itself a
// leaf (internal/lint checks that it imports nothing of the module).
func TestLeafPackage(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/minicass/minicass/cql/lexer" {
				continue
			}
			require.False(t, strings.HasPrefix(path, "github.com/minicass/minicass"), "%s imports %s", name, path)
		}
		checked++
	}
	require.Greater(t, checked, 5)
}
