package types

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs the scripts in testdata/ (regenerate with -rewrite
// and review the diff):
//
//	value            input: a type on the first line, then one literal per
//	                 line; prints bytes, cqlsh text, literal, JSON and key
//	clustering       input: columns "type ASC|DESC" separated by ';' on the
//	                 first line, then rows of literals separated by ';';
//	                 prints the rows in key order with their keys
//	bound            like clustering, but each row line is "kind: prefix"
//	                 and it prints the bound bytes
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/datadriven", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			lines := strings.Split(strings.TrimSpace(d.Input), "\n")
			switch d.Cmd {
			case "value":
				ty, err := ParseType(lines[0])
				if err != nil {
					return err.Error()
				}
				var out strings.Builder
				for _, lit := range lines[1:] {
					fmt.Fprintf(&out, "%s\n", lit)
					b, err := ParseLiteral(ty, lit)
					if err != nil {
						fmt.Fprintf(&out, "  error:   %v\n", err)
						continue
					}
					fmt.Fprintf(&out, "  bytes:   %x\n  cqlsh:   %s\n  literal: %s\n  json:    %s\n", b, Format(ty, b), FormatLiteral(ty, b), AppendJSON(nil, ty, b))
					if b != nil && checkKeyType(ty) == nil {
						fmt.Fprintf(&out, "  key:     %x\n", EncodeKey(ty, b))
					}
				}
				return out.String()
			case "clustering", "bound":
				cols, err := parseCols(lines[0])
				if err != nil {
					return err.Error()
				}
				type keyed struct {
					text string
					key  []byte
				}
				var rows []keyed
				var out strings.Builder
				for _, line := range lines[1:] {
					text := strings.TrimSpace(line)
					kind := BoundKind(0)
					if d.Cmd == "bound" {
						k, rest, _ := strings.Cut(line, ":")
						kind = map[string]BoundKind{"start-incl": StartInclusive, "start-excl": StartExclusive, "end-incl": EndInclusive, "end-excl": EndExclusive}[strings.TrimSpace(k)]
						line = rest
					}
					vals, err := parseRow(cols, line)
					if err != nil {
						fmt.Fprintf(&out, "%s: %v\n", strings.TrimSpace(line), err)
						continue
					}
					var key []byte
					if d.Cmd == "bound" {
						key, err = EncodeBound(cols, vals, kind)
					} else {
						key, err = EncodeClustering(cols, vals)
					}
					if err != nil {
						fmt.Fprintf(&out, "%s: %v\n", strings.TrimSpace(line), err)
						continue
					}
					rows = append(rows, keyed{text, key})
				}
				sort.SliceStable(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
				for _, r := range rows {
					fmt.Fprintf(&out, "%-40s %s\n", r.text, hex.EncodeToString(r.key))
				}
				return out.String()
			}
			return "unknown command " + d.Cmd
		})
	})
}

func parseCols(s string) ([]ClusteringColumn, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var cols []ClusteringColumn
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		order := Asc
		if strings.HasSuffix(part, " DESC") {
			order, part = Desc, strings.TrimSuffix(part, " DESC")
		}
		part = strings.TrimSuffix(part, " ASC")
		ty, err := ParseType(part)
		if err != nil {
			return nil, err
		}
		cols = append(cols, ClusteringColumn{ty, order})
	}
	return cols, nil
}

func parseRow(cols []ClusteringColumn, line string) ([][]byte, error) {
	if strings.TrimSpace(line) == "" {
		return nil, nil
	}
	parts := strings.Split(line, ";")
	if len(parts) > len(cols) {
		return nil, fmt.Errorf("%d values for %d columns", len(parts), len(cols))
	}
	vals := make([][]byte, len(parts))
	for i, p := range parts {
		v, err := ParseLiteral(cols[i].Type, strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}
