package query

import (
	"context"
	"errors"
	"fmt"

	cquery "github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"
	"github.com/dop251/goja"
)

// runnerName is the global through which a sandboxed session runs a
// program (see sandboxedSession).
const runnerName = "__groveRun"

// sandboxedSession is a sandboxed Gizmo session. Gizmo exports the value
// of a program's last expression statement (its completion value) after
// the program ends, in its own goroutine; a cyclic, very deep or very long
// value there would be as fatal as one passed to a native function. So the
// session does not give Gizmo the program itself but a call of a native
// runner that evaluates the program (the runtime's own global eval, so
// scoping and results are those of a script) and returns a sanitized copy
// of its completion value.
type sandboxedSession struct {
	s  *gizmo.Session
	sb *sandboxVM
	// src is the program of the current Execute.
	src string
}

// newSandboxedSession installs the runner in the sandboxed session s.
func newSandboxedSession(s *gizmo.Session, sb *sandboxVM) (*sandboxedSession, error) {
	ss := &sandboxedSession{s: s, sb: sb}
	if err := sb.vm.Set(runnerName, ss.run); err != nil {
		return nil, err
	}
	return ss, nil
}

// run evaluates the program and returns its completion value made safe to
// export. Under the JSON collations Grove uses the value is only a
// placeholder (a null result), so a value sanitize refuses is replaced by
// a string saying so rather than failing a program that ran.
func (ss *sandboxedSession) run(goja.FunctionCall) goja.Value {
	v, err := ss.sb.eval(goja.Undefined(), ss.sb.vm.ToValue(ss.src))
	if err != nil {
		panic(err)
	}
	safe, err := ss.sb.sanitize(v, "the program", "value")
	if err != nil {
		return ss.sb.vm.ToValue("(the program's value was not exported: " + err.Error() + ")")
	}
	return safe
}

// Execute runs qu through the runner; the iterator reports a stack
// overflow as one.
func (ss *sandboxedSession) Execute(ctx context.Context, qu string, opt cquery.Options) (cquery.Iterator, error) {
	if err := checkSource(qu); err != nil {
		return nil, err
	}
	// A syntax error is an error of Execute, as without the runner.
	if _, err := goja.Compile("", qu, false); err != nil {
		return nil, err
	}
	ss.src = qu
	it, err := ss.s.Execute(ctx, runnerName+"()", opt)
	if err != nil {
		return nil, err
	}
	return stackIterator{it}, nil
}

// stackIterator is a Gizmo iterator whose error says so when the program
// overflowed its call stack (goja's own text is only the stack trace).
type stackIterator struct{ cquery.Iterator }

func (it stackIterator) Err() error {
	err := it.Iterator.Err()
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return fmt.Errorf("stack overflow: the call stack is deeper than %d frames (unbounded recursion?):%w",
			maxCallStack, err)
	}
	return err
}
