// Package argfuzz holds the fuzz test of every tool's argument parsing. It is a package of its
// own because internal/tools' tests need a desktop, and parsing must be fuzzed without one.
package argfuzz
