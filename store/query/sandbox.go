package query

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/cayleygraph/cayley/graph"
	cquery "github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"
	"github.com/dop251/goja"
)

// Gizmo evaluates a program in a goroutine of its own (results.Next in
// Cayley's query/gizmo), and Gizmo's native functions have bugs that panic
// on some arguments (g.V().Except(g).All() dereferences a nil path while
// building the iterator). A panic there is out of reach of any recover of
// the caller and of the Guard's (which only sees the store), so it would end
// the process. The sandbox puts a recover boundary between the JavaScript
// program and every native function it can reach: the globals of a Gizmo
// session (g, graph and the value helpers iri, str, lt, regex, ...) are
// replaced by wrappers that call the original with a deferred recover, and
// every object a native call returns (paths, morphisms) is wrapped the same
// way. A recovered panic becomes a JavaScript exception, which ends the
// program with an error, and is recorded as a *PanicError on the session's
// Guard. Arguments are checked and copied first (sanitize, args.go: no
// cycle, bounded depth and size, wrapped objects unwrapped again), so Gizmo
// sees the values it would without the sandbox, or the program gets a
// TypeError. The program's builtins are limited (limits.go), and it is run
// through a runner that bounds its last value too (session.go).
//
// The session's JavaScript runtime is a private field of gizmo.Session; it
// is read by reflection, checking its name and type, so a Cayley upgrade
// that changes it fails the sandbox tests instead of misbehaving.

// registerGizmo replaces the Gizmo language Cayley registers with the same
// language whose sessions are sandboxed. It runs once, after Cayley's own
// registration (this package imports query/gizmo).
var registerGizmo = sync.OnceFunc(func() {
	limitRegexps()
	l := cquery.GetLanguage(gizmo.Name)
	if l == nil {
		return
	}
	lang := *l
	lang.Session = func(qs graph.QuadStore) cquery.Session { return newSandboxedGizmo(qs) }
	cquery.RegisterLanguage(lang)
})

func init() { registerGizmo() }

// maxCallStack bounds the JavaScript call depth of a Gizmo program.
const maxCallStack = 10000

// sandboxEnv names the session globals that are native values.
var sandboxEnv = []string{"graph", "iri", "bnode", "raw", "str", "lang", "typed",
	"lt", "lte", "gt", "gte", "regex", "like"}

// newSandboxedGizmo returns a Gizmo session over qs with the sandbox in
// place. Panics are recorded on qs when it is a *Guard.
func newSandboxedGizmo(qs graph.QuadStore) cquery.Session {
	s := gizmo.NewSession(qs)
	g, _ := qs.(*Guard)
	if g == nil {
		g = NewGuard(qs)
	}
	sb, err := sandbox(s, g)
	if err != nil {
		return failedSession{err}
	}
	ss, err := newSandboxedSession(s, sb)
	if err != nil {
		return failedSession{err}
	}
	return ss
}

// failedSession is a session that could not be sandboxed: every query
// fails with the reason rather than running unprotected.
type failedSession struct{ err error }

func (f failedSession) Execute(context.Context, string, cquery.Options) (cquery.Iterator, error) {
	return nil, f.err
}

// sessionRuntime reads the private JavaScript runtime of a Gizmo session.
func sessionRuntime(s *gizmo.Session) (*goja.Runtime, error) {
	f := reflect.ValueOf(s).Elem().FieldByName("vm")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*goja.Runtime)(nil)) {
		return nil, errors.New("gizmo sandbox: this Cayley version's gizmo.Session has no vm *goja.Runtime field")
	}
	vm := *(**goja.Runtime)(unsafe.Pointer(f.UnsafeAddr()))
	if vm == nil {
		return nil, errors.New("gizmo sandbox: the session has no JavaScript runtime")
	}
	return vm, nil
}

