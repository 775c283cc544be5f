package virtual

import (
	"context"
	"fmt"
	"net"
	"sort"
	"sync"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// Node is the node as the system tables show it: its identity (host id,
// address, tokens), the cluster it names, the engine whose schema and
// statistics the derived tables are computed from, and the connections a
// server reports for system_views.clients. The executor holds one.
type Node struct {
	eng                           *engine.Engine
	clusterName, dataCenter, rack string
	mu                            sync.Mutex
	hostID                        types.UUIDValue
	rpcAddress                    net.IP
	rpcPort                       int
	generation                    int32
	// clients lists a server's connections for system_views.clients.
	clients func() []ConnectedClient
	// users holds the virtual keyspaces an embedder registered (user.go).
	users userKeyspaces
}

// NewNode returns the node over eng, named as given, with a random host id
// and the address 127.0.0.1:9042.
func NewNode(eng *engine.Engine, clusterName, dataCenter, rack string) *Node {
	return &Node{
		eng: eng, clusterName: clusterName, dataCenter: dataCenter, rack: rack,
		hostID:     types.NewRandomUUID(),
		rpcAddress: net.IPv4(127, 0, 0, 1),
		rpcPort:    9042,
		generation: int32(eng.Clock().Now().Unix()),
	}
}

// Partitioner returns the node's partitioner, its engine's.
func (n *Node) Partitioner() partitioner.Partitioner { return n.eng.Partitioner() }

// DataCenter returns the node's data center (system.local.data_center).
func (n *Node) DataCenter() string { return n.dataCenter }

// ClusterName returns the cluster's name (system.local.cluster_name).
func (n *Node) ClusterName() string { return n.clusterName }

// HostID returns the node's host id (system.local.host_id).
func (n *Node) HostID() types.UUIDValue {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hostID
}

// SetHostID replaces the random host id, and with it the node's tokens:
// tests use it to make tokens and DESCRIBE CLUSTER deterministic.
func (n *Node) SetHostID(id types.UUIDValue) {
	n.mu.Lock()
	n.hostID = id
	n.mu.Unlock()
}

// Bootstrap creates the system keyspaces and tables that do not exist yet.
// It writes no rows: system.local, system_schema.*, system_virtual_schema.*
// and system_views.* are computed when read (derived.go). NewExecutor
// calls it; calling it again is harmless.
func (n *Node) Bootstrap(ctx context.Context) error {
	bootstrapOnce.Do(func() {
		for _, ks := range SystemKeyspaceOrder {
			bootstrapKeyspaces = append(bootstrapKeyspaces, SystemKeyspaceDef(ks))
			bootstrapTables = append(bootstrapTables, Tables(ks)...)
		}
	})
	if err := n.eng.CreateMissing(bootstrapKeyspaces, bootstrapTables); err != nil {
		return fmt.Errorf("cql: creating the system keyspaces: %w", err)
	}
	return nil
}

// The definitions Bootstrap installs, shared by every node of the process
// (definitions are immutable once published).
var (
	bootstrapOnce      sync.Once
	bootstrapKeyspaces []*schema.Keyspace
	bootstrapTables    []*schema.Table
)

// SetNodeAddress sets the address and native protocol port the node is
// reached at (system.local's rpc_address, broadcast_address, listen_address
// and rpc_port), which the next read of system.local shows. The default is
// 127.0.0.1:9042.
// Drivers connect to rpc_address, so it must be a real address: an
// unspecified one (0.0.0.0, ::) is refused.
func (n *Node) SetAddress(ip net.IP, port int) error {
	if ip == nil || ip.IsUnspecified() {
		return fmt.Errorf("rpc_address must be a specific address, not %v", ip)
	}
	n.mu.Lock()
	n.rpcAddress, n.rpcPort = ip, port
	n.mu.Unlock()
	return nil
}

// NodeAddress returns the address and port set by SetNodeAddress.
func (n *Node) Address() (net.IP, int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rpcAddress, n.rpcPort
}

// CurrentSchema returns every keyspace with its tables, sorted by name.
func (n *Node) CurrentSchema() SchemaSnapshot {
	kss := n.eng.Keyspaces()
	sort.Slice(kss, func(i, j int) bool { return kss[i].Name < kss[j].Name })
	snap := SchemaSnapshot{Keyspaces: kss, Tables: make(map[string][]*schema.Table, len(kss))}
	for _, ks := range kss {
		ts := n.eng.Tables(ks.Name)
		sortTables(ts)
		snap.Tables[ks.Name] = ts
	}
	return snap
}

// nodeInfo returns what system.local says about the node now; its schema
// version is the engine's digest of the current schema.
func (n *Node) Info() NodeInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return NodeInfo{
		ClusterName: n.clusterName, DataCenter: n.dataCenter, Rack: n.rack,
		HostID: n.hostID, schemaVersion: n.eng.SchemaVersion(),
		RpcAddress: n.rpcAddress, RpcPort: n.rpcPort, gossipGeneration: n.generation,
		Tokens: NodeTokens(n.hostID, n.eng.Partitioner()), Partitioner: n.eng.Partitioner(),
	}
}

// writeSystemPartitions replaces the content of partitions of stored system
// tables (system_auth): a partition deletion, then the new rows at a later
// timestamp.
func (n *Node) WritePartitions(ctx context.Context, parts []Partition) error {
	delTS := n.eng.NewTimestamp()
	ts := n.eng.NewTimestamp()
	now := n.eng.Clock().Now().Unix()
	for _, p := range parts {
		tbl, ok := n.eng.Table(p.Table.Keyspace, p.Table.Name)
		if !ok {
			return fmt.Errorf("cql: system table %s is missing", p.Table.QualifiedName())
		}
		p.Table = tbl
		m, err := PartitionMutation(p, delTS, ts, now)
		if err != nil {
			return err
		}
		if err := n.eng.Apply(ctx, tbl, m); err != nil {
			return fmt.Errorf("cql: writing %s: %w", tbl.QualifiedName(), err)
		}
	}
	return nil
}

// Table returns the definition of the system table ks.name, or nil.
// lookupTable falls back on it, so system tables are found even where the
// engine does not know them (for instance before Bootstrap).
func Table(ks, name string) *schema.Table {
	for _, t := range Tables(ks) {
		if t.Name == name {
			return t
		}
	}
	return nil
}
