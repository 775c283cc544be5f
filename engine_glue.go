package minicass

import "github.com/minicass/minicass/engine"

// engineOptions translates Options into the engine's options.
func engineOptions(o Options) engine.Options {
	eo := engine.Options{Dir: o.Dir, Logger: o.Logger, MemtableSize: o.MemtableSize}
	if o.Clock != nil {
		eo.Clock = o.Clock
	}
	return eo
}
