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
// packages of a strictly lower level (or its own subpackages). A family is a
// top-level folder, or a subpackage listed here on its own (the packages
// below the cql facade). Packages not listed (cmd, bench, examples, tests) may
// import anything.
var layer = map[string]int{
	"cql/lexer":   0,
	"partitioner": 0,
	"vfs":         0,
	"wire":        0,
	"types":       10,
	"cql/parser":  10,
	"cql/javaudf": 15, // the interpreter of Java UDF bodies; values in types' Go forms
	"cql/jsudf":   15, // the JavaScript engine of scripted UDF bodies (goja); values in types' Go forms
	"data":        20,
	"schema":      30,
	"commitlog":   30,
	"memtable":    40,
	"sstable":     40,
	"view":        40,
	"engine":      50,
	// The CQL layer, bottom to top: what a plan runs with and returns,
	// then the statement packages, then the facade (package cql).
	"cql/query":          51,
	"cql/virtual":        51,
	"cql/trigger":        51, // the Go triggers an embedder registers (ITrigger)
	"cql/index":          52, // the data of built-in secondary indexes
	"cql/describe":       52,
	"cql/expr":           52,
	"cql/auth":           52,
	"cql/restrictions":   53,
	"cql/plan":           53,
	"cql/statements/ddl": 54,
	"cql/statements/dcl": 54,
	"cql/statements":     55,
	"cql":                60,
	"":                   70, // the root package: Open, DB, Rows
	"nodetool":           75, // nodetool's commands on a DB, local or over its endpoint
	"studio":             75, // the local web view of a DB
	"tour":               76, // the guided tour: lessons run on in-memory DBs, with the studio
	"server":             80,
	"admin":              85, // the HTTP admin endpoint of minicass serve
	"minicasstest":       90,
}

// only narrows the layer rule for some packages: they may import nothing of
// the module but the families listed (the leaves stay leaves, the parser
// knows only the lexer, and the commit log knows nothing of what it
// stores).
var only = map[string][]string{
	"cql/lexer":   {},
	"cql/parser":  {"cql/lexer"},
	"types":       {"cql/lexer"},
	"cql/javaudf": {"types"},
	"cql/jsudf":   {"types"},
	"partitioner": {},
	"vfs":         {},
	"wire":        {},
	"commitlog":   {"vfs"},
}

// family maps an import path inside the module to its layer key: the
// longest key of layer that is the path or a folder above it, else the
// top-level folder (reported unknown).
func family(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return "", false
	}
	for key := rel; ; {
		if _, known := layer[key]; known {
			return key, true
		}
		i := strings.LastIndexByte(key, '/')
		if i < 0 {
			break
		}
		key = key[:i]
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

// TestFamily checks that a listed subpackage is its own family and that
// other subpackages belong to their top-level folder.
func TestFamily(t *testing.T) {
	for path, want := range map[string]string{
		module:                    "",
		module + "/cql":           "cql",
		module + "/cql/parser":    "cql/parser",
		module + "/cql/query":     "cql/query",
		module + "/cql/lexer":     "cql/lexer",
		module + "/server/frame":  "server",
		module + "/types":         "types",
		module + "/cmd/minicass":  "cmd",
		"github.com/other/module": "",
	} {
		got, _ := family(path)
		require.Equal(t, want, got, path)
	}
}
