package admission_test

import (
	"context"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/admission"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/rawcmd"
)

// stages records the order it was asked in and refuses where told.
type stages struct {
	asked                                  []string
	stopped, frozen, denied, statusAllowed bool
}

func (s *stages) Check(tool string) error {
	s.asked = append(s.asked, "stop")
	if s.stopped && !(s.statusAllowed && tool == "emergency-stop-status") {
		return contract.Errorf(contract.CodeEmergencyStopped, "stopped")
	}
	return nil
}

func (s *stages) Err() error {
	s.asked = append(s.asked, "stop")
	if s.stopped {
		return contract.Errorf(contract.CodeEmergencyStopped, "stopped")
	}
	return nil
}

func (s *stages) Frozen(what string) error {
	s.asked = append(s.asked, "freeze")
	if s.frozen {
		return contract.Errorf(contract.CodeConsentPending, "asking about %s", what)
	}
	return nil
}

func (s *stages) Allow(context.Context, string) error { return s.policy() }

func (s *stages) AllowRaw(context.Context, *rawcmd.Entry) error { return s.policy() }

func (s *stages) policy() error {
	s.asked = append(s.asked, "policy")
	if s.denied {
		return contract.Errorf(contract.CodeCommandDisabled, "denied")
	}
	return nil
}

func codeOf(err error) contract.Code {
	if ce, ok := err.(*contract.Error); ok {
		return ce.Code
	}
	return ""
}

func TestOrderAndFirstRefusalWins(t *testing.T) {
	click := &catalog.Tool{Name: "click", Annotations: catalog.Annotations{Destructive: true}}
	look := &catalog.Tool{Name: "windows", Annotations: catalog.Annotations{ReadOnly: true}}
	chars := &rawcmd.Entry{Name: "chars:", Kind: rawcmd.EntryPrefix}
	pause := &rawcmd.Entry{Name: "pause:", Kind: rawcmd.EntryPrefix}
	ver := &rawcmd.Entry{Name: "mcec:ver", Kind: rawcmd.EntryMeta}
	cases := []struct {
		name  string
		s     stages
		judge func(c *admission.Chain) error
		code  contract.Code
		asked string
	}{
		{"a tool passes all three in order", stages{}, func(c *admission.Chain) error { return c.Admit(context.Background(), click) }, "", "stop,freeze,policy"},
		{"a stop wins over everything", stages{stopped: true, frozen: true, denied: true},
			func(c *admission.Chain) error { return c.Admit(context.Background(), click) }, contract.CodeEmergencyStopped, "stop"},
		{"the freeze comes before the policy", stages{frozen: true, denied: true},
			func(c *admission.Chain) error { return c.Admit(context.Background(), click) }, contract.CodeConsentPending, "stop,freeze"},
		{"a read-only tool passes the freeze", stages{frozen: true},
			func(c *admission.Chain) error { return c.Admit(context.Background(), look) }, "", "stop,policy"},
		{"the policy has the last word", stages{denied: true},
			func(c *admission.Chain) error { return c.Admit(context.Background(), look) }, contract.CodeCommandDisabled, "stop,policy"},
		{"raw input passes all three", stages{}, func(c *admission.Chain) error { return c.AdmitRaw(context.Background(), chars) }, "", "stop,freeze,policy"},
		{"raw input is frozen", stages{frozen: true}, func(c *admission.Chain) error { return c.AdmitRaw(context.Background(), chars) }, contract.CodeConsentPending, "stop,freeze"},
		{"pause: passes the freeze", stages{frozen: true}, func(c *admission.Chain) error { return c.AdmitRaw(context.Background(), pause) }, "", "stop,policy"},
		{"a meta command passes the freeze", stages{frozen: true}, func(c *admission.Chain) error { return c.AdmitRaw(context.Background(), ver) }, "", "stop,policy"},
		{"a stop refuses raw commands too", stages{stopped: true}, func(c *admission.Chain) error { return c.AdmitRaw(context.Background(), ver) }, contract.CodeEmergencyStopped, "stop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			c := admission.New(&s, &s, &s)
			err := tc.judge(c)
			if codeOf(err) != tc.code {
				t.Errorf("got %v, want %q", err, tc.code)
			}
			got := ""
			for i, a := range s.asked {
				if i > 0 {
					got += ","
				}
				got += a
			}
			if got != tc.asked {
				t.Errorf("asked %s, want %s", got, tc.asked)
			}
		})
	}
}

func TestNilStagesAdmit(t *testing.T) {
	c := admission.New(nil, nil)
	if err := c.Admit(context.Background(), &catalog.Tool{Name: "click"}); err != nil {
		t.Error(err)
	}
	if err := c.AdmitRaw(context.Background(), &rawcmd.Entry{Name: "chars:", Kind: rawcmd.EntryPrefix}); err != nil {
		t.Error(err)
	}
}

// freezeFunc is a freeze stage.
type freezeFunc func(what string) error

func (f freezeFunc) Frozen(what string) error { return f(what) }

func TestFreezesInOrder(t *testing.T) {
	click := &catalog.Tool{Name: "click"}
	var asked []string
	stage := func(name string, code contract.Code) admission.Freeze {
		return freezeFunc(func(what string) error {
			asked = append(asked, name)
			if code == "" {
				return nil
			}
			return contract.Errorf(code, "%s refuses %s", name, what)
		})
	}
	c := admission.New(nil, nil, stage("takeover", contract.CodeOperatorInControl), nil, stage("consent", contract.CodeConsentPending))
	if err := c.Admit(context.Background(), click); codeOf(err) != contract.CodeOperatorInControl || len(asked) != 1 {
		t.Errorf("the first freeze given wins: %v, asked %v", err, asked)
	}
	asked = nil
	c = admission.New(nil, nil, stage("takeover", ""), stage("consent", contract.CodeConsentPending))
	if err := c.Admit(context.Background(), click); codeOf(err) != contract.CodeConsentPending || len(asked) != 2 {
		t.Errorf("a freeze that holds nothing passes on: %v, asked %v", err, asked)
	}
}
