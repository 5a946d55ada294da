package grbench

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	json "github.com/goccy/go-json"
)

// XSD number datatypes; numbers keep their lexical form ("568480.0") so that
// answers compare exactly with what GRBench's Python code prints.
const (
	xsdInteger = "http://www.w3.org/2001/XMLSchema#integer"
	xsdDouble  = "http://www.w3.org/2001/XMLSchema#double"
)

// featureValue is one flattened feature: name "a.b" and its literal.
type featureValue struct {
	name  string
	value quad.Value
}

// fieldError is a bad value at a path inside a node ("features.year[2]").
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return e.path + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// flattenFeatures turns a node's "features" object into literal values:
// strings, numbers and booleans give one value each; lists give one value
// per element (nested lists are flattened); objects are flattened with
// dotted names ("a": {"b": 1} gives "a.b"); null, empty strings and empty
// objects give nothing. Keys are visited in sorted order so output is
// deterministic.
func flattenFeatures(features map[string]any, out []featureValue) ([]featureValue, error) {
	for _, k := range sortedKeys(features) {
		if k == "" {
			return out, &fieldError{"features", errors.New("empty feature name")}
		}
		var err error
		if out, err = flattenValue(k, "features."+k, features[k], out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// flattenValue appends the literals of v under the feature name; path is the
// JSON path for errors.
func flattenValue(name, path string, v any, out []featureValue) ([]featureValue, error) {
	switch x := v.(type) {
	case nil:
		return out, nil
	case string:
		if x == "" {
			return out, nil
		}
		return append(out, featureValue{name, quad.String(x)}), nil
	case bool:
		return append(out, featureValue{name, quad.Bool(x)}), nil
	case json.Number:
		lit, err := numberLiteral(string(x))
		if err != nil {
			return out, &fieldError{path, err}
		}
		return append(out, featureValue{name, lit}), nil
	case []any:
		var err error
		for i, e := range x {
			if out, err = flattenValue(name, fmt.Sprintf("%s[%d]", path, i), e, out); err != nil {
				return out, err
			}
		}
		return out, nil
	case map[string]any:
		var err error
		for _, k := range sortedKeys(x) {
			if k == "" {
				return out, &fieldError{path, errors.New("empty key in nested feature")}
			}
			if out, err = flattenValue(name+"."+k, path+"."+k, x[k], out); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	return out, &fieldError{path, fmt.Errorf("unsupported JSON value %T", v)}
}

// numberLiteral types a JSON number by its lexical form: integers as
// xsd:integer, anything with a fraction or exponent as xsd:double.
func numberLiteral(s string) (quad.Value, error) {
	if s == "" {
		return nil, errors.New("empty number")
	}
	if strings.ContainsAny(s, ".eE") {
		return quad.TypedString{Value: quad.String(s), Type: xsdDouble}, nil
	}
	return quad.TypedString{Value: quad.String(s), Type: xsdInteger}, nil
}

// textOf returns the search text of a flattened feature: the first value
// named name (a list's first element), rendered as plain text.
func textOf(features []featureValue, name string) string {
	for _, f := range features {
		if f.name != name {
			continue
		}
		switch v := f.value.(type) {
		case quad.String:
			return string(v)
		case quad.TypedString:
			return string(v.Value)
		}
		return ""
	}
	return ""
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
