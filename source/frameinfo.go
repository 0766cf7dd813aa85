package source

// Column identifiers of Android's FrameInfo (libs/hwui/FrameInfo.cpp), the fields gfxinfo
// prints as PROFILEDATA columns and hwui's "Davey!" log lines as name=value pairs: indices
// into a row's values, not the order the columns are printed in (a header maps one to the
// other).
const (
	ColIgnore = iota
	ColFlags
	ColVsyncID
	ColIntendedVsync
	ColOldestInput
	ColNewestInput
	ColInputEventID
	ColDeadline
	ColFrameInterval // labelled FrameInterval: period or timestamp, decided by value
	ColAnimationTime // current AOSP's 25th column: known, not used
	ColVsync         // from here on in source.Phases' field order
	ColHandleInput
	ColAnimation
	ColTraversals
	ColDrawStart
	ColSyncQueued
	ColSyncStart
	ColIssueDraw
	ColSwapBuffers
	ColFrameCompleted
	ColDequeue
	ColQueue
	ColGpuCompleted
	ColSwapCompleted
	ColPresent
	ColCommandSubmission
	ColFrameStart // labelled FrameStartTime: period or timestamp, decided by value
	ColWorkload
	NumCols
)

// FrameInfoColumns maps a FrameInfo field name, as a PROFILEDATA header or a Davey line prints
// it, to its column.
var FrameInfoColumns = map[string]int{
	"Flags":                      ColFlags,
	"FrameTimelineVsyncId":       ColVsyncID,
	"IntendedVsync":              ColIntendedVsync,
	"Vsync":                      ColVsync,
	"OldestInputEvent":           ColOldestInput,
	"NewestInputEvent":           ColNewestInput,
	"InputEventId":               ColInputEventID,
	"HandleInputStart":           ColHandleInput,
	"AnimationStart":             ColAnimation,
	"PerformTraversalsStart":     ColTraversals,
	"DrawStart":                  ColDrawStart,
	"FrameDeadline":              ColDeadline,
	"FrameInterval":              ColFrameInterval,
	"FrameStartTime":             ColFrameStart,
	"WorkloadTarget":             ColWorkload,
	"AnimationTime":              ColAnimationTime,
	"SyncQueued":                 ColSyncQueued,
	"SyncStart":                  ColSyncStart,
	"IssueDrawCommandsStart":     ColIssueDraw,
	"SwapBuffers":                ColSwapBuffers,
	"FrameCompleted":             ColFrameCompleted,
	"DequeueBufferDuration":      ColDequeue,
	"QueueBufferDuration":        ColQueue,
	"GpuCompleted":               ColGpuCompleted,
	"SwapBuffersCompleted":       ColSwapCompleted,
	"DisplayPresentTime":         ColPresent,
	"CommandSubmissionCompleted": ColCommandSubmission,
}

// PhasesOf returns row r's phase columns as a frame's Phases. FrameStartTime is the column's
// value here; a reader corrects it once the period has been told from the start time.
func PhasesOf(r *[NumCols]int64) Phases {
	return Phases{
		Vsync:                      r[ColVsync],
		HandleInputStart:           r[ColHandleInput],
		AnimationStart:             r[ColAnimation],
		PerformTraversalsStart:     r[ColTraversals],
		DrawStart:                  r[ColDrawStart],
		SyncQueued:                 r[ColSyncQueued],
		SyncStart:                  r[ColSyncStart],
		IssueDrawCommandsStart:     r[ColIssueDraw],
		SwapBuffers:                r[ColSwapBuffers],
		FrameCompleted:             r[ColFrameCompleted],
		DequeueBufferDuration:      r[ColDequeue],
		QueueBufferDuration:        r[ColQueue],
		GpuCompleted:               r[ColGpuCompleted],
		SwapBuffersCompleted:       r[ColSwapCompleted],
		DisplayPresentTime:         r[ColPresent],
		CommandSubmissionCompleted: r[ColCommandSubmission],
		FrameStartTime:             r[ColFrameStart],
		WorkloadTarget:             r[ColWorkload],
	}
}
