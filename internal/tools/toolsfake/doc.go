// Package toolsfake holds tests of the agent tools on the whole daemon over the in-memory
// desktop (internal/daemon/daemontest, internal/platform/fake): the effect observer, the
// find and wait-for semantics, the emergency stop aborting a gesture. They need no X server
// and run in a fraction of a second each; what needs a real toolkit stays in internal/tools.
package toolsfake
