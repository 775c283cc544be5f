// Package javaudf runs the bodies of LANGUAGE java user-defined functions.
// This file is a placeholder of its API until branch javaudf is merged.
package javaudf

import (
	"context"
	"errors"

	"github.com/minicass/minicass/types"
)

// ErrUnsupported marks a body outside the interpreter's subset.
var ErrUnsupported = errors.New("javaudf: unsupported Java construct")

// ErrTimeout is returned by Call when the context ends while the body runs.
var ErrTimeout = errors.New("javaudf: user function timed out")

// Param is one argument of a function.
type Param struct {
	Name string
	Type types.Type
}

// Options are the compilation settings.
type Options struct {
	UserType func(name string) (types.Type, bool)
}

// Function is a compiled body.
type Function struct{}

// Exception is a Java exception thrown by a body.
type Exception struct{ Class, Message string }

func (e *Exception) Error() string { return e.Class + ": " + e.Message }

// Compile compiles a body.
func Compile(params []Param, ret types.Type, body string, opts Options) (*Function, error) {
	return &Function{}, nil
}

// Call runs the body.
func (f *Function) Call(ctx context.Context, args []any) (any, error) {
	return nil, ErrUnsupported
}
