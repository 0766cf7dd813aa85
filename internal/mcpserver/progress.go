package mcpserver

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress sends MCP progress notifications for a long call: once a second, the seconds so far
// against the seconds expected, and the iteration `fpstop test` says it is on (it reads the
// command's stderr, being its io.Writer).
type progress struct {
	mu        sync.Mutex
	iteration int
	of        int
	partial   []byte
	stopped   chan struct{}
	done      sync.WaitGroup
}

var iterationLine = regexp.MustCompile(`fpstop test: iteration (\d+) of (\d+)`)

// startProgress starts the notifications when the client asked for them (a progress token).
func startProgress(ctx context.Context, req *mcp.CallToolRequest, totalS float64, iterations int) *progress {
	p := &progress{of: iterations, iteration: 1, stopped: make(chan struct{})}
	if req == nil || req.Params == nil || req.Session == nil {
		return p
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return p
	}
	start := time.Now()
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-p.stopped:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			el := time.Since(start).Seconds()
			p.mu.Lock()
			msg := fmt.Sprintf("measuring: %.0f s", el)
			if totalS > 0 {
				msg += fmt.Sprintf(" of about %.0f s", totalS)
			}
			if p.of > 1 {
				msg += fmt.Sprintf(" (iteration %d of %d)", p.iteration, p.of)
			}
			p.mu.Unlock()
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
				Progress: el, Total: totalS, Message: msg})
		}
	}()
	return p
}

// Write reads the command's stderr for the iteration it is on.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	if m := iterationLine.FindAllSubmatch(p.partial, -1); len(m) > 0 {
		last := m[len(m)-1]
		p.iteration, _ = strconv.Atoi(string(last[1]))
		p.of, _ = strconv.Atoi(string(last[2]))
	}
	if len(p.partial) > 4096 {
		p.partial = p.partial[len(p.partial)-256:]
	}
	return len(b), nil
}

func (p *progress) stop() {
	close(p.stopped)
	p.done.Wait()
}
