package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/fpstop/fpstop/device"
)

// repeatable is a flag that may be given several times (-s A -s B, -p A=pkg -p B=pkg). Every
// value is kept in order; the first one that fits the single-device meaning also lands in
// *single, so a single -s or -p behaves exactly as before.
type repeatable struct {
	vals   *[]string
	single *string
	fits   func(string) bool // nil: every value fits
}

func (r *repeatable) Set(v string) error {
	*r.vals = append(*r.vals, v)
	if (r.fits == nil || r.fits(v)) && *r.single == "" {
		*r.single = v
	}
	return nil
}

func (r *repeatable) String() string {
	if r.single == nil {
		return ""
	}
	return *r.single
}

func (r *repeatable) Type() string { return "string" }

// bindDevices binds -s/--serial, -p/--package and --all-devices.
func (o *Options) bindDevices(fs *pflag.FlagSet) {
	fs.VarP(&repeatable{vals: &o.serials, single: &o.Serial}, "serial", "s",
		"device serial (default $ANDROID_SERIAL, or the only device); repeat for several devices")
	fs.VarP(&repeatable{vals: &o.packages, single: &o.Package, fits: func(v string) bool { return !strings.Contains(v, "=") }},
		"package", "p", "app package (default: the foreground app); SERIAL=PKG for one device of several")
	fs.BoolVar(&o.AllDevices, "all-devices", false, "measure every online device at once, picking up devices plugged in during the run")
}

// multi says whether the run measures several devices.
func (o *Options) multi() bool { return o.AllDevices || len(o.serials) > 1 }

// packageFor is the package to read on serial: its own -p SERIAL=PKG, else the plain -p.
func (o *Options) packageFor(serial string) string {
	if p, ok := o.pkgBySerial[serial]; ok {
		return p
	}
	return o.Package
}

// validateDevices checks -s, -p and --all-devices and what goes with several devices.
func (o *Options) validateDevices() error {
	o.pkgBySerial = map[string]string{}
	plain := 0
	for _, v := range o.packages {
		serial, pkg, per := strings.Cut(v, "=")
		if !per {
			pkg = v
			plain++
		} else if serial == "" || strings.ContainsAny(serial, "\x00\n\r") {
			return usageErr("--package %q: want PKG or SERIAL=PKG", v)
		}
		if err := device.ValidPackage(pkg); err != nil {
			return usageErr("--package: %v", err)
		}
		if per {
			o.pkgBySerial[serial] = pkg
		}
	}
	if plain > 1 {
		return usageErr("--package given %d times: give one package for all devices, or SERIAL=PKG per device", plain)
	}
	seen := map[string]bool{}
	for _, s := range o.serials {
		if s == "" || strings.ContainsAny(s, "\x00\n\r") {
			return usageErr("--serial %q: not a device serial", s)
		}
		if seen[s] {
			return usageErr("--serial %s given twice", s)
		}
		seen[s] = true
	}
	if !o.multi() {
		return nil
	}
	if o.AllDevices && len(o.serials) > 0 {
		return usageErr("--all-devices measures every device: leave out --serial, or name the devices with -s alone")
	}
	switch {
	case o.Input != "" || o.Source == "sim" || o.simImplied:
		return usageErr("several devices are read live: --input and the simulator take one source")
	case o.Record != "" || o.Truth != "":
		return usageErr("--record writes one device's recording: run one fpstop per device to record each (or press r on one device's dashboard)")
	case o.SetSlowThreshold > 0:
		return usageErr("--set-slow-threshold changes one device: run it per device")
	}
	return nil
}
