// Package evidencefake holds tests of the evidence recorder on catalog + dispatcher + the
// in-memory desktop (internal/platform/fake), inside testing/synctest bubbles so that the
// recorder's timers (session.json checkpoints) run on a fake clock: deterministic, no X
// server, no waiting. The real-desktop evidence tests stay in internal/evidence.
package evidencefake
