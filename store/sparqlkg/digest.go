package sparqlkg

import (
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// digestAuth answers an HTTP Digest challenge (RFC 7616, MD5, qop=auth)
// with the user and password of a Basic Authorization value: Virtuoso's
// /sparql-auth asks for Digest. ok is false when the challenge is not
// Digest or basic holds no credentials.
func digestAuth(challenge, basic string, req *http.Request) (header string, ok bool) {
	rest, isDigest := strings.CutPrefix(challenge, "Digest ")
	enc, isBasic := strings.CutPrefix(basic, "Basic ")
	if !isDigest || !isBasic {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	user, pass, found := strings.Cut(string(raw), ":")
	if !found {
		return "", false
	}
	p := digestParams(rest)
	if p["algorithm"] != "" && !strings.EqualFold(p["algorithm"], "MD5") {
		return "", false
	}
	var cb [8]byte
	if _, err := rand.Read(cb[:]); err != nil {
		return "", false
	}
	cnonce, nc, uri := hex.EncodeToString(cb[:]), "00000001", req.URL.RequestURI()
	ha1 := md5hex(user + ":" + p["realm"] + ":" + pass)
	ha2 := md5hex(req.Method + ":" + uri)
	var resp string
	qop := ""
	if strings.Contains(p["qop"], "auth") {
		qop = "auth"
		resp = md5hex(ha1 + ":" + p["nonce"] + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2)
	} else {
		resp = md5hex(ha1 + ":" + p["nonce"] + ":" + ha2)
	}
	h := fmt.Sprintf(`Digest username=%q, realm=%q, nonce=%q, uri=%q, response=%q, algorithm=MD5`,
		user, p["realm"], p["nonce"], uri, resp)
	if qop != "" {
		h += fmt.Sprintf(`, qop=%s, nc=%s, cnonce=%q`, qop, nc, cnonce)
	}
	if p["opaque"] != "" {
		h += fmt.Sprintf(`, opaque=%q`, p["opaque"])
	}
	return h, true
}

// digestParams parses the comma-separated key="value" list of a challenge.
func digestParams(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		s = strings.TrimLeft(s, " ,")
		k, v, found := strings.Cut(s, "=")
		if !found {
			break
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if strings.HasPrefix(v, `"`) {
			end := strings.Index(v[1:], `"`)
			if end < 0 {
				out[k] = v[1:]
				break
			}
			out[k], s = v[1:1+end], v[2+end:]
		} else {
			val, after, _ := strings.Cut(v, ",")
			out[k], s = strings.TrimSpace(val), after
		}
	}
	return out
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}
