package commitlog

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/minicass/minicass/vfs"
)

// FuzzReplay replays arbitrary bytes as the only segment, and as the first
// of two segments. Replay must not panic, must fail only with corruption,
// and every payload it returns must carry a valid checksum (re-framing it
// must reproduce the bytes at its position).
func FuzzReplay(f *testing.F) {
	f.Add(appendRecord(appendHeader(nil, 1), []byte("hi")))
	f.Add(appendRecord(appendRecord(appendHeader(nil, 1), []byte("a")), nil))
	f.Add(appendHeader(nil, 1)[:10])
	f.Add(append(appendHeader(nil, 1), make([]byte, 16)...))
	f.Add([]byte("MCCL garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, second := range []bool{false, true} {
			mem := vfs.NewMem()
			if err := mem.MkdirAll("cl", 0o755); err != nil {
				t.Fatal(err)
			}
			write := func(name string, b []byte) {
				fl, err := mem.Create(name)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := fl.Write(b); err != nil {
					t.Fatal(err)
				}
				fl.Close()
			}
			write("cl/CommitLog-1.log", data)
			if second {
				write("cl/CommitLog-2.log", appendRecord(appendHeader(nil, 2), []byte("z")))
			}
			err := Replay(mem, "cl", func(pos Position, p []byte) error {
				if pos.Segment == 1 {
					rec := appendRecord(nil, p)
					if !bytes.Equal(data[pos.Offset:pos.Offset+int64(len(rec))], rec) {
						t.Fatalf("payload at %v does not match its framing", pos)
					}
				}
				return nil
			})
			if err != nil && !errors.Is(err, ErrCorruption) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			// Dump must describe any bytes without failing.
			if err := Dump(io.Discard, mem, "cl"); err != nil {
				t.Fatalf("dump: %v", err)
			}
			// Open must also cope (repairing or refusing, never panicking).
			if l, err := Open(mem, "cl", Options{SyncMode: SyncNone}); err == nil {
				l.Close()
			} else if !errors.Is(err, ErrCorruption) {
				t.Fatalf("open: unexpected error kind: %v", err)
			}
		}
	})
}
