package sstable

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"runtime"
	"sync/atomic"

	"github.com/minicass/minicass/vfs"
	"github.com/spaolacci/murmur3"
)

// dataSink turns the writer's full chunks of the uncompressed stream into
// Data.db: it compresses each chunk, appends its kind byte and CRC32C,
// records its file offset, feeds the Digest.crc32 and writes the file in
// buffers of about dataFlushSize bytes.
//
// With more than one CPU the sink runs on a goroutine of its own (a
// pipeline of two stages: the writer encodes rows into the next chunks while
// the sink compresses and writes the previous ones), with a fixed set of
// chunk buffers passed back and forth, so that nothing is allocated per
// chunk. The writer hands chunks over in batches of sinkBatch: each hand-over
// to a sink that waits for work wakes its goroutine (a futex call, and often
// an OS thread to start): about 5 ms of the writer's 80 in the profile of a
// narrow flush (bench/RESULTS.md, run 10) when every chunk woke it. Its state (offsets, digest, file length, error)
// belongs to the goroutine until finish returns.
type dataSink struct {
	codec Codec
	file  vfs.File
	// open returns Data.db, for the first write when file is nil.
	open func() (vfs.File, error)
	name string

	out     []byte // compressed chunks not yet written
	fileOff uint64 // Data.db bytes written
	offsets []uint64
	digest  uint32
	err     error

	async   bool
	work    chan chunkBatch // full chunks, to the goroutine
	free    chan []byte     // chunk buffers, back to the writer
	pending chunkBatch      // full chunks not yet handed over
	// made counts the chunk buffers made so far, besides the writer's
	// first: they are made when none is free, up to sinkBuffers, so
	// that a small SSTable allocates only the few it fills.
	made     int
	chunkLen int
	done     chan struct{} // closed when the goroutine ends
	failed   atomic.Bool   // err is set (the writer stops early)
	ended    bool          // finish or stop was called
}

// sinkBatch is the number of chunks an asynchronous sink is handed at a
// time, and sinkBuffers its number of chunk buffers: a batch the writer
// collects, one queued, one being compressed, and the chunk being filled.
// Eight rather than four halves the wake-ups of a flush (each one a futex
// call and often an OS thread started: about 5% of a narrow flush's CPU at
// four, bench/RESULTS.md, Run 40) for at most 25 buffers of 16 KiB.
const (
	sinkBatch   = 8
	sinkBuffers = 3*sinkBatch + 1
)

// chunkBatch is the chunks of one hand-over, in stream order.
type chunkBatch struct {
	chunks [sinkBatch][]byte
	n      int
}

// newDataSink returns a sink that compresses chunks with codec and writes
// them to the file open returns (waiting for its creation, see
// precreation) when the sink first writes.
func newDataSink(codec Codec, chunkLen int, open func() (vfs.File, error), name string) *dataSink {
	s := &dataSink{codec: codec, open: open, name: name}
	// Room for a flush's worth of chunks plus one more chunk at its worst
	// compression, so that the output buffer never grows.
	s.out = make([]byte, 0, dataFlushSize+2*chunkLen+64)
	s.out = appendHeader(s.out, ComponentData)
	if runtime.GOMAXPROCS(0) > 1 {
		s.async = true
		s.work = make(chan chunkBatch, 1)
		s.free = make(chan []byte, sinkBuffers)
		s.done = make(chan struct{})
		s.chunkLen = chunkLen
		go s.run()
	}
	return s
}

func (s *dataSink) run() {
	defer close(s.done)
	for batch := range s.work {
		for _, chunk := range batch.chunks[:batch.n] {
			if s.err == nil {
				s.emit(chunk)
			}
			s.free <- chunk[:0]
		}
	}
}

// put hands over a full (or the last) chunk and returns the buffer to fill
// next. It returns the sink's error once one occurred.
func (s *dataSink) put(chunk []byte) ([]byte, error) {
	if !s.async {
		s.emit(chunk)
		return chunk[:0], s.err
	}
	if s.failed.Load() {
		return chunk[:0], s.stop()
	}
	s.pending.chunks[s.pending.n] = chunk
	if s.pending.n++; s.pending.n == sinkBatch {
		s.handOver()
	}
	select {
	case b := <-s.free:
		return b, nil
	default:
	}
	if s.made < sinkBuffers-1 {
		s.made++
		return make([]byte, 0, s.chunkLen), nil
	}
	return <-s.free, nil
}

// handOver sends the pending chunks to the goroutine.
func (s *dataSink) handOver() {
	if s.pending.n == 0 {
		return
	}
	s.work <- s.pending
	s.pending = chunkBatch{}
}

// emit compresses chunk and queues it for Data.db. A chunk on disk is a
// kind byte (0 stored raw, 1 compressed), the payload, and a CRC32C of kind
// and payload, little-endian. A chunk that does not shrink by compression
// is stored raw.
func (s *dataSink) emit(chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	s.offsets = append(s.offsets, s.fileOff+uint64(len(s.out)))
	start := len(s.out)
	s.out = append(s.out, 1)
	if s.codec != CodecNone {
		var err error
		if s.out, err = compressChunk(s.codec, s.out, chunk); err != nil {
			s.setErr(err)
			return
		}
	}
	if s.codec == CodecNone || len(s.out)-start-1 >= len(chunk) {
		s.out = append(s.out[:start], 0)
		s.out = append(s.out, chunk...)
	}
	s.out = binary.LittleEndian.AppendUint32(s.out, crc32c(s.out[start:]))
	if len(s.out) >= dataFlushSize {
		s.write()
	}
}

