// Package cayleysrc finds test material in the source of the pinned Cayley
// module (github.com/cayleygraph/cayley in the Go module cache), so that
// Grove's tests can run Cayley's own suites and reuse their queries without
// copying anything from Cayley into this repository. It is for tests only.
package cayleysrc

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Module is the Cayley module path.
const Module = "github.com/cayleygraph/cayley"

// Dir returns the directory of the Cayley module this build uses, asking
// the go command (which is present whenever tests run).
func Dir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", Module).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("locating %s (go list -m): %w", Module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("%s is not downloaded (run go mod download)", Module)
	}
	return dir, nil
}

// IntegrationQueries returns the Gizmo programs of Cayley's integration
// suite (the query fields of the queries table in
// graph/graphtest/integration.go, with string constants resolved).
func IntegrationQueries() ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "graph", "graphtest", "integration.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	consts := map[string]string{}
	var table *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if i >= len(vs.Values) {
				break
			}
			if s, ok := stringLit(vs.Values[i], nil); ok {
				consts[name.Name] = s
			}
			if cl, ok := vs.Values[i].(*ast.CompositeLit); ok && name.Name == "queries" {
				table = cl
			}
		}
		return true
	})
	if table == nil {
		return nil, fmt.Errorf("%s: no queries table", path)
	}
	var out []string
	for _, el := range table.Elts {
		cl, ok := el.(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, kv := range cl.Elts {
			kv, ok := kv.(*ast.KeyValueExpr)
			if id, isID := kv.Key.(*ast.Ident); !ok || !isID || id.Name != "query" {
				continue
			}
			s, ok := stringLit(kv.Value, consts)
			if !ok {
				return nil, fmt.Errorf("%s: a query is not a string constant expression", path)
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries found", path)
	}
	return out, nil
}

// stringLit evaluates a string literal, a known constant, or a sum of them.
func stringLit(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok1 := stringLit(e.X, consts)
		b, ok2 := stringLit(e.Y, consts)
		return a + b, ok1 && ok2
	}
	return "", false
}
