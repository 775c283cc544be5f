package sstable

import (
	"math/bits"

	"github.com/minicass/minicass/data"
)

// Anatomy is what an SSTable is made of, for a learner's view (the
// studio's SSTable page): its Data.db chunks, bloom filter and summary.
// Layout prints the same facts as text.
type Anatomy struct {
	Gen int
	// Codec names the compression of Data.db; ChunkLength is the
	// uncompressed length of a chunk.
	Codec       string
	ChunkLength uint64
	// StreamLength is the uncompressed length of the partition stream,
	// DataFileLength the length of Data.db, IndexLength of Index.db.
	StreamLength, DataFileLength, IndexLength uint64
	// Chunks are Data.db's chunks in order.
	Chunks []Chunk
	// BloomHashes and BloomBits size the bloom filter (both 0 when it
	// holds no bits and lets every key through); BloomBitsSet counts its
	// bits that are set.
	BloomHashes, BloomBits, BloomBitsSet uint64
	// SummaryEntries counts the Summary.db samples of Index.db, taken
	// every SummaryInterval entries.
	SummaryEntries, SummaryInterval int
}

// Chunk is one Data.db chunk: where it is in the file and which part of
// the uncompressed stream it holds.
type Chunk struct {
	FileOffset, StoredLength uint64
	StreamStart, StreamEnd   uint64
}

// Anatomy returns r's anatomy.
func (r *Reader) Anatomy() Anatomy {
	a := Anatomy{Gen: r.gen, Codec: r.codec.String(), ChunkLength: r.chunkLen, StreamLength: r.dataLen,
		DataFileLength: r.dataFileLen, IndexLength: r.indexSize,
		SummaryEntries: len(r.summary), SummaryInterval: r.interval}
	for i, off := range r.chunkOffsets {
		end := r.dataFileLen
		if i+1 < len(r.chunkOffsets) {
			end = r.chunkOffsets[i+1]
		}
		start := uint64(i) * r.chunkLen
		a.Chunks = append(a.Chunks, Chunk{FileOffset: off, StoredLength: end - off,
			StreamStart: start, StreamEnd: min(start+r.chunkLen, r.dataLen)})
	}
	if f := r.filter; f != nil {
		a.BloomHashes, a.BloomBits = f.hashes, f.nbits
		for _, w := range f.words {
			a.BloomBitsSet += uint64(bits.OnesCount64(w))
		}
	}
	return a
}

// PartitionLayout is where one partition lies in an SSTable: its place in
// the stream and in Index.db, and its row index (the blocks of a partition
// larger than column_index_size; none for a smaller one).
type PartitionLayout struct {
	Key   []byte
	Token int64
	// Position and Length place the partition in the stream; RowsOffset
	// is where its rows begin; IndexPosition is its entry in Index.db.
	Position, Length, RowsOffset, IndexPosition uint64
	Deleted                                     bool
	Blocks                                      []IndexBlock
}

// IndexBlock is one block of a partition's row index: its first and last
// clustering (as stored) and its place in the stream.
type IndexBlock struct {
	First, Last    []byte
	Offset, Length uint64
}

// Partitions calls fn with the layout of each partition in token order
// until fn returns false.
func (r *Reader) Partitions(fn func(PartitionLayout) bool) error {
	it := r.Scan(data.FullRing)
	for {
		src, ok := it.Next()
		if !ok {
			break
		}
		p := src.(*Partition)
		l := PartitionLayout{Key: append([]byte(nil), p.e.key...), Token: p.e.token, Position: p.e.pos, Length: p.e.length,
			RowsOffset: p.e.rowsOff, IndexPosition: p.e.indexPos, Deleted: !p.e.deletion.IsLive()}
		for i := 0; i < p.e.numBlocks(); i++ {
			b, err := p.e.block(i)
			if err != nil {
				it.Close()
				return err
			}
			l.Blocks = append(l.Blocks, IndexBlock{First: append([]byte(nil), b.First...), Last: append([]byte(nil), b.Last...),
				Offset: b.Offset, Length: b.Length})
		}
		if !fn(l) {
			break
		}
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}
