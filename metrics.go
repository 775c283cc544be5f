package minicass

import "github.com/minicass/minicass/engine"

// SSTablesPerRead returns the histogram of the SSTables each partition read
// of keyspace.table opened over the last minutes, Cassandra's table metric
// SSTablesPerReadHistogram (which nodetool tablehistograms prints): Max is
// the most SSTables one read opened since the last ResetSSTablesPerRead.
// Range reads do not record in it. An unknown keyspace or table gives an
// *Error (ErrInvalid) with nodetool's message.
func (db *DB) SSTablesPerRead(keyspace, table string) (engine.ReadHistogram, error) {
	if db.isClosed() {
		return engine.ReadHistogram{}, ErrClosed
	}
	st, err := db.eng.TableStats(keyspace, table)
	if err != nil {
		return engine.ReadHistogram{}, maintenanceError(err, keyspace, table)
	}
	return st.SSTablesPerRead, nil
}

// ResetSSTablesPerRead empties the SSTables-per-read histogram of
// keyspace.table, as Cassandra's tests clear it before the read they
// measure.
func (db *DB) ResetSSTablesPerRead(keyspace, table string) error {
	if db.isClosed() {
		return ErrClosed
	}
	return maintenanceError(db.eng.ClearSSTablesPerRead(keyspace, table), keyspace, table)
}
