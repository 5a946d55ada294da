package sqlkg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://grove@h:5432/grove?sslmode=disable", "postgres://grove@h:5432/grove?sslmode=disable"},
		{"postgres://grove:pw@h/grove", "postgres://grove@h/grove"},
		{"postgres://grove@h/grove?sslmode=disable&password=s3cretpw", "postgres://grove@h/grove?sslmode=disable&password=***"},
		{"postgres://h/g?sslpassword=a&api_key=b&authToken=c&client_secret=d&sslkey=/k.pem&application_name=x",
			"postgres://h/g?sslpassword=***&api_key=***&authToken=***&client_secret=***&sslkey=***&application_name=x"},
		{"postgres://h/g?pass%77ord=s3cret", "postgres://h/g?pass%77ord=***"},
		{"postgres://grove:s3cret%zzpw@h/grove", "(a database URL that does not parse)"},
		{"host=h user=grove password=s3cret sslmode=disable", "host=h user=grove password=*** sslmode=disable"},
		{"host=h password='s3 cret' dbname=g", "host=h password=*** dbname=g"},
	} {
		if got := redact(c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOpenErrorsHideSecrets: whatever fails, no error quotes a password
// or key, and each still says what went wrong.
func TestOpenErrorsHideSecrets(t *testing.T) {
	const secret = "s3cretpw"
	cases := []struct {
		name, url string
		want      string
	}{
		{"password parameter, unreachable", "postgres://grove@127.0.0.1:1/grove?sslmode=disable&connect_timeout=2&password=" + secret, "127.0.0.1:1"},
		{"password in user info, unreachable", "postgres://grove:" + secret + "@127.0.0.1:1/grove?sslmode=disable&connect_timeout=2", "127.0.0.1:1"},
		{"sslpassword", "postgres://grove@127.0.0.1:1/grove?sslmode=disable&connect_timeout=2&sslpassword=" + secret, "127.0.0.1:1"},
		{"invalid escape in the password", "postgres://grove:" + secret + "%zzpw@127.0.0.1:25432/grove", "invalid %-escape"},
		{"bad port", "postgres://grove:" + secret + "@127.0.0.1:port/grove", "does not parse"},
		{"key=value string", "host=127.0.0.1 port=1 user=grove password=" + secret + " sslmode=disable connect_timeout=2", "127.0.0.1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Open(ctx, Config{URL: c.url})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q: must name no secret and say %q", err, c.want)
			}
		})
	}
}

func TestScrub(t *testing.T) {
	raw := "postgres://grove:s3cretpw@h/g?token=tok123"
	cause := errors.New("cause")
	for _, c := range []struct {
		name string
		err  error
		want string
		same bool // returned as it is (wrapping kept)
	}{
		{"quotes nothing", fmt.Errorf("dial: %w", cause), "dial: cause", true},
		{"quotes the URL", fmt.Errorf("open %s: %w", raw, cause), "open postgres://grove@h/g?token=***: cause", false},
		{"quotes the password", errors.New("bad s3cretpw and tok123"), "bad *** and ***", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := scrub(c.err, raw)
			if got.Error() != c.want || (got == c.err) != c.same {
				t.Errorf("scrub = %q (same error: %v), want %q (%v)", got, got == c.err, c.want, c.same)
			}
		})
	}
}
