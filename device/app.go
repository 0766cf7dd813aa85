package device

import (
	"context"
	"fmt"
	"strings"
)

// Commands that restart an app (fpstop test --cold). They change the device's state, so they
// run only when the user asked for a cold start.

// ForceStop stops the app (`am force-stop PKG`): its process is killed, as a cold start needs.
func (c *Client) ForceStop(ctx context.Context, serial, pkg string) error {
	if err := ValidPackage(pkg); err != nil {
		return err
	}
	out, err := c.Shell(ctx, serial, "am force-stop "+pkg)
	if err != nil {
		return err
	}
	if msg := strings.TrimSpace(string(out)); msg != "" {
		// am force-stop prints nothing on success
		return fmt.Errorf("am force-stop %s on %s: %s", pkg, serial, firstLine(out))
	}
	return nil
}

// ValidActivity checks an activity class name as `am start -n PKG/ACTIVITY` takes it: a Java
// class name (letters, digits, '_', '$' for nested classes, '.'), optionally starting with '.'
// (relative to the package). The error wraps ErrInvalid.
func ValidActivity(name string) error {
	if name == "" || len(name) > MaxPackageLen {
		return invalidf("invalid activity name %.40q: empty or too long", name)
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !isIdentByte(ch) && ch != '.' && ch != '$' {
			return invalidf("invalid activity name %q: contains %q", name, rune(ch))
		}
	}
	if strings.Contains(name, "..") || strings.HasSuffix(name, ".") || name[0] >= '0' && name[0] <= '9' {
		return invalidf("invalid activity name %q", name)
	}
	return nil
}

// LauncherActivity asks the package manager which activity the launcher starts for pkg (`cmd
// package resolve-activity --brief -c android.intent.category.LAUNCHER PKG`, Android 7+); the
// answer's last line is "PKG/ACTIVITY". The result is validated: it goes into a shell command.
func (c *Client) LauncherActivity(ctx context.Context, serial, pkg string) (string, error) {
	if err := ValidPackage(pkg); err != nil {
		return "", err
	}
	out, err := c.Shell(ctx, serial, "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER "+pkg)
	if err != nil {
		return "", err
	}
	ls := lines(out)
	for i := len(ls) - 1; i >= 0; i-- {
		line := strings.TrimSpace(ls[i])
		if line == "" {
			continue
		}
		p, act, ok := strings.Cut(line, "/")
		if !ok || p != pkg {
			break
		}
		if err := ValidActivity(act); err != nil {
			return "", fmt.Errorf("launcher activity of %s: %w", pkg, err)
		}
		return act, nil
	}
	return "", fmt.Errorf("%s has no launcher activity on %s (%s)", pkg, serial, firstLine(out))
}

// Launch starts the app's launcher activity and waits until it is drawn (`am start -W -n
// PKG/ACTIVITY`, the activity from LauncherActivity).
func (c *Client) Launch(ctx context.Context, serial, pkg string) error {
	act, err := c.LauncherActivity(ctx, serial, pkg)
	if err != nil {
		return err
	}
	// '$' (nested classes) must not reach the shell unquoted
	out, err := c.Shell(ctx, serial, "am start -W -n "+shellQuote(pkg+"/"+act))
	if err != nil {
		return err
	}
	for _, line := range lines(out) {
		if strings.HasPrefix(strings.TrimSpace(line), "Error") || strings.Contains(line, "Exception") {
			return fmt.Errorf("am start %s/%s on %s: %s", pkg, act, serial, short(strings.TrimSpace(line)))
		}
	}
	return nil
}
