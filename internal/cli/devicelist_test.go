package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/device"
)

func TestWriteDevices(t *testing.T) {
	infos := []device.Info{
		{Serial: "B123", State: "unauthorized"},
		{Serial: "A123", State: "device", Model: "Pixel_7", Android: "14", SDK: 34},
	}
	var buf bytes.Buffer
	if err := writeDevices(&buf, infos, false); err != nil {
		t.Fatal(err)
	}
	want := "SERIAL  STATE         MODEL    ANDROID  SDK\n" +
		"A123    device        Pixel_7  14       34\n" +
		"B123    unauthorized  -        -        -\n" +
		"B123 (unauthorized): " + device.Help("unauthorized") + "\n"
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}

	buf.Reset()
	if err := writeDevices(&buf, infos, true); err != nil {
		t.Fatal(err)
	}
	var back []device.Info
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != 2 || back[1] != infos[1] {
		t.Errorf("json round trip: %v %+v\n%s", err, back, buf.String())
	}
	if !strings.Contains(buf.String(), `"sdk": 34`) {
		t.Errorf("json keys: %s", buf.String())
	}

	buf.Reset()
	if err := writeDevices(&buf, nil, true); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("empty json: %q %v", buf.String(), err)
	}
	buf.Reset()
	if err := writeDevices(&buf, nil, false); err != nil || !strings.Contains(buf.String(), "No Android devices") {
		t.Errorf("empty table: %q %v", buf.String(), err)
	}
}
