package sstable

import (
	"fmt"
	"io"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/schema"
)

// Layout prints the physical layout of r to w: the component sizes, every
// Data.db chunk (file offset, stored size, stream range), and every
// partition (stream position, length, key, token, deletion, static row,
// range tombstones, rows offset and row-index blocks with their first and
// last clustering, offset and length). Keys and clusterings print as the
// bytes stored (hex); LayoutTable prints them decoded. Tests use it for
// golden files.
func Layout(w io.Writer, r *Reader) error { return LayoutTable(w, r, nil) }

// LayoutTable is Layout with partition keys and the first and last
// clustering of index blocks decoded with the types of t, the SSTable's
// table ('ACTIVE', (1, 'x')), as the command line shows them to a learner.
// A nil t prints the bytes, as Layout.
func LayoutTable(w io.Writer, r *Reader, t *schema.Table) error {
	pr := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	key := func(k []byte) string { return fmt.Sprintf("%x", k) }
	ck := key
	if t != nil {
		key, ck = t.FormatPartitionKey, t.FormatClustering
	}
	pr("sstable %s generation %d, format version %d: %d partitions, stream %d bytes, Data.db %d bytes, codec %s, chunk %d\n",
		VersionString, r.gen, r.version, r.stats.Partitions, r.dataLen, r.dataFileLen, r.codec, r.chunkLen)
	for i, off := range r.chunkOffsets {
		end := r.dataFileLen
		if i+1 < len(r.chunkOffsets) {
			end = r.chunkOffsets[i+1]
		}
		start := uint64(i) * r.chunkLen
		pr("chunk %d: file [%d, %d) stream [%d, %d)\n", i, off, end, start, min(start+r.chunkLen, r.dataLen))
	}
	it := r.Scan(data.FullRing)
	for {
		src, ok := it.Next()
		if !ok {
			break
		}
		p := src.(*Partition)
		pr("partition %s token %d: position %d length %d rows at %d", key(p.e.key), p.e.token, p.e.pos, p.e.length, p.e.rowsOff)
		if !p.e.deletion.IsLive() {
			pr(" deleted@%d", p.e.deletion.MarkedForDeleteAt)
		}
		if p.static != nil {
			pr(" static(%d cells)", len(p.static.Cells))
		}
		if len(p.rts) > 0 {
			pr(" %d range tombstones", len(p.rts))
		}
		if p.e.nMarks > 0 {
			pr(" chunk marks at")
			for _, m := range p.e.markPositions(nil) {
				pr(" %d", m)
			}
		}
		pr(" index entry at %d\n", p.e.indexPos)
		for i := 0; i < p.e.numBlocks(); i++ {
			b, err := p.e.block(i)
			if err != nil {
				it.Close()
				return err
			}
			pr("  block %d: [%s .. %s] offset %d length %d\n", i, ck(b.First), ck(b.Last), b.Offset, b.Length)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return it.Close()
}
