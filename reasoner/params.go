package reasoner

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Params are a method's settings by name. Values come from JSON (numbers
// are float64), configuration files, Go code or command-line flags
// (strings), so the getters accept every sensible representation of their
// type and reject everything else with an error naming the key, the
// wanted type and the value found:
//
//   - Int: Go integer types, float64/float32 with an integral value,
//     json.Number, decimal strings ("3");
//   - Float: Go numeric types, json.Number, decimal strings ("0.8");
//     NaN and infinities are rejected;
//   - Bool: bool, strings accepted by strconv.ParseBool;
//   - String: string;
//   - Duration: time.Duration, strings accepted by time.ParseDuration.
//
// A missing key (or a nil value) yields the default.
type Params map[string]any

// ParamError is the error of a getter: which key, what was wanted, what was
// found.
type ParamError struct {
	Key   string
	Want  string
	Value any
	Err   error
}

func (e *ParamError) Error() string {
	s := fmt.Sprintf("parameter %q: want %s, got %T %v", e.Key, e.Want, e.Value, e.Value)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ParamError) Unwrap() error { return e.Err }

func (p Params) get(key string) (any, bool) {
	v, ok := p[key]
	return v, ok && v != nil
}

// Int returns the integer at key, or def when absent.
func (p Params) Int(key string, def int) (int, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	n, err := toInt(v)
	if err != nil {
		return def, &ParamError{Key: key, Want: "an integer", Value: v, Err: err}
	}
	return n, nil
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int8:
		return int(x), nil
	case int16:
		return int(x), nil
	case int32:
		return int(x), nil
	case int64:
		return intFrom64(x)
	case uint:
		return uintToInt(uint64(x))
	case uint8:
		return int(x), nil
	case uint16:
		return int(x), nil
	case uint32:
		return uintToInt(uint64(x))
	case uint64:
		return uintToInt(x)
	case float32:
		return floatToInt(float64(x))
	case float64:
		return floatToInt(x)
	case json.Number:
		return strToInt(string(x))
	case string:
		return strToInt(x)
	}
	return 0, errors.New("not a number")
}

func intFrom64(x int64) (int, error) {
	if int64(int(x)) != x {
		return 0, errors.New("out of range")
	}
	return int(x), nil
}

func uintToInt(x uint64) (int, error) {
	if x > math.MaxInt {
		return 0, errors.New("out of range")
	}
	return int(x), nil
}

func floatToInt(f float64) (int, error) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("not an integral value")
	}
	if f > math.MaxInt || f < math.MinInt {
		return 0, errors.New("out of range")
	}
	return int(f), nil
}

func strToInt(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New("not a decimal integer")
	}
	return n, nil
}

// Float returns the number at key, or def when absent.
func (p Params) Float(key string, def float64) (float64, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	f, err := toFloat(v)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		err = errors.New("not a finite number")
	}
	if err != nil {
		return def, &ParamError{Key: key, Want: "a number", Value: v, Err: err}
	}
	return f, nil
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case json.Number:
		return strconv.ParseFloat(string(x), 64)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, errors.New("not a decimal number")
		}
		return f, nil
	}
	n, err := toInt(v)
	return float64(n), err
}

// Bool returns the boolean at key, or def when absent.
func (p Params) Bool(key string, def bool) (bool, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err == nil {
			return b, nil
		}
	}
	return def, &ParamError{Key: key, Want: "a boolean (true/false)", Value: v}
}

// String returns the string at key, or def when absent.
func (p Params) String(key, def string) (string, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return def, &ParamError{Key: key, Want: "a string", Value: v}
	}
	return s, nil
}

// Duration returns the duration at key, or def when absent.
func (p Params) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return def, &ParamError{Key: key, Want: `a duration ("1.5s")`, Value: v, Err: err}
		}
		return d, nil
	}
	return def, &ParamError{Key: key, Want: `a duration ("1.5s")`, Value: v}
}

// CheckKeys returns an error naming every key of p not in known (sorted),
// and listing the known keys.
func (p Params) CheckKeys(known ...string) error {
	var unknown []string
	for k := range p {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	k := slices.Sorted(slices.Values(known))
	return fmt.Errorf("unknown parameter(s) %s (known: %s)", strings.Join(quoteAll(unknown), ", "), strings.Join(k, ", "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Reader reads several parameters and collects their errors, so a factory
// can read all its settings and check once:
//
//	r := params.Reader()
//	k := r.Int("k", 3)
//	tau := r.Float("tau", 0.8)
//	if err := r.Done(); err != nil { ... }
//
// Done also reports keys that were never read as unknown.
type Reader struct {
	p    Params
	read []string
	errs []error
}

// Reader returns a Reader over p.
func (p Params) Reader() *Reader { return &Reader{p: p} }

func (r *Reader) note(key string, err error) {
	r.read = append(r.read, key)
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

// Int reads an integer (see Params.Int).
func (r *Reader) Int(key string, def int) int {
	v, err := r.p.Int(key, def)
	r.note(key, err)
	return v
}

// Float reads a number (see Params.Float).
func (r *Reader) Float(key string, def float64) float64 {
	v, err := r.p.Float(key, def)
	r.note(key, err)
	return v
}

// Bool reads a boolean (see Params.Bool).
func (r *Reader) Bool(key string, def bool) bool {
	v, err := r.p.Bool(key, def)
	r.note(key, err)
	return v
}

// String reads a string (see Params.String).
func (r *Reader) String(key, def string) string {
	v, err := r.p.String(key, def)
	r.note(key, err)
	return v
}

// Duration reads a duration (see Params.Duration).
func (r *Reader) Duration(key string, def time.Duration) time.Duration {
	v, err := r.p.Duration(key, def)
	r.note(key, err)
	return v
}

// Done returns the joined errors of the reads plus an unknown-key error for
// keys never read; nil when all is well.
func (r *Reader) Done() error {
	errs := slices.Clone(r.errs)
	if err := r.p.CheckKeys(r.read...); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
