package types

// ColumnSpec describes one column of a result or one bind marker of a
// prepared statement, as the native protocol's result metadata does: the
// keyspace and table it belongs to, its name and its type. The executor
// returns it and the protocol encoder writes it, so both use this one
// definition.
type ColumnSpec struct {
	Keyspace, Table, Name string
	Type                  Type
}
