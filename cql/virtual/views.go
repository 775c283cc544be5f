package virtual

import (
	"encoding/binary"
	"math"
	"net"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
)

// The tables of system_views, computed when a SELECT reads them
// (derived.go).
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
var viewRows = map[string]func(st engine.TableStats) Values{
	"disk_usage": func(st engine.TableStats) Values {
		return Values{"mebibytes": mebibytes(st.SpaceUsedTotal)}
	},
	"max_partition_size": func(st engine.TableStats) Values {
		return Values{"mebibytes": mebibytes(st.PartitionSize.Max)}
	},
	"rows_per_read": func(st engine.TableStats) Values { return histogramValues(st.RowsPerRead) },
	"tombstones_per_read": func(st engine.TableStats) Values {
		return histogramValues(st.TombstonesPerRead)
	},
}

// mebibytes is StorageTableMetric.add: bytes in MiB, rounded up.
func mebibytes(bytes int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(int64(math.Ceil(float64(bytes)/(1<<20)))))
}

func histogramValues(h engine.ReadHistogram) Values {
	return Values{"count": binary.BigEndian.AppendUint64(nil, uint64(h.Count)),
		"p50th": doubleV(float64(h.P50)), "p99th": doubleV(float64(h.P99)), "max": doubleV(float64(h.Max))}
}

// viewPartitions returns the partitions of system_views.name: those of a
// table metric view, or of clients; none for a view minicass leaves empty.
func (n *Node) viewPartitions(name string) ([]Partition, error) {
	if name == "clients" {
		return n.clientPartitions(), nil
	}
	row, ok := viewRows[name]
	if !ok {
		return nil, nil
	}
	var parts []Partition
	for _, ks := range n.eng.Keyspaces() {
		if VirtualKeyspaces[ks.Name] {
			continue
		}
		for _, t := range n.eng.Tables(ks.Name) {
			st, err := n.eng.TableStats(ks.Name, t.Name)
			if err != nil {
				continue // dropped meanwhile
			}
			key, err := partitioner.CompositeKey([][]byte{TextV(ks.Name), TextV(t.Name)})
			if err != nil {
				return nil, err
			}
			parts = append(parts, Partition{Key: key, Rows: []Values{row(st)}})
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
func (n *Node) SetClients(clients func() []ConnectedClient) {
	n.mu.Lock()
	n.clients = clients
	n.mu.Unlock()
}

// clientPartitions returns the partitions of system_views.clients
// (ClientsTable.data): a partition per address, a row per port.
func (n *Node) clientPartitions() []Partition {
	n.mu.Lock()
	clients := n.clients
	n.mu.Unlock()
	if clients == nil {
		return nil
	}
	byAddr := map[string]int{}
	var parts []Partition
	for _, c := range clients() {
		key := InetV(c.Address)
		i, ok := byAddr[string(key)]
		if !ok {
			i = len(parts)
			byAddr[string(key)] = i
			parts = append(parts, Partition{Key: key})
		}
		row := Values{"address": key, "port": IntV(int32(c.Port)), "hostname": TextV(c.Hostname),
			"connection_stage": TextV(c.Stage), "protocol_version": IntV(int32(c.ProtocolVersion)),
			"request_count": BigintV(c.Requests), "ssl_enabled": BoolV(false)}
		if c.Username != "" {
			row["username"] = TextV(c.Username)
		}
		if c.Options != nil {
			row["client_options"] = TextMapV(c.Options)
		}
		if v, ok := c.Options["DRIVER_NAME"]; ok {
			row["driver_name"] = TextV(v)
		}
		if v, ok := c.Options["DRIVER_VERSION"]; ok {
			row["driver_version"] = TextV(v)
		}
		parts[i].Rows = append(parts[i].Rows, row)
	}
	return parts
}

// BigintV encodes a bigint.
func BigintV(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
