package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"

	"github.com/minicass/minicass/cql/query"

	"github.com/minicass/minicass/cql/virtual"

	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// systemState is the executor's node identity, which system.local shows,
// and the source of system_views.clients.
type systemState struct {
	mu         sync.Mutex
	hostID     types.UUIDValue
	rpcAddress net.IP
	rpcPort    int
	generation int32
	// clients lists a server's connections for system_views.clients.
	clients func() []ConnectedClient
}

func newSystemState(now int64) *systemState {
	return &systemState{
		hostID:     types.NewRandomUUID(),
		rpcAddress: net.IPv4(127, 0, 0, 1),
		rpcPort:    9042,
		generation: int32(now),
	}
}

// HostID returns the node's host id (system.local.host_id).
func (x *Executor) HostID() types.UUIDValue { return x.sys.hostID }

// Bootstrap creates the system keyspaces and tables that do not exist yet.
// It writes no rows: system.local, system_schema.*, system_virtual_schema.*
// and system_views.* are computed when read (system_derived.go). NewExecutor
// calls it; calling it again is harmless.
func (x *Executor) Bootstrap(ctx context.Context) error {
	for _, ks := range virtual.SystemKeyspaceOrder {
		if _, ok := x.eng.Keyspace(ks); !ok {
			if err := x.eng.CreateKeyspace(virtual.SystemKeyspaceDef(ks)); err != nil && !errors.Is(err, engine.ErrKeyspaceExists) {
				return fmt.Errorf("cql: creating system keyspace %s: %w", ks, err)
			}
		}
		for _, t := range virtual.SystemTables(ks) {
			if _, ok := x.eng.Table(ks, t.Name); ok {
				continue
			}
			if err := x.eng.CreateTable(t); err != nil && !errors.Is(err, engine.ErrTableExists) {
				return fmt.Errorf("cql: creating system table %s: %w", t.QualifiedName(), err)
			}
		}
	}
	return nil
}

// SetNodeAddress sets the address and native protocol port the node is
// reached at (system.local's rpc_address, broadcast_address, listen_address
// and rpc_port), which the next read of system.local shows. The default is
// 127.0.0.1:9042.
// Drivers connect to rpc_address, so it must be a real address: an
// unspecified one (0.0.0.0, ::) is refused.
func (x *Executor) SetNodeAddress(ctx context.Context, ip net.IP, port int) error {
	if ip == nil || ip.IsUnspecified() {
		return query.Invalidf("rpc_address must be a specific address, not %v", ip)
	}
	x.sys.mu.Lock()
	x.sys.rpcAddress, x.sys.rpcPort = ip, port
	x.sys.mu.Unlock()
	return nil
}

// NodeAddress returns the address and port set by SetNodeAddress.
func (x *Executor) NodeAddress() (net.IP, int) {
	x.sys.mu.Lock()
	defer x.sys.mu.Unlock()
	return x.sys.rpcAddress, x.sys.rpcPort
}

// currentSchema returns every keyspace with its tables, sorted by name.
func (x *Executor) currentSchema() virtual.SchemaSnapshot {
	kss := x.eng.Keyspaces()
	sort.Slice(kss, func(i, j int) bool { return kss[i].Name < kss[j].Name })
	snap := virtual.SchemaSnapshot{Keyspaces: kss, Tables: make(map[string][]*schema.Table, len(kss))}
	for _, ks := range kss {
		ts := x.eng.Tables(ks.Name)
		virtual.SortTables(ts)
		snap.Tables[ks.Name] = ts
	}
	return snap
}

// nodeInfo returns what system.local says about the node now; its schema
// version is the engine's digest of the current schema.
func (x *Executor) nodeInfo() virtual.NodeInfo {
	x.sys.mu.Lock()
	defer x.sys.mu.Unlock()
	return virtual.NodeInfo{
		ClusterName: x.opts.ClusterName, DataCenter: x.opts.DataCenter, Rack: x.opts.Rack,
		HostID: x.sys.hostID, SchemaVersion: x.eng.SchemaVersion(),
		RpcAddress: x.sys.rpcAddress, RpcPort: x.sys.rpcPort, GossipGeneration: x.sys.generation,
		Tokens: virtual.NodeTokens(x.sys.hostID),
	}
}

// writeSystemPartitions replaces the content of partitions of stored system
// tables (system_auth): a partition deletion, then the new rows at a later
// timestamp.
func (x *Executor) writeSystemPartitions(ctx context.Context, parts []virtual.SysPartition) error {
	delTS := x.eng.NewTimestamp()
	ts := x.eng.NewTimestamp()
	now := x.eng.Clock().Now().Unix()
	for _, p := range parts {
		tbl, ok := x.eng.Table(p.Table.Keyspace, p.Table.Name)
		if !ok {
			return fmt.Errorf("cql: system table %s is missing", p.Table.QualifiedName())
		}
		p.Table = tbl
		m, err := virtual.PartitionMutation(p, delTS, ts, now)
		if err != nil {
			return err
		}
		if err := x.eng.Apply(ctx, tbl, m); err != nil {
			return fmt.Errorf("cql: writing %s: %w", tbl.QualifiedName(), err)
		}
	}
	return nil
}

// systemTable returns the definition of the system table ks.name, or nil.
// lookupTable falls back on it, so system tables are found even where the
// engine does not know them (for instance before Bootstrap).
func (x *Executor) systemTable(ks, name string) *schema.Table {
	for _, t := range virtual.SystemTables(ks) {
		if t.Name == name {
			return t
		}
	}
	return nil
}
