package wire

import "fmt"

// ChangeType says what a schema change did: the <change_type> [string] of a
// Schema_change result or SCHEMA_CHANGE event.
type ChangeType uint8

// The schema change types. The zero value is not a change type, so that a
// forgotten field is caught by Valid.
const (
	Created ChangeType = iota + 1
	Updated
	Dropped
)

var changeTypeNames = [...]string{Created: "CREATED", Updated: "UPDATED", Dropped: "DROPPED"}

// String returns the type's wire name: "CREATED", "UPDATED" or "DROPPED".
func (c ChangeType) String() string {
	if c.Valid() {
		return changeTypeNames[c]
	}
	return fmt.Sprintf("CHANGE(%d)", uint8(c))
}

// Valid reports whether c is one of the protocol's change types.
func (c ChangeType) Valid() bool { return c >= Created && c <= Dropped }

// ParseChangeType returns the change type named s ("CREATED", ...); ok is
// false for any other string.
func ParseChangeType(s string) (c ChangeType, ok bool) {
	for i, n := range changeTypeNames {
		if n != "" && n == s {
			return ChangeType(i), true
		}
	}
	return 0, false
}

// ChangeTarget says what kind of object a schema change touched: the
// <target> [string] of a Schema_change result or SCHEMA_CHANGE event.
type ChangeTarget uint8

// The schema change targets. The zero value is not a target.
const (
	TargetKeyspace ChangeTarget = iota + 1
	TargetTable
	TargetType
	TargetFunction
	TargetAggregate
)

var changeTargetNames = [...]string{TargetKeyspace: "KEYSPACE", TargetTable: "TABLE", TargetType: "TYPE",
	TargetFunction: "FUNCTION", TargetAggregate: "AGGREGATE"}

// String returns the target's wire name, e.g. "KEYSPACE".
func (t ChangeTarget) String() string {
	if t.Valid() {
		return changeTargetNames[t]
	}
	return fmt.Sprintf("TARGET(%d)", uint8(t))
}

// Valid reports whether t is one of the protocol's targets.
func (t ChangeTarget) Valid() bool { return t >= TargetKeyspace && t <= TargetAggregate }

// ParseChangeTarget returns the target named s ("KEYSPACE", ...); ok is false
// for any other string.
func ParseChangeTarget(s string) (t ChangeTarget, ok bool) {
	for i, n := range changeTargetNames {
		if n != "" && n == s {
			return ChangeTarget(i), true
		}
	}
	return 0, false
}

// SchemaChange describes a schema change, as a Schema_change result and a
// SCHEMA_CHANGE event carry it. Name is the table, type, function or
// aggregate, empty for TargetKeyspace; Args (the argument types, as CQL
// types) is used only for TargetFunction and TargetAggregate.
type SchemaChange struct {
	Change   ChangeType
	Target   ChangeTarget
	Keyspace string
	Name     string
	Args     []string
}

// String returns the change in the protocol's words, e.g. "CREATED TABLE
// ks.t".
func (c SchemaChange) String() string {
	s := c.Change.String() + " " + c.Target.String() + " " + c.Keyspace
	if c.Target != TargetKeyspace {
		s += "." + c.Name
	}
	if c.Target == TargetFunction || c.Target == TargetAggregate {
		s += fmt.Sprintf("%v", c.Args)
	}
	return s
}
