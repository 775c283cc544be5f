package vfs

import (
	"fmt"
	"testing"
)

// BenchmarkMemWriteSync measures appending 1 KiB writes followed by Sync on
// the plain and the crashable in-memory FS; the crashable one copies only
// the bytes appended since the previous Sync.
func BenchmarkMemWriteSync(b *testing.B) {
	for _, crashable := range []bool{false, true} {
		b.Run(fmt.Sprintf("crashable=%v", crashable), func(b *testing.B) {
			m := NewMem()
			if crashable {
				m = NewCrashableMem()
			}
			f, err := m.Create("f")
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 1024)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if _, err := f.Write(buf); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
