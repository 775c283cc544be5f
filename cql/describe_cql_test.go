package cql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minicass/minicass/cql/describe"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0.01, "0.01"}, {1, "1.0"}, {0.1, "0.1"}, {0, "0.0"}, {1e-4, "1.0E-4"}, {0.001, "0.001"},
		{1.5e7, "1.5E7"}, {1234567, "1234567.0"}, {-2.5, "-2.5"},
	} {
		assert.Equal(t, tc.want, types.JavaFloat(tc.f, 64), "%v", tc.f)
	}
}

func TestQuoteIdent(t *testing.T) {
	assert.Equal(t, "k", describe.QuoteIdent("k"))
	assert.Equal(t, "v_2", describe.QuoteIdent("v_2"))
	assert.Equal(t, `"Mixed"`, describe.QuoteIdent("Mixed"))
	assert.Equal(t, `"select"`, describe.QuoteIdent("select"))
	assert.Equal(t, `"a""b"`, describe.QuoteIdent(`a"b`))
	assert.Equal(t, `'it''s'`, describe.QuoteString("it's"))
}

// testTable builds a table from "name type [pk N|ck N [desc]|static]" lines.
func testTable(t testing.TB, ks, name string, spec string, opts schema.Options) *schema.Table {
	var cs []*schema.Column
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 2, line)
		typ, err := types.ParseType(f[1])
		require.NoError(t, err)
		c := &schema.Column{Name: f[0], Type: typ, Kind: schema.Regular, Position: -1}
		if len(f) >= 3 {
			switch f[2] {
			case "pk", "ck":
				c.Kind = map[string]schema.ColumnKind{"pk": schema.PartitionKey, "ck": schema.Clustering}[f[2]]
				fmt.Sscan(f[3], &c.Position)
				c.Desc = len(f) > 4 && f[4] == "desc"
			case "static":
				c.Kind = schema.Static
			}
		}
		cs = append(cs, c)
	}
	return schema.NewTable(ks, name, data.TableID(types.UUIDValue{1, 2, 3}), cs, opts)
}

// TestDescribeCQL checks the CREATE statements against golden files:
// "table ks.name" describes a system table, "user-table" a table given
// column by column with optional WITH options as CQL literals, and
// "keyspace" a keyspace.
func TestDescribeCQL(t *testing.T) {
	datadriven.RunTest(t, "testdata/describe/cql", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "system-table":
			var ks, name string
			d.ScanArgs(t, "ks", &ks)
			d.ScanArgs(t, "name", &name)
			for _, tbl := range virtual.Tables(ks) {
				if tbl.Name == name {
					return describe.TableCQL(tbl) + "\n"
				}
			}
			return "not found\n"
		case "user-table":
			var ks, name string
			d.ScanArgs(t, "ks", &ks)
			d.ScanArgs(t, "name", &name)
			opts := schema.DefaultOptions()
			var spec []string
			for _, line := range strings.Split(d.Input, "\n") {
				rest, ok := strings.CutPrefix(line, "with ")
				if !ok {
					spec = append(spec, line)
					continue
				}
				k, v, _ := strings.Cut(rest, "=")
				switch k {
				case "comment":
					opts.Comment = v
				case "default_time_to_live":
					fmt.Sscan(v, &opts.DefaultTTL)
				case "bloom_filter_fp_chance":
					fmt.Sscan(v, &opts.BloomFilterFPChance)
				default:
					if opts.Extra == nil {
						opts.Extra = map[string]string{}
					}
					opts.Extra[k] = v
				}
			}
			return describe.TableCQL(testTable(t, ks, name, strings.Join(spec, "\n"), opts)) + "\n"
		case "keyspace":
			var name string
			d.ScanArgs(t, "name", &name)
			ks := &schema.Keyspace{Name: name, DurableWrites: !d.HasArg("nondurable"), Replication: map[string]string{}}
			if virtual.IsSystemKeyspace(name) {
				ks = virtual.SystemKeyspaceDef(name)
			}
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					ks.Replication[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
			return describe.KeyspaceCQL(ks) + "\n"
		}
		return "unknown command " + d.Cmd
	})
}