// sandbox wraps the session's globals and limits its builtins.
func sandbox(s *gizmo.Session, g *Guard) (*sandboxVM, error) {
	vm, err := sessionRuntime(s)
	if err != nil {
		return nil, err
	}
	// Unbounded recursion in a program fails with a stack overflow error
	// instead of growing the heap until the process is killed.
	vm.SetMaxCallStackSize(maxCallStack)
	// The runner evaluates the program with the original eval: the
	// program's source was checked by Execute, and the eval programs call
	// is replaced by limitBuiltins.
	eval, ok := goja.AssertFunction(vm.Get("eval"))
	if !ok {
		return nil, errors.New("gizmo sandbox: the runtime has no eval")
	}
	sb := &sandboxVM{vm: vm, g: g, orig: map[*goja.Object]*goja.Object{}, eval: eval}
	if err := sb.limitBuiltins(); err != nil {
		return nil, err
	}
	for _, name := range sandboxEnv {
		v := vm.Get(name)
		if v == nil {
			return nil, fmt.Errorf("gizmo sandbox: global %q is missing", name)
		}
		if err := vm.Set(name, sb.wrap(v, nil, name)); err != nil {
			return nil, err
		}
	}
	// g is graph.
	return sb, vm.Set("g", vm.Get("graph"))
}

// sandboxVM is the sandbox of one session. It is used only by the
// goroutine running the session's program.
type sandboxVM struct {
	vm *goja.Runtime
	g  *Guard
	// orig maps each wrapper object to the native object it wraps.
	orig map[*goja.Object]*goja.Object
	// eval is the runtime's global eval as goja made it.
	eval goja.Callable
}

// wrap returns v with a recover boundary: a function becomes a guarded
// function bound to this (name names it in errors), and a native Go object a guarded dynamic object.
// Other values (primitives, JavaScript objects and arrays) are returned as
// they are.
func (sb *sandboxVM) wrap(v goja.Value, this goja.Value, name string) goja.Value {
	obj, ok := v.(*goja.Object)
	if !ok || obj == nil {
		return v
	}
	if _, wrapped := sb.orig[obj]; wrapped {
		return obj
	}
	if fn, ok := goja.AssertFunction(obj); ok {
		if this == nil {
			this = goja.Undefined()
		}
		return sb.vm.ToValue(func(call goja.FunctionCall) goja.Value {
			return sb.call(name, fn, this, call.Arguments)
		})
	}
	if !isNative(obj) {
		return v
	}
	w := sb.vm.NewDynamicObject(&guardedObject{sb: sb, obj: obj})
	sb.orig[w] = obj
	return w
}

// isNative reports whether obj reflects a Go pointer (a Gizmo path,
// morphism or graph object).
func isNative(obj *goja.Object) bool {
	switch obj.ClassName() {
	case "Object":
	default:
		return false
	}
	// ExportType, not Export: exporting a JavaScript value walks it.
	t := obj.ExportType()
	return t != nil && t.Kind() == reflect.Pointer
}

// unwrap replaces a wrapper object by the native object it wraps.
func (sb *sandboxVM) unwrap(v goja.Value) goja.Value {
	if obj, ok := v.(*goja.Object); ok && obj != nil {
		if o, ok := sb.orig[obj]; ok {
			return o
		}
	}
	return v
}

// call calls the native function name behind a recover boundary. Each
// argument is checked and copied by sanitize first (a refused one is a
// TypeError); a panic of Gizmo's argument converters (a value of a type
// the method does not take) is a TypeError too, any other panic is
// recorded on the Guard and thrown as an error.
func (sb *sandboxVM) call(name string, fn goja.Callable, this goja.Value, args []goja.Value) (ret goja.Value) {
	in := make([]goja.Value, len(args))
	for i, a := range args {
		v, err := sb.sanitize(a, name, fmt.Sprintf("argument %d", i+1))
		if err != nil {
			panic(sb.vm.NewTypeError("%v", err))
		}
		in[i] = v
	}
	defer func() {
		if v := recover(); v != nil {
			if isGojaControl(v) {
				panic(v)
			}
			p := &PanicError{Value: v, Stack: debug.Stack()}
			if isArgConversion(p) {
				panic(sb.vm.NewTypeError("%s: bad argument: %v", name, v))
			}
			panic(sb.vm.NewGoError(sb.g.recovered(v)))
		}
	}()
	out, err := fn(sb.unwrap(this), in...)
	if err != nil {
		// A JavaScript exception thrown by the native code (a bad
		// argument) or an interruption: pass it on unchanged.
		panic(err)
	}
	return sb.wrap(out, nil, name)
}

