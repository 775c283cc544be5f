package cql

import (
	"encoding/binary"
	"math"
	"net"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
)

// The tables of system_views, computed when a SELECT reads them
// (system_derived.go).
//
// Cassandra 4.1's table metric virtual tables (db/virtual/TableMetricTables)
// have one row per table of every keyspace but the virtual ones, keyed by
// (keyspace_name, table_name):
//
//   - disk_usage: the SSTables' bytes on disk, live and obsolete not yet
//     deleted, in MiB rounded up (memtables do not count);
//   - max_partition_size: the largest partition of the SSTables, as the
//     upper bound of its partition-size histogram bucket, in MiB rounded up;
//   - rows_per_read and tombstones_per_read: how many live rows and
//     tombstones each read met: count of reads, and the median, 99th
//     percentile and maximum over the last minutes (engine.ReadHistogram).
//
// clients (db/virtual/ClientsTable) lists the connections of the server the
// executor serves (SetClients): a partition per client address, a row per
// port. settings is empty.

// viewRows computes, per table metric view, the row of one table.
var viewRows = map[string]func(st engine.TableStats) virtual.SysValues{
	"disk_usage": func(st engine.TableStats) virtual.SysValues {
		return virtual.SysValues{"mebibytes": mebibytes(st.SpaceUsedTotal)}
	},
	"max_partition_size": func(st engine.TableStats) virtual.SysValues {
		return virtual.SysValues{"mebibytes": mebibytes(st.PartitionSize.Max)}
	},
	"rows_per_read": func(st engine.TableStats) virtual.SysValues { return histogramValues(st.RowsPerRead) },
	"tombstones_per_read": func(st engine.TableStats) virtual.SysValues {
		return histogramValues(st.TombstonesPerRead)
	},
}

// mebibytes is StorageTableMetric.add: bytes in MiB, rounded up.
func mebibytes(bytes int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(int64(math.Ceil(float64(bytes)/(1<<20)))))
}

func histogramValues(h engine.ReadHistogram) virtual.SysValues {
	return virtual.SysValues{"count": binary.BigEndian.AppendUint64(nil, uint64(h.Count)),
		"p50th": virtual.DoubleV(float64(h.P50)), "p99th": virtual.DoubleV(float64(h.P99)), "max": virtual.DoubleV(float64(h.Max))}
}

// viewPartitions returns the partitions of system_views.name: those of a
// table metric view, or of clients; none for a view minicass leaves empty.
func (x *Executor) viewPartitions(name string) ([]virtual.SysPartition, error) {
	if name == "clients" {
		return x.clientPartitions(), nil
	}
	row, ok := viewRows[name]
	if !ok {
		return nil, nil
	}
	var parts []virtual.SysPartition
	for _, ks := range x.eng.Keyspaces() {
		if virtual.VirtualKeyspaces[ks.Name] {
			continue
		}
		for _, t := range x.eng.Tables(ks.Name) {
			st, err := x.eng.TableStats(ks.Name, t.Name)
			if err != nil {
				continue // dropped meanwhile
			}
			key, err := partitioner.CompositeKey([][]byte{virtual.TextV(ks.Name), virtual.TextV(t.Name)})
			if err != nil {
				return nil, err
			}
			parts = append(parts, virtual.SysPartition{Key: key, Rows: []virtual.SysValues{row(st)}})
		}
	}
	return parts, nil
}

// ConnectedClient is a connection of a server on the executor, for
// system_views.clients (Cassandra's ConnectedClient).
type ConnectedClient struct {
	Address net.IP
	Port    int
	// Hostname is the address as text (Cassandra does not resolve it).
	Hostname string
	// Username is the logged-in user ("anonymous" without
	// authentication), empty while authenticating.
	Username string
	// Stage is "established", "authenticating" or "ready".
	Stage           string
	ProtocolVersion int
	// Options are the STARTUP options; DRIVER_NAME and DRIVER_VERSION
	// also fill their own columns.
	Options  map[string]string
	Requests int64
}

// SetClients gives the executor the function that lists the connected
// clients of a server, which system_views.clients shows; it is called each
// time the table is read. Without it the table is empty.
func (x *Executor) SetClients(clients func() []ConnectedClient) {
	x.sys.mu.Lock()
	x.sys.clients = clients
	x.sys.mu.Unlock()
}

// clientPartitions returns the partitions of system_views.clients
// (ClientsTable.data): a partition per address, a row per port.
func (x *Executor) clientPartitions() []virtual.SysPartition {
	x.sys.mu.Lock()
	clients := x.sys.clients
	x.sys.mu.Unlock()
	if clients == nil {
		return nil
	}
	byAddr := map[string]int{}
	var parts []virtual.SysPartition
	for _, c := range clients() {
		key := virtual.InetV(c.Address)
		i, ok := byAddr[string(key)]
		if !ok {
			i = len(parts)
			byAddr[string(key)] = i
			parts = append(parts, virtual.SysPartition{Key: key})
		}
		row := virtual.SysValues{"address": key, "port": virtual.IntV(int32(c.Port)), "hostname": virtual.TextV(c.Hostname),
			"connection_stage": virtual.TextV(c.Stage), "protocol_version": virtual.IntV(int32(c.ProtocolVersion)),
			"request_count": bigintV(c.Requests), "ssl_enabled": virtual.BoolV(false)}
		if c.Username != "" {
			row["username"] = virtual.TextV(c.Username)
		}
		if c.Options != nil {
			row["client_options"] = virtual.TextMapV(c.Options)
		}
		if v, ok := c.Options["DRIVER_NAME"]; ok {
			row["driver_name"] = virtual.TextV(v)
		}
		if v, ok := c.Options["DRIVER_VERSION"]; ok {
			row["driver_version"] = virtual.TextV(v)
		}
		parts[i].Rows = append(parts[i].Rows, row)
	}
	return parts
}

func bigintV(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
