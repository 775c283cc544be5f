package commitlog

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLeafImports fails when a non-test file of this leaf package imports
// another minicass package (the layering in docs/architecture.md).
func TestLeafImports(t *testing.T) {
	allowed := map[string]bool{"github.com/minicass/minicass/vfs": true}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.HasPrefix(path, "github.com/minicass/minicass") && !allowed[path] {
				t.Errorf("%s imports %s; this leaf package may not", name, path)
			}
		}
	}
}
