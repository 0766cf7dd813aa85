// Package simtext renders the simulator's events as the text and traces a phone prints:
// `dumpsys gfxinfo <pkg> framestats` (GfxinfoDump, fed live by sim.Sim.SetGfxinfo), logcat in
// its formats (RenderLogcat) and a Perfetto trace (RenderTrace, TraceStream), so the real
// parsers can be tested against the simulator's known truth and the fake phone
// (internal/testkit/fakeadb) can serve live output. It is a test harness: fpstop itself never
// prints what a phone prints.
package simtext
