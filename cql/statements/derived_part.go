package statements

import (
	"bytes"
	"sort"

	"github.com/minicass/minicass/cql/virtual"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// derivedPart builds the selPart of derived partition p of tbl: its rows in
// clustering order (reversed if reverse) that lie in slices, at most limit
// of them (0: all), with cells stamped ts.
func derivedPart(tbl *schema.Table, p virtual.Partition, ts int64, slices data.Slices, reverse bool, limit int) (*selPart, error) {
	sp := &selPart{key: p.Key}
	for _, v := range p.Rows {
		row, err := virtual.SystemRow(tbl, v, ts)
		if err != nil {
			return nil, err
		}
		if slices.Contains(row.Clustering) {
			sp.rows = append(sp.rows, row)
		}
	}
	sort.SliceStable(sp.rows, func(i, j int) bool {
		c := bytes.Compare(sp.rows[i].Clustering, sp.rows[j].Clustering)
		if reverse {
			return c > 0
		}
		return c < 0
	})
	if limit > 0 && len(sp.rows) > limit {
		sp.rows = sp.rows[:limit]
	}
	return sp, nil
}
