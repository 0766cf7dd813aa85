package device

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
)

func TestServerAddr(t *testing.T) {
	tests := []struct {
		name       string
		host       string
		port       int
		socket     string
		envHost    string
		envPort    string
		want       string
		wantErrSub string
	}{
		{name: "default", want: "localhost:5037"},
		{name: "flags", host: "10.0.0.2", port: 5038, want: "10.0.0.2:5038"},
		{name: "port flag only", port: 6000, want: "localhost:6000"},
		{name: "socket env", socket: "tcp:127.0.0.1:5040", want: "127.0.0.1:5040"},
		{name: "socket env port only", socket: "tcp:5041", want: "localhost:5041"},
		{name: "socket env ipv6", socket: "tcp:[::1]:5042", want: "[::1]:5042"},
		{name: "flags beat socket env", socket: "tcp:127.0.0.1:5040", port: 5050, want: "localhost:5050"},
		{name: "host flag beats socket env", socket: "tcp:127.0.0.1:5040", host: "h", want: "h:5037"},
		{name: "address and port env", envHost: "192.168.1.9", envPort: "5043", want: "192.168.1.9:5043"},
		{name: "socket env beats port env", socket: "tcp:5044", envPort: "5043", want: "localhost:5044"},
		{name: "unix socket unsupported", socket: "localfilesystem:/tmp/adb", wantErrSub: "only tcp"},
		{name: "bad socket port", socket: "tcp:host:x", wantErrSub: "invalid ADB_SERVER_SOCKET"},
		{name: "bad port env", envPort: "abc", wantErrSub: "ANDROID_ADB_SERVER_PORT"},
		{name: "bad port flag", port: 70000, wantErrSub: "invalid adb server port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ADB_SERVER_SOCKET", tt.socket)
			t.Setenv("ANDROID_ADB_SERVER_ADDRESS", tt.envHost)
			t.Setenv("ANDROID_ADB_SERVER_PORT", tt.envPort)
			got, err := ServerAddr(tt.host, tt.port)
			if tt.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
					t.Fatalf("ServerAddr = %q, %v; want error containing %q", got, err, tt.wantErrSub)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ServerAddr = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseDevicesLines(t *testing.T) {
	text := "List of devices attached\n" +
		"R58M123ABC             device usb:1-1 product:beyond1lteeea model:SM_G973F device:beyond1 transport_id:3\n" +
		"0123456789ABCDEF       unauthorized usb:1-2 transport_id:4\n" +
		"192.168.1.5:5555       offline product:x model:Pixel_7 device:panther transport_id:5\r\n" +
		"????????????           no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-3 transport_id:6\n" +
		"emulator-5554 device\n" +
		"* daemon not running; starting now at tcp:5037\n" +
		"\n"
	got := ParseDevices(text)
	want := []Info{
		{Serial: "R58M123ABC", State: "device", USB: "1-1", Product: "beyond1lteeea", Model: "SM_G973F", Device: "beyond1", TransportID: 3},
		{Serial: "0123456789ABCDEF", State: "unauthorized", USB: "1-2", TransportID: 4},
		{Serial: "192.168.1.5:5555", State: "offline", Product: "x", Model: "Pixel_7", Device: "panther", TransportID: 5},
		{Serial: "????????????", State: "no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]", USB: "1-3", TransportID: 6},
		{Serial: "emulator-5554", State: "device"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d devices, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("device %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if h := Help(got[3].State); !strings.Contains(h, "udev") {
		t.Errorf("Help(no permissions) = %q", h)
	}
}

// TestParseDevicesRealdata reads the real `adb devices -l` captures: daemon chatter, a
// version-mismatch line and a loader warning must not become devices.
func TestParseDevicesRealdata(t *testing.T) {
	dir := realdata.Dir(t, "misc")
	tests := []struct {
		file string
		want []Info
	}{
		{"fastlane-screengrab-adb-devices-l-emulator-plus-motox.txt", []Info{
			{Serial: "emulator-5554", State: "device", Product: "sdk_phone_x86_64", Model: "Android_SDK_built_for_x86_64", Device: "generic_x86_64"},
			{Serial: "T065002LTT", State: "device", USB: "437387264X", Product: "ghost_retail", Model: "XT1053", Device: "ghost"},
		}},
		{"fastlane-screengrab-adb-devices-l-libcrypto-warning-line.txt", []Info{
			{Serial: "e1dbf228", State: "device", USB: "1-1.2", Product: "a33gdd", Model: "SM_A300H", Device: "a33g"},
		}},
		{"fastlane-screengrab-adb-devices-l-server-version-mismatch-daemon-chatter.txt", []Info{
			{Serial: "T065002LTT", State: "device", USB: "437387264X", Product: "ghost_retail", Model: "XT1053", Device: "ghost"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := ParseDevices(string(b))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d devices, want %d: %+v", len(got), len(tt.want), got)
			}
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("device %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestSelect(t *testing.T) {
	a := Info{Serial: "A", State: "device"}
	b := Info{Serial: "B", State: "device"}
	u := Info{Serial: "U", State: "unauthorized"}
	o := Info{Serial: "O", State: "offline"}

	if got, err := Select([]Info{u, a}, ""); err != nil || got.Serial != "A" {
		t.Errorf("one online: %+v, %v", got, err)
	}
	if got, err := Select([]Info{a, b}, "B"); err != nil || got.Serial != "B" {
		t.Errorf("by serial: %+v, %v", got, err)
	}
	_, err := Select([]Info{a, b, u}, "")
	if !errors.Is(err, ErrSeveralDevices) || !strings.Contains(err.Error(), "A, B") || strings.Contains(err.Error(), "U") {
		t.Errorf("several: %v", err)
	}
	_, err = Select(nil, "")
	if !errors.Is(err, ErrNoDevice) {
		t.Errorf("none: %v", err)
	}
	_, err = Select([]Info{u, o}, "")
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "RSA") || !strings.Contains(err.Error(), "O is offline") {
		t.Errorf("none online: %v", err)
	}
	_, err = Select([]Info{a, u}, "U")
	if err == nil || !strings.Contains(err.Error(), "unauthorized") || !strings.Contains(err.Error(), "kill-server") {
		t.Errorf("chosen unauthorized: %v", err)
	}
	_, err = Select([]Info{a}, "Z")
	if !errors.Is(err, ErrDeviceNotFound) || !strings.Contains(err.Error(), "A") {
		t.Errorf("unknown serial: %v", err)
	}
	// Exact match only: a prefix is not a serial.
	if _, err := Select([]Info{{Serial: "ABC", State: "device"}}, "AB"); err == nil {
		t.Error("prefix matched")
	}
}

func TestDefaultSerial(t *testing.T) {
	t.Setenv("ANDROID_SERIAL", "envserial")
	if got := DefaultSerial("flag"); got != "flag" {
		t.Errorf("flag: %q", got)
	}
	if got := DefaultSerial(""); got != "envserial" {
		t.Errorf("env: %q", got)
	}
}

func TestHelp(t *testing.T) {
	if h := Help("unauthorized"); !strings.Contains(h, "RSA") || !strings.Contains(h, "adb kill-server") {
		t.Errorf("unauthorized: %q", h)
	}
	if h := Help("offline"); h == "" {
		t.Error("offline has no help")
	}
	if h := Help("device"); h != "" {
		t.Errorf("device: %q", h)
	}
}

func TestValidPackage(t *testing.T) {
	good := []string{"com.example.app", "com.twitter.android", "de.codevoid.andronavibar", "a.b", "_x._y", "com.Slack", "org.mozilla.firefox_beta", "com.app2.x9"}
	for _, p := range good {
		if err := ValidPackage(p); err != nil {
			t.Errorf("ValidPackage(%q) = %v", p, err)
		}
	}
	bad := []string{
		"", "android", "com.x;rm -rf /", "$(reboot)", "-a", "--user", "com.x y", "com.x'", `com."x"`,
		"com.x`id`", "com.x|sh", "com.x&", "com..x", ".com.x", "com.x.", "com.1x", "1com.x",
		"com.x\n", "com.x\x00", "com/x", "com.x>y", "com.é", "com.x:remote", "com.x*",
		strings.Repeat("a.", 128) + "a",
	}
	for _, p := range bad {
		err := ValidPackage(p)
		if err == nil {
			t.Errorf("ValidPackage(%q) accepted", p)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPackage(%q) = %v, not ErrInvalid", p, err)
		}
	}
}

func TestLogcatCommand(t *testing.T) {
	ok := []struct {
		args []string
		want string
	}{
		{[]string{"-v", "monotonic", "-v", "usec", "--pid=1234"}, "logcat -v monotonic -v usec --pid=1234"},
		{[]string{"-T", "1", "-b", "main", "-s", "Looper:D", "Choreographer:I", "*:S"}, "logcat -T 1 -b main -s Looper:D Choreographer:I '*:S'"},
		{[]string{"-vthreadtime", "--format=usec", "-T", "123.456", "-d", "--uid=10123"}, "logcat -vthreadtime --format=usec -T 123.456 -d --uid=10123"},
		{nil, "logcat"},
	}
	for _, tt := range ok {
		got, err := LogcatCommand(tt.args)
		if err != nil || got != tt.want {
			t.Errorf("LogcatCommand(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
	bad := [][]string{
		{"-c"}, {"-G", "16M"}, {"-f", "/sdcard/x"}, {"-v", "monotonic;reboot"}, {"--pid=1;reboot"},
		{"--pid"}, {"-T", "$(id)"}, {"-e", ".*"}, {"Tag:X"}, {"a b"}, {"*"}, {"-b", "mainx"},
		{"$(reboot)"}, {"`id`"}, {"-vfoo"}, {"Tag:D", ";", "reboot"},
	}
	for _, args := range bad {
		if got, err := LogcatCommand(args); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("LogcatCommand(%q) = %q, %v; want refusal", args, got, err)
		}
	}
}

func TestValidProp(t *testing.T) {
	for _, k := range []string{"log.looper.10123.main.slow", "debug.hwui.profile", "persist.x-y_z"} {
		if err := ValidPropKey(k); err != nil {
			t.Errorf("ValidPropKey(%q) = %v", k, err)
		}
	}
	for _, k := range []string{"", "1x", "-x", "a b", "a;b", "a$b", strings.Repeat("a", 256)} {
		if err := ValidPropKey(k); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPropKey(%q) = %v", k, err)
		}
	}
	for _, v := range []string{"", "100", "true", "a.b/c:d,e@f+g=h-i_j"} {
		if err := ValidPropValue(v); err != nil {
			t.Errorf("ValidPropValue(%q) = %v", v, err)
		}
	}
	for _, v := range []string{"a b", "x;reboot", "$(id)", "'", `"`, strings.Repeat("1", 92)} {
		if err := ValidPropValue(v); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPropValue(%q) = %v", v, err)
		}
	}
}

func TestParseRefreshRateRealdata(t *testing.T) {
	dir := realdata.Dir(t, "misc")
	tests := []struct {
		file string
		want float64
	}{
		{"flashlight-dumpsys-display-grep-emulator-60hz.txt", 60.000004},
		{"flashlight-dumpsys-display-grep-pixel-120hz.txt", 120.00001},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := ParseRefreshRate(b)
			if !ok || got != tt.want {
				t.Errorf("ParseRefreshRate = %v, %v; want %v", got, ok, tt.want)
			}
			if math.Round(got) != math.Round(tt.want) {
				t.Errorf("rounded %v", got)
			}
		})
	}
}

func TestParseRefreshRateForms(t *testing.T) {
	tests := []struct {
		name, text string
		want       float64
		ok         bool
	}{
		{"active mode by modeId",
			`DisplayDeviceInfo{"Built-in Screen": uniqueId="local:1", 1080 x 2400, modeId 2, defaultModeId 1, supportedModes [{id=1, width=1080, height=2400, fps=60.0, alternativeRefreshRates=[90.0]}, {id=2, width=1080, height=2400, fps=90.0, alternativeRefreshRates=[60.0]}], colorMode 0}`,
			90, true},
		{"mActiveModeId",
			"  mActiveModeId=1\n  mSupportedModes=[{id=1, width=1440, height=3200, fps=120.0}, {id=2, width=1440, height=3200, fps=60.0}]\n",
			120, true},
		{"mRefreshRate only", "  mRefreshRate=59.94\n  mRefreshRateInZone: 0\n", 59.94, true},
		{"old fps form", `DisplayDeviceInfo{"Built-in Screen": 1080 x 1920, 60.0 fps, supportedRefreshRates [60.0], density 480}`, 60, true},
		{"zone lines are not rates", "    mRefreshRateInLowZone: 120\n    mRefreshRateInHighZone: 0\n", 0, false},
		{"nothing", "no display here", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRefreshRate([]byte(tt.text))
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: ParseRefreshRate = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseFocusedWindowRealdata(t *testing.T) {
	dir := realdata.Dir(t, "misc")
	b, err := os.ReadFile(filepath.Join(dir, "flashlight-dumpsys-window-windows-samsung.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// No mCurrentFocus in this capture: the on-screen activity window is Twitter's.
	pkg, act, ok := ParseFocusedWindow(b)
	if !ok || pkg != "com.twitter.android" || act != "com.twitter.app.main.MainActivity" {
		t.Errorf("ParseFocusedWindow = %q, %q, %v", pkg, act, ok)
	}
}

func TestParseForegroundForms(t *testing.T) {
	activity := []struct {
		name, text, pkg, act string
	}{
		{"android 9", "    mResumedActivity: ActivityRecord{5b1c2a3 u0 com.example.app/.MainActivity t42}\n", "com.example.app", "com.example.app.MainActivity"},
		{"android 12", "  ResumedActivity: ActivityRecord{9a u0 com.android.settings/.Settings t7}\n  topResumedActivity=ActivityRecord{9a u0 com.android.settings/.SubSettings t7}\n", "com.android.settings", "com.android.settings.SubSettings"},
		{"full class", "mResumedActivity: ActivityRecord{1 u10 org.mozilla.firefox/org.mozilla.fenix.HomeActivity t3}", "org.mozilla.firefox", "org.mozilla.fenix.HomeActivity"},
		{"inner class", "mResumedActivity: ActivityRecord{1 u0 com.android.settings/.Settings$WifiSettingsActivity t3}", "com.android.settings", "com.android.settings.Settings$WifiSettingsActivity"},
	}
	for _, tt := range activity {
		pkg, act, ok := ParseResumedActivity([]byte(tt.text))
		if !ok || pkg != tt.pkg || act != tt.act {
			t.Errorf("%s: ParseResumedActivity = %q, %q, %v", tt.name, pkg, act, ok)
		}
	}
	if _, _, ok := ParseResumedActivity([]byte("mResumedActivity: null\n")); ok {
		t.Error("null resumed activity parsed")
	}

	window := []struct {
		name, text, pkg, act string
		ok                   bool
	}{
		{"current focus", "  mCurrentFocus=Window{2a5f1c4 u0 com.example.app/com.example.app.MainActivity}\n  mFocusedApp=ActivityRecord{x u0 com.other/.A t1}\n", "com.example.app", "com.example.app.MainActivity", true},
		{"focused app when focus is a system window", "  mCurrentFocus=Window{1 u0 NotificationShade}\n  mFocusedApp=AppWindowToken{2 token=Token{3 ActivityRecord{4 u0 com.whatsapp/.HomeActivity t9}}}\n", "com.whatsapp", "com.whatsapp.HomeActivity", true},
		{"nothing focused", "  mCurrentFocus=null\n  mFocusedApp=null\n", "", "", false},
	}
	for _, tt := range window {
		pkg, act, ok := ParseFocusedWindow([]byte(tt.text))
		if ok != tt.ok || pkg != tt.pkg || act != tt.act {
			t.Errorf("%s: ParseFocusedWindow = %q, %q, %v", tt.name, pkg, act, ok)
		}
	}
}

func TestParsePidofAndPs(t *testing.T) {
	if pid, ok := parsePidof([]byte("12345\n")); !ok || pid != 12345 {
		t.Errorf("pidof: %d %v", pid, ok)
	}
	if pid, ok := parsePidof([]byte("4242 4343\n")); !ok || pid != 4242 {
		t.Errorf("pidof two: %d %v", pid, ok)
	}
	for _, s := range []string{"", "\n", "/system/bin/sh: pidof: not found\n"} {
		if _, ok := parsePidof([]byte(s)); ok {
			t.Errorf("pidof %q parsed", s)
		}
	}
	toybox := "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n" +
		"root             1     0 10904548 12008 0                   0 S init\n" +
		"u0_a123      23456   812 15566260 190132 0                  0 S com.example.app\n" +
		"u0_a123      23499   812 15566260 90132 0                   0 S com.example.app:remote\n"
	if pid, ok := ParsePs([]byte(toybox), "com.example.app"); !ok || pid != 23456 {
		t.Errorf("toybox ps: %d %v", pid, ok)
	}
	toolbox := "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n" +
		"u0_a55    3011  180   903124 41208 ffffffff 00000000 S com.example.app\n"
	if pid, ok := ParsePs([]byte(toolbox), "com.example.app"); !ok || pid != 3011 {
		t.Errorf("toolbox ps: %d %v", pid, ok)
	}
	if _, ok := ParsePs([]byte(toybox), "com.example"); ok {
		t.Error("prefix matched in ps")
	}
}

func TestParsePackagesUID(t *testing.T) {
	out := []byte("package:com.example.app.debug uid:10200\npackage:com.example.app uid:10123\npackage:com.shared uid:1000,10001\n")
	if uid, ok := ParsePackagesUID(out, "com.example.app"); !ok || uid != 10123 {
		t.Errorf("uid: %d %v", uid, ok)
	}
	if uid, ok := ParsePackagesUID(out, "com.shared"); !ok || uid != 1000 {
		t.Errorf("shared uid: %d %v", uid, ok)
	}
	if _, ok := ParsePackagesUID(out, "com.missing"); ok {
		t.Error("missing package found")
	}
}

func TestFailErrorIs(t *testing.T) {
	cases := map[string]error{
		"device offline":                  ErrOffline,
		"device unauthorized.\nThis adb…": ErrUnauthorized,
		"device '127.0.0.1:5' not found":  ErrDeviceNotFound,
	}
	for msg, target := range cases {
		err := error(&FailError{Request: "host:transport:x", Message: msg})
		if !errors.Is(err, target) {
			t.Errorf("%q is not %v", msg, target)
		}
	}
}

func TestCheckSerial(t *testing.T) {
	for _, s := range []string{"emulator-5554", "127.0.0.1:5555", "adb-R5CR-abc._adb-tls-connect._tcp", "R58M123ABC"} {
		if err := checkSerial(s); err != nil {
			t.Errorf("checkSerial(%q) = %v", s, err)
		}
	}
	for _, s := range []string{"", "a b", "a\nb", "a\x00b", strings.Repeat("x", 256)} {
		if err := checkSerial(s); err == nil {
			t.Errorf("checkSerial(%q) accepted", s)
		}
	}
}
