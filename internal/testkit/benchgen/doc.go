// Package benchgen writes the deterministic benchmark inputs (anchors-perf.md describes the mix):
// a threadtime logcat and concatenated gfxinfo framestats dumps. It is a package, not only the
// scripts/benchgen command, so that the in-process benchmarks (source/logcat's) read the very
// text the whole-process comparisons in BENCHMARKS.md run on, from one generator.
//
// Real logs carry a different object hash in many Looper lines (`Handler (…) {8e2b5c1}`,
// `…$1@3f6a0e`): a Runnable posted per message is a new object, so the generator draws a fresh
// hash for those, and one of a few thousand for plain Handlers, as phones print them.
package benchgen
