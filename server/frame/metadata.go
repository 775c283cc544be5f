package frame

import (
	"crypto/md5"
)

// ResultMetadataID returns the v5 result metadata id of result columns
// cols: the MD5 of each column's name, a zero byte, its type, and two zero
// bytes, as Cassandra's ResultSet.computeResultMetadataId hashes them. The
// type is hashed as its CQL name where Cassandra hashes its Java class
// name, so the ids differ from Cassandra's; clients treat them as opaque.
// No columns give the MD5 of nothing, Cassandra's id of empty metadata.
func ResultMetadataID(cols []ColumnSpec) []byte {
	h := md5.New()
	var buf []byte
	for _, c := range cols {
		buf = append(buf[:0], c.Name...)
		buf = append(buf, 0)
		buf = append(buf, c.Type.String()...)
		buf = append(buf, 0, 0)
		h.Write(buf)
	}
	return h.Sum(nil)
}
