// Package lint holds tests that keep the architecture honest: imports must
// point down the layers of docs/architecture.md.
package lint

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/minicass/minicass"

// layer gives each package family its level; a package may import only
// packages of a strictly lower level (or its own subpackages). Packages not
// listed (cmd, bench, examples, tests) may import anything.
var layer = map[string]int{
	"types":        0,
	"partitioner":  0,
	"vfs":          0,
	"wire":         0,
	"data":         1,
	"schema":       2,
	"commitlog":    2,
	"memtable":     3,
	"sstable":      3,
	"engine":       4,
	"cql":          5,
	"":             6, // the root package: Open, DB, Rows
	"server":       7,
	"minicasstest": 8,
}

// only narrows the layer rule for some packages: they may import nothing of
// the module but the families listed (the leaves stay leaves, and the commit
// log knows nothing of what it stores).
var only = map[string][]string{
	"types":       {},
	"partitioner": {},
	"vfs":         {},
	"wire":        {},
	"commitlog":   {"vfs"},
}

// family maps an import path inside the module to its layer key.
func family(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return "", false
	}
	top, _, _ := strings.Cut(rel, "/")
	if _, known := layer[top]; known {
		return top, true
	}
	return top, false
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestForbiddenImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		from, ok := family(p.ImportPath)
		if !ok {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			to, ok := family(imp)
			if !ok || to == from {
				continue
			}
			if layer[to] >= layer[from] {
				t.Errorf("%s imports %s: imports must point down the layers (%q is level %d, %q is level %d)",
					p.ImportPath, imp, from, layer[from], to, layer[to])
			}
			if allowed, ok := only[from]; ok && !slices.Contains(allowed, to) {
				t.Errorf("%s imports %s: %q may import only %v of the module", p.ImportPath, imp, from, allowed)
			}
		}
	}
	require.Positive(t, checked, "no package of the module was checked")
}
