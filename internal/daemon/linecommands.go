package daemon

import (
	"github.com/mcec/mcec/internal/rawcmd/queue"
	"github.com/mcec/mcec/internal/transport/line"
)

// LineCommands adapts the raw command queue to the TCP line server (internal/transport/line),
// which knows the queue only through its own small interface: a transport never reaches input.
func (d *Daemon) LineCommands() line.Engine { return lineEngine{d.Commands} }

type lineEngine struct{ q *queue.Engine }

func (e lineEngine) Connect() line.Submitter { return lineClient{e.q.NewClient(queue.OriginLine)} }

type lineClient struct{ c *queue.Client }

func (c lineClient) Close() { c.c.Close() }

func (c lineClient) Submit(text string) (line.Pending, error) {
	t, err := c.c.Submit(text)
	if err != nil {
		return line.Pending{}, err
	}
	return line.Pending{Replies: t.Replies, IsTool: t.IsTool, Done: t.Done(), Result: func() (line.Answer, error) {
		res, err := t.Result()
		return line.Answer{Tool: res.Tool, Output: res.Output, Exit: res.Exit}, err
	}}, nil
}
