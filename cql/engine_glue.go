package cql

import (
	"context"
	"errors"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/engine"
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/wire"
)

// engineError turns an engine error into the error Cassandra gives for the
// same condition.
func engineError(err error) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	switch {
	case errors.Is(err, engine.ErrEmptyKey):
		return invalidf("Key may not be empty")
	case errors.Is(err, engine.ErrKeyTooLarge), errors.Is(err, engine.ErrInvalidTTL),
		errors.Is(err, engine.ErrTTLTooLarge), errors.Is(err, engine.ErrExpirationOverflow),
		errors.Is(err, engine.ErrMutationTooLarge), errors.Is(err, engine.ErrInvalidMutation):
		return &Error{Code: wire.CodeInvalid, Message: err.Error(), Err: err}
	case errors.Is(err, engine.ErrNoTable):
		return &Error{Code: wire.CodeInvalid, Message: err.Error(), Err: err}
	case errors.Is(err, engine.ErrTombstoneOverwhelming):
		// TombstoneOverwhelmingException reaches the client as a
		// ReadFailure from the one replica.
		return &Error{Code: wire.CodeReadFailure, Message: "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from localhost/127.0.0.1:7000", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: wire.CodeServer, Message: err.Error(), Err: err}
	}
	return AsError(err)
}

// readOneRow reads the live data of one row (clustering != nil) or, when
// static is set, the partition's static row. It returns nil when there is no
// live data.
func readOneRow(ctx context.Context, q *execution, tbl *schema.Table, key, clustering []byte, static bool) (*data.Row, error) {
	opts := engine.ReadOptions{Now: q.now.Unix(), Limit: 1}
	if !static {
		if len(clustering) > 0 {
			opts.Slices = data.Slices{{Start: clustering, End: append(append([]byte(nil), clustering...), 0)}}
		}
	}
	part, err := q.s.x.eng.ReadPartition(ctx, tbl, key, opts)
	if err != nil {
		return nil, engineError(err)
	}
	sp, err := collectPartition(part)
	if err != nil {
		return nil, err
	}
	if static {
		return sp.static, nil
	}
	if len(sp.rows) == 0 {
		return nil, nil
	}
	return &sp.rows[0], nil
}
