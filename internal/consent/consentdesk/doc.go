// Package consentdesk holds consent's end-to-end tests: a daemon attached to a private test
// desktop, asked through request-command-access and answered by `mcec consent` running
// in-process. They live apart from internal/consent so that package's unit tests and fuzz
// target need no desktop.
package consentdesk
