package query

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
)

// Limits on the JavaScript values a Gizmo program hands to a native
// function. Gizmo exports every argument to Go (goja's Export) and walks the
// result recursively (gizmo.unwrap) with no depth or cycle check: a cyclic
// value (var a = {}; a.a = a) or a very deep one overflows the Go stack,
// which is fatal, and an array with a huge length (a.length = 4294967295)
// makes Export allocate that many elements at once, which is fatal too. So
// the sandbox walks each argument first, iteratively and within these
// bounds, and hands Gizmo a fresh copy of what it walked (a getter cannot
// return one value to the check and another to Gizmo).
const (
	// maxArgDepth is how deeply arrays and objects may nest in an argument.
	maxArgDepth = 1000
	// maxArgValues is how many values an argument may hold in all,
	// counting a value reached twice twice (as Gizmo's walk does).
	maxArgValues = 1 << 20
)

// argError is a refused argument: its text names the function, the
// argument and the reason, and it is thrown to the program as a TypeError.
type argError struct {
	fn, what, reason string
}

func (e *argError) Error() string {
	return fmt.Sprintf("%s: %s %s", e.fn, e.what, e.reason)
}

// copyFrame is one array or object being copied by sanitize.
type copyFrame struct {
	src, dst *goja.Object
	keys     []string // object keys; nil for an array
	n, i     int      // number of elements (arrays) or keys, next one
	depth    int
}

// sanitize returns a copy of v that is safe to export: arrays and plain
// objects are copied (wrappers of native objects replaced by the objects
// they wrap), and everything else is kept as it is. It refuses a value
// nested deeper than maxArgDepth, holding more than maxArgValues values,
// holding itself, holding a Map or Set (whose export is recursive too), or
// holding the graph object g (no Gizmo function takes it). fn and what name
// the function and the argument in the error.
func (sb *sandboxVM) sanitize(v goja.Value, fn, what string) (goja.Value, error) {
	fail := func(format string, a ...any) error {
		return &argError{fn: fn, what: what, reason: fmt.Sprintf(format, a...)}
	}
	count := 1
	top, frame, err := sb.copyOf(v, 1, fail)
	if err != nil || frame == nil {
		return top, err
	}
	onPath := map[*goja.Object]bool{frame.src: true}
	stack := []*copyFrame{frame}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		if f.i == f.n {
			delete(onPath, f.src)
			stack = stack[:len(stack)-1]
			continue
		}
		key := strconv.Itoa(f.i)
		if f.keys != nil {
			key = f.keys[f.i]
		}
		f.i++
		if count++; count > maxArgValues {
			return nil, fail("holds more than %d values", maxArgValues)
		}
		child, next, err := sb.copyOf(f.src.Get(key), f.depth+1, fail)
		if err != nil {
			return nil, err
		}
		if next != nil {
			if onPath[next.src] {
				return nil, fail("contains a cycle (an array or object that holds itself)")
			}
			if count+next.n > maxArgValues {
				return nil, fail("holds more than %d values", maxArgValues)
			}
			onPath[next.src] = true
			stack = append(stack, next)
		}
		if err := f.dst.DefineDataProperty(key, child, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, fail("could not be copied: %v", err)
		}
	}
	return top, nil
}

// copyOf returns the copy of one value at depth: a leaf as it is (or the
// native object a wrapper stands for), or an empty array or object with the
// frame that fills it.
func (sb *sandboxVM) copyOf(v goja.Value, depth int, fail func(string, ...any) error) (goja.Value, *copyFrame, error) {
	obj, ok := v.(*goja.Object)
	if !ok || obj == nil {
		return v, nil, nil
	}
	if o, ok := sb.orig[obj]; ok {
		obj = o
	}
	if isGraphObject(obj) {
		return nil, nil, fail("must not be the graph object g")
	}
	kind := containerKind(obj)
	if kind == "" {
		return obj, nil, nil
	}
	if depth > maxArgDepth {
		return nil, nil, fail("is nested deeper than %d levels", maxArgDepth)
	}
	switch kind {
	case "Map", "Set":
		return nil, nil, fail("holds a %s, which Gizmo cannot take (use an array or an object)", kind)
	case "Array":
		n := obj.Get("length").ToInteger()
		if n > maxArgValues {
			return nil, nil, fail("holds an array of %d elements, over the limit of %d values", n, maxArgValues)
		}
		dst := sb.vm.NewArray()
		return dst, &copyFrame{src: obj, dst: dst, n: int(n), depth: depth}, nil
	default:
		keys := obj.Keys()
		dst := sb.vm.NewObject()
		return dst, &copyFrame{src: obj, dst: dst, keys: keys, n: len(keys), depth: depth}, nil
	}
}

var (
	typeOfArray    = reflect.TypeOf([]any(nil))
	typeOfObject   = reflect.TypeOf(map[string]any(nil))
	typeOfMapPairs = reflect.TypeOf([][2]any(nil))
)

// containerKind tells, by what goja exports them as, the values whose
// export walks into JavaScript values: "Array" (arrays, arguments, Go []any
// slices), "Object" (plain objects, errors, regexps, Go map[string]any),
// "Map" and "Set"; "" for the rest (primitives' wrappers, functions, dates,
// typed arrays, proxies, native Go values), whose export does not.
func containerKind(obj *goja.Object) string {
	t := obj.ExportType()
	switch c := obj.ClassName(); {
	case c == "Arguments", c == "Array" && t == typeOfArray:
		return "Array"
	case t == typeOfArray:
		return "Set"
	case t == typeOfMapPairs:
		return "Map"
	case t == typeOfObject && !isNative(obj):
		return "Object"
	}
	return ""
}

// isGraphObject reports whether obj is Gizmo's graph object (g, graph).
func isGraphObject(obj *goja.Object) bool {
	t := obj.ExportType()
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Name() == "graphObject"
}
