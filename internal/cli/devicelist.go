package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/fpstop/fpstop/device"
)

// writeDevices writes the device list for `fpstop devices`: a JSON array of Info when asJSON,
// else a table (serial, state, model, Android, SDK) followed by a help line for each device that
// cannot be used as it is.
func writeDevices(w io.Writer, infos []device.Info, asJSON bool) error {
	if asJSON {
		if infos == nil {
			infos = []device.Info{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	if len(infos) == 0 {
		_, err := fmt.Fprintln(w, "No Android devices attached (plug in a phone with USB debugging enabled, or `adb connect HOST:PORT`).")
		return err
	}
	sorted := append([]device.Info(nil), infos...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Serial < sorted[j].Serial })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tSTATE\tMODEL\tANDROID\tSDK")
	for _, in := range sorted {
		sdk := ""
		if in.SDK > 0 {
			sdk = strconv.Itoa(in.SDK)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Serial, in.State, dash(in.Model), dash(in.Android), dash(sdk))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, in := range sorted {
		if h := device.Help(in.State); h != "" {
			if _, err := fmt.Fprintf(w, "%s (%s): %s\n", in.Serial, in.State, h); err != nil {
				return err
			}
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
