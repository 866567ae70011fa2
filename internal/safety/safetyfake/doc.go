// Package safetyfake holds tests of the gates — the operator's opt-in, gated launch and raw
// input, the emergency stop's place first in the chain — on the whole daemon over the
// in-memory desktop (internal/daemon/daemontest). The fake records every gesture, so these
// tests also prove that refused input never reached the desktop. No X server is needed.
package safetyfake
