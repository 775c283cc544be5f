package restrictions

import (
	"bytes"
	"cmp"
	"encoding/binary"

	"github.com/minicass/minicass/cql/expr"
	"github.com/minicass/minicass/cql/query"
	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/partitioner"
)

// tokenValue is a token under the WHERE clause's partitioner: n for
// Murmur3's bigint tokens, b for ByteOrderedPartitioner's BytesToken (the
// key's bytes).
type tokenValue struct {
	n int64
	b []byte
}

// compareTokens orders two tokens of partitioner part: as signed integers
// under Murmur3, as unsigned byte strings under ByteOrderedPartitioner
// (BytesToken.compareTo), the empty one, the minimum, first.
func compareTokens(part partitioner.Partitioner, a, b tokenValue) int {
	if part.OrdersKeys() {
		return bytes.Compare(a.b, b.b)
	}
	return cmp.Compare(a.n, b.n)
}

// keyToken is the token of serialized partition key key under part.
func keyToken(part partitioner.Partitioner, key []byte) tokenValue {
	if part.OrdersKeys() {
		return tokenValue{b: key}
	}
	return tokenValue{n: int64(partitioner.Murmur3(key))}
}

// evalToken evaluates the value of a token() relation: a bigint under
// Murmur3, a blob under ByteOrderedPartitioner (whose TokenFactory reads
// any bytes as a token).
func (w *WhereClause) evalToken(q *query.Execution, t expr.Term) (tokenValue, error) {
	v, err := t.Eval(q)
	if err != nil {
		return tokenValue{}, err
	}
	if v.Unset {
		return tokenValue{}, query.Invalidf("Invalid unset value for partition key token")
	}
	if v.Bytes == nil {
		return tokenValue{}, query.Invalidf("Invalid null token value")
	}
	if w.part.OrdersKeys() {
		return tokenValue{b: v.Bytes}, nil
	}
	if len(v.Bytes) != 8 {
		return tokenValue{}, query.Invalidf("Invalid token value")
	}
	return tokenValue{n: int64(binary.BigEndian.Uint64(v.Bytes))}, nil
}

// KeyRange is the partitions the token() restrictions of a range read
// select. Tokens is the range of the engine's tokens to scan (engine.Token):
// under Murmur3 exactly the selected tokens. Under ByteOrderedPartitioner
// the engine's token is an order-preserving prefix of the key
// (partitioner.BytePrefixToken), so Tokens covers the selected keys and
// may hold a few more that share a bound's prefix; Contains decides.
type KeyRange struct {
	Tokens data.TokenRange
	part   partitioner.Partitioner
	// lo and hi are ByteOrderedPartitioner's bounds on the key bytes
	// (nil: none); loIncl and hiIncl say whether they are included.
	lo, hi         []byte
	loIncl, hiIncl bool
}

// Exact reports whether Tokens alone selects the range's partitions, so
// that Contains need not be asked.
func (r KeyRange) Exact() bool { return r.lo == nil && r.hi == nil }

// Contains reports whether the partition of serialized key key, whose
// engine token is token, lies in the range.
func (r KeyRange) Contains(token int64, key []byte) bool {
	if !r.Tokens.Contains(token) {
		return false
	}
	if r.lo != nil {
		if c := bytes.Compare(key, r.lo); c < 0 || (c == 0 && !r.loIncl) {
			return false
		}
	}
	if r.hi != nil {
		if c := bytes.Compare(key, r.hi); c > 0 || (c == 0 && !r.hiIncl) {
			return false
		}
	}
	return true
}

// TokenRange returns the partitions a range read's token() restrictions
// select (the whole ring without them). empty is set when the range
// selects nothing, e.g. token(k) > 5 AND token(k) < 3: Cassandra does not
// wrap around the ring for a range read (CASSANDRA-5573).
//
// An upper bound at the partitioner's minimum token (Long.MIN_VALUE under
// Murmur3, the empty blob under ByteOrderedPartitioner) bounds nothing:
// SelectStatement.getPartitionKeyBounds builds Range(start, MIN's key
// bound), and a range whose right end is a minimum position runs to the end
// of the ring (Token.KeyBound.isMinimum, the memtable's and the SSTables'
// range iterators). So token(k) < MIN, token(k) <= MIN and token(k) = MIN
// select from the lower bound to the end of the ring, and the empty-range
// rule does not apply to them.
func (w *WhereClause) TokenRange(q *query.Execution) (kr KeyRange, empty bool, err error) {
	kr = KeyRange{Tokens: data.FullRing, part: w.part}
	if w.part.OrdersKeys() {
		return w.byteRange(q, kr)
	}
	tr := &kr.Tokens
	const minTok, maxTok = -1 << 63, 1<<63 - 1
	if w.tokenEq != nil {
		t, err := w.evalToken(q, w.tokenEq)
		if err != nil {
			return kr, false, err
		}
		if t.n != minTok {
			kr.Tokens = data.TokenRange{Start: t.n, End: t.n, StartInclusive: true}
		}
		return kr, false, nil
	}
	if w.tokenLower != nil {
		t, err := w.evalToken(q, w.tokenLower.t)
		if err != nil {
			return kr, false, err
		}
		// token(k) >= MIN is the whole ring; token(k) > t is (t, ...].
		tr.Start, tr.StartInclusive = t.n, w.tokenLower.incl
	}
	if w.tokenUp != nil {
		t, err := w.evalToken(q, w.tokenUp.t)
		if err != nil {
			return kr, false, err
		}
		if end := t.n; end != minTok {
			if !w.tokenUp.incl {
				end--
			}
			tr.End = end
		}
	}
	if tr.Start > tr.End || (tr.Start == tr.End && !tr.StartInclusive) {
		return kr, true, nil
	}
	if !tr.StartInclusive && tr.Start == maxTok {
		return kr, true, nil
	}
	return kr, false, nil
}

