package sstable

import (
	"math/rand"
	"testing"

	"github.com/minicass/minicass/data"
	"github.com/minicass/minicass/vfs"
)

// fuzzTable writes a small table with a row index and returns its files.
func fuzzTable(t testing.TB) map[Component][]byte {
	fs := vfs.NewMem()
	parts := randomPartitions(rand.New(rand.NewSource(7)), 4, 30)
	writeTable(t, fs, "", 1, WriterOptions{ColumnIndexSize: 200, IndexInterval: 2, Compression: Compression{ChunkLength: 512}}, parts)
	out := map[Component][]byte{}
	for _, c := range Components {
		out[c] = readFile(t, fs, FileName(1, c))
	}
	return out
}

// readEverything opens the table in fs and reads all it can; errors are
// expected, panics are not.
func readEverything(fs vfs.FS) {
	r, err := Open(fs, "", 1, ReaderOptions{})
	if err != nil {
		return
	}
	defer r.Close()
	_ = r.Verify() // the result does not matter, only that it does not panic
	it := r.Scan(data.FullRing)
	for {
		p, ok := it.Next()
		if !ok {
			break
		}
		for _, rev := range []bool{false, true} {
			ri := p.Rows(data.Slices{{Start: ckOf(3), End: ckOf(20)}}, rev)
			for {
				if _, ok := ri.Next(); !ok {
					break
				}
			}
			ri.Close()
		}
		if _, _, err := r.Get(p.Token(), p.Key()); err != nil {
			break
		}
	}
	it.Close()
}

func fuzzFS(files map[Component][]byte, c Component, b []byte) vfs.FS {
	fs := vfs.NewMem()
	for comp, content := range files {
		if comp == c {
			content = b
		}
		f, err := fs.Create(FileName(1, comp))
		if err != nil {
			panic(err)
		}
		if _, err := f.Write(content); err != nil {
			panic(err)
		}
		f.Close()
	}
	return fs
}

// FuzzReadData replaces Data.db of a valid table with the input and reads
// everything: it must never panic, and never loop.
func FuzzReadData(f *testing.F) {
	files := fuzzTable(f)
	f.Add(files[ComponentData])
	f.Fuzz(func(t *testing.T, b []byte) {
		readEverything(fuzzFS(files, ComponentData, b))
	})
}

// FuzzOpen replaces one component (chosen by the first input byte) of a
// valid table with the rest of the input, then opens and reads everything.
func FuzzOpen(f *testing.F) {
	files := fuzzTable(f)
	for i, c := range Components {
		f.Add(append([]byte{byte(i)}, files[c]...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		c := Components[int(b[0])%len(Components)]
		readEverything(fuzzFS(files, c, b[1:]))
	})
}
