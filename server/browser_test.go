package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium binary, "" when there is none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium with a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium binary on PATH (Debian: apt-get install -y chromium); skipping the browser test")
	}
	// The profile directory is removed by hand: Chromium may still be
	// writing to it for a moment after it is told to exit, which makes
	// t.TempDir's own cleanup fail the test.
	profile, err := os.MkdirTemp("", "grove-chromium-*")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1000),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for i := 0; i < 20; i++ {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the Chromium profile %s", profile)
	})
	return ctx
}

// TestBrowser drives the web page in headless Chromium: search and browse
// an entity, then ask a question answered by Tree-of-Traversals with a
// scripted (lexical) model, watch the tree grow, open a node, and take a
// screenshot (in t.TempDir() and at $GROVE_SCREENSHOT when set).
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	ts := askServer(t, Config{}, newLexicalModel(40*time.Millisecond))
	var title, edges string
	err := chromedp.Run(ctx,
		chromedp.Navigate(ts.url+"/"),
		chromedp.WaitVisible(`#search-q`),
		chromedp.WaitReady(`#method option[value="tot"]`),
		chromedp.SendKeys(`#search-q`, "Blade Runner"),
		chromedp.Click(`#search-btn`),
		chromedp.WaitVisible(`#search-results button`),
		chromedp.Click(`#search-results button`),
		chromedp.WaitVisible(`#entity-relations button.relation`),
		chromedp.Text(`#entity-title`, &title),
		chromedp.Click(`//button[contains(@class,"relation")][contains(., "directed by")]`, chromedp.BySearch),
		chromedp.WaitVisible(`#entity-edges li`),
		chromedp.Text(`#entity-edges`, &edges),
	)
	if err != nil {
		t.Fatalf("explore: %v", err)
	}
	if title != "Blade Runner" || !strings.Contains(edges, "Ridley Scott") {
		t.Fatalf("entity %q, edges %q", title, edges)
	}

	var earlyAnswerHidden bool
	var nodes, chosen, circles int
	var answer, details string
	err = chromedp.Run(ctx,
		chromedp.SendKeys(`#question`, "Who directed Blade Runner?"),
		chromedp.Evaluate(`document.querySelector('#ask-graphs option[value="movies"]').selected = true`, nil),
		chromedp.Click(`#ask-btn`),
		// The tree appears while the run is still going.
		chromedp.WaitVisible(`#tree .tree-node`),
		chromedp.Evaluate(`document.getElementById("answer").hidden`, &earlyAnswerHidden),
		chromedp.WaitVisible(`#answer`),
		chromedp.Text(`#answer`, &answer),
		chromedp.Evaluate(`document.querySelectorAll("#tree .tree-node").length`, &nodes),
		chromedp.Evaluate(`document.querySelectorAll("#tree .tree-node.chosen").length`, &chosen),
		// Open a node.
		chromedp.Click(`#tree .tree-node[data-id="2"]`),
		chromedp.WaitVisible(`#node-details dl`),
		chromedp.Text(`#node-details`, &details),
		// Re-open the answer node: its local subgraph is drawn.
		chromedp.Click(`#tree .tree-node.chosen.answer`),
		chromedp.WaitVisible(`#subgraph circle`),
		chromedp.Evaluate(`document.querySelectorAll("#subgraph circle").length`, &circles),
	)
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if !earlyAnswerHidden || !strings.Contains(answer, "Ridley Scott") || !strings.Contains(answer, "not an LLM") ||
		nodes < 3 || chosen < 2 ||
		!strings.Contains(details, "action") || circles < 2 {
		t.Fatalf("live %v, answer %q, %d nodes, %d chosen, details %q, %d circles",
			earlyAnswerHidden, answer, nodes, chosen, details, circles)
	}
	screenshot(t, ctx)
}

func screenshot(t *testing.T, ctx context.Context) {
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 1000 {
		t.Fatalf("screenshot of %d bytes", len(png))
	}
	paths := []string{filepath.Join(t.TempDir(), "grove.png")}
	if p := os.Getenv("GROVE_SCREENSHOT"); p != "" {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatalf("write screenshot: %v", err)
		}
		t.Logf("screenshot: %s", p)
	}
}
