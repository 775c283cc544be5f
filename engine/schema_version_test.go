package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// TestSchemaVersionIncremental is a model-based test of the schema version:
// after every change of a random sequence of keyspace and table creations,
// alterations and drops, the sum a change updates incrementally equals the
// sum computed from every definition, and the version is the same as that
// of a second engine that reaches the same schema by creating its
// definitions in another order. rapid prints the seed of a failing run.
func TestSchemaVersionIncremental(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		e, err := Open(Options{Clock: NewManualClock(testStart)})
		require.NoError(rt, err)
		defer e.Close()
		// model: keyspace -> table -> number of extra columns
		model := map[string]map[string]int{}
		for range rapid.IntRange(1, 40).Draw(rt, "changes") {
			ks := fmt.Sprintf("ks%d", rapid.IntRange(0, 2).Draw(rt, "keyspace"))
			name := fmt.Sprintf("t%d", rapid.IntRange(0, 3).Draw(rt, "table"))
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				if model[ks] == nil {
					require.NoError(rt, e.CreateKeyspace(versionKeyspace(ks, 1)))
					model[ks] = map[string]int{}
				}
			case 1:
				if model[ks] != nil {
					require.NoError(rt, e.AlterKeyspace(versionKeyspace(ks, 1+rapid.IntRange(0, 2).Draw(rt, "rf"))))
				}
			case 2:
				if tables := model[ks]; tables != nil {
					if _, ok := tables[name]; !ok {
						require.NoError(rt, e.CreateTable(versionTable(ks, name, 0)))
						tables[name] = 0
					}
				}
			case 3:
				if tables := model[ks]; tables != nil {
					if n, ok := tables[name]; ok {
						require.NoError(rt, e.AlterTable(versionTable(ks, name, n+1)))
						tables[name] = n + 1
					}
				}
			case 4:
				if rapid.Bool().Draw(rt, "drop keyspace") {
					if model[ks] != nil {
						require.NoError(rt, e.DropKeyspace(ks))
						delete(model, ks)
					}
				} else if tables := model[ks]; tables != nil {
					if _, ok := tables[name]; ok {
						require.NoError(rt, e.DropTable(ks, name))
						delete(tables, name)
					}
				}
			}
			st := e.state.Load()
			require.Equal(rt, st.fullSum(), st.sum, "the incremental sum is the full one")
		}

		// The same schema, built in one step per definition in reverse
		// order of names, has the same version.
		e2, err := Open(Options{Clock: NewManualClock(testStart)})
		require.NoError(rt, err)
		defer e2.Close()
		for i := 2; i >= 0; i-- {
			ks := fmt.Sprintf("ks%d", i)
			tables, ok := model[ks]
			if !ok {
				continue
			}
			def, _ := e.Keyspace(ks)
			require.NoError(rt, e2.CreateKeyspace(def))
			for j := 3; j >= 0; j-- {
				name := fmt.Sprintf("t%d", j)
				if n, ok := tables[name]; ok {
					require.NoError(rt, e2.CreateTable(versionTable(ks, name, n)))
				}
			}
		}
		require.Equal(rt, e.SchemaVersion(), e2.SchemaVersion(), "equal schemas have equal versions")
	})
}

func versionKeyspace(name string, rf int) *schema.Keyspace {
	return &schema.Keyspace{Name: name, DurableWrites: true,
		Replication: map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": fmt.Sprint(rf)}}
}

// versionTable is table ks.name with extra regular columns; its id depends
// only on its name, so two engines can hold the same definition.
func versionTable(ks, name string, extra int) *schema.Table {
	id := data.TableID{byte(len(ks)), ks[len(ks)-1], name[len(name)-1]}
	cols := []*schema.Column{
		{Name: "k", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}
	for i := range extra {
		cols = append(cols, &schema.Column{Name: fmt.Sprintf("x%d", i), Type: types.IntType, Kind: schema.Regular, Position: -1})
	}
	return schema.NewTable(ks, name, id, cols, schema.DefaultOptions())
}
