package auth

import (
	"context"
	"sync"

	"github.com/minicass/minicass/cql/virtual"
)

// The permission checks of every statement read the roles and the grants
// of the executing role from a snapshot instead of system_auth, as
// Cassandra reads them from its roles and permissions caches. Cassandra's
// caches expire (roles_validity, permissions_validity: 2 s by default), so
// a change shows after up to that long; minicass's snapshot is dropped by
// every write to system_auth, so a change shows at once: the role manager
// and authorizer write through writeAuth, and CQL cannot write system_auth
// (its statements are refused as not user-modifiable).

// authSnapshot is every role and, filled as the checks need them, the
// grants of roles, as of generation gen.
type authSnapshot struct {
	gen   uint64
	roles map[string]*Role
	mu    sync.Mutex
	// grants by role name.
	grants map[string]grants
}

// writeAuth writes system_auth partitions and invalidates the snapshot;
// the next check reads system_auth again.
func (rs *Roles) writeAuth(ctx context.Context, parts []virtual.Partition) error {
	defer rs.gen.Add(1)
	return rs.node.WritePartitions(ctx, parts)
}

// snapshot returns the current snapshot, read again when a write made it
// stale. A write during the read leaves a snapshot of an older generation,
// which the next call replaces.
func (rs *Roles) snapshot(ctx context.Context) (*authSnapshot, error) {
	gen := rs.gen.Load()
	if s := rs.cache.Load(); s != nil && s.gen == gen {
		return s, nil
	}
	roles, err := rs.All(ctx)
	if err != nil {
		return nil, err
	}
	s := &authSnapshot{gen: gen, roles: roles, grants: map[string]grants{}}
	rs.cache.Store(s)
	return s, nil
}

// grantsOf returns role's grants from the snapshot, read on first use.
func (s *authSnapshot) grantsOf(ctx context.Context, rs *Roles, role string) (grants, error) {
	s.mu.Lock()
	g, ok := s.grants[role]
	s.mu.Unlock()
	if ok {
		return g, nil
	}
	g, err := rs.readGrants(ctx, role)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.grants[role] = g
	s.mu.Unlock()
	return g, nil
}
