package cql

import (
	"context"

	"github.com/minicass/minicass/cql/parser"
)

// Triggers. A Cassandra trigger is a Java class (ITrigger) loaded from the
// node's triggers directory; CREATE TRIGGER fails when the class cannot be
// loaded (CreateTriggerStatement.apply). minicass runs no Java, so it
// answers as a node whose triggers directory lacks the class: CREATE
// TRIGGER checks the keyspace, the table and the name as Cassandra does,
// then refuses the class; no trigger ever exists, so DROP TRIGGER finds
// nothing (DropTriggerStatement.apply). With password authentication both
// need a superuser, as Cassandra's authorize step requires.
// docs/compatibility.md says so.

func (s *Session) compileCreateTrigger(st *parser.CreateTrigger) (plan, error) {
	ks, table, err := s.modifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	eng, user := s.x.eng, s.user
	return &ddlPlan{run: func(ctx context.Context, _ *execution) (*Result, error) {
		if err := s.x.ensureIsSuperuser(ctx, user, "Only superusers are allowed to perform CREATE TRIGGER queries"); err != nil {
			return nil, err
		}
		if _, ok := eng.Keyspace(ks); !ok {
			return nil, invalidf("Keyspace '%s' doesn't exist", ks)
		}
		if _, ok := eng.Table(ks, table); !ok {
			return nil, invalidf("Table '%s' doesn't exist", table)
		}
		return nil, invalidf("Trigger class '%s' couldn't be loaded", st.Class)
	}}, nil
}

func (s *Session) compileDropTrigger(st *parser.DropTrigger) (plan, error) {
	ks, table, err := s.modifiableTable(st.Table)
	if err != nil {
		return nil, err
	}
	user := s.user
	return &ddlPlan{run: func(ctx context.Context, _ *execution) (*Result, error) {
		// Cassandra's text, its typo included.
		if err := s.x.ensureIsSuperuser(ctx, user, "Only superusers are allowed to perfrom DROP TRIGGER queries"); err != nil {
			return nil, err
		}
		if st.IfExists {
			return voidResult(), nil
		}
		return nil, invalidf("Trigger '%s' on '%s.%s' doesn't exist", st.Name, ks, table)
	}}, nil
}
