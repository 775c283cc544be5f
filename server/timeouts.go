package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/minicass/minicass/wire"
)

// RequestTimeouts bound the execution of a request by the kind of its
// statement, under cassandra.yaml's names. A request still running at its
// deadline is answered with Cassandra's timeout error for its kind (see
// timeoutError) and its context is cancelled; a result that arrives later
// is dropped. Zero fields take Cassandra 4.1's defaults.
type RequestTimeouts struct {
	// Read is read_request_timeout (default 5 s): single-partition reads.
	Read time.Duration
	// Range is range_request_timeout (default 10 s): reads that scan
	// partitions.
	Range time.Duration
	// Write is write_request_timeout (default 2 s): INSERT, UPDATE, DELETE
	// and batches.
	Write time.Duration
	// CounterWrite is counter_write_request_timeout (default 5 s): counter
	// batches.
	CounterWrite time.Duration
	// CASContention is cas_contention_timeout (default 1 s): conditional
	// statements (IF ...).
	CASContention time.Duration
	// Truncate is truncate_request_timeout (default 60 s).
	Truncate time.Duration
	// Other is request_timeout (default 10 s): every other request (schema
	// changes, USE, role and permission statements, PREPARE).
	Other time.Duration
}

// DefaultRequestTimeouts are Cassandra 4.1's defaults.
var DefaultRequestTimeouts = RequestTimeouts{
	Read:          5 * time.Second,
	Range:         10 * time.Second,
	Write:         2 * time.Second,
	CounterWrite:  5 * time.Second,
	CASContention: time.Second,
	Truncate:      60 * time.Second,
	Other:         10 * time.Second,
}

func (t *RequestTimeouts) ensureDefaults() {
	d := DefaultRequestTimeouts
	for _, f := range []struct{ p, d *time.Duration }{
		{&t.Read, &d.Read}, {&t.Range, &d.Range}, {&t.Write, &d.Write}, {&t.CounterWrite, &d.CounterWrite},
		{&t.CASContention, &d.CASContention}, {&t.Truncate, &d.Truncate}, {&t.Other, &d.Other},
	} {
		if *f.p == 0 {
			*f.p = *f.d
		}
	}
}

func (t *RequestTimeouts) validate() error {
	for _, d := range []time.Duration{t.Read, t.Range, t.Write, t.CounterWrite, t.CASContention, t.Truncate, t.Other} {
		if d < 0 {
			return fmt.Errorf("%w: negative request timeout %v", ErrInvalidOptions, d)
		}
	}
	return nil
}

// For returns the timeout of a request of kind k.
func (t *RequestTimeouts) For(k RequestKind) time.Duration {
	switch k {
	case KindRead:
		return t.Read
	case KindRange:
		return t.Range
	case KindWrite, KindBatch:
		return t.Write
	case KindCounterWrite:
		return t.CounterWrite
	case KindCAS:
		return t.CASContention
	case KindTruncate:
		return t.Truncate
	default:
		return t.Other
	}
}

// RequestKind is the kind of a statement, which chooses its timeout.
type RequestKind uint8

// The request kinds.
const (
	KindOther        RequestKind = iota // schema, USE, roles, PREPARE: request_timeout
	KindRead                            // single-partition SELECT: read_request_timeout
	KindRange                           // scanning SELECT: range_request_timeout
	KindWrite                           // INSERT, UPDATE, DELETE: write_request_timeout
	KindBatch                           // a logged or unlogged batch: write_request_timeout
	KindCounterWrite                    // a counter batch: counter_write_request_timeout
	KindCAS                             // a conditional statement: cas_contention_timeout
	KindTruncate                        // TRUNCATE: truncate_request_timeout
)

// StatementKinder is implemented by a Session that can tell the kind of a
// prepared statement from its id, so that EXECUTE gets the timeout of its
// statement. Without it, an EXECUTE is timed as KindOther.
type StatementKinder interface {
	StatementKind(id []byte) RequestKind
}

