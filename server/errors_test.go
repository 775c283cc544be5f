package server

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/minicass/minicass/wire"
)

// timeoutErr is an executor error with the extras of a timeout.
type timeoutErr struct {
	code        wire.ErrorCode
	cl          wire.Consistency
	dataPresent bool
	writeType   string
}

func (e timeoutErr) Error() string           { return "Operation timed out - received only 0 responses." }
func (e timeoutErr) CQLCode() wire.ErrorCode { return e.code }
func (e timeoutErr) TimeoutExtras() (wire.Consistency, int32, int32, bool, string) {
	return e.cl, 0, 1, e.dataPresent, e.writeType
}

// TestToErrorTimeoutExtras: the consistency, replica counts, data-present
// flag and write type of a timeout reach the ERROR frame, wrapped or not.
func TestToErrorTimeoutExtras(t *testing.T) {
	w := toError(fmt.Errorf("executing: %w", timeoutErr{code: wire.CodeWriteTimeout, cl: wire.Quorum, writeType: "BATCH"}), nil, wire.CodeServer)
	assert.Equal(t, wire.CodeWriteTimeout, w.Code)
	assert.Equal(t, wire.Quorum, w.Consistency)
	assert.Equal(t, int32(0), w.Received)
	assert.Equal(t, int32(1), w.BlockFor)
	assert.Equal(t, "BATCH", w.WriteType)

	r := toError(timeoutErr{code: wire.CodeReadTimeout, cl: wire.One, dataPresent: true}, nil, wire.CodeServer)
	assert.Equal(t, wire.CodeReadTimeout, r.Code)
	assert.Equal(t, wire.One, r.Consistency)
	assert.True(t, r.DataPresent)
}
