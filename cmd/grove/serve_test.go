package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/grove-kg/grove/reasoner/llm"
	"github.com/grove-kg/grove/server"
)

// setupCommand finds the command args name, parses its flags and runs the
// root's setup (configuration and environment), as Execute would before
// running it.
func setupCommand(t *testing.T, args ...string) (*app, *cobra.Command) {
	t.Helper()
	a := newApp()
	a.stdout, a.stderr = &strings.Builder{}, &strings.Builder{}
	cmd, rest, err := a.root().Find(args)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatal(err)
	}
	if err := a.setup(cmd); err != nil {
		t.Fatal(err)
	}
	return a, cmd
}

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// serveConfigFor returns the server.Config `grove serve args...` would
// start with.
func serveConfigFor(t *testing.T, args ...string) server.Config {
	t.Helper()
	a, cmd := setupCommand(t, append([]string{"serve"}, args...)...)
	cfg, err := a.serveConfig(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestServeSettings checks that grove serve reads its settings like every
// other command: flags over GROVE_SERVE_* over the config file's serve:
// section over defaults.
func TestServeSettings(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "grove.yaml", "db: "+filepath.Join(dir, "db")+"\nserve:\n  addr: 127.0.0.1:9001\n  read_only: true\n"+
		"  token_file: /etc/grove/token\n  ask_timeout: 90s\n  ask:\n    max_model_calls: 77\n    param_caps: {k: 3}\n")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "none"))
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		check func(c server.Config) bool
	}{
		{"defaults", nil, nil, func(c server.Config) bool {
			return c.Addr == server.DefaultAddr && !c.ReadOnly && c.TokenFile == "" && c.MaxConcurrentRuns == 2
		}},
		{"config file", nil, []string{"--config", conf}, func(c server.Config) bool {
			return c.Addr == "127.0.0.1:9001" && c.ReadOnly && c.TokenFile == "/etc/grove/token" &&
				c.AskTimeout == 90*time.Second && c.Ask.MaxModelCalls == 77 && c.Ask.ParamCaps["k"] == 3 &&
				c.DB == filepath.Join(dir, "db")
		}},
		{"environment over file", map[string]string{"GROVE_SERVE_ADDR": "127.0.0.1:9002", "GROVE_SERVE_READ_ONLY": "false",
			"GROVE_SERVE_MAX_CONCURRENT_RUNS": "5", "GROVE_SERVE_ASK_MAX_MODEL_CALLS": "12"}, []string{"--config", conf},
			func(c server.Config) bool {
				return c.Addr == "127.0.0.1:9002" && !c.ReadOnly && c.MaxConcurrentRuns == 5 && c.Ask.MaxModelCalls == 12 &&
					c.TokenFile == "/etc/grove/token"
			}},
		{"flags over environment", map[string]string{"GROVE_SERVE_ADDR": "127.0.0.1:9002"},
			[]string{"--config", conf, "--addr", "127.0.0.1:9003", "--max-runs", "7", "--token-file", "tok"},
			func(c server.Config) bool {
				return c.Addr == "127.0.0.1:9003" && c.MaxConcurrentRuns == 7 && c.TokenFile == "tok" && c.ReadOnly
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if cfg := serveConfigFor(t, c.args...); !c.check(cfg) {
				t.Fatalf("config %+v", cfg)
			}
		})
	}
}

// TestServeEnvReachesServer runs grove serve end to end with a setting
// from the environment only: a non-loopback address without a token must
// be refused by the server.
func TestServeEnvReachesServer(t *testing.T) {
	db := t.TempDir()
	t.Setenv("GROVE_SERVE_ADDR", "0.0.0.0:0")
	done := make(chan error, 1)
	go func() {
		_, err := run(t, "--db", db, "serve")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "bearer token is required") {
			t.Fatalf("GROVE_SERVE_ADDR did not reach the server: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("grove serve started on its default address: GROVE_SERVE_ADDR was ignored")
	}
}

// TestModelSettings checks that every llm.Config field is read from the
// config file's llm: section and GROVE_LLM_* (not only the flags), and that
// a key the model layer does not read is an error rather than ignored.
func TestModelSettings(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "llm:\n  url: http://127.0.0.1:1/v1\n  model: m\n  native_n: \"off\"\n  extra_body: {top_k: 3}\n")
	bad := writeFile(t, dir, "bad.yaml", "llm:\n  url: http://127.0.0.1:1/v1\n  model: m\n  temperature: 0.2\n")
	open := func(args ...string) (llm.Info, error) {
		a, _ := setupCommand(t, append([]string{"ask"}, args...)...)
		m, closer, err := a.openModel()
		if err != nil {
			return llm.Info{}, err
		}
		defer closer.Close()
		return llm.Describe(m), nil
	}
	t.Setenv("GROVE_LLM_ENDPOINT", "completions")
	info, err := open("--config", good, "--cache", "off")
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "m" || info.Params["native_n"] != "off" || info.Params["endpoint"] != "completions" ||
		fmt.Sprint(info.Params["extra_body"]) != "map[top_k:3]" {
		t.Fatalf("model settings not read: %+v", info)
	}
	if _, err := open("--config", bad); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Fatalf("an unread llm key was accepted: %v", err)
	}
}