// byteRange is TokenRange under ByteOrderedPartitioner: the bounds are key
// bytes, and the engine's tokens scanned are their prefix tokens, both
// included (a key past a bound may share its prefix token).
func (w *WhereClause) byteRange(q *query.Execution, kr KeyRange) (KeyRange, bool, error) {
	if w.tokenEq != nil {
		t, err := w.evalToken(q, w.tokenEq)
		if err != nil {
			return kr, false, err
		}
		if len(t.b) != 0 {
			tok := int64(partitioner.BytePrefixToken(t.b))
			kr.Tokens = data.TokenRange{Start: tok, End: tok, StartInclusive: true}
			kr.lo, kr.hi, kr.loIncl, kr.hiIncl = t.b, t.b, true, true
		}
		return kr, false, nil
	}
	if w.tokenLower != nil {
		t, err := w.evalToken(q, w.tokenLower.t)
		if err != nil {
			return kr, false, err
		}
		kr.Tokens.Start = int64(partitioner.BytePrefixToken(t.b))
		kr.lo, kr.loIncl = t.b, w.tokenLower.incl
	}
	if w.tokenUp != nil {
		t, err := w.evalToken(q, w.tokenUp.t)
		if err != nil {
			return kr, false, err
		}
		if len(t.b) != 0 {
			kr.Tokens.End = int64(partitioner.BytePrefixToken(t.b))
			kr.hi, kr.hiIncl = t.b, w.tokenUp.incl
		}
	}
	if kr.lo != nil && kr.hi != nil {
		if c := bytes.Compare(kr.lo, kr.hi); c > 0 || (c == 0 && !(kr.loIncl && kr.hiIncl)) {
			return kr, true, nil
		}
	}
	return kr, false, nil
}

// tokenFilter returns what Cassandra's TokenFilter accepts of the
// partition keys an EQ or IN restriction names when token() relations
// restrict them too: the keys whose token lies in the relations' range
// set (TokenFilter.toRangeSet). Unlike a range read's bounds, a start past
// the end wraps around the ring there: token(k) < token(1) AND token(k) >=
// token(3) accepts the tokens up to 1 and those from 3.
func (w *WhereClause) tokenFilter(q *query.Execution) (func(key []byte) bool, error) {
	part := w.part
	if w.tokenEq != nil {
		t, err := w.evalToken(q, w.tokenEq)
		if err != nil {
			return nil, err
		}
		return func(key []byte) bool { return compareTokens(part, keyToken(part, key), t) == 0 }, nil
	}
	var lo, hi tokenValue
	var err error
	if w.tokenLower != nil {
		if lo, err = w.evalToken(q, w.tokenLower.t); err != nil {
			return nil, err
		}
	}
	if w.tokenUp != nil {
		if hi, err = w.evalToken(q, w.tokenUp.t); err != nil {
			return nil, err
		}
	}
	above := func(t tokenValue) bool { // t is past the start bound
		c := compareTokens(part, t, lo)
		return c > 0 || (c == 0 && w.tokenLower.incl)
	}
	below := func(t tokenValue) bool { // t is before the end bound
		c := compareTokens(part, t, hi)
		return c < 0 || (c == 0 && w.tokenUp.incl)
	}
	switch {
	case w.tokenLower != nil && w.tokenUp != nil:
		c := compareTokens(part, lo, hi)
		if c == 0 && (!w.tokenLower.incl || !w.tokenUp.incl) {
			return func([]byte) bool { return false }, nil
		}
		if c <= 0 {
			return func(key []byte) bool { t := keyToken(part, key); return above(t) && below(t) }, nil
		}
		return func(key []byte) bool { t := keyToken(part, key); return below(t) || above(t) }, nil
	case w.tokenLower != nil:
		return func(key []byte) bool { return above(keyToken(part, key)) }, nil
	default:
		return func(key []byte) bool { return below(keyToken(part, key)) }, nil
	}
}