// argConverters are Gizmo's functions that convert exported arguments and
// panic (rather than fail) on a value of a type they do not take.
var argConverters = []string{
	"github.com/cayleygraph/cayley/query/gizmo.toVia",
	"github.com/cayleygraph/cayley/query/gizmo.toStrings",
}

// isArgConversion reports whether a panic was raised by one of Gizmo's
// argument converters: the program passed a bad argument.
func isArgConversion(p *PanicError) bool {
	_, isErr := p.Value.(error)
	return isErr && slices.Contains(argConverters, p.Origin())
}

// isGojaControl reports whether a panic value is goja's own control flow
// (a thrown JavaScript exception, an interruption, a stack overflow),
// which goja handles itself.
func isGojaControl(v any) bool {
	switch v.(type) {
	case *goja.Exception, *goja.InterruptedError, *goja.StackOverflowError, goja.Value:
		return true
	}
	return false
}

// guardedObject is a dynamic object standing for a native object: its
// methods are called behind the recover boundary.
type guardedObject struct {
	sb  *sandboxVM
	obj *goja.Object
}

func (o *guardedObject) Get(key string) goja.Value {
	v := o.obj.Get(key)
	if v == nil {
		return nil
	}
	if fn, ok := goja.AssertFunction(v); ok && pathArgMethods[strings.ToLower(key)] {
		return o.sb.vm.ToValue(func(call goja.FunctionCall) goja.Value {
			o.sb.checkPathArgs(key, call.Arguments)
			return o.sb.call(key, fn, o.obj, call.Arguments)
		})
	}
	return o.sb.wrap(v, o.obj, key)
}

// pathArgMethods are the Gizmo path methods whose arguments are paths.
// Gizmo converts any other object passed to them into an empty path that
// crashes later; the sandbox refuses it up front with a TypeError.
var pathArgMethods = map[string]bool{"and": true, "difference": true, "except": true, "follow": true,
	"followr": true, "intersect": true, "or": true, "union": true}

// checkPathArgs throws a TypeError unless every object argument is a
// Gizmo path or morphism.
func (sb *sandboxVM) checkPathArgs(method string, args []goja.Value) {
	for i, a := range args {
		obj, ok := sb.unwrap(a).(*goja.Object)
		if !ok || obj == nil {
			continue
		}
		t := obj.ExportType()
		if t == nil || t.Kind() != reflect.Pointer || t.Elem().Name() != "pathObject" {
			panic(sb.vm.NewTypeError("%s: argument %d must be a path or morphism (g.V(...), g.M(...)), not %s",
				method, i+1, describeArg(obj)))
		}
	}
}

// describeArg names a bad argument for an error message.
func describeArg(obj *goja.Object) string {
	if isGraphObject(obj) {
		return "the graph object g"
	}
	return "a " + obj.ClassName()
}

func (o *guardedObject) Set(key string, val goja.Value) bool {
	v, err := o.sb.sanitize(val, key, "the value set")
	if err != nil {
		panic(o.sb.vm.NewTypeError("%v", err))
	}
	return o.obj.Set(key, v) == nil
}

func (o *guardedObject) Has(key string) bool { return o.obj.Get(key) != nil }

func (o *guardedObject) Delete(key string) bool { return o.obj.Delete(key) == nil }

func (o *guardedObject) Keys() []string { return o.obj.Keys() }
