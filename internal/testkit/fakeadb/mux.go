package fakeadb

import (
	"context"
	"io"
	"strings"
)

// Text is a Handler that prints s.
func Text(s string) Handler {
	return func(ctx context.Context, cmd string, w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// Mux routes shell commands to handlers by command prefix, whole words only: the key
// "logcat" serves "logcat -v monotonic --pid=42", the key "pidof com.example.app" serves
// exactly that command, and the longest matching key wins. Commands no key matches print
// "/system/bin/sh: NAME: inaccessible or not found", as for a device without them.
//
//	cfg.Handler = fakeadb.Mux{
//		"dumpsys gfxinfo": gfxHandler,
//		"pidof com.example.app": fakeadb.Text("4242\n"),
//		"logcat": logcatHandler,
//	}.Serve
type Mux map[string]Handler

// Serve is the Mux's Handler.
func (m Mux) Serve(ctx context.Context, cmd string, w io.Writer) error {
	best := ""
	var h Handler
	for k, kh := range m {
		if (cmd == k || strings.HasPrefix(cmd, k+" ")) && (h == nil || len(k) > len(best)) {
			best, h = k, kh
		}
	}
	if h == nil {
		name, _, _ := strings.Cut(strings.TrimSpace(cmd), " ")
		_, err := io.WriteString(w, "/system/bin/sh: "+name+": inaccessible or not found\n")
		return err
	}
	return h(ctx, cmd, w)
}
