package engine

import "github.com/minicass/minicass/memtable"

type memtableMT = memtable.Memtable

func newMT() *memtable.Memtable { return memtable.New() }