func (s *dataSink) write() {
	if len(s.out) == 0 || s.err != nil {
		return
	}
	if s.file == nil {
		f, err := s.open()
		if err != nil {
			s.setErr(err)
			return
		}
		s.file = f
	}
	s.digest = crc32.Update(s.digest, crc32.IEEETable, s.out)
	if _, err := s.file.Write(s.out); err != nil {
		s.setErr(fmt.Errorf("sstable: write %s: %w", s.name, err))
		return
	}
	s.fileOff += uint64(len(s.out))
	s.out = s.out[:0]
}

func (s *dataSink) setErr(err error) {
	if s.err == nil {
		s.err = err
		s.failed.Store(true)
	}
}

// finish emits the last chunk, writes what is buffered and ends the
// goroutine; the sink's state is the caller's afterwards.
func (s *dataSink) finish(last []byte) error {
	if s.async && !s.ended && !s.failed.Load() {
		s.pending.chunks[s.pending.n] = last
		s.pending.n++
		s.handOver()
	} else if !s.async {
		s.emit(last)
	}
	if err := s.stop(); err != nil {
		return err
	}
	s.write()
	return s.err
}

// stop ends the goroutine without writing more and returns the sink's
// error. It may be called more than once.
func (s *dataSink) stop() error {
	if s.async && !s.ended {
		close(s.work)
		<-s.done
		s.pending = chunkBatch{} // chunks of a stopped sink are not written
	}
	s.ended = true
	return s.err
}

// indexSink writes Index.db buffers on a goroutine of its own when there
// is more than one CPU, so that the writer does not wait in write(2): in a
// narrow compaction's profile the writer spent about 38 ms of its 290 in
// Index.db writes (bench/RESULTS.md, run 10). Two buffers pass back and
// forth: the writer fills one while the goroutine writes the other.
//
// Before it writes a buffer the sink seals its entries: it fills in each
// entry's CRC32C (the writer leaves four bytes for it) and computes the
// murmur3 hash of each entry's key for the bloom filter (hashes). Both were
// on the writer's goroutine, about an eighth of a narrow flush's time
// there (bench/RESULTS.md, Run 44); the index sink's goroutine was mostly
// idle.
type indexSink struct {
	file vfs.File
	// open returns Index.db, for the first write when file is nil.
	open  func() (vfs.File, error)
	name  string
	async bool
	work  chan indexBuf
	free  chan []byte
	done  chan struct{}
	err   error // the goroutine's until stop returns
	ended bool
	// hashes holds the murmur3 hash of every key sealed so far, in
	// order, when hashing is on (wantHashes); the goroutine's until stop
	// returns.
	hashes     [][2]uint64
	wantHashes bool
}

// indexBuf is a buffer of Index.db bytes whose entries start at first.
type indexBuf struct {
	b     []byte
	first int
}

// newIndexSink returns a sink that writes the file open returns (waiting
// for its creation) when it first writes; hashes is the number of key
// hashes to make room for, 0 to compute none (a filter without bits).
func newIndexSink(open func() (vfs.File, error), name string, bufSize, hashes int) *indexSink {
	s := &indexSink{open: open, name: name, wantHashes: hashes > 0}
	if s.wantHashes {
		s.hashes = make([][2]uint64, 0, hashes)
	}
	if runtime.GOMAXPROCS(0) > 1 {
		s.async = true
		s.work = make(chan indexBuf, 1)
		s.free = make(chan []byte, 2)
		s.done = make(chan struct{})
		s.free <- make([]byte, 0, bufSize)
		go s.run()
	}
	return s
}

func (s *indexSink) run() {
	defer close(s.done)
	for w := range s.work {
		if s.err == nil {
			s.seal(w.b, w.first)
			s.write(w.b)
		}
		s.free <- w.b[:0]
	}
}

// seal fills in the CRC32C of each index entry in b from offset first on
// (uvarint(len(entry)) entry crc32c(entry), the entry starting with
// bytes(key)) and appends the hash of each entry's key to hashes.
func (s *indexSink) seal(b []byte, first int) {
	for i := first; i < len(b); {
		n, k := binary.Uvarint(b[i:])
		entry := b[i+k : i+k+int(n)]
		if s.wantHashes {
			kl, kk := binary.Uvarint(entry)
			h1, h2 := murmur3.Sum128(entry[kk : kk+int(kl)])
			s.hashes = append(s.hashes, [2]uint64{h1, h2})
		}
		i += k + int(n)
		binary.LittleEndian.PutUint32(b[i:], crc32c(entry))
		i += 4
	}
}

func (s *indexSink) write(b []byte) {
	if s.file == nil {
		f, err := s.open()
		if err != nil {
			s.err = err
			return
		}
		s.file = f
	}
	if _, err := s.file.Write(b); err != nil {
		s.err = fmt.Errorf("sstable: write %s: %w", s.name, err)
	}
}

// put hands b, whose entries start at first, over to be sealed and
// written, and returns the buffer to fill next. A synchronous sink seals
// and writes b and returns it, emptied, with the write's error; an
// asynchronous one reports its errors from stop.
func (s *indexSink) put(b []byte, first int) ([]byte, error) {
	if !s.async {
		if s.err == nil {
			s.seal(b, first)
			s.write(b)
		}
		return b[:0], s.err
	}
	s.work <- indexBuf{b, first}
	return <-s.free, nil
}

// stop waits for the writes handed over and returns the first error. It
// may be called more than once.
func (s *indexSink) stop() error {
	if s.async && !s.ended {
		close(s.work)
		<-s.done
	}
	s.ended = true
	return s.err
}
