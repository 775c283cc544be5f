package sstable

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// onlyChunkPartitions returns n random partitions of which most hold one
// row and nothing else (NextOnlyRecord's common case), the rest any shape
// randomPartitions makes.
func onlyChunkPartitions(rng *rand.Rand, n int) []testPartition {
	parts := randomPartitions(rng, n, 3)
	for i := range parts {
		if rng.Intn(5) == 0 {
			continue
		}
		p := &parts[i]
		p.del, p.static, p.rts = data.LiveDeletion, nil, nil
		p.rows = []data.Row{randomRow(rng, ckOf(rng.Intn(50)))}
	}
	return parts
}

// damageStream rewrites Data.db of the uncompressed table gen 1 in fs with
// one to three bytes of its partition stream changed, the chunk's CRC recomputed so
// that only the decoding can tell, and returns the stream position
// changed.
func damageStream(t *testing.T, rng *rand.Rand, fs vfs.FS) uint64 {
	t.Helper()
	r, err := Open(fs, "", 1, ReaderOptions{SkipDigest: true})
	require.NoError(t, err)
	offs, chunkLen := append([]uint64(nil), r.chunkOffsets...), r.chunkLen
	// Mostly near a partition's start (its header, its record's length
	// and flags), else anywhere in it.
	var starts, lens, rowsOffs []uint64
	idx := r.Scan(data.FullRing)
	for {
		ps, ok := idx.Next()
		if !ok {
			break
		}
		e := ps.(*Partition).e
		starts, lens, rowsOffs = append(starts, e.pos), append(lens, e.length), append(rowsOffs, e.rowsOff)
	}
	require.NoError(t, idx.Err())
	require.NoError(t, idx.Close())
	require.NoError(t, r.Close())
	k := rng.Intn(len(starts))
	span := lens[k]
	if rng.Intn(4) != 0 {
		span = min(span, 16)
	}
	pos := starts[k] + uint64(rng.Int63n(int64(span)))
	zeros := 0
	if rng.Intn(4) == 0 {
		// The first record's length and the byte after it zeroed: the
		// partition then reads as one of no rows, followed by a zero.
		pos, zeros = starts[k]+rowsOffs[k], 2
	}
	b := readFile(t, fs, FileName(1, ComponentData))
	i := pos / chunkLen
	start := offs[i]
	end := uint64(len(b))
	if i+1 < uint64(len(offs)) {
		end = offs[i+1]
	}
	require.Equal(t, byte(0), b[start], "an uncompressed chunk")
	at := start + 1 + pos - i*chunkLen
	switch mode := rng.Intn(4); {
	case zeros > 0:
		for k := at; k < min(at+uint64(zeros), end-4); k++ {
			b[k] = 0
		}
	case mode == 0:
		b[at] ^= byte(1 << rng.Intn(8))
	case mode == 1:
		b[at] = 0
	case mode == 2:
		// A run of zeros (a record length of 0 followed by the end of
		// the records, say), within the chunk.
		for k := at; k < min(at+2+uint64(rng.Intn(2)), end-4); k++ {
			b[k] = 0
		}
	default:
		b[at] = byte(rng.Intn(256))
	}
	n := end - 4
	binary.LittleEndian.PutUint32(b[n:], crc32c(b[start:n]))
	writeFile(t, fs, FileName(1, ComponentData), b)
	return pos
}

// scanState is what a streaming scan and its current partition hold after
// a step, for comparing two scans.
type scanState struct {
	Only, OK         bool
	Key              []byte
	Token            int64
	Deletion         data.DeletionTime
	Entry            indexEntry
	PartStats, Stats ReadStats
	OST              ReadStats
	Static           *data.Row
	StaticPos        uint64
	RTs              []data.RangeTombstone
	Raw              []byte
	Count, Spos      uint64
	LastTok          int64
	LastKey          []byte
	Done             bool
	Err              string
	Size             uint64
	CurIsScan, Spare bool
	OutLen           int
	Decoded          string
	ShadowCells      int
	ShadowOK         bool
}

