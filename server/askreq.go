package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grove-kg/grove/reasoner"
)

// askRequest is the body of POST /v1/ask and /v1/ask/stream.
type askRequest struct {
	Question      string         `json:"question"`
	Method        string         `json:"method"`
	Graphs        []string       `json:"graphs"`
	TopicEntities []string       `json:"topic_entities"`
	Params        map[string]any `json:"params"`
}

// query converts the request to a reasoner query.
func (a askRequest) query() reasoner.Query {
	return reasoner.Query{Question: a.Question, Graphs: a.Graphs, TopicEntities: a.TopicEntities}
}

// maxAskGraphs bounds the graphs one question may name.
const maxAskGraphs = 16

// forbiddenParamWords mark parameters that would let a client pick the
// model endpoint, the model or credentials: the server owns those.
var forbiddenParamWords = []string{"model", "endpoint", "url", "key", "token", "secret", "base", "host", "provider"}

// decodeAsk reads and validates an ask request: strict JSON (one object,
// no unknown fields, no trailing data), a non-empty bounded question, and
// parameters within the caps of lim. maxIDs bounds topic_entities.
func decodeAsk(r io.Reader, lim AskLimits, maxIDs int) (askRequest, error) {
	var req askRequest
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return req, jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return req, badRequest("invalid JSON: unexpected data after the request object")
	}
	if err := req.validate(lim, maxIDs); err != nil {
		return req, err
	}
	return req, checkParams(req.Params, lim.ParamCaps)
}

// jsonError turns a decoding error into a 400 naming the position or field.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	var ae *apiError
	switch {
	case errors.As(err, &mbe), errors.As(err, &ae):
		return err // the body's own errors: 413, or 408 (bodyError)
	case errors.As(err, &syn):
		return badRequest("invalid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		return badRequest("invalid JSON: field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.EOF):
		return badRequest("empty request body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("invalid JSON: unexpected end of input")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return badRequest("invalid JSON: %s (allowed: question, method, graphs, topic_entities, params)",
			strings.TrimPrefix(err.Error(), "json: "))
	}
	return badRequest("invalid JSON: %v", err)
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "a " + k
}

func (a *askRequest) validate(lim AskLimits, maxIDs int) error {
	a.Question = strings.TrimSpace(a.Question)
	switch {
	case a.Question == "":
		return badRequest("field \"question\" is missing or empty")
	case len(a.Question) > lim.MaxQuestionBytes:
		return badRequest("field \"question\" is %d bytes long (at most %d)", len(a.Question), lim.MaxQuestionBytes)
	case !utf8.ValidString(a.Question):
		return badRequest("field \"question\" is not valid UTF-8")
	case len(a.Graphs) > maxAskGraphs:
		return badRequest("field \"graphs\" names %d graphs (at most %d)", len(a.Graphs), maxAskGraphs)
	case len(a.TopicEntities) > maxIDs:
		return badRequest("field \"topic_entities\" has %d ids (at most %d)", len(a.TopicEntities), maxIDs)
	}
	if err := checkNames("graphs", a.Graphs, 256); err != nil {
		return err
	}
	return checkNames("topic_entities", a.TopicEntities, maxIDBytes)
}

func checkNames(field string, names []string, maxLen int) error {
	for i, n := range names {
		if strings.TrimSpace(n) == "" || len(n) > maxLen || !utf8.ValidString(n) {
			return badRequest("field %q: entry %d is empty, too long or not UTF-8", field, i)
		}
	}
	return nil
}

// checkParams enforces the server's bounds on method parameters: only
// scalar values; nothing that selects a model, endpoint or credential; and
// every numeric value (JSON number or numeric string) named in caps and not
// above its cap. Unknown non-numeric keys are left to the method's factory,
// which rejects keys it does not know.
func checkParams(p map[string]any, caps map[string]float64) error {
	for k, v := range p {
		if err := checkParam(k, v, caps); err != nil {
			return err
		}
	}
	return nil
}

func checkParam(k string, v any, caps map[string]float64) error {
	lk := strings.ToLower(k)
	if lk == reasoner.ParamMaxTokens {
		return badRequest("parameter %q is set by the server (its ask.max_tokens), not by clients", clip(k))
	}
	for _, w := range forbiddenParamWords {
		if strings.Contains(lk, w) {
			return badRequest("parameter %q cannot be set by clients: the server chooses the model and its endpoint", clip(k))
		}
	}
	f, numeric, err := numericValue(v)
	if err != nil {
		return badRequest("parameter %q: %v", clip(k), err)
	}
	if !numeric {
		return nil
	}
	limit, ok := caps[k]
	switch {
	case !ok:
		return badRequest("parameter %q is not adjustable on this server (adjustable: %s)", clip(k), capNames(caps))
	case math.IsNaN(f) || f < 0:
		return badRequest("parameter %q must be a non-negative number", clip(k))
	case f > limit:
		return badRequest("parameter %q = %s exceeds this server's cap of %s", clip(k),
			strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(limit, 'g', -1, 64))
	}
	return nil
}

// numericValue says whether a JSON parameter value is a number (or a
// numeric string) and returns it; arrays and objects are errors.
func numericValue(v any) (float64, bool, error) {
	switch x := v.(type) {
	case nil, bool:
		return 0, false, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false, fmt.Errorf("number %s is out of range", clip(string(x)))
		}
		return f, true, nil
	case float64:
		return x, true, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil, nil
	}
	return 0, false, errors.New("must be a number, string or boolean")
}

func capNames(caps map[string]float64) string {
	names := make([]string, 0, len(caps))
	for n := range caps {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
