package rdf

import "strings"

// resolveIRI resolves the relative reference ref against the absolute IRI
// base (RFC 3986 section 5.2, strict parser, no normalization beyond
// removing dot segments), as Turtle and RDF/XML require.
func resolveIRI(base, ref string) string {
	if hasScheme(ref) {
		return scheme(ref) + ":" + removeDots(afterScheme(ref))
	}
	b := splitIRI(base)
	r := splitIRI(ref)
	t := iriParts{scheme: b.scheme, auth: b.auth, hasAuth: b.hasAuth, frag: r.frag, hasFrag: r.hasFrag}
	switch {
	case r.hasAuth:
		t.auth, t.path, t.query, t.hasQuery = r.auth, removeDots(r.path), r.query, r.hasQuery
	case r.path == "":
		t.path, t.query, t.hasQuery = b.path, b.query, b.hasQuery
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		}
		t.hasAuth = b.hasAuth
	case r.path[0] == '/':
		t.path, t.query, t.hasQuery = removeDots(r.path), r.query, r.hasQuery
	default:
		t.path, t.query, t.hasQuery = removeDots(merge(b, r.path)), r.query, r.hasQuery
	}
	return t.String()
}

// iriParts are the components of an IRI reference.
type iriParts struct {
	scheme, auth, path, query, frag string
	hasAuth, hasQuery, hasFrag      bool
}

// String recomposes the reference (RFC 3986 5.3).
func (p iriParts) String() string {
	var sb strings.Builder
	if p.scheme != "" {
		sb.WriteString(p.scheme)
		sb.WriteByte(':')
	}
	if p.hasAuth {
		sb.WriteString("//")
		sb.WriteString(p.auth)
	}
	sb.WriteString(p.path)
	if p.hasQuery {
		sb.WriteByte('?')
		sb.WriteString(p.query)
	}
	if p.hasFrag {
		sb.WriteByte('#')
		sb.WriteString(p.frag)
	}
	return sb.String()
}

func scheme(s string) string      { return s[:strings.IndexByte(s, ':')] }
func afterScheme(s string) string { return s[strings.IndexByte(s, ':')+1:] }

// splitIRI splits an IRI reference into its components.
func splitIRI(s string) (p iriParts) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, p.frag, p.hasFrag = s[:i], s[i+1:], true
	}
	if hasScheme(s) {
		i := strings.IndexByte(s, ':')
		p.scheme, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, p.query, p.hasQuery = s[:i], s[i+1:], true
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.auth, s, p.hasAuth = s[:i], s[i:], true
	}
	p.path = s
	return p
}

// merge implements RFC 3986 5.2.3.
func merge(b iriParts, ref string) string {
	if b.hasAuth && b.path == "" {
		return "/" + ref
	}
	if i := strings.LastIndexByte(b.path, '/'); i >= 0 {
		return b.path[:i+1] + ref
	}
	return ref
}

// removeDots implements RFC 3986 5.2.4.
func removeDots(path string) string {
	if !strings.Contains(path, ".") {
		return path
	}
	var out []string
	in := path
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			j := strings.IndexByte(in[1:], '/')
			if j < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:j+1])
				in = in[j+1:]
			}
		}
	}
	return strings.Join(out, "")
}
