// Package errmap turns any failure into the contract's error: tools, the dispatcher and the raw
// command engine all map through it, so a failure reads the same whichever surface reports it.
// The platform's failures carry their own codes (platform.Sentinel); what the context's ends
// mean depends on the caller and is given as Deadlines.
package errmap

import (
	"context"
	"errors"
	"strings"

	"github.com/mcec/mcec/contract"
)

// Deadlines says what the context's own ends mean to the caller: a tool call past its
// deadline waited on an application that did not answer; a raw command past it timed out, and
// one cancelled was dropped from the queue.
type Deadlines struct {
	Deadline contract.Code // context.DeadlineExceeded
	Canceled contract.Code // context.Canceled; unhandled-exception when empty
}

var (
	// Tools is how tool calls read the context's ends.
	Tools = Deadlines{Deadline: contract.CodeAppNotResponding}
	// RawCommands is how raw commands read them: the step limit, the queue dropping a job.
	RawCommands = Deadlines{Deadline: contract.CodeSendCommandTimeout, Canceled: contract.CodeCommandDropped}
)

// coded is a failure that knows its contract code (platform.Sentinel).
type coded interface {
	error
	ContractCode() contract.Code
}

// ToContract maps err onto the contract; nil stays nil. A contract error in err's chain comes
// back as a copy (a caller may attach lastObservation without touching a shared value); a coded
// failure gets its code with err's text as the detail (bad-arguments with the backend's reason
// alone, since the agent's own argument is what to fix); the context's ends map as d says;
// anything else is unhandled-exception.
func ToContract(err error, d Deadlines) *contract.Error {
	if err == nil {
		return nil
	}
	var ce *contract.Error
	if errors.As(err, &ce) {
		c := *ce
		return &c
	}
	var c coded
	if errors.As(err, &c) && c.ContractCode() != "" {
		detail := err.Error()
		if c.ContractCode() == contract.CodeBadArguments {
			detail = strings.TrimPrefix(detail, c.Error()+": ")
		}
		return contract.Errorf(c.ContractCode(), "%s", detail)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) && d.Deadline != "":
		return contract.Errorf(d.Deadline, "%v", err)
	case errors.Is(err, context.Canceled) && d.Canceled != "":
		return contract.Errorf(d.Canceled, "%v", err)
	}
	return contract.Errorf(contract.CodeUnhandledException, "%v", err)
}