func snapshotScan(it *scanIter, ps data.PartitionSource, out []byte, only, ok bool) scanState {
	s := scanState{Only: only, OK: ok, Stats: it.st, OST: it.ost, Count: it.count, Spos: it.spos,
		LastTok: it.lastTok, LastKey: append([]byte(nil), it.lastKey...), Done: it.done, OutLen: len(out),
		Raw: append([]byte(nil), it.oraw...)}
	if it.err != nil {
		s.Err = it.err.Error()
	}
	if ok {
		p := ps.(*Partition)
		s.Key, s.Token, s.Deletion = append([]byte(nil), p.Key()...), p.Token(), p.Deletion()
		s.Entry = p.e
		s.Entry.key = append([]byte(nil), p.e.key...)
		s.PartStats, s.Static, s.StaticPos, s.RTs = p.stats, p.static, p.staticPos, p.rts
		s.Size = p.Size()
		s.CurIsScan, s.Spare = p.cur == it.cur, p.spare == &it.rows
	}
	return s
}

// TestNextOnlyRecordInChunkMatchesGeneral reads random tables of mostly
// one-row partitions (each codec, small chunks, so that partitions
// straddle them), intact and with a byte of the stream damaged (the CRC
// recomputed), through two streaming scans: one with NextOnlyRecord's
// one-step path (nextOnlyInChunk) and one without. After every step, and
// whatever is done with the partition (decoded, judged shadowed, its rows
// read in full, in part or not at all), both must be in the same state:
// the partition's header fields, size, index entry and read statistics,
// the record found, the scan's position, count, order check and error.
func TestNextOnlyRecordInChunkMatchesGeneral(t *testing.T) {
	rng := rand.New(rand.NewSource(seed(t)))
	var steps, chunkSteps, damagedErrs int
	for trial := 0; trial < 90; trial++ {
		codec := []Codec{CodecNone, CodecS2, CodecZstd}[trial%3]
		damaged := codec == CodecNone && trial%2 == 1
		t.Run(fmt.Sprintf("%d-%s-damaged=%v", trial, codec, damaged), func(t *testing.T) {
			parts := onlyChunkPartitions(rng, 40+rng.Intn(200))
			fs := vfs.NewMem()
			opts := WriterOptions{Compression: Compression{Codec: codec, ChunkLength: 1 << (9 + rng.Intn(3))}, ColumnIndexSize: 256 + rng.Intn(1024), IndexInterval: 1 + rng.Intn(8)}
			writeTable(t, fs, "", 1, opts, parts)
			if damaged {
				damageStream(t, rng, fs)
			}
			tokens := map[string]int64{}
			for _, p := range parts {
				tokens[string(p.key)] = p.token
			}
			tokenOf := func(key []byte) int64 { return tokens[string(key)] }
			r, err := Open(fs, "", 1, ReaderOptions{SkipDigest: true})
			require.NoError(t, err)
			defer r.Close()
			ref := r.ScanStream(tokenOf).(*scanIter)
			ref.noChunkStep = true
			got := r.ScanStream(tokenOf).(*scanIter)
			var refBuf, gotBuf []byte
			var refRow, gotRow data.Row
			for step := 0; ; step++ {
				rps, rout, ronly, rok := ref.NextOnlyRecord(refBuf[:0])
				gps, gout, gonly, gok := got.NextOnlyRecord(gotBuf[:0])
				refBuf, gotBuf = rout, gout
				rs, gs := snapshotScan(ref, rps, rout, ronly, rok), snapshotScan(got, gps, gout, gonly, gok)
				require.Equal(t, rs, gs, "step %d", step)
				if !rok {
					if rs.Err != "" {
						damagedErrs++
					}
					break
				}
				steps++
				a := randomRow(rng, ckOf(rng.Intn(50)))
				switch mode := rng.Intn(4); {
				case ronly && mode < 2:
					rd, gd := ref.DecodeOnlyRow(&refRow), got.DecodeOnlyRow(&gotRow)
					require.Equal(t, rd, gd)
					if rd {
						require.Equal(t, normRow(cloneRow(&refRow)), normRow(cloneRow(&gotRow)))
					} else {
						readRowsAlike(t, rng, rps, gps, 3)
					}
				case ronly:
					rc, rk := ref.OnlyRowShadowedBy(&a)
					gc, gk := got.OnlyRowShadowedBy(&a)
					require.Equal(t, [2]any{rc, rk}, [2]any{gc, gk})
				default:
					readRowsAlike(t, rng, rps, gps, mode)
				}
				rs, gs = snapshotScan(ref, rps, rout, ronly, rok), snapshotScan(got, gps, gout, gonly, gok)
				require.Equal(t, rs, gs, "step %d, after reading", step)
			}
			chunkSteps += got.chunkSteps
			require.Zero(t, ref.chunkSteps)
			require.NoError(t, ref.Close())
			require.NoError(t, got.Close())
			require.Equal(t, ref.r.ReadStats(), got.r.ReadStats())
		})
	}
	t.Logf("%d steps, %d in one step, %d damaged tables refused", steps, chunkSteps, damagedErrs)
	require.Greater(t, chunkSteps, steps/2, "the one-step path is taken")
	require.Greater(t, damagedErrs, 0, "some damage is found")
}