// ClassifyStatement returns the kind of the CQL statement text q from its
// words, without parsing it: TRUNCATE; INSERT, UPDATE and DELETE (KindCAS
// with an IF clause); BEGIN [UNLOGGED | COUNTER] BATCH (KindCAS when a
// statement in it has an IF clause); SELECT is KindRange without a WHERE
// clause or with a token() restriction, else KindRead. String literals,
// quoted names and comments are skipped. The distinction between a
// single-partition and a scanning SELECT is an approximation: a SELECT
// whose WHERE clause restricts no partition key (ALLOW FILTERING) is timed
// as a read. Counter UPDATEs outside a counter batch are timed as writes,
// since telling them apart needs the schema.
func ClassifyStatement(q string) RequestKind {
	sc := wordScanner{s: q}
	first := sc.next()
	switch {
	case strings.EqualFold(first, "SELECT"):
		where := false
		for w := sc.next(); w != ""; w = sc.next() {
			if strings.EqualFold(w, "WHERE") {
				where = true
			} else if where && strings.EqualFold(w, "TOKEN") && sc.peekByte() == '(' {
				return KindRange
			}
		}
		if where {
			return KindRead
		}
		return KindRange
	case strings.EqualFold(first, "INSERT"), strings.EqualFold(first, "UPDATE"), strings.EqualFold(first, "DELETE"):
		if sc.has("IF") {
			return KindCAS
		}
		return KindWrite
	case strings.EqualFold(first, "BEGIN"):
		second := sc.next()
		kind := KindBatch
		if strings.EqualFold(second, "COUNTER") {
			kind = KindCounterWrite
		}
		if sc.has("IF") {
			return KindCAS
		}
		return kind
	case strings.EqualFold(first, "TRUNCATE"):
		return KindTruncate
	}
	return KindOther
}

// wordScanner returns the unquoted words of a CQL text, skipping
// literals, quoted identifiers, comments and punctuation.
type wordScanner struct {
	s string
	i int
}

// has reports whether a later word is w (case-insensitive).
func (sc *wordScanner) has(w string) bool {
	for x := sc.next(); x != ""; x = sc.next() {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// peekByte returns the next byte that is not white space, or 0.
func (sc *wordScanner) peekByte() byte {
	for j := sc.i; j < len(sc.s); j++ {
		if c := sc.s[j]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// next returns the next word, or "" at the end.
func (sc *wordScanner) next() string {
	s := sc.s
	for sc.i < len(s) {
		c := s[sc.i]
		switch {
		case isWordByte(c):
			start := sc.i
			for sc.i < len(s) && isWordByte(s[sc.i]) {
				sc.i++
			}
			return s[start:sc.i]
		case c == '\'' || c == '"':
			sc.i++
			for sc.i < len(s) {
				if s[sc.i] == c {
					if sc.i+1 < len(s) && s[sc.i+1] == c { // doubled quote
						sc.i += 2
						continue
					}
					break
				}
				sc.i++
			}
			sc.i++
		case c == '$' && strings.HasPrefix(s[sc.i:], "$$"):
			end := strings.Index(s[sc.i+2:], "$$")
			if end < 0 {
				sc.i = len(s)
			} else {
				sc.i += end + 4
			}
		case c == '-' && strings.HasPrefix(s[sc.i:], "--"), c == '/' && strings.HasPrefix(s[sc.i:], "//"):
			end := strings.IndexByte(s[sc.i:], '\n')
			if end < 0 {
				sc.i = len(s)
			} else {
				sc.i += end + 1
			}
		case c == '/' && strings.HasPrefix(s[sc.i:], "/*"):
			end := strings.Index(s[sc.i+2:], "*/")
			if end < 0 {
				sc.i = len(s)
			} else {
				sc.i += end + 4
			}
		default:
			sc.i++
		}
	}
	return ""
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// timeoutError is the error Cassandra answers a request of kind k that
// timed out with, at consistency cl: a ReadTimeout (0x1200) for reads, a
// WriteTimeout (0x1100) with the write type for writes (SIMPLE, BATCH,
// COUNTER, CAS), a Truncate error for TRUNCATE, and for other requests a
// Server error naming the timeout. A single node answers no replica in
// time: received 0 of blockfor 1.
func timeoutError(k RequestKind, cl wire.Consistency, d time.Duration) *Error {
	msg := "Operation timed out - received only 0 responses."
	switch k {
	case KindRead, KindRange:
		return &Error{Code: wire.CodeReadTimeout, Message: msg, Consistency: cl, BlockFor: 1}
	case KindWrite, KindBatch, KindCounterWrite:
		wt := map[RequestKind]string{KindWrite: "SIMPLE", KindBatch: "BATCH", KindCounterWrite: "COUNTER"}[k]
		return &Error{Code: wire.CodeWriteTimeout, Message: msg, Consistency: cl, BlockFor: 1, WriteType: wt}
	case KindCAS:
		return &Error{Code: wire.CodeWriteTimeout, Consistency: wire.Serial, BlockFor: 1, WriteType: "CAS",
			Message: "CAS operation timed out: received 0 of 1 required responses after 0 contention retries"}
	case KindTruncate:
		return &Error{Code: wire.CodeTruncate, Message: "Error during truncate: Truncate timed out - received only 0 responses"}
	}
	return &Error{Code: wire.CodeServer, Message: fmt.Sprintf("Request timed out after %d ms (request_timeout)", d.Milliseconds())}
}
