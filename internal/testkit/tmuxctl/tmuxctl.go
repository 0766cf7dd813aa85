// Package tmuxctl drives a tmux server through one control-mode client (tmux -C): send keys and
// read the screen as commands on a pipe, with no process started per read. Tests and scripts
// that sample a screen every few milliseconds on a loaded machine use it: starting a tmux client
// per sample costs a fork and an exec, which a busy 2-core machine delayed by seconds.
package tmuxctl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Client is one control-mode client attached to a session of a tmux server. Its methods are
// safe for concurrent use; each command waits for its own reply.
type Client struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan reply
	mu      sync.Mutex
	seq     int // numbers each command's end marker
	done    chan struct{}
}

type reply struct {
	text string
	err  error
}

// ErrClosed is returned once the control client has gone (the server or session ended).
var ErrClosed = errors.New("tmux control client closed")

// Attach starts `tmux -L sock -C attach -t target` and waits until it answers. The client asks
// tmux not to send the pane's output (it would only fill the pipe); it reads by capture-pane.
func Attach(ctx context.Context, sock, target string) (*Client, error) {
	cmd := exec.CommandContext(ctx, "tmux", "-L", sock, "-C", "attach", "-t", target)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("tmux control client: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("tmux control client: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmux control client: %w", err)
	}
	c := &Client{cmd: cmd, in: in, replies: make(chan reply, 4), done: make(chan struct{})}
	go c.read(out)
	// The attach itself may answer with a block of its own: read replies until the marker's.
	const marker = "fpstop-tmuxctl-ready"
	if _, err := io.WriteString(in, "refresh-client -f no-output\ndisplay-message -p "+marker+"\n"); err != nil {
		c.Close()
		return nil, fmt.Errorf("tmux control client: %w", err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-c.replies:
			if !ok {
				return nil, ErrClosed
			}
			if strings.Contains(r.text, marker) {
				return c, nil
			}
		case <-deadline:
			c.Close()
			return nil, errors.New("tmux control client: no answer in 10 s")
		}
	}
}

// read splits the client's output into command replies (%begin … %end or %error); the
// notifications between them are dropped.
func (c *Client) read(r io.Reader) {
	defer close(c.replies)
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var lines []string
	in := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !in && strings.HasPrefix(l, "%begin "):
			in, lines = true, lines[:0]
		case in && (strings.HasPrefix(l, "%end ") || strings.HasPrefix(l, "%error ")):
			in = false
			rp := reply{text: strings.Join(lines, "\n")}
			if strings.HasPrefix(l, "%error ") {
				rp.err = fmt.Errorf("tmux: %s", rp.text)
			}
			c.replies <- rp
		case in:
			lines = append(lines, l)
		}
	}
}

// Command runs one tmux command (one line, as typed after `tmux`) and returns its output. A
// numbered marker command follows it and its reply is the one just before the marker's: a
// block tmux sends on its own (the attach's, which may come late) then shifts no reply.
func (c *Client) Command(line string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	marker := fmt.Sprintf("fpstop-tmuxctl-%d", c.seq)
	if _, err := io.WriteString(c.in, line+"\ndisplay-message -p "+marker+"\n"); err != nil {
		return "", fmt.Errorf("tmux %q: %w", line, err)
	}
	var last *reply
	for r := range c.replies {
		if r.err == nil && r.text == marker {
			if last == nil {
				return "", fmt.Errorf("tmux %q: no reply before its marker", line)
			}
			return last.text, last.err
		}
		last = &r
	}
	return "", ErrClosed
}

// Capture returns the visible text of target's pane (plain text, no attributes).
func (c *Client) Capture(target string) (string, error) {
	return c.Command("capture-pane -p -t " + target)
}

// SendKeys sends keys (tmux key names, each quoted) to target's pane.
func (c *Client) SendKeys(target string, keys ...string) error {
	q := make([]string, len(keys))
	for i, k := range keys {
		if strings.Contains(k, "'") {
			q[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(k) + `"`
		} else {
			q[i] = "'" + k + "'"
		}
	}
	_, err := c.Command("send-keys -t " + target + " " + strings.Join(q, " "))
	return err
}

// Close detaches the client and waits for it to end.
func (c *Client) Close() {
	_ = c.in.Close()
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
		_ = c.cmd.Process.Kill()
	}
	_ = c.cmd.Wait()
}
