package daemon

import (
	"context"

	"github.com/mcec/mcec/internal/consent/screen"
)

// startConsentScreen shows consent questions as a dialog on an attached desktop, where the
// operator sits in front of it. On the private headless desktop nobody can see a dialog, so
// there only `mcec consent` answers (and only it makes consent available).
func (d *Daemon) startConsentScreen(display string) {
	if d.Private != nil || display == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		screen.Run(ctx, screen.Options{Display: display, Broker: d.Consent, Log: d.log})
	}()
	d.stopConsentScreen = func() {
		cancel()
		<-done
	}
}
