package shell

import "errors"

// ErrUsage reports bad command-line flags or a bad Config.
var ErrUsage = errors.New("shell: usage")
