package cql

import (
	"context"
	"encoding/binary"
	"math"
	"sort"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
)

// Cassandra 4.1's table metric virtual tables (db/virtual/TableMetricTables),
// computed when a SELECT reads them: one row per table of every keyspace
// but the virtual ones, keyed by (keyspace_name, table_name).
//
//   - disk_usage: the SSTables' bytes on disk, live and obsolete not yet
//     deleted, in MiB rounded up (memtables do not count);
//   - max_partition_size: the largest partition of the SSTables, as the
//     upper bound of its partition-size histogram bucket, in MiB rounded up;
//   - rows_per_read and tombstones_per_read: how many live rows and
//     tombstones each read met: count of reads, and the median, 99th
//     percentile and maximum over the last minutes (engine.ReadHistogram).
//
// Each refresh rewrites the view's partitions and deletes those of tables
// that no longer exist.

// viewRows computes, per table metric view, the row of one table.
var viewRows = map[string]func(st engine.TableStats) sysValues{
	"disk_usage":         func(st engine.TableStats) sysValues { return sysValues{"mebibytes": mebibytes(st.SpaceUsedTotal)} },
	"max_partition_size": func(st engine.TableStats) sysValues { return sysValues{"mebibytes": mebibytes(st.PartitionSize.Max)} },
	"rows_per_read":      func(st engine.TableStats) sysValues { return histogramValues(st.RowsPerRead) },
	"tombstones_per_read": func(st engine.TableStats) sysValues {
		return histogramValues(st.TombstonesPerRead)
	},
}

// mebibytes is StorageTableMetric.add: bytes in MiB, rounded up.
func mebibytes(bytes int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(int64(math.Ceil(float64(bytes)/(1<<20)))))
}

func histogramValues(h engine.ReadHistogram) sysValues {
	return sysValues{"count": binary.BigEndian.AppendUint64(nil, uint64(h.Count)),
		"p50th": doubleV(float64(h.P50)), "p99th": doubleV(float64(h.P99)), "max": doubleV(float64(h.Max))}
}

// refreshView rewrites system_views.name if it is a table metric view.
func (x *Executor) refreshView(ctx context.Context, name string) error {
	row, ok := viewRows[name]
	if !ok {
		return nil
	}
	tbl, ok := x.eng.Table("system_views", name)
	if !ok {
		return nil
	}
	var parts []sysPartition
	keys := map[string]bool{}
	kss := x.eng.Keyspaces()
	sort.Slice(kss, func(i, j int) bool { return kss[i].Name < kss[j].Name })
	for _, ks := range kss {
		if virtualKeyspaces[ks.Name] {
			continue
		}
		for _, t := range x.eng.Tables(ks.Name) {
			st, err := x.eng.TableStats(ks.Name, t.Name)
			if err != nil {
				continue // dropped meanwhile
			}
			key, err := partitioner.CompositeKey([][]byte{textV(ks.Name), textV(t.Name)})
			if err != nil {
				return err
			}
			keys[string(key)] = true
			parts = append(parts, sysPartition{table: tbl, key: key, rows: []sysValues{row(st)}})
		}
	}
	x.sys.mu.Lock()
	defer x.sys.mu.Unlock()
	for old := range x.sys.views[name] {
		if !keys[old] {
			parts = append(parts, sysPartition{table: tbl, key: []byte(old)})
		}
	}
	if x.sys.views == nil {
		x.sys.views = map[string]map[string]bool{}
	}
	x.sys.views[name] = keys
	return x.writeSystemPartitions(ctx, parts)
}
