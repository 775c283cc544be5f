package statements

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/minicass/minicass/cql/query"
)

// pagingState is where a paged SELECT stopped. Its encoding is opaque to
// clients, who send it back unchanged:
//
//	byte     version (pagingVersion = 1)
//	byte     flags: 0x01 a last row exists, 0x02 it had a clustering key
//	                (0x00 after a partition's static-only row or a
//	                DISTINCT / GROUP BY partition boundary),
//	                0x04 the last partition is finished
//	uvarint  length of the last partition key, then its bytes
//	uvarint  length of the last clustering key, then its bytes
//	uvarint  result rows (or groups) returned so far, for LIMIT
//	uvarint  rows (or groups) returned so far in the last partition, for
//	         PER PARTITION LIMIT
//	uint32   CRC-32 (IEEE, big-endian) of everything before it
//
// Example: after row c=1 of partition k=1 (int key, int clustering) with 3
// rows returned, all in that partition:
//
//	01 03 04 00000001 03 40800001 80 03 03 <crc32>
//
// A state that does not decode, or whose checksum does not match, is
// refused with Cassandra's "Invalid value for the paging state".
type pagingState struct {
	hasLast     bool
	key         []byte
	clustering  []byte // nil: no clustering (static row or boundary)
	partDone    bool
	returned    int
	inPartition int
}

const pagingVersion = 1

func (s *pagingState) Encode() []byte {
	b := []byte{pagingVersion, 0}
	if s.hasLast {
		b[1] |= 0x01
	}
	if s.clustering != nil {
		b[1] |= 0x02
	}
	if s.partDone {
		b[1] |= 0x04
	}
	b = binary.AppendUvarint(b, uint64(len(s.key)))
	b = append(b, s.key...)
	b = binary.AppendUvarint(b, uint64(len(s.clustering)))
	b = append(b, s.clustering...)
	b = binary.AppendUvarint(b, uint64(s.returned))
	b = binary.AppendUvarint(b, uint64(s.inPartition))
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func errPagingState() error { return query.Invalidf("Invalid value for the paging state") }

func decodePagingState(b []byte) (*pagingState, error) {
	if len(b) < 2+4 || b[0] != pagingVersion {
		return nil, errPagingState()
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errPagingState()
	}
	s := &pagingState{hasLast: body[1]&0x01 != 0, partDone: body[1]&0x04 != 0}
	rest := body[2:]
	readBytes := func() ([]byte, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, false
		}
		v := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return v, true
	}
	readInt := func() (int, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > 1<<40 {
			return 0, false
		}
		rest = rest[k:]
		return int(n), true
	}
	var ok bool
	if s.key, ok = readBytes(); !ok {
		return nil, errPagingState()
	}
	ck, ok := readBytes()
	if !ok {
		return nil, errPagingState()
	}
	if body[1]&0x02 != 0 {
		s.clustering = append([]byte{}, ck...)
	}
	if s.returned, ok = readInt(); !ok {
		return nil, errPagingState()
	}
	if s.inPartition, ok = readInt(); !ok {
		return nil, errPagingState()
	}
	if len(rest) != 0 {
		return nil, errPagingState()
	}
	s.key = append([]byte{}, s.key...)
	return s, nil
}
