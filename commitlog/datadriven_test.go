package commitlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/minicass/minicass/vfs"
	"github.com/stretchr/testify/require"
)

// TestDataDriven runs the scripts in testdata/log on a crashable in-memory
// FS, directory "cl". Commands:
//
//	open [mode=periodic|batch|none] [segment-size=N]
//	append            one payload per input line; prints positions
//	sync | close | tail | segments | replay | dump | ls
//	crash             replaces the FS by its CrashClone; the open log is abandoned
//	release segment=N offset=M
//	corrupt file=NAME offset=N [xor=N]
//	truncate file=NAME size=N
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/log", func(t *testing.T, path string) {
		mem := vfs.NewCrashableMem()
		var l *Log
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var b strings.Builder
			errOut := func(err error) string {
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return "ok\n"
			}
			switch d.Cmd {
			case "append", "sync", "close", "tail", "segments", "release":
				require.NotNil(t, l, "%s: no open log", d.Pos)
			}
			switch d.Cmd {
			case "open":
				opts := Options{NewTicker: newManualTicker().factory}
				if d.HasArg("mode") {
					var mode string
					d.ScanArgs(t, "mode", &mode)
					opts.SyncMode = map[string]SyncMode{"periodic": SyncPeriodic, "batch": SyncBatch, "none": SyncNone}[mode]
				}
				if d.HasArg("segment-size") {
					var n int
					d.ScanArgs(t, "segment-size", &n)
					opts.SegmentSize = int64(n)
				}
				nl, err := Open(mem, "cl", opts)
				if err == nil {
					l = nl
				}
				return errOut(err)
			case "append":
				for _, line := range strings.Split(d.Input, "\n") {
					pos, err := l.Append([]byte(line))
					if err != nil {
						fmt.Fprintf(&b, "%q: error: %v\n", line, err)
						continue
					}
					fmt.Fprintf(&b, "%q at %v\n", line, pos)
				}
				return b.String()
			case "sync":
				return errOut(l.Sync())
			case "close":
				return errOut(l.Close())
			case "tail":
				return l.Tail().String() + "\n"
			case "segments":
				for _, s := range l.Segments() {
					fmt.Fprintf(&b, "%s id=%d size=%d active=%v\n", s.Name, s.ID, s.Size, s.Active)
				}
				return b.String()
			case "release":
				var seg uint64
				var off int64
				d.ScanArgs(t, "segment", &seg)
				d.ScanArgs(t, "offset", &off)
				return errOut(l.ReleaseBefore(Position{seg, off}))
			case "crash":
				mem = mem.CrashClone()
				l = nil
				return "ok\n"
			case "replay":
				err := Replay(mem, "cl", func(pos Position, p []byte) error {
					fmt.Fprintf(&b, "%v %q\n", pos, p)
					return nil
				})
				if err != nil {
					fmt.Fprintf(&b, "error: %v\n", err)
				}
				return b.String()
			case "dump":
				require.NoError(t, Dump(&b, mem, "cl"))
				return b.String()
			case "ls":
				names, err := mem.List("cl")
				require.NoError(t, err)
				return strings.Join(names, "\n") + "\n"
			case "corrupt", "truncate":
				var file string
				d.ScanArgs(t, "file", &file)
				data, err := readAll(mem, "cl/"+file)
				require.NoError(t, err)
				if d.Cmd == "corrupt" {
					var off int
					xor := 0xff
					d.ScanArgs(t, "offset", &off)
					if d.HasArg("xor") {
						d.ScanArgs(t, "xor", &xor)
					}
					data[off] ^= byte(xor)
				} else {
					var size int
					d.ScanArgs(t, "size", &size)
					data = data[:size]
				}
				f, err := mem.Create("cl/" + file)
				require.NoError(t, err)
				_, err = f.Write(data)
				require.NoError(t, err)
				require.NoError(t, f.Sync())
				require.NoError(t, f.Close())
				return "ok\n"
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
