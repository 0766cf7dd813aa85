package perfetto

import "strings"

// The names trace_processor gives jank, present and prediction types: the real captures'
// tables are compared by them. fpstop itself shows no such name, so they live with the tests.

var jankNames = []struct {
	bit  int64
	name string
}{
	{JankSFScheduling, "SurfaceFlinger Scheduling"}, {JankPrediction, "Prediction Error"},
	{JankDisplayHAL, "Display HAL"}, {JankSFCPU, "SurfaceFlinger CPU Deadline Missed"},
	{JankSFGPU, "SurfaceFlinger GPU Deadline Missed"}, {JankAppDeadline, "App Deadline Missed"},
	{JankAppResynced, "App Resynced Jitter"}, {JankBufferStuffing, "Buffer Stuffing"},
	{JankUnknown, "Unknown Jank"}, {JankSFStuffing, "SurfaceFlinger Stuffing"},
	{JankDropped, "Dropped Frame"}, {JankNonAnimating, "Non Animating"},
	{JankDisplayNotOn, "Display not ON"}, {JankModeChange, "ModeChange in progress"},
	{JankPowerMode, "PowerModeChange in progress"},
}

// JankTypeString names a jank bit set as trace_processor does ("Unspecified", "None", or the
// reasons joined by ", " in a fixed order).
func JankTypeString(j int64) string {
	switch j {
	case 0:
		return "Unspecified"
	case JankNone:
		return "None"
	}
	var parts []string
	for _, n := range jankNames {
		if j&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ", ")
}

// PresentTypeString names a present type.
func PresentTypeString(p int32) string {
	switch p {
	case PresentOnTime:
		return "On-time Present"
	case PresentLate:
		return "Late Present"
	case PresentEarly:
		return "Early Present"
	case PresentDropped:
		return "Dropped Frame"
	case PresentUnknown:
		return "Unknown Present"
	}
	return "Unspecified Present"
}

// PredictionTypeString names a prediction type.
func PredictionTypeString(p int32) string {
	switch p {
	case 1:
		return "Valid Prediction"
	case 2:
		return "Expired Prediction"
	case 3:
		return "Unknown Prediction"
	}
	return "Unspecified Prediction"
}
