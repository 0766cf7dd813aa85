package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docBlock is a fenced block of docs/agents.md: its info string and text.
type docBlock struct {
	info []string
	text string
}

func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.Fields(strings.TrimPrefix(line, "```"))}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

var updateAgentsDoc = flag.Bool("update-agents-doc", false, "rewrite docs/agents.md's mcp-summary blocks with what the server says now")

// The serial docs/agents.md shows for the fake phone.
const docSerial = "R5CT20ABCDE"

// TestMCPDocsExamples runs docs/agents.md: every client configuration starts the server, and
// every `mcp-call` block is called on the real binary in order, its result's summary equal to
// the `mcp-summary` block after it (the working directory shown as ~/app, the fake phone's
// serial as docSerial). Device calls go to the fake phone over a real adb server, with their
// durations cut to 2 s.
func TestMCPDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the real binary as an MCP server and an adb server")
	}
	t.Parallel()
	blocks := docBlocks(t)
	configs, calls := 0, 0
	for _, b := range blocks {
		if len(b.info) >= 2 && b.info[1] == "mcp-config" {
			configs++
			checkDocConfig(t, b.text)
		}
	}
	ph := startPhone(t, 60, "smooth", 3, 0)
	defer ph.stop()
	env := startEnv(t, ph)
	c := startMCP(t, "--adb-port", fmt.Sprint(env.Port))
	work, err := filepath.EvalSymlinks(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	var replaced [][2]string
	for i, b := range blocks {
		if len(b.info) < 3 || b.info[1] != "mcp-call" {
			continue
		}
		calls++
		tool := b.info[2]
		var args map[string]any
		if err := json.Unmarshal([]byte(strings.ReplaceAll(b.text, docSerial, env.Serial)), &args); err != nil {
			t.Fatalf("%s example: %v\n%s", tool, err, b.text)
		}
		if _, ok := args["device"]; ok && args["duration_s"] != nil {
			args["duration_s"] = 2
		}
		res, text := c.call(t, context.Background(), tool, args, nil)
		if res.IsError {
			t.Errorf("%s %s: %s", tool, b.text, text)
			continue
		}
		if i+1 < len(blocks) && len(blocks[i+1].info) >= 2 && blocks[i+1].info[1] == "mcp-summary" {
			summary := strings.SplitN(text, "\n", 2)[0]
			summary = strings.ReplaceAll(strings.ReplaceAll(summary, work, "~/app"), env.Serial, docSerial)
			if want := strings.TrimSpace(blocks[i+1].text); *updateAgentsDoc {
				replaced = append(replaced, [2]string{blocks[i+1].text, summary + "\n"})
			} else if summary != want {
				t.Errorf("%s %s: summary\n%s\nwant (docs/agents.md; if the change is meant: go test ./internal/testkit/e2e -run TestMCPDocsExamples -update-agents-doc)\n%s",
					tool, strings.TrimSpace(b.text), summary, want)
			}
		}
	}
	if *updateAgentsDoc {
		rewriteDoc(t, replaced)
	}
	if configs < 2 || calls < 8 {
		t.Errorf("docs/agents.md: %d configurations and %d calls found; the markers changed?", configs, calls)
	}
}

// checkDocConfig starts the server as the configuration says (its --root directories made
// real) and lists its tools.
func checkDocConfig(t *testing.T, text string) {
	t.Helper()
	var cfg map[string]map[string]struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal([]byte(text), &cfg); err != nil {
		t.Fatalf("configuration: %v\n%s", err, text)
	}
	for key, servers := range cfg {
		s, ok := servers["fpstop"]
		if !ok || s.Command != "fpstop" || len(s.Args) == 0 || s.Args[0] != "mcp" {
			t.Errorf("configuration %s: %+v", key, servers)
			continue
		}
		args := append([]string(nil), s.Args[1:]...)
		for i := range args {
			if i > 0 && args[i-1] == "--root" {
				args[i] = t.TempDir()
			}
		}
		c := startMCP(t, args...)
		if res, err := c.cs.ListTools(context.Background(), nil); err != nil || len(res.Tools) == 0 {
			t.Errorf("configuration %s: listing tools: %v", key, err)
		}
	}
}

// rewriteDoc replaces docs/agents.md's mcp-summary blocks, in order.
func rewriteDoc(t *testing.T, replaced [][2]string) {
	t.Helper()
	path := filepath.Join("..", "..", "..", "docs", "agents.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, out := string(b), ""
	for _, r := range replaced {
		old := "```text mcp-summary\n" + r[0] + "```"
		i := strings.Index(doc, old)
		if i < 0 {
			t.Fatalf("summary block not found: %s", r[0])
		}
		out += doc[:i] + "```text mcp-summary\n" + r[1] + "```"
		doc = doc[i+len(old):]
	}
	if err := os.WriteFile(path, []byte(out+doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
