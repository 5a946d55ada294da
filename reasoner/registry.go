package reasoner

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Factory builds a method from its dependencies and parameters. It must
// reject unknown parameters and wrongly typed values (see Params).
type Factory func(Deps, Params) (Reasoner, error)

// Method describes one registered method.
type Method struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Registry maps method names to factories. The zero value is ready to use
// and it is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	entries map[string]entry
}

type entry struct {
	desc string
	f    Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Register adds a method. Registering an empty name, a nil factory or a
// name twice is a programming error and panics (as http.Handle does).
func (r *Registry) Register(name, description string, f Factory) {
	if name == "" || f == nil {
		panic("reasoner: Register needs a name and a factory")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		r.entries = map[string]entry{}
	}
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("reasoner: method %q registered twice", name))
	}
	r.entries[name] = entry{desc: description, f: f}
}

// New builds a method spec (see Build): a registered name, or a
// composition "primary->fallback" ("tot->cot") whose primary gets params
// and whose fallback runs with its defaults. Unknown names list the
// registered ones.
func (r *Registry) New(spec string, deps Deps, params Params) (Reasoner, error) {
	primary, _, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return r.Build(spec, deps, func(method string) Params {
		if method == primary {
			return params
		}
		return nil
	})
}

// newMethod builds one registered method.
func (r *Registry) newMethod(name string, deps Deps, params Params) (Reasoner, error) {
	r.mu.RLock()
	e, ok := r.entries[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown reasoning method %q (registered: %v)", name, r.Names())
	}
	rs, err := e.f(deps, params)
	if err != nil {
		return nil, fmt.Errorf("method %s: %w", name, err)
	}
	return rs, nil
}

// Names returns the registered method names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Methods returns the registered methods with their descriptions, sorted
// by name.
func (r *Registry) Methods() []Method {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Method, 0, len(r.entries))
	for n, e := range r.entries {
		out = append(out, Method{Name: n, Description: e.desc})
	}
	slices.SortFunc(out, func(a, b Method) int { return strings.Compare(a.Name, b.Name) })
	return out
}