// readRowsAlike reads the rows of two views of one partition the same
// way (mode 0: not at all, 1: the first, 2 or more: all), requiring the
// same rows and error.
func readRowsAlike(t *testing.T, rng *rand.Rand, a, b data.PartitionSource, mode int) {
	t.Helper()
	if mode == 0 {
		return
	}
	ra, rb := a.Rows(nil, false), b.Rows(nil, false)
	for k := 0; mode >= 2 || k < 1; k++ {
		x, xok := ra.Next()
		y, yok := rb.Next()
		require.Equal(t, xok, yok)
		if !xok {
			break
		}
		require.Equal(t, normRow(cloneRow(x)), normRow(cloneRow(y)))
	}
	require.Equal(t, fmt.Sprint(ra.Err()), fmt.Sprint(rb.Err()))
	if rng.Intn(2) == 0 {
		require.NoError(t, ra.Close())
		require.NoError(t, rb.Close())
	}
}

// FuzzNextOnlyRecordInChunk overwrites bytes of the partition stream of an
// uncompressed table of mostly one-row partitions (the input: a two-byte
// stream position, then the bytes written there), recomputes the chunks'
// CRCs so that only the decoding can tell, and reads it through two
// streaming scans, with NextOnlyRecord's one-step path and without: they
// must be in the same state after every step, errors included, and
// neither may panic.
func FuzzNextOnlyRecordInChunk(f *testing.F) {
	parts := onlyChunkPartitions(rand.New(rand.NewSource(3)), 60)
	fs := vfs.NewMem()
	writeTable(f, fs, "", 1, WriterOptions{Compression: Compression{Codec: CodecNone, ChunkLength: 512}, IndexInterval: 4}, parts)
	files := map[Component][]byte{}
	for _, c := range Components {
		files[c] = readFile(f, fs, FileName(1, c))
	}
	tokens := map[string]int64{}
	for _, p := range parts {
		tokens[string(p.key)] = p.token
	}
	r, err := Open(fs, "", 1, ReaderOptions{})
	if err != nil {
		f.Fatal(err)
	}
	offs, chunkLen, dataLen := r.chunkOffsets, r.chunkLen, r.dataLen
	_ = r.Close()
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 40, 0, 0})
	f.Add([]byte{1, 3, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		stream := append([]byte(nil), files[ComponentData]...)
		pos := uint64(in[0])<<8 | uint64(in[1])
		for _, c := range in[2:] {
			if pos >= dataLen {
				break
			}
			i := pos / chunkLen
			stream[offs[i]+1+pos-i*chunkLen] = c
			pos++
		}
		for i, start := range offs {
			end := uint64(len(stream))
			if i+1 < len(offs) {
				end = offs[i+1]
			}
			binary.LittleEndian.PutUint32(stream[end-4:], crc32c(stream[start:end-4]))
		}
		dfs := fuzzFS(files, ComponentData, stream)
		r, err := Open(dfs, "", 1, ReaderOptions{SkipDigest: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		tokenOf := func(key []byte) int64 { return tokens[string(key)] }
		ref := r.ScanStream(tokenOf).(*scanIter)
		ref.noChunkStep = true
		got := r.ScanStream(tokenOf).(*scanIter)
		var refBuf, gotBuf []byte
		var refRow, gotRow data.Row
		for step := 0; step < 10_000; step++ {
			rps, rout, ronly, rok := ref.NextOnlyRecord(refBuf[:0])
			gps, gout, gonly, gok := got.NextOnlyRecord(gotBuf[:0])
			refBuf, gotBuf = rout, gout
			require.Equal(t, snapshotScan(ref, rps, rout, ronly, rok), snapshotScan(got, gps, gout, gonly, gok), "step %d", step)
			if !rok {
				break
			}
			if ronly && step%2 == 0 {
				require.Equal(t, ref.DecodeOnlyRow(&refRow), got.DecodeOnlyRow(&gotRow))
			} else if !ronly {
				readRowsAlike(t, rand.New(rand.NewSource(int64(step))), rps, gps, step%3)
			}
			require.Equal(t, snapshotScan(ref, rps, rout, ronly, rok), snapshotScan(got, gps, gout, gonly, gok), "step %d, after reading", step)
		}
	})
}
